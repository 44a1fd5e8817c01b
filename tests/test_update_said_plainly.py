"""Reports the plain reading settles without the model (l3mp/updates/reading.py, meaning.py, gate.py and the
grounding's respelling), on a generated house (seed 7, the main job's; the updates benchmark uses other houses).
The updater here has no model: any call to it fails the update, so each outcome below is the plain path's own."""

from __future__ import annotations

import pytest

from l3mp.updates import APPLIED, DECLINED, NO_CHANGE
from tests.helpers import F
from tests.test_update_reading import _updater_for, house


def _update(text: str, *, off: tuple[str, ...] = ()):
    graph = house().copy()
    for light in off:
        graph.remove_fact(F("light_on", light))
    return _updater_for(graph).update(text)


def _delta(result) -> tuple[set[str], set[str]]:
    return set(map(str, result.record.delta.remove)), set(map(str, result.record.delta.add))


@pytest.mark.parametrize(("text", "removed", "added"), [
    # what was drunk out of a dish is had, and the dish is used
    ("Jessica drank the sparkling water out of the black cup.",
     {"(on sparkling_water_1 side_table_2)"}, {"(dirty black_cup_1)", "(has jessica sparkling_water_1)"}),
    ("Jessica took the black cup out of the pantry in kitchen 2 and had some iced tea in it.",
     {"(inside black_cup_1 pantry_2)", "(inside large_iced_tea_1 fridge_2)"},
     {"(dirty black_cup_1)", "(has jessica black_cup_1)", "(has jessica large_iced_tea_1)"}),
    # a dish given a scrub is washed; a tap run and turned back off ends as it was
    ("Jessica gave the purple plate on the counter a good scrub.", {"(dirty purple_plate_1)"}, set()),
    ("Jessica ran the tap in the kitchen sink in kitchen 1, gave the purple plate a good scrub and turned the tap "
     "back off.", {"(dirty purple_plate_1)"}, set()),
    # a ringing phone grabbed is answered
    ("The pink smartphone in the living room was ringing off the hook so Jessica grabbed it - it was her mum.",
     {"(on pink_smartphone_1 side_table_1)", "(ringing pink_smartphone_1)"}, {"(has jessica pink_smartphone_1)"}),
    # carried through to a room, with an aside on which one between: she took it and went there
    ("Jessica carried the water bottle, not the sparkling water, through to the living room.",
     {"(in_room jessica kitchen_1)", "(on water_bottle_1 shelf_1)"},
     {"(has jessica water_bottle_1)", "(in_room jessica living_room_1)"}),
    # words that may name another thing ("the bathroom light") do not turn a state round that words naming it
    # alone said
    ("Jessica killed the vanity light and put the bathroom light on instead.",
     {"(light_on vanity_light_1)"}, {"(light_on overhead_light_4)"}),
    # where the thing is, then where it goes
    ("Jessica put the water bottle on the shelf in the garage on the kitchen table in kitchen 1.",
     {"(on water_bottle_1 shelf_1)"}, {"(on water_bottle_1 kitchen_table_1)"}),
    ("Jessica put the yellow cup in the dishwasher in kitchen 1 in the pantry in kitchen 1.",
     {"(inside yellow_cup_1 dishwasher_1)"}, {"(inside yellow_cup_1 pantry_1)"}),
    # how it was before, why it was done, what it was like: no part of the change
    ("Jessica finally shut the pantry in kitchen 2, it's been hanging open all day.", {"(is_open pantry_2)"}, set()),
    ("Jessica moved the atlas off the bookshelf onto the nightstand in bedroom 1 so she doesnt forget it tomorrow.",
     {"(on atlas_1 bookshelf_2)"}, {"(on atlas_1 nightstand_1)"}),
    ("Jessica turned off the overhead light in bedroom 2 but she left the desk lamp on, it's less harsh.",
     {"(light_on overhead_light_6)"}, set()),
    ("Jessica went into the living room and answered the pink smartphone on the side table, it'd been ringing for "
     "ages.", {"(in_room jessica kitchen_1)", "(on pink_smartphone_1 side_table_1)", "(ringing pink_smartphone_1)"},
     {"(has jessica pink_smartphone_1)", "(in_room jessica living_room_1)"}),
    ("Jessica put the atlas on the kitchen table in kitchen 1, she's taking a break from revising.",
     {"(on atlas_1 bookshelf_2)"}, {"(on atlas_1 kitchen_table_1)"}),
    ("The atlas is on the kitchen table in kitchen 1 now, dunno who moved it.",
     {"(on atlas_1 bookshelf_2)"}, {"(on atlas_1 kitchen_table_1)"}),
    ("Oh, Jessica is in the garage now by the way.", {"(in_room jessica kitchen_1)"}, {"(in_room jessica garage_1)"}),
    ("Jessica went to the garage and switched the work light off in there, think she's having a lie-down.",
     {"(in_room jessica kitchen_1)", "(light_on work_light_1)"}, {"(in_room jessica garage_1)"}),
    # eaten: the one who ate it has it
    ("Jessica had the small yogurt from the fridge in kitchen 1 for her lunch.",
     {"(inside small_yogurt_1 fridge_1)"}, {"(has jessica small_yogurt_1)"}),
    ("Jessica took the small yogurt out of the fridge in kitchen 1 and ate it, gross.",
     {"(inside small_yogurt_1 fridge_1)"}, {"(has jessica small_yogurt_1)"}),
    ("Jessica put the small leftover pizza out on the counter in kitchen 1.",
     {"(inside small_leftover_pizza_1 fridge_1)"}, {"(on small_leftover_pizza_1 counter_1)"}),
])
def test_a_plain_report_is_applied_as_said(text, removed, added):
    result = _update(text)
    assert result.outcome == APPLIED, result.reason
    assert [a.number for a in result.attempts] == [0]
    assert _delta(result) == (removed, added)


