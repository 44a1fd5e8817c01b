"""What the checks make of a model's answer that the text settles otherwise (l3mp/updates/meaning.py), on a
generated house (seed 7, the main job's; the updates benchmark uses other houses).

The model is a labelled test double that gives one fixed answer: these tests are about what the checks do with
that answer, whatever model gave it (the embedded model's own answers are measured by `l3mp bench updates`)."""

from __future__ import annotations

import json

from l3mp_sim.house import house_graph

from l3mp.llm.types import LLMReply, Usage
from l3mp.retrieval import make_retriever
from l3mp.retrieval.grounding import Grounder, Lexicon
from l3mp.updates import APPLIED, ASKED, NLUpdater
from l3mp.updates.meaning import Stated, repair
from l3mp.world.delta import state_delta
from l3mp.world.model import WorldModel
from tests.helpers import F, household, household_rules


class _Answers:
    """Test double of the model: answers every call with the same changes."""

    name = "test-double"

    def __init__(self, *changes: tuple[str, tuple[str, ...], bool]) -> None:
        self.data = {"changes": [{"predicate": p, "args": list(a), "true": t} for p, a, t in changes]}

    def complete_json(self, messages, *, schema, schema_name, purpose, ledger=None):
        return LLMReply(self.data, json.dumps(self.data), Usage(1, 1), self.name)


def _update(graph, text: str, *changes: tuple[str, tuple[str, ...], bool]):
    world = WorldModel(household(), household_rules())
    world.apply(state_delta(household(), world.graph, graph, replace=True), source="import")
    llm = _Answers(*changes)
    updater = NLUpdater(world, llm, make_retriever("full", llm=llm, domain=household()), read_text=False)
    return updater.update(text)


def _delta(result) -> tuple[set[str], set[str]]:
    return set(map(str, result.record.delta.remove)), set(map(str, result.record.delta.add))


def test_a_state_word_after_a_feeling_about_it_is_no_state_now():
    graph = house_graph(7).copy()
    graph.remove_fact(F("ringing", "blue_phone_2"))
    result = _update(graph, "Jessica put her blue phone down on the kitchen table, she's sick of it buzzing.",
                     ("on", ("blue_phone_2", "kitchen_table_1"), True), ("has", ("jessica", "blue_phone_2"), False))
    assert result.outcome == APPLIED, result.reason
    assert _delta(result) == ({"(has jessica blue_phone_2)"}, {"(on blue_phone_2 kitchen_table_1)"})


def test_the_one_person_named_to_say_which_place_is_she_who_then_takes_it():
    graph = house_graph(7).copy()
    graph.remove_fact(F("in_room", "jessica", "kitchen_1"))
    graph.add_fact(F("in_room", "jessica", "bedroom_1"))
    text = "The blue phone on Jessica's nightstand kept buzzing so she grabbed it and picked up."
    stated = [Stated(F("ringing", "blue_phone_1"), False), Stated(F("has", "jessica", "blue_phone_1"), True),
              Stated(F("on", "blue_phone_1", "nightstand_1"), False)]
    mentions = Grounder(household(), household_rules()).ground(text, graph)
    assert repair(stated, mentions, text, Lexicon.for_domain(household()), household_rules(), graph,
                  household()) == (stated, [])
    # named only to say which: "the phone on Jessica's nightstand is ringing" gives her nothing
    text = "The blue phone on Jessica's nightstand is ringing."
    mentions = Grounder(household(), household_rules()).ground(text, graph)
    kept, notes = repair(stated[1:2], mentions, text, Lexicon.for_domain(household()), household_rules(), graph,
                         household())
    assert kept == [] and "only to say which thing it means" in notes[0]


def test_of_things_the_words_fit_the_one_that_was_where_the_text_says_is_meant():
    graph = house_graph(7).copy()
    graph.add_entity("white_atlas_1", "book", label="white atlas")
    graph.add_fact(F("on", "white_atlas_1", "bookshelf_3"))
    text = "The atlas that was on the bookshelf in bedroom 1 is gone, Jessica's got it."
    result = _update(graph, text, ("has", ("jessica", "white_atlas_1"), True),
                     ("on", ("white_atlas_1", "bookshelf_2"), False))
    assert result.outcome == APPLIED, result.reason
    assert _delta(result) == ({"(on atlas_1 bookshelf_2)"}, {"(has jessica atlas_1)"})
    assert "white_atlas_1 -> atlas_1" in result.reason


def test_one_of_several_is_asked_about_when_the_change_fits_more_than_one():
    graph = house_graph(7).copy()
    graph.remove_fact(F("has", "jessica", "blue_phone_2"))
    graph.add_fact(F("on", "blue_phone_2", "kitchen_table_1"))  # both blue phones ring, neither is held
    text = "One of the blue phones was going off and Jessica answered it."
    for changes in ([("ringing", ("blue_phone_1",), False), ("has", ("jessica", "blue_phone_1"), True)],
                    [("ringing", ("blue_phone_1",), False), ("has", ("jessica", "blue_phone_1"), True),
                     ("ringing", ("blue_phone_2",), False), ("has", ("jessica", "blue_phone_2"), True)]):
        result = _update(graph, text, *changes)
        assert result.outcome == ASKED and result.question.startswith("Which of the phones do you mean"), result
    graph.remove_fact(F("ringing", "blue_phone_2"))  # only one rings: the one that was going off
    result = _update(graph, text, ("ringing", ("blue_phone_1",), False), ("has", ("jessica", "blue_phone_1"), True))
    assert result.outcome == APPLIED, result.reason


def test_the_words_of_a_thing_named_are_no_verb_of_a_clause():
    # "reading" of "the reading lamp" is no verb: "and the reading lamp as well" shares "put ... on" before it
    graph = house_graph(7).copy()
    graph.add_entity("reading_lamp_1", "light", label="reading lamp")
    graph.add_fact(F("in_room", "reading_lamp_1", "living_room_1"))
    result = _update(graph, "Jessica's put the telly on and the reading lamp as well, she's settled in for the night.",
                     ("tv_on", ("tv_1",), True), ("light_on", ("reading_lamp_1",), True))
    assert result.outcome == APPLIED, result.reason
    assert _delta(result) == (set(), {"(tv_on tv_1)", "(light_on reading_lamp_1)"})


def test_a_thing_that_went_somewhere_was_moved_there():
    result = _update(house_graph(7).copy(), "Jessica cleared the counter: the purple plate went in the dishwasher.",
                     ("inside", ("purple_plate_1", "dishwasher_1"), True))
    assert result.outcome == APPLIED, result.reason
    assert _delta(result) == ({"(on purple_plate_1 counter_1)"}, {"(inside purple_plate_1 dishwasher_1)"})
