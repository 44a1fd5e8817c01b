"""Grounding a text's mentions to entities without an LLM (l3mp/retrieval/grounding.py), on generated houses."""

from __future__ import annotations

import pytest
from l3mp_sim.house import generate_house

from l3mp.retrieval.grounding import Grounder, Lexicon, tokens
from tests.helpers import F, household, household_rules


@pytest.fixture(scope="module")
def house():
    return generate_house(seed=7).to_graph()


@pytest.fixture(scope="module")
def grounder():
    return Grounder(household(), household_rules())


def found(grounder, graph, text):
    return {m.words: m.candidates for m in grounder.ground(text, graph)}


def test_a_place_after_the_noun_picks_one_of_alike_things_and_is_marked_as_only_locating(grounder, house):
    mentions = grounder.ground("Jessica turned off the overhead light in the bathroom.", house)
    assert [(m.words, m.candidates) for m in mentions] == [
        ("jessica", ("jessica",)), ("overhead light", ("overhead_light_4",)), ("bathroom", ("bathroom_1",))]
    light, bathroom = mentions[1], mentions[2]
    assert len(light.alternatives) == 7 and bathroom.qualifies == 1 and light.qualifies is None


def test_describing_words_and_numbers_narrow_and_unknown_nouns_ground_nothing(grounder, house):
    assert found(grounder, house, "She took the milk out of the fridge in kitchen 2") == {
        "fridge": ("fridge_2",), "kitchen 2": ("kitchen_2",)}
    assert found(grounder, house, "Jessica put the black cup on the kitchen table in kitchen 1") == {
        "jessica": ("jessica",), "black cup": ("black_cup_1",), "kitchen table": ("kitchen_table_1",),
        "kitchen 1": ("kitchen_1",)}
    # house 7 has no mug: "red mug" must not become the red comic book
    assert "red" not in found(grounder, house, "Someone put the red mug in the sink.")


def test_lexicon_words_name_types_and_words_for_all_make_a_plural_mention(grounder, house):
    taps = found(grounder, house, "Someone turned on the tap.")["tap"]
    assert set(taps) == {"faucet_1", "faucet_2", "faucet_3"}
    (lights, _) = grounder.ground("She turned off all the lights in kitchen 2", house)
    assert lights.plural and set(lights.candidates) == {"overhead_light_7", "under_cabinet_light_2"}


def test_a_label_said_in_full_is_preferred_and_possessives_qualify(grounder, house):
    phones = found(grounder, house, "The blue phone is ringing.")["blue phone"]
    assert phones == ("blue_phone_1", "blue_phone_2")
    owner, phone = grounder.ground("Jessica's phone is ringing", house)
    assert owner.qualifies == 1 and phone.words == "phone"


def test_grounding_is_limited_to_the_given_entities(grounder, house):
    assert len(found(grounder, house, "the overhead light")["overhead light"]) == 7
    assert found_in(grounder, house, "the overhead light", {"overhead_light_1", "kitchen_1"}) == {
        "overhead light": ("overhead_light_1",)}


def found_in(grounder, graph, text, names):
    return {m.words: m.candidates for m in grounder.ground(text, graph, names)}


def test_tokens_split_possessives_and_the_lexicon_loads_from_beside_the_domain():
    assert tokens("Jessica\u2019s phone, isn't it?") == ["jessica", "'s", "phone", "isn", "t", "it"]
    lexicon = Lexicon.for_domain(household())
    assert "tap" in lexicon.type_words["faucet"] and "every" in lexicon.all_words
    assert lexicon.covered == {"item", "receptacle"} and lexicon.states["light_on"][False] >= {"off"}


def test_new_things_verbs_and_other_bags_ground_nothing(grounder, house):
    assert found(grounder, house, "We got a new tomato today.") == {}
    assert "bag" not in found(grounder, house, "There's a bag of oranges on the counter.")
    assert found(grounder, house, "Can someone get the ham?") == {"ham": ("ham_1",)}
    assert "can" not in found(grounder, house, "The phone is ringing, can someone get it?")


def test_after_a_verb_of_moving_the_place_is_where_it_went_not_which_thing(grounder, house):
    # two blue phones: "the blue phone on the nightstand" picks the one there; "put the blue phone on the
    # nightstand" does not say which one it was
    said = found(grounder, house, "Jessica put the blue phone on the nightstand.")
    assert said["blue phone"] == ("blue_phone_1", "blue_phone_2")