def test_the_one_in_a_room_is_the_thing_of_the_kind_named_before_that_is_there():
    result = _update("Jessica switched off the vanity light in the bathroom and turned the one in the living room "
                     "on instead.", off=("overhead_light_2",))
    assert result.outcome == APPLIED, result.reason
    assert _delta(result) == ({"(light_on vanity_light_1)"}, {"(light_on overhead_light_2)"})


@pytest.mark.parametrize("text", [
    "fyi the vanity light in the bathroom is still on, nobody's bothered to go and turn it off",
    "The blue phone on the nightstand has started buzzing, someone's trying to call.",
])
def test_what_nobody_did_or_who_did_it_changes_nothing(text):
    result = _update(text)
    assert result.outcome == NO_CHANGE, result.reason


def test_a_question_with_a_guess_records_nothing_and_asks_no_model():
    result = _update("Is the living room light still on? Jessica reckons she left it on earlier.")
    assert result.outcome == DECLINED and "only a guess" in result.reason
    assert not result.attempts and result.record is None


@pytest.mark.parametrize("text", ["The plate is still on the kitchen island.",
                                  "The plate's still sat on the kitchen island."])
def test_where_a_thing_still_is_is_the_place_of_that_kind_it_is_at(text):
    result = _update(text)  # two kitchen islands; the plate is on the second
    assert result.outcome == NO_CHANGE, result.reason
    assert "(on plate_1 kitchen_island_2)" in result.reason


def test_what_is_still_where_it_was_after_a_change_is_no_part_of_it():
    result = _update("Jessica put the yellow cup in the pantry in kitchen 1; the plate's still sat on the kitchen "
                     "island though.")
    assert result.outcome == APPLIED, result.reason
    assert _delta(result) == ({"(inside yellow_cup_1 dishwasher_1)"}, {"(inside yellow_cup_1 pantry_1)"})


