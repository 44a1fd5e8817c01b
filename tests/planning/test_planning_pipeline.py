"""Algorithm 4 on a generated house with given goals (no LLM): plans valid in the full state, expansion, failures."""

from __future__ import annotations

from functools import cache

import pytest

from l3mp.llm.types import TokenLedger
from l3mp.planning import pipeline
from l3mp.planning.pipeline import TaskPlanner
from l3mp.planning.planner import PlanOutcome, plan
from l3mp.retrieval import FullRetriever, Retrieved, always_needed
from l3mp.world.graph import WorldGraph
from l3mp.world.model import WorldModel
from tests.helpers import ROBOT, household
from tests.planning.planning_support import LIGHTS_AND_FAUCETS_OFF, first_of, house_graph, import_delta, tasks


@cache
def _world() -> WorldModel:
    world = WorldModel(household())
    world.apply(import_delta(house_graph(6)), source="import")
    return world


@pytest.fixture
def world() -> WorldModel:
    """The generated house (default size) in a world model; the tests only read it."""
    return _world()


class RobotOnly:
    """A retriever that returns too little: only the robot and its own facts."""

    mode = "robot-only"

    def retrieve(self, request: str, graph: WorldGraph, *, ledger: TokenLedger | None = None) -> Retrieved:
        entities, facts = always_needed(graph, household())
        return Retrieved(self.mode, frozenset(entities), frozenset(facts))


def test_a_given_goal_is_planned_on_the_full_graph_and_valid_in_the_full_state(world):
    result = TaskPlanner(world, None, FullRetriever()).plan("turn off all lights and faucets",
                                                            goal=LIGHTS_AND_FAUCETS_OFF)
    assert result.ok and result.status == "solved", result.reason
    assert result.validation.valid and result.expansions == 0 and result.plan
    assert result.ledger.total_tokens == 0 and result.planner_seconds > 0
    assert "(:goal" in result.problem_pddl and "(:init" in result.problem_pddl
    assert result.to_json()["ok"] is True


def test_too_little_context_is_expanded_until_the_plan_is_found_and_valid(world):
    goal = tasks(world.graph)["give-food"]
    result = TaskPlanner(world, None, RobotOnly()).plan("give food to someone", goal=goal)
    assert result.ok, result.reason
    assert 1 <= result.expansions <= 2 and "widened the context" in result.reason
    assert result.context_entities < world.graph.entity_count()


def test_without_expansions_too_little_context_fails_and_says_so(world):
    goal = tasks(world.graph)["give-food"]
    result = TaskPlanner(world, None, RobotOnly(), max_expansions=0).plan("give food", goal=goal)
    assert not result.ok and result.status == "unsolvable" and result.expansions == 0
    assert "retrieved context" in result.reason and "0 expansion(s)" in result.reason


def test_an_unreachable_goal_is_unsolvable_with_the_reason(world):
    graph = world.graph
    table = first_of(graph, "table")
    here = next(f.args[1] for f in graph.facts(predicate="in_room", entity=table) if f.args[0] == table)
    elsewhere = next(r for r in sorted(graph.entities()) if graph.entity_type(r) == "room" and r != here)
    result = TaskPlanner(world, None, FullRetriever()).plan("move the table", goal=f"(in_room {table} {elsewhere})")
    assert result.status == "unsolvable" and not result.ok and result.plan == []
    assert "no plan exists" in result.reason and "full state" in result.reason


def test_an_invalid_given_goal_is_reported_without_planning(world):
    result = TaskPlanner(world, None, FullRetriever()).plan("x", goal="(and (light_on lamp_99))")
    assert result.status == "invalid_goal" and "unknown object 'lamp_99'" in result.reason
    assert result.planner_seconds == 0 and result.problem_pddl == ""


def test_without_a_goal_and_without_an_llm_the_goal_is_invalid(world):
    result = TaskPlanner(world, None, FullRetriever()).plan("turn off the lights")
    assert result.status == "invalid_goal" and "no LLM" in result.reason


def test_a_plan_invalid_in_the_full_state_widens_the_context_with_the_unsatisfied_entities(world, monkeypatch):
    calls = []

    def first_plan_stale(problem, **options):
        calls.append(len(problem.all_objects))
        if len(calls) == 1:  # as if the retrieved context were stale: the lamp is not where the robot is
            return PlanOutcome("solved", plan=[f"(turn_off_light the_robot {lamp} {room})"], engine="stale")
        return plan(problem, **options)

    graph = world.graph
    lamp = sorted(f.args[0] for f in graph.facts(predicate="light_on"))[0]
    room = next(f.args[1] for f in graph.facts(predicate="in_room", entity=ROBOT) if f.args[0] == ROBOT)
    monkeypatch.setattr(pipeline, "plan", first_plan_stale)
    result = TaskPlanner(world, None, RobotOnly()).plan("lamp off", goal=f"(and (not (light_on {lamp})))")
    assert result.ok and result.expansions >= 1, result.reason
    assert "the plan fails in the full state" in result.reason and calls[1] > calls[0]