def test_a_place_after_from_says_which_thing_even_after_a_verb_of_moving(grounder, house):
    # "from the nightstand" is where the phone came from, so it tells the two blue phones apart; the place it went
    # to ("on the desk") does not
    there = found(grounder, house, "the blue phone on the nightstand")["blue phone"]
    assert len(there) == 1
    said = found(grounder, house, "Jessica put the blue phone from the nightstand on the desk.")
    assert said["blue phone"] == there
    moved = found(grounder, house, "Jessica moved the blue phone from the nightstand to the desk.")
    assert moved["blue phone"] == there


def test_the_place_named_by_its_own_words_comes_before_others_of_its_type(grounder):
    graph = generate_house(seed=21).to_graph()  # a soup can in the kitchen cupboard and one in the pantry (a cupboard)
    assert found(grounder, graph, "Sarah moved the soup can from the cupboard to the counter.")["soup can"] == (
        "soup_can_2",)
    assert found(grounder, graph, "Sarah took the soup can from the pantry.")["soup can"] == ("soup_can_1",)


def test_a_room_after_a_bare_type_word_picks_the_one_there_over_the_one_labelled_so(grounder, house):
    # house 7: the one labelled just "shelf" is in the garage; "the shelf in bedroom 1" is that room's bookshelf
    assert found(grounder, house, "Jessica put the atlas on the shelf.")["shelf"] == ("shelf_1",)
    assert found(grounder, house, "Jessica left the atlas on the shelf in bedroom 1.")["shelf"] == ("bookshelf_2",)
    assert found(grounder, house, "Jessica left the atlas on the shelf in the garage.")["shelf"] == ("shelf_1",)


def test_the_other_of_two_alike_places_is_the_one_the_thing_named_before_is_not_on(grounder):
    graph = generate_house(seed=21).to_graph()  # two desks: the glass is on desk_1, the yellow dictionary on desk_2
    assert found(grounder, graph, "Michael moved the glass to the other desk.")["desk"] == ("desk_2",)
    assert found(grounder, graph, "Michael put the yellow dictionary on the other desk.")["desk"] == ("desk_1",)
    assert found(grounder, graph, "Michael put the glass on the desk.")["desk"] == ("desk_1", "desk_2")


def test_my_thing_is_the_speakers(grounder, house):
    # house 7: Jessica has one blue phone, the other is on the nightstand in bedroom 1
    def phone(speaker):
        return {m.words: m.candidates for m in grounder.ground("Bring me my blue phone.", house, speaker=speaker)}
    assert phone("jessica")["blue phone"] == ("blue_phone_2",)
    assert phone(None)["blue phone"] == ("blue_phone_1", "blue_phone_2")


def test_off_the_place_says_which_thing_as_from_does(grounder, house):
    # house 7: "plate" names plate_1 best (on kitchen island 2), but the plate on the dresser is the yellow one
    for said in ("Jessica took the plate off the dresser.", "Jessica took the plate from the dresser."):
        assert found(grounder, house, said)["plate"] == ("yellow_plate_1",), said
    assert found(grounder, house, "Jessica took the plate.")["plate"] == ("plate_1",)
    switched = found(grounder, house, "Jessica switched the bedside lamp off and the TV on.")
    assert switched["bedside lamp"] == ("bedside_lamp_1",) and switched["tv"] == ("tv_1",)


def test_her_thing_is_what_the_person_has_even_when_the_label_names_another_better(grounder, house):
    # house 7 and a plain "phone" on the kitchen table: Jessica has blue phone 2, so "her phone" is that one
    graph = house.copy()
    graph.add_entity("phone_9", "phone", label="phone")
    graph.add_fact(F("on", "phone_9", "kitchen_table_1"))
    assert found(grounder, graph, "Jessica put the phone on the counter.")["phone"] == ("phone_9",)
    assert found(grounder, graph, "Jessica put her phone on the counter.")["phone"] == ("blue_phone_2",)
    assert found(grounder, graph, "Jessica left the nightstand and put her phone on the counter.")["phone"] == (
        "blue_phone_2",)  # the owner is the person named before, not the nearest thing
    assert found(grounder, graph, "Jessica took my phone.")["phone"] == ("phone_9",)  # no speaker: "my" says nothing


def test_here_is_the_speakers_room(grounder, house):
    # house 7: Jessica is in kitchen 1, which has one of the overhead lights
    said = {m.words: m.candidates for m in grounder.ground("Turn on the overhead light in here.", house,
                                                          speaker="jessica")}
    assert said == {"overhead light": ("overhead_light_1",), "here": ("kitchen_1",)}
    unsaid = found(grounder, house, "Turn on the overhead light in here.")
    assert "here" not in unsaid and "overhead_light_1" in unsaid["overhead light"]  # no speaker: "here" names nothing
    assert len(unsaid["overhead light"]) > 1