@pytest.mark.parametrize(("text", "removed", "added"), [
    # what she went on to do after "on her way out" is no part of the way; what she went to do is no place
    ("Jessica flicked the vanity light off on her way out and went to lie down in bedroom 1 for a bit.",
     {"(in_room jessica kitchen_1)", "(light_on vanity_light_1)"}, {"(in_room jessica bedroom_1)"}),
    # poured and drank: the drink is had and the cup it went in is used
    ("Jessica got the yellow cup out of the dishwasher, poured herself some of the small apple juice and drank it.",
     {"(inside small_apple_juice_1 garage_fridge_1)", "(inside yellow_cup_1 dishwasher_1)"},
     {"(dirty yellow_cup_1)", "(has jessica small_apple_juice_1)", "(has jessica yellow_cup_1)"}),
    # "legged it": ran ("it" is no thing); "just before it rang off": when, no event
    ("Jessica legged it up to bedroom 1 and answered the blue phone on the nightstand just before it rang off.",
     {"(in_room jessica kitchen_1)", "(on blue_phone_1 nightstand_1)", "(ringing blue_phone_1)"},
     {"(has jessica blue_phone_1)", "(in_room jessica bedroom_1)"}),
    # opened, took from it and shut it again: the one the thing was in, and it is as it was
    ("Jessica opened the pantry, grabbed the small tea box and shut it again.",
     {"(inside small_tea_box_1 pantry_1)"}, {"(has jessica small_tea_box_1)"}),
    # "no more ...": a remark on what is over
    ("fyi the purple plate's been washed, finally, no more stink", {"(dirty purple_plate_1)"}, set()),
    # "isn't clean" is dirty
    ("The yellow cup in the dishwasher isn't clean at all.", set(), {"(dirty yellow_cup_1)"}),
    # "had her coffee in it": the cup is used; "she's still hanging on to it" says she has it, as before
    ("Jessica took the yellow cup out of the dishwasher and had her coffee in it, she's still hanging on to it.",
     {"(inside yellow_cup_1 dishwasher_1)"}, {"(dirty yellow_cup_1)", "(has jessica yellow_cup_1)"}),
    # what was done with it in between changes nothing
    ("Jessica picked up the atlas from the bookshelf, flicked through it for a bit and then put it down on the "
     "dresser.", {"(on atlas_1 bookshelf_2)"}, {"(on atlas_1 dresser_1)"}),
    # why a light went on, said after it
    ("Jessica turned the under cabinet light in kitchen 1 on, it's getting proper dark in there.", set(),
     {"(light_on under_cabinet_light_1)"}),
    # "halfway through that ...": she is having it; what will be later is no change
    ("Jessica's halfway through that large iced tea from the fridge, she'll be up all night.",
     {"(inside large_iced_tea_1 fridge_2)"}, {"(has jessica large_iced_tea_1)"}),
    ("Jessica got bored and switched the telly on.", set(), {"(tv_on tv_1)"}),
    # "- not the one in the fridge in kitchen 2, the other one": the one that is not there
    ("Jessica took the small yogurt - not the one in the fridge in kitchen 2, the other one.",
     {"(inside small_yogurt_1 fridge_1)"}, {"(has jessica small_yogurt_1)"}),
    # "..., the one in kitchen 1 I mean, not Jessica's kitchen": what is not meant, after what is
    ("Jessica put the yellow cup on the counter, the one in kitchen 1 I mean, not Jessica's kitchen.",
     {"(inside yellow_cup_1 dishwasher_1)"}, {"(on yellow_cup_1 counter_1)"}),
])
def test_how_and_why_people_went_or_did_things_is_read_around(text, removed, added):
    result = _update(text)
    assert result.outcome == APPLIED, result.reason
    assert _delta(result) == (removed, added)


def test_a_thing_taken_and_put_back_where_it_was_has_not_moved():
    result = _update("Jessica took the atlas off the bookshelf and then she put it back on the bookshelf.")
    assert result.outcome == NO_CHANGE, result.reason
