"""Tests of `plan`: the household tasks with LAPKT's planners and Fast Downward, and every non-solved outcome."""

from __future__ import annotations

import time

import pytest

from l3mp.domain.triplets import Fact
from l3mp.planning.planner import plan
from l3mp.planning.problem import full_state_problem
from l3mp.planning.validate import validate_plan
from l3mp.world.graph import WorldGraph
from tests.helpers import ROBOT, household
from tests.planning.planning_support import assert_valid, first_of, house_graph, tasks

ENGINES = [
    ("lapkt", {}),
    ("lapkt", {"planner": "siw"}),
    ("lapkt", {"planner": "bfsf"}),
    ("fast-downward", {}),
]


def tiny_kitchen() -> WorldGraph:
    """One room, two surfaces, one cup: small enough for an exhaustive search to end at once."""
    graph = WorldGraph()
    for name, type_ in ((ROBOT, "robot"), ("kitchen", "room"), ("table1", "table"), ("counter1", "counter"),
                        ("cup1", "dish")):
        graph.add_entity(name, type_)
    for fact in (Fact("in_room", (ROBOT, "kitchen")), Fact("hand_empty", (ROBOT,)),
                 Fact("in_room", ("table1", "kitchen")), Fact("in_room", ("counter1", "kitchen")),
                 Fact("on", ("cup1", "table1"))):
        graph.add_fact(fact)
    return graph


@pytest.mark.parametrize("task", ["lights-and-faucets-off", "wash-dish", "give-food"])
@pytest.mark.parametrize("planner, options", ENGINES, ids=["siw-then-bfsf", "siw", "bfsf", "fast-downward"])
def test_every_planner_solves_the_household_tasks_with_valid_plans(task, planner, options):
    graph = house_graph()
    goal = tasks(graph)[task]
    problem = full_state_problem(household(), graph, goal)
    outcome = plan(problem, planner=planner, planner_options=options)
    assert outcome.status == "solved", outcome.message
    assert outcome.plan and all(step.startswith("(") and step.endswith(")") for step in outcome.plan)
    assert_valid(problem, outcome.up_plan)
    assert validate_plan(household(), graph, outcome.plan, goal).valid
    assert outcome.up_status == "SOLVED_SATISFICING" and outcome.seconds > 0
    assert outcome.engine == ("lapkt" if planner == "lapkt" else "Fast Downward")


def test_plans_are_pddl_action_strings_naming_entities():
    graph = house_graph()
    outcome = plan(full_state_problem(household(), graph, tasks(graph)["give-food"]))
    food, person = first_of(graph, "food"), first_of(graph, "person")
    assert outcome.plan[-1].startswith(f"(give {ROBOT} {food} {person} ")


@pytest.mark.parametrize("planner", ["lapkt", "fast-downward"])
def test_a_person_cannot_be_moved_so_the_goal_is_unsolvable(planner):
    graph = house_graph()
    person = first_of(graph, "person")
    room = next(f.args[1] for f in graph.facts(predicate="in_room", entity=person))
    other = sorted(e for e in graph.entities() if graph.entity_type(e) == "room" and e != room)[0]
    outcome = plan(full_state_problem(household(), graph, f"(in_room {person} {other})"), planner=planner)
    assert outcome.status == "unsolvable"
    assert outcome.plan == [] and outcome.up_plan is None
    assert "no plan" in outcome.message


def test_an_item_in_two_places_is_unsolvable_and_says_whether_that_is_proven():
    problem = full_state_problem(household(), tiny_kitchen(), "(and (on cup1 table1) (on cup1 counter1))")
    proven = plan(problem)
    assert (proven.status, proven.up_status) == ("unsolvable", "UNSOLVABLE_PROVEN")
    assert "no plan exists" in proven.message
    incomplete = plan(problem, planner_options={"planner": "siw"})
    assert (incomplete.status, incomplete.up_status) == ("unsolvable", "UNSOLVABLE_INCOMPLETELY")
    assert "a plan may still exist" in incomplete.message


@pytest.mark.parametrize("planner", ["lapkt", "fast-downward"])
def test_a_tiny_timeout_on_a_big_problem_returns_timeout_quickly(planner):
    graph = house_graph(target_entities=400)
    problem = full_state_problem(household(), graph, tasks(graph)["lights-and-faucets-off"])
    start = time.monotonic()
    outcome = plan(problem, planner=planner, timeout_s=0.3)
    assert time.monotonic() - start < 5
    assert outcome.status == "timeout"
    assert "0.3 s" in outcome.message and outcome.plan == []


def test_planner_failures_are_outcomes_not_exceptions():
    problem = full_state_problem(household(), tiny_kitchen(), "(on cup1 counter1)")
    unknown = plan(problem, planner="no-such-planner")
    assert unknown.status == "error" and "no planner named 'no-such-planner'" in unknown.message
    bad_option = plan(problem, planner_options={"planner": "astar"})
    assert bad_option.status == "error" and "unknown LAPKT planner 'astar'" in bad_option.message
    assert plan(problem, timeout_s=0).status == "error"
    house = full_state_problem(household(), house_graph(), tasks(house_graph())["lights-and-faucets-off"])
    out_of_memory = plan(house, planner_options={"memory_limit_mb": 20})  # grounding it needs far more
    assert (out_of_memory.status, out_of_memory.up_status) == ("memout", "MEMOUT")
    assert out_of_memory.message == ("the planner ran out of memory (its cap: 20 MB, set by the memory_limit_mb "
                                     "option) before finding a plan")