def test_a_thing_left_in_a_state_is_told_apart_by_its_place_and_not_moved_there(grounder):
    graph = generate_house(seed=1).to_graph()  # two cupboards: the kitchen's and the laundry room's
    mentions = grounder.ground("Jessica left the cupboard in the laundry room open.", graph)
    assert [(m.words, m.candidates, m.qualifies) for m in mentions][1:] == [
        ("cupboard", ("cupboard_2",), None), ("laundry room", ("laundry_room_1",), 1)]
    # a place after a thing that was put there is still where it went ("left the mug in the laundry room")
    mug = grounder.ground("Jessica left the mug in the laundry room.", graph)
    assert mug[-1].words == "laundry room" and mug[-1].qualifies is None
    # "on" followed by more words is a preposition, not the state of the thing left
    table = grounder.ground("Jessica left the mug in the kitchen on the table.", graph)
    assert all(m.qualifies is None for m in table if m.words == "kitchen")


def test_a_word_right_after_to_that_fits_several_things_is_a_verb(grounder, house):
    graph = generate_house(seed=1).to_graph()
    assert "drink" not in found(grounder, graph, "Jessica took the milk carton out of the fridge to drink.")
    assert found(grounder, graph, "Sarah gave the milk carton to David.")["david"] == ("david",)
    assert found(grounder, graph, "Bring the energy drink to me.")["energy drink"] == ("energy_drink_1",)
    assert found(grounder, house, "Jessica walked from bedroom 1 to bedroom 2.")["bedroom 2"] == ("bedroom_2",)


def test_the_shorter_words_for_a_thing_named_before_name_that_thing(grounder, house):
    # house 7: a black wine glass and a wine glass; "the wine glass" after "the black wine glass" is the black one
    said = found(grounder, house, "Jessica took the black wine glass and put the wine glass in the sink.")
    assert said["wine glass"] == ("black_wine_glass_1",)
    alone = found(grounder, house, "Jessica put the wine glass in the sink.")
    assert alone["wine glass"] == ("wine_glass_1",)  # said alone: the one labelled so
    other = found(grounder, house, "Jessica took the black wine glass and washed the other wine glass.")
    assert other["wine glass"] == ("wine_glass_1",)


def test_a_mention_never_spans_a_comma_or_a_stop(grounder, house):
    # house 7: Jessica is in kitchen 1, so "kitchen 1" could describe her; after a comma it is the light's room
    said = found(grounder, house, "Turn off the light in kitchen 1, Jessica is cooking.")
    assert said["kitchen 1"] == ("kitchen_1",) and said["jessica"] == ("jessica",)
    assert set(said["light"]) == {"overhead_light_1", "under_cabinet_light_1"}


def test_a_number_after_a_room_word_before_the_noun_is_the_rooms(grounder):
    graph = generate_house(seed=17).to_graph()  # overhead_light_3 is in another room; bedroom 3's is overhead_light_6
    assert found(grounder, graph, "Sarah turned on the bedroom 3 light.")["bedroom 3 light"] == ("overhead_light_6",)


def test_the_one_is_a_thing_named_before(grounder):
    graph = generate_house(seed=4).to_graph()  # two side tables; the purple magazine is on side_table_2
    said = found(grounder, graph, "Michael moved the purple magazine off its side table onto the other one.")
    assert said["side table"] == ("side_table_2",) and said["other one"] == ("side_table_1",)
    graph = generate_house(seed=58).to_graph()  # photo albums of four colours
    said = found(grounder, graph, "Michael swapped albums: he put the purple one on the shelf and took the grey one.")
    assert said["purple one"] == ("purple_photo_album_1",) and said["grey one"] == ("grey_photo_album_1",)
    mentions = grounder.ground("Michael put the purple album next to the grey one.", graph)
    assert [m.words for m in mentions if m.qualifies is not None] == ["grey one"]  # only says where


def test_from_a_place_of_several_alike_says_which_thing_when_one_of_them_is_on_one(grounder):
    graph = generate_house(seed=58).to_graph()  # two orange magazines, one on a bookshelf; three bookshelves
    said = found(grounder, graph, "Jessica moved the orange magazine from the bookshelf to the side table.")
    assert said["orange magazine"] == ("orange_magazine_1",) and said["bookshelf"] == ("bookshelf_1",)


def test_a_word_in_ing_after_a_word_of_doing_is_a_verb_not_a_things_describing_word(grounder):
    graph = generate_house(seed=52).to_graph()  # a reading lamp in the living room
    assert "reading_lamp_1" in graph.entities()
    assert "reading" not in found(grounder, graph, "Michael took the yellow textbook and started reading it.")
    assert "reading" not in found(grounder, graph, "Michael is reading in the living room.")
    assert found(grounder, graph, "Michael switched on his reading lamp.")["reading lamp"] == ("reading_lamp_1",)


