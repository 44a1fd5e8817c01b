"""Algorithm 4 on a generated house with given goals (no LLM): plans valid in the full state, expansion, failures."""

from __future__ import annotations

from functools import cache

import pytest

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.llm.types import TokenLedger
from l3mp.planning.pipeline import TaskPlanner
from l3mp.retrieval import FullRetriever, Retrieved, always_needed
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.graph import WorldGraph
from l3mp.world.model import WorldModel
from tests.helpers import household
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
    result = TaskPlanner(world, None, FullRetriever()).plan("make it cosy in here")  # nothing a plain reading has
    assert result.status == "invalid_goal" and "no LLM" in result.reason and result.outcome == "no_goal"
    unread = TaskPlanner(world, None, FullRetriever(), read_requests=False).plan("turn off the lights")
    assert unread.status == "invalid_goal" and unread.goal_source == "llm"


SLEEPERS = """(define (domain sleepers)
 (:requirements :strips :typing :negative-preconditions :existential-preconditions)
 (:types room person bot)
 (:predicates (at ?b - bot ?x - room) (asleep ?p - person ?x - room) (lamp_on ?x - room))
 (:action go :parameters (?b - bot ?from - room ?to - room)
   :precondition (and (at ?b ?from) (not (exists (?p - person) (asleep ?p ?to))))
   :effect (and (not (at ?b ?from)) (at ?b ?to)))
 (:action wake :parameters (?b - bot ?p - person ?x - room)
   :precondition (asleep ?p ?x)
   :effect (not (asleep ?p ?x)))
 (:action switch_on :parameters (?b - bot ?x - room)
   :precondition (at ?b ?x)
   :effect (lamp_on ?x)))"""
"""A domain whose precondition quantifies: a retrieval that misses the sleeper makes a plan that fails in the
full state (nobody may enter a room where someone sleeps)."""


class Rooms:
    """A retriever that misses the people: only the bot and the rooms, with their facts."""

    mode = "rooms-only"

    def retrieve(self, request: str, graph: WorldGraph, *, ledger: TokenLedger | None = None) -> Retrieved:
        names = {"bot_1", "hall", "bedroom"}
        return Retrieved(self.mode, frozenset(names), frozenset(graph.facts_within(names)))


def sleepers_world() -> WorldModel:
    """The bot in the hall, alice asleep in the bedroom: a plan over the rooms alone fails in the full state."""
    world = WorldModel(Domain.from_string(SLEEPERS))
    entities = {"bot_1": "bot", "hall": "room", "bedroom": "room", "alice": "person"}
    facts = (Fact("at", ("bot_1", "hall")), Fact("asleep", ("alice", "bedroom")))
    world.apply(Delta(add=facts, entities={n: EntitySpec(t) for n, t in entities.items()}), source="import")
    return world


def test_a_plan_invalid_in_the_full_state_widens_the_context_with_the_entities_of_the_failing_precondition():
    result = TaskPlanner(sleepers_world(), None, Rooms()).plan("lamp on in the bedroom", goal="(lamp_on bedroom)")
    assert result.ok and result.expansions == 1, result.reason
    assert "the plan fails in the full state" in result.reason and "(asleep alice bedroom)" in result.reason
    assert result.plan[0] == "(wake bot_1 alice bedroom)" and "(go bot_1 hall bedroom)" in result.plan


def test_without_expansions_the_invalid_plan_is_reported_with_the_failing_step():
    result = TaskPlanner(sleepers_world(), None, Rooms(), max_expansions=0).plan("lamp on", goal="(lamp_on bedroom)")
    assert result.status == "solved" and not result.ok and result.validation is not None
    assert result.validation.failed_step == 0 and result.validation.unsatisfied == ["(not (asleep alice bedroom))"]
    assert "the plan found is not valid in the full state: step 1 of 2, (go bot_1 hall bedroom)" in result.reason


def test_a_planner_timeout_is_reported_with_the_limit(world):
    big = WorldModel(household())
    big.apply(import_delta(house_graph(6, target_entities=450)), source="import")
    result = TaskPlanner(big, None, FullRetriever(), timeout_s=0.2).plan("all off", goal=LIGHTS_AND_FAUCETS_OFF)
    assert result.status == "timeout" and not result.ok and result.expansions == 0
    assert "no plan within the time limit of 0.2 s [lapkt, on the full state]" in result.reason
