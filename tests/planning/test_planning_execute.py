"""Tests of plan execution: action effects as deltas, write-back to the world model, replanning."""

from __future__ import annotations

import pytest
from unified_planning.shortcuts import SequentialSimulator

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.errors import ProblemError
from l3mp.planning.execute import ActionEffects, GraphExecutor, StepOutcome, run_plan
from l3mp.planning.planner import plan
from l3mp.planning.problem import action_instance, full_state_problem
from l3mp.planning.validate import validate_plan
from l3mp.world.delta import Delta
from l3mp.world.graph import WorldGraph
from l3mp.world.model import WorldModel
from tests.helpers import ROBOT, F, house_graph, house_model, household, household_rules
from tests.planning.planning_support import FEATURES, LIGHTS_AND_FAUCETS_OFF, import_delta
from tests.planning.planning_support import house_graph as generated_house

WASH_MUG = "(not (dirty mug1))"
MUG_MOVED = Delta(remove=(F("on", "mug1", "counter1"),), add=(F("on", "mug1", "sink1"),))


def replanner(world: WorldModel, goal: str):
    """A replan callback: a fresh LAPKT plan from the world model's current state."""
    calls = []

    def replan():
        calls.append(world.last_seq)
        outcome = plan(full_state_problem(world.domain, world.graph, goal))
        return outcome.plan if outcome.solved else None

    replan.calls = calls
    return replan


class Scripted:
    """Wraps a world: fails the listed calls (1-based) and runs a hook after the listed calls."""

    def __init__(self, inner: GraphExecutor, *, fail: set[int] = frozenset(), after: dict | None = None) -> None:
        self.inner, self.fail, self.after, self.calls = inner, fail, after or {}, []

    def execute(self, action: str) -> StepOutcome:
        self.calls.append(action)
        if len(self.calls) in self.fail:
            return StepOutcome(False, "the gripper slipped")
        outcome = self.inner.execute(action)
        if len(self.calls) in self.after:
            self.after[len(self.calls)]()
        return outcome


def simulated_facts(domain: Domain, graph: WorldGraph, actions: list[str]) -> set[Fact]:
    """The true atoms after applying `actions` to `graph` with unified-planning's simulator."""
    problem = full_state_problem(domain, graph, "(and)")
    with SequentialSimulator(problem=problem) as simulator:
        state = simulator.get_initial_state()
        for action in actions:
            state = simulator.apply(state, action_instance(problem, action))
            assert state is not None, action
    return {Fact(a.fluent().name, tuple(x.object().name for x in a.args))
            for a in problem.initial_values if state.get_value(a).bool_constant_value()}


def test_the_delta_of_an_action_removes_and_adds_its_effects():
    delta = ActionEffects(household()).delta(house_graph(), "(move the_robot kitchen bedroom)")
    assert delta == Delta(remove=(F("in_room", ROBOT, "kitchen"),), add=(F("in_room", ROBOT, "bedroom"),))


def test_conditional_and_universal_effects_touch_only_the_objects_they_select():
    domain = Domain.from_string(FEATURES)
    graph = WorldGraph()
    for name, type_ in (("l1", "loc"), ("l2", "loc"), ("b1", "ball"), ("b2", "ball"), ("b3", "ball")):
        graph.add_entity(name, type_)
    for fact in (F("robot-at", "l1"), F("at", "b1", "l1"), F("at", "b2", "l1"), F("at", "b3", "l2")):
        graph.add_fact(fact)
    delta = ActionEffects(domain).delta(graph, "(paint-all l1)")
    assert delta == Delta(add=(F("painted", "b1"), F("painted", "b2")))


def test_unsatisfied_lists_the_false_preconditions():
    effects = ActionEffects(household())
    assert effects.unsatisfied(house_graph(), "(move the_robot kitchen bedroom)") == []
    assert effects.unsatisfied(house_graph(), "(turn_off_light the_robot lamp2 bedroom)") == [
        "(in_room the_robot bedroom)", "(light_on lamp2)"]
    with pytest.raises(ProblemError, match="unknown object 'garage'"):
        effects.unsatisfied(house_graph(), "(move the_robot kitchen garage)")
    with pytest.raises(ProblemError, match="is not applicable"):
        effects.delta(house_graph(), "(turn_off_light the_robot lamp2 bedroom)")


