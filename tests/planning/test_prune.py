"""Needless steps of a valid plan are dropped before the robot acts (l3mp/planning/prune.py), on the main job's
house (seed 7): the robot in kitchen 1 beside the open dishwasher, the purple plate dirty on the counter."""

from __future__ import annotations

from functools import cache

from l3mp_sim.house import house_graph

from l3mp.planning.pipeline import TaskPlanner
from l3mp.planning.prune import without_needless_steps
from l3mp.planning.validate import validate_plan
from l3mp.retrieval import FullRetriever
from l3mp.world.delta import state_delta
from l3mp.world.model import WorldModel
from tests.helpers import household, household_rules

WASH = "(not (dirty purple_plate_1))"


@cache
def _world() -> WorldModel:
    world = WorldModel(household(), household_rules())
    world.apply(state_delta(household(), world.graph, house_graph(7), replace=True), source="import")
    return world


def _wash_plan() -> list[str]:
    result = TaskPlanner(_world(), None, FullRetriever()).plan("Wash the purple plate.")
    assert result.ok and result.goal == WASH, result.reason
    return list(result.plan)


def test_a_step_that_serves_nothing_and_a_trip_there_and_back_are_dropped():
    graph = _world().graph
    plan = _wash_plan()
    padded = ["(close_container the_robot dishwasher_1 kitchen_1)",  # changes the home for no reason
              "(move the_robot kitchen_1 kitchen_2)", "(move the_robot kitchen_2 kitchen_1)", *plan]
    assert validate_plan(household(), graph, padded, WASH).valid  # the padded plan is valid: only longer
    assert without_needless_steps(household(), graph, padded, WASH) == plan


def test_a_plan_whose_every_step_is_needed_is_left_as_it_is():
    graph = _world().graph
    plan = _wash_plan()
    assert without_needless_steps(household(), graph, plan, WASH) == plan
    assert without_needless_steps(household(), graph, plan[:1], WASH) == plan[:1]  # one step: nothing to try
    assert len(plan) >= 3 and all(not validate_plan(household(), graph, plan[:i] + plan[i + 1:], WASH).valid
                                  for i in range(len(plan)))
