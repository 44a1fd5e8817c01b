"""Misspelt words read as words of the home (l3mp/retrieval/spelling.py), in grounding, in the update path and in
the request path: no model is asked for a plain sentence with a typo."""

from __future__ import annotations

import pytest
from l3mp_sim.house import house_graph

from l3mp.planning.pipeline import TaskPlanner
from l3mp.retrieval import FullRetriever
from l3mp.retrieval.grounding import Grounder
from l3mp.retrieval.spelling import respell
from l3mp.updates import APPLIED
from tests.helpers import F, household, household_rules
from tests.test_update_reading import _NoModel, _updater

KNOWN = {"jessica", "turned", "kitchen", "cabinet", "light", "lamp", "bedside", "orange", "fridge", "cold", "table",
         "turn"}


@pytest.mark.parametrize(("text", "expected", "pairs"), [
    ("jessca turnd the kichen tap", "jessica turned the kitchen tap",
     [("jessca", "jessica"), ("turnd", "turned"), ("kichen", "kitchen")]),  # a letter left out
    ("the Kicthen light", "the Kitchen light", [("Kicthen", "kitchen")]),  # swapped, the capital kept
    ("the fridgge door, the cabbinet", "the fridge door, the cabinet",
     [("fridgge", "fridge"), ("cabbinet", "cabinet")]),  # a letter doubled
    ("trun on the lmap", "turn on the lamp", [("trun", "turn"), ("lmap", "lamp")]),  # four letters: a swap only
])
def test_a_letter_left_out_swapped_or_doubled_is_read_as_the_known_word(text, expected, pairs):
    assert respell(text, KNOWN) == (expected, tuple(pairs))


@pytest.mark.parametrize("text", [
    "I could see the lamps",  # "could" is one letter from "cold" (added): added letters are never typos
    "the lamp beside the bed",  # a real word the lexicon keeps ("beside" is not "bedside")
    "the range and the tables",  # kept; a known word with an ending
    "the tble",  # shorter than five letters, and no swap
    "the lam is on",  # three letters: never respelt
    "the kitchon light",  # a letter changed: too many real words are one changed letter from a known one
])
def test_real_words_endings_short_words_kept_words_and_changed_letters_are_left_alone(text):
    assert respell(text, KNOWN, keep={"beside", "range"}) == (text, ())


def test_two_known_words_one_edit_away_leave_the_word_as_it_is():
    assert respell("the ligt", {"light", "ligth"}) == ("the ligt", ())
    assert respell("carried the plats", {"plate", "plats"}) == ("carried the plats", ())


def test_the_grounder_respells_with_the_homes_names_labels_and_the_lexicons_words():
    graph = house_graph(7)
    grounder = Grounder(household(), household_rules())
    said, changed = grounder.respell("Jessca turnd off the overhed light in the bathrom beside the sink", graph)
    assert said == "Jessica turned off the overhead light in the bathroom beside the sink"
    assert [w for w, _ in changed] == ["Jessca", "turnd", "overhed", "bathrom"]
    assert grounder.respell("the bedside lamp could be cold", graph) == ("the bedside lamp could be cold", ())


def test_an_update_with_typos_is_read_without_the_model_and_says_how_it_was_read():
    nl = _updater()
    result = nl.update("Jessca turnd on the overhed light in the bathrom.")
    assert result.outcome == APPLIED and [a.number for a in result.attempts] == [0], result.reason
    assert set(result.record.delta.add) == {F("light_on", "overhead_light_4")} and not result.record.delta.remove
    assert "'turnd' as 'turned'" in result.reason and "'bathrom' as 'bathroom'" in result.reason
    assert result.record.input == "Jessca turnd on the overhed light in the bathrom."  # provenance: what was said


def test_a_request_with_typos_is_read_without_the_model_and_keeps_what_was_said():
    nl = _updater()
    planner = TaskPlanner(nl.world, _NoModel(), FullRetriever())
    result = planner.plan("please turn on the overhed light in the bathrom", speaker="jessica")
    assert result.goal_source == "read" and result.goal == "(light_on overhead_light_4)", result.reason
    assert result.task == "please turn on the overhed light in the bathrom"
    assert result.respelt == (("overhed", "overhead"), ("bathrom", "bathroom"))
    assert result.to_json()["respelt"] == [["overhed", "overhead"], ["bathrom", "bathroom"]]