def test_the_graph_executor_checks_and_changes_its_own_ground_truth():
    truth = house_graph()
    world = GraphExecutor(household(), truth)
    assert not world.execute("(turn_off_light the_robot lamp1 living_room)").ok
    assert world.execute("(move the_robot kitchen living_room)").ok
    assert truth.has_fact(F("in_room", ROBOT, "living_room"))
    assert "unknown object" in world.execute("(move the_robot living_room garage)").message


def test_run_plan_writes_each_steps_effects_back_as_a_plan_record(tmp_path):
    graph = generated_house()
    world = WorldModel.open(household(), tmp_path / "store", rules=household_rules(), fsync=False)
    world.apply(import_delta(graph), source="import")
    outcome = plan(full_state_problem(household(), graph, LIGHTS_AND_FAUCETS_OFF))
    truth = graph.copy()
    report = run_plan(world, GraphExecutor(household(), truth), outcome.plan, task_ref="task-7")
    assert (report.status, report.replans, report.failures) == ("completed", 0, [])
    assert report.steps_done == len(outcome.plan) > 0
    assert set(world.graph.facts()) == simulated_facts(household(), graph, outcome.plan)
    assert world.graph == truth
    records = world.history.changes(source="plan")
    assert [r.input for r in records] == outcome.plan
    assert {r.ref for r in records} == {"task-7"}
    assert [s.record_seq for s in report.steps] == [r.seq for r in records]
    world.close()


def test_a_failed_step_triggers_a_replan_and_execution_goes_on():
    world, truth = house_model(), house_graph()
    steps = plan(full_state_problem(household(), world.graph, WASH_MUG)).plan
    executor = Scripted(GraphExecutor(household(), truth), fail={2})
    replan = replanner(world, WASH_MUG)
    report = run_plan(world, executor, steps, task_ref="wash", replan=replan)
    assert (report.status, report.replans) == ("completed", 1)
    assert report.failures == [f"{steps[1]} failed: the gripper slipped"]
    assert [s.ok for s in report.steps].count(False) == 1
    assert world.graph == truth
    assert validate_plan(household(), world.graph, [], WASH_MUG).valid


def test_an_external_update_between_steps_is_noticed_before_the_next_step():
    world, truth = house_model(), house_graph()
    steps = ["(turn_on_faucet the_robot faucet1 kitchen)", "(pick_from_surface the_robot mug1 counter1 kitchen)",
             "(wash_dish the_robot mug1 sink1 faucet1 kitchen)"]

    def someone_moves_the_mug():
        world.apply(MUG_MOVED, source="nl", input="Bob put the mug in the sink")
        truth.remove_fact(F("on", "mug1", "counter1"))
        truth.add_fact(F("on", "mug1", "sink1"))

    executor = Scripted(GraphExecutor(household(), truth), after={1: someone_moves_the_mug})
    report = run_plan(world, executor, steps, task_ref="wash", replan=replanner(world, WASH_MUG))
    assert (report.status, report.replans) == ("completed", 1)
    assert report.failures == [f"{steps[1]}: (on mug1 counter1) no longer true in the world model"]
    assert steps[1] not in executor.calls  # it was never tried in the world
    assert "(pick_from_surface the_robot mug1 sink1 kitchen)" in executor.calls
    assert world.graph == truth and not truth.has_fact(F("dirty", "mug1"))


def test_replanning_is_bounded():
    world = house_model()
    steps = plan(full_state_problem(household(), world.graph, WASH_MUG)).plan
    always_fails = Scripted(GraphExecutor(household(), house_graph()), fail=set(range(1, 100)))
    replan = replanner(world, WASH_MUG)
    report = run_plan(world, always_fails, steps, replan=replan, max_replans=2)
    assert (report.status, report.replans, len(report.failures), len(replan.calls)) == ("failed", 2, 3, 2)
    assert "after 2 replans" in report.message
    assert world.graph == house_graph()  # nothing was written back


def test_without_a_replanner_or_a_new_plan_execution_stops():
    world = house_model()
    report = run_plan(world, GraphExecutor(household(), house_graph()), ["(move the_robot bedroom kitchen)"])
    assert report.status == "failed" and report.steps == []
    assert report.message.endswith(
        "(in_room the_robot bedroom), (not (in_room the_robot kitchen)) no longer true in the world model")
    report = run_plan(world, GraphExecutor(household(), house_graph()), ["(move the_robot bedroom kitchen)"],
                      replan=lambda: None)
    assert (report.status, report.replans) == ("failed", 1)
    assert report.message.endswith("replanning found no plan")