def test_a_room_named_after_a_thing_not_in_it_lets_the_things_there_fit_too(grounder):
    """"The wall lamp in hallway 2" when the lamp labelled so is in hallway 1 and the one in hallway 2 is perceived
    only as "light": both fit (the reading asks), not the one the label matches."""
    graph = generate_house(seed=93).to_graph()
    graph.add_entity("wall_lamp_2", graph.entity_type("wall_lamp_2") or "", label="light")
    named = found(grounder, graph, "Michael switched on the wall lamp in hallway 2.")["wall lamp"]
    assert {"wall_lamp_1", "wall_lamp_2"} <= set(named)
    # where something is put is no place that says which thing
    assert found(grounder, graph, "Michael put the wall lamp in hallway 2.")["wall lamp"] == ("wall_lamp_1",)


def test_a_word_before_a_thing_that_describes_another_lets_that_one_fit_too(grounder):
    """"The small bag of chips" when the bag of chips is not small and the small one is perceived as "object"."""
    graph = generate_house(seed=17).to_graph()
    graph.add_entity("small_bag_of_chips_1", graph.entity_type("small_bag_of_chips_1") or "", label="object")
    assert set(found(grounder, graph, "Jessica is eating the small bag of chips.")["bag of chips"]) == {
        "bag_of_chips_1", "small_bag_of_chips_1"}
    assert found(grounder, graph, "Jessica is eating the bag of chips.")["bag of chips"] == ("bag_of_chips_1",)


def test_the_other_of_two_is_the_one_not_named_before(grounder):
    graph = generate_house(seed=98).to_graph()  # two kitchens, each with a dishwasher
    said = found(grounder, graph, "Close the fridge in kitchen 1, then wash the red plate in the other kitchen's "
                                  "dishwasher.")
    assert said["kitchen"] == ("kitchen_2",) and said["dishwasher"] == ("dishwasher_2",)


def test_the_room_said_after_what_a_thing_is_doing_says_which_of_alike_things(grounder, house):
    mentions = grounder.ground("The overhead light is still on in the bathroom, nobody switched it off.", house)
    assert [(m.words, m.candidates) for m in mentions] == [
        ("overhead light", ("overhead_light_4",)), ("bathroom", ("bathroom_1",))]
    assert mentions[1].qualifies == 0  # the room only says which light
    # a verb of moving makes the room where the thing went, not which one it is
    lying = grounder.ground("The book is lying around in bedroom 1.", house)
    assert lying[0].candidates == ("atlas_1", "black_photo_album_1") and lying[1].qualifies == 0
    moved = grounder.ground("Jessica carried the book all the way in bedroom 1.", house)
    assert len(moved[1].candidates) == 9 and moved[2].qualifies is None
    assert len(grounder.ground("Jessica left the book in bedroom 1.", house)[1].candidates) == 9


def test_a_number_only_names_have_counts_the_alike_things_of_the_room_said_after_it(grounder, house):
    # kitchen 2 has two pantries (pantry_2, pantry_3) and kitchen 1 has pantry_1: "the pantry 2 in kitchen 2" is
    # kitchen 2's second pantry, as the simulator's people (and the house's own numbering) say it
    mentions = grounder.ground("Jessica opened the pantry 2 in kitchen 2.", house)
    assert [(m.words, m.candidates) for m in mentions][1:] == [("pantry 2", ("pantry_3",)),
                                                               ("kitchen 2", ("kitchen_2",))]
    first = grounder.ground("Jessica opened the pantry 1 in kitchen 2.", house)
    assert first[1].candidates == ("pantry_2",)
    # without a room after it, the number is the name's ("the pantry 1" is pantry_1)
    assert grounder.ground("Jessica opened the pantry 1.", house)[1].candidates == ("pantry_1",)


def test_a_room_word_before_a_noun_is_no_thing_whose_own_name_uses_it_for_another_noun(grounder, house):
    # house 7: the counter in kitchen 1, and two kitchen islands (counters by type) in kitchen 2
    assert found(grounder, house, "Jessica put the cup on the kitchen counter.")["kitchen counter"] == ("counter_1",)
    # but a smartphone is a phone: "the pink phone" of a pink cordless phone and a pink smartphone fits both
    graph = house.copy()
    graph.add_entity("pink_cordless_phone_9", "phone", label="pink cordless phone")
    graph.add_fact(F("on", "pink_cordless_phone_9", "kitchen_table_1"))
    assert set(found(grounder, graph, "the pink phone is ringing")["pink phone"]) == {"pink_cordless_phone_9",
                                                                                     "pink_smartphone_1"}
