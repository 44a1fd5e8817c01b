"""Plain requests read without the LLM (l3mp/planning/request.py) on a generated house (seed 7, the main job's; the
goals benchmark uses other houses): goals, questions back, nothing to do, and TaskPlanner taking that path."""

from __future__ import annotations

from functools import cache

import pytest
from l3mp_sim.house import house_graph

from l3mp.planning.goal import same_goal
from l3mp.planning.pipeline import TaskPlanner
from l3mp.planning.request import ASKED, GOAL, SATISFIED, read_request
from l3mp.retrieval import FullRetriever
from l3mp.world.delta import state_delta
from l3mp.world.model import WorldModel
from tests.helpers import household, household_rules


@cache
def _world() -> WorldModel:
    world = WorldModel(household(), household_rules())
    world.apply(state_delta(household(), world.graph, house_graph(7), replace=True), source="import")
    return world


def reading(text: str, speaker: str | None = None):
    world = _world()
    return read_request(text, world.graph, world.domain, world.verifier.rules, speaker=speaker)


@pytest.mark.parametrize(("text", "speaker", "goal"), [
    ("Please switch off the vanity light in the bathroom.", None, "(not (light_on vanity_light_1))"),
    ("Could you bring me the water bottle from the garage?", "jessica", "(has jessica water_bottle_1)"),
    ("Take the atlas to the nightstand in bedroom 1 and close the dishwasher.", None,
     "(and (on atlas_1 nightstand_1) (not (is_open dishwasher_1)))"),
    ("Turn off all the lights in bedroom 2.", None,
     "(and (not (light_on desk_lamp_1)) (not (light_on overhead_light_6)))"),
    ("Wash the purple plate.", None, "(not (dirty purple_plate_1))"),
    ("Give Jessica the small yogurt from the fridge in kitchen 1.", None, "(has jessica small_yogurt_1)"),
])
def test_a_plain_request_is_read_into_its_goal(text, speaker, goal):
    found = reading(text, speaker)
    world = _world()
    assert found is not None and found.outcome == GOAL and same_goal(world.domain, world.graph, found.goal, goal)


def test_alike_things_that_would_all_change_are_asked_about():
    found = reading("Put the thick magazine on the bookshelf in bedroom 1.")
    assert found is not None and found.outcome == ASKED and found.goal is None
    assert found.question.startswith("Which magazine do you mean: the thick magazine")


def test_alike_things_of_which_one_would_change_need_no_question():
    found = reading("Answer the blue phone.")  # both ring: ask
    assert found is not None and found.outcome == ASKED
    found = reading("Turn on the overhead light.")  # of seven overhead lights, six are off: ask
    assert found is not None and found.outcome == ASKED


def test_a_request_that_holds_already_is_satisfied():
    found = reading("Make sure the dishwasher in kitchen 2 is closed.")
    assert found is not None and found.outcome == SATISFIED and found.goal == "(not (is_open dishwasher_2))"


@pytest.mark.parametrize(("text", "speaker"), [
    ("Bring me the water bottle.", None),  # who "me" is is not known
    ("Turn off the vanity light but leave the bedside lamp on.", None),  # a negation: the model reads it
    ("The blue phone is ringing, answer it.", None),  # says what is so, to ask for something else
    ("Bake a cake.", None),  # nothing in memory
])
def test_what_the_reading_cannot_be_sure_of_goes_to_the_model(text, speaker):
    assert reading(text, speaker) is None


def test_the_planner_plans_a_plain_request_without_an_llm_and_asks_or_stops_without_planning():
    planner = TaskPlanner(_world(), None, FullRetriever())
    result = planner.plan("Could you bring me the water bottle from the garage?", speaker="jessica")
    assert result.ok and result.outcome == "planned" and result.goal_source == "read"
    assert result.ledger.prompt_tokens == 0 and result.plan[-1].startswith("(give the_robot water_bottle_1 jessica")
    asked = planner.plan("Answer the blue phone.")
    assert asked.outcome == "asked" and asked.plan == [] and "blue phone" in asked.question
    done = planner.plan("Make sure the dishwasher in kitchen 2 is closed.")
    assert done.outcome == "satisfied" and done.plan == [] and done.to_json()["outcome"] == "satisfied"
