"""Tests of building planning problems from the world graph: objects, closed-world init, goals and their errors."""

from __future__ import annotations

import re

import pytest
from unified_planning.model import Object

from l3mp.errors import ProblemError
from l3mp.planning.problem import action_instance, action_text, build_problem, full_state_problem
from tests.helpers import ROBOT, F, house_graph, household
from tests.planning.planning_support import LIGHTS_AND_FAUCETS_OFF

KITCHEN_SCOPE = ["kitchen", "counter1", "mug1", "sink1", "faucet1"]


def names(problem) -> set[str]:
    return {o.name for o in problem.all_objects}


def true_atoms(problem) -> set[str]:
    return {str(f) for f, v in problem.explicit_initial_values.items() if v.is_true()}


def test_the_full_state_problem_holds_every_entity_and_fact():
    graph = house_graph()
    problem = full_state_problem(household(), graph, "(and (on mug1 sink1))")
    assert names(problem) == set(graph.entities())
    assert len(true_atoms(problem)) == graph.fact_count()
    assert [str(g) for g in problem.goals] == ["on(mug1, sink1)"]


def test_a_subset_problem_holds_the_entities_constants_and_the_facts_among_them():
    problem = build_problem(household(), house_graph(), entities=KITCHEN_SCOPE, goal="(not (dirty mug1))")
    assert names(problem) == {*KITCHEN_SCOPE, ROBOT}
    assert true_atoms(problem) == {
        "in_room(the_robot, kitchen)", "hand_empty(the_robot)", "in_room(counter1, kitchen)",
        "in_room(sink1, kitchen)", "in_room(faucet1, kitchen)", "faucet_of(faucet1, sink1)",
        "on(mug1, counter1)", "dirty(mug1)",
    }


def test_objects_the_goal_names_are_added():
    problem = build_problem(household(), house_graph(), entities=["kitchen"], goal="(has alice apple1)")
    assert {"alice", "apple1"} <= names(problem)


def test_a_quantified_goal_adds_every_object_of_its_types_and_their_facts():
    problem = build_problem(household(), house_graph(), entities=["kitchen"], goal=LIGHTS_AND_FAUCETS_OFF)
    # every light and faucet, and the rooms (and sink) their facts mention
    assert {"lamp1", "lamp2", "faucet1", "living_room", "bedroom", "sink1"} <= names(problem)
    assert {"light_on(lamp1)", "in_room(lamp2, bedroom)", "faucet_of(faucet1, sink1)"} <= true_atoms(problem)
    assert "alice" not in names(problem)


def test_a_quantifier_over_a_supertype_covers_its_subtypes():
    goal = "(forall (?d - device) (not (in_room ?d kitchen)))"
    problem = build_problem(household(), house_graph(), entities=[], goal=goal)
    assert {"lamp1", "lamp2", "faucet1", "tv1"} <= names(problem)


def test_the_goal_may_be_wrapped_in_goal_and_written_in_any_case():
    problem = build_problem(household(), house_graph(), entities=[], goal="(:goal (AND (On MUG1 sink1)))")
    assert [str(g) for g in problem.goals] == ["on(mug1, sink1)"]


def test_an_expression_goal_is_accepted_and_its_objects_added():
    domain = household()
    mug = Object("mug1", domain.up_problem.user_type("dish"))
    sink = Object("sink1", domain.up_problem.user_type("sink"))
    goal = domain.up_problem.fluent("on")(mug, sink)
    problem = build_problem(domain, house_graph(), entities=[], goal=goal)
    assert {"mug1", "sink1"} <= names(problem)


def test_an_expression_goal_must_agree_with_the_graph_on_types():
    domain = household()
    goal = domain.up_problem.fluent("dirty")(Object("book1", domain.up_problem.user_type("dish")))
    with pytest.raises(ProblemError, match="book1 has type dish but the world graph says book"):
        build_problem(domain, house_graph(), entities=[], goal=goal)


@pytest.mark.parametrize("goal, message", [
    ("(on mug7 sink1)", "unknown object 'mug7'"),
    ("(clean mug1)", "no predicate 'clean'"),
    ("(on mug1)", "on takes 2 argument"),
    ("(on sink1 mug1)", "sink1 is a sink, but on needs an item"),
    ("(forall (?l - lamp) (not (light_on ?l)))", "type 'lamp'"),
    ("(forall (?l) (not (light_on ?l)))", "give every variable a type"),
    ("(not (light_on ?l))", "variable ?l is not bound"),
    ("(forall (?x - item) (light_on ?x))", "is an item, but light_on needs a light"),
    ("(and (on mug1 sink1)", "missing 1 closing"),
    ("(on mug1 sink1))", "unmatched"),
    ("on mug1 sink1", "one parenthesised"),
    ("(not (on mug1 sink1) (dirty mug1))", "takes 1 formula"),
    ("(imply (dirty mug1))", "takes 2 formula"),
    ("((on mug1 sink1))", "expected a formula"),
])
def test_a_bad_goal_raises_problem_error_naming_the_fault(goal, message):
    with pytest.raises(ProblemError, match=re.escape(message)):
        build_problem(household(), house_graph(), goal=goal)


def test_unknown_entities_raise_problem_error():
    with pytest.raises(ProblemError, match="unknown object 'garage'"):
        build_problem(household(), house_graph(), entities=["garage"], goal="(and)")


def test_graph_facts_that_do_not_fit_the_domain_raise_problem_error():
    graph = house_graph()
    graph.add_fact(F("broken", "mug1"))
    with pytest.raises(ProblemError, match="no predicate broken"):
        full_state_problem(household(), graph, "(and)")


def test_the_empty_goal_and_equality_and_disjunction_parse():
    problem = build_problem(household(), house_graph(), entities=[], goal="(and)")
    assert problem.goals == []
    goal = ("(or (= mug1 plate1) (exists (?d - dish) (and (dirty ?d) (not (= ?d mug1))))"
            " (imply (dirty mug1) (on mug1 sink1)))")
    problem = build_problem(household(), house_graph(), entities=[], goal=goal)
    assert len(problem.goals) == 1 and problem.goals[0].is_or()


def test_actions_are_read_and_written_as_pddl():
    problem = full_state_problem(household(), house_graph(), "(and)")
    step = action_instance(problem, " ( MOVE the_robot kitchen bedroom ) ")
    assert step.action.name == "move"
    assert action_text(step) == "(move the_robot kitchen bedroom)"


@pytest.mark.parametrize("text, message", [
    ("(fly the_robot)", "no action 'fly'"),
    ("(move the_robot kitchen)", "move takes 3 argument"),
    ("(move the_robot kitchen garage)", "unknown object 'garage'"),
    ("(move the_robot mug1 kitchen)", "mug1 is a dish, but parameter ?from of move must be a room"),
    ("move the_robot kitchen bedroom", "one parenthesised"),
    ("(move (the_robot) kitchen bedroom)", "an action is written"),
])
def test_bad_actions_raise_problem_error(text, message):
    problem = full_state_problem(household(), house_graph(), "(and)")
    with pytest.raises(ProblemError, match=re.escape(message)):
        action_instance(problem, text)
