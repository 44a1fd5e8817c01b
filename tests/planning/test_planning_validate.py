"""Tests of plan validation on the full graph: the verdict, and the failing step and literals named precisely."""

from __future__ import annotations

import pytest

from l3mp.errors import ProblemError
from l3mp.planning.validate import validate_plan
from tests.helpers import F, house_graph, household
from tests.planning.planning_support import LIGHTS_AND_FAUCETS_OFF

# In the small house of tests.helpers the robot is in the kitchen; the dirty mug is on the counter there.
WASH_MUG = [
    "(pick_from_surface the_robot mug1 counter1 kitchen)",
    "(turn_on_faucet the_robot faucet1 kitchen)",
    "(wash_dish the_robot mug1 sink1 faucet1 kitchen)",
]
LIGHTS_OFF = [
    "(move the_robot kitchen living_room)",
    "(turn_off_light the_robot lamp1 living_room)",
]


def validate(plan, goal="(not (dirty mug1))", graph=None):
    return validate_plan(household(), graph or house_graph(), plan, goal)


def test_a_valid_plan_is_valid():
    result = validate(WASH_MUG)
    assert (result.valid, result.failed_step, result.unsatisfied) == (True, None, [])
    assert validate(LIGHTS_OFF, LIGHTS_AND_FAUCETS_OFF).valid


def test_steps_in_the_wrong_order_name_the_step_and_the_false_precondition():
    result = validate([WASH_MUG[0], WASH_MUG[2], WASH_MUG[1]])
    assert not result.valid
    assert (result.failed_step, result.failed_action) == (1, WASH_MUG[2])
    assert result.unsatisfied == ["(faucet_on faucet1)"]
    assert "step 2 of 3" in result.message and "(faucet_on faucet1) is false" in result.message


def test_a_missing_step_is_caught_at_the_step_that_needed_it():
    result = validate(WASH_MUG[1:])
    assert (result.failed_step, result.unsatisfied) == (1, ["(holding the_robot mug1)"])


def test_every_false_precondition_is_listed_including_negative_ones():
    result = validate(["(move the_robot bedroom kitchen)"])
    assert result.unsatisfied == ["(in_room the_robot bedroom)", "(not (in_room the_robot kitchen))"]


def test_a_plan_that_stops_short_names_the_goal_atoms_left_false():
    result = validate(WASH_MUG[:2])
    assert (result.valid, result.failed_step, result.failed_action) == (False, None, None)
    assert result.unsatisfied == ["(not (dirty mug1))"]
    assert "goal is not reached" in result.message


def test_a_universal_goal_is_explained_by_the_entities_that_break_it():
    graph = house_graph()
    graph.add_fact(F("light_on", "lamp2"))
    graph.add_fact(F("faucet_on", "faucet1"))
    result = validate(LIGHTS_OFF, LIGHTS_AND_FAUCETS_OFF, graph)
    assert result.unsatisfied == ["(not (light_on lamp2))", "(not (faucet_on faucet1))"]


def test_the_plan_is_checked_against_the_current_graph():
    graph = house_graph()
    graph.remove_fact(F("on", "mug1", "counter1"))
    graph.add_fact(F("on", "mug1", "table1"))  # someone moved the mug to the living room
    result = validate(WASH_MUG, graph=graph)
    assert (result.failed_step, result.unsatisfied) == (0, ["(on mug1 counter1)"])


@pytest.mark.parametrize("step, message", [
    ("(teleport the_robot bedroom)", "no action 'teleport'"),
    ("(move the_robot kitchen garage)", "unknown object 'garage'"),
    ("(move the_robot kitchen)", "takes 3 argument"),
])
def test_an_unreadable_step_is_the_failing_step(step, message):
    result = validate([WASH_MUG[0], step])
    assert (result.valid, result.failed_step, result.failed_action) == (False, 1, step)
    assert message in result.message and result.message.startswith("step 2:")


def test_the_empty_plan_is_valid_exactly_when_the_goal_already_holds():
    assert validate([], "(dirty mug1)").valid
    assert validate([]).unsatisfied == ["(not (dirty mug1))"]


def test_a_bad_goal_is_the_callers_error():
    with pytest.raises(ProblemError, match="no predicate 'clean'"):
        validate(WASH_MUG, "(clean mug1)")


def test_a_false_formula_that_cannot_be_broken_down_is_shown_whole():
    result = validate([], "(and (exists (?p - person) (has ?p apple1)) (or (dirty plate1) (on mug1 sink1)))")
    assert result.unsatisfied == ["(exists (?p - person) (has ?p apple1))", "(or (dirty plate1) (on mug1 sink1))"]
    negated = validate([], "(not (exists (?d - dish) (dirty ?d)))")
    assert negated.unsatisfied == ["(not (dirty mug1))"]
