"""The executor node's adapter (`l3mp.thor.adapter:make`) on the TEST DOUBLE, without ROS: a world model fed by
the link's perception (what the bridge publishes) and plans run with `run_plan` as the executor node runs them."""

from __future__ import annotations

import pytest

from l3mp.domain.triplets import Fact
from l3mp.planning import run_plan
from l3mp.planning.pipeline import TaskPlanner
from l3mp.retrieval.full import FullRetriever
from l3mp.ros.adapters import AdapterContext, adapter_factory
from l3mp.thor.adapter import close_links, make, shared_link
from l3mp.thor.errors import ThorError
from l3mp.world.model import WorldModel
from tests.thor.support import thor_domain

OPTIONS = {"scene": "FloorPlan203", "offline": True}


@pytest.fixture
def node_world():
    """The world-model node's state: fed only by the link's perception batches and the plans' write-backs."""
    world = WorldModel(thor_domain())
    shared_link(thor_domain(), OPTIONS).listen(world.perceive)
    yield world
    close_links()


def test_the_executor_node_loads_the_adapter_by_name():
    assert adapter_factory("l3mp.thor.adapter:make") is make


def test_plans_run_through_the_adapter_keep_the_node_world_equal_to_the_scene(node_world):
    link = shared_link(thor_domain(), OPTIONS)
    assert node_world.graph.entity_count() > 40 and node_world.graph.has_fact(_at(link.start_at))
    planner = TaskPlanner(node_world, None, FullRetriever())
    for goal in ("(in remote_control_1 sofa_1)", "(in remote_control_1 coffee_table_1)"):
        result = planner.plan(goal, goal=goal)
        assert result.ok, result.reason
        executor = make(AdapterContext(thor_domain(), node_world.graph.copy(), dict(OPTIONS)))
        report = run_plan(node_world, executor, result.plan)
        executor.flush()
        assert report.status == "completed", report.message
        assert planner.plan(goal, goal=goal).plan == []
    assert executor.rejected == []
    truth = WorldModel(thor_domain())
    surveyed = link.perception.observe(link.controller.last_event.metadata, truth.graph, at=executor.at, survey=True)
    truth.perceive(surveyed)
    assert node_world.graph == truth.graph


@pytest.mark.parametrize(("options", "message"), [
    ({}, "needs adapter_options"),
    ({"scene": "FloorPlan999", "offline": True}, "not an iTHOR scene"),
    ({"scene": "FloorPlan1", "speed": 2}, "unknown AI2-THOR adapter option"),
])
def test_bad_options_are_thor_errors(options, message):
    with pytest.raises(ThorError, match=message):
        make(AdapterContext(thor_domain(), WorldModel(thor_domain()).graph, options))


def _at(name: str) -> Fact:
    return Fact("at", ("the_robot", name))


def test_one_controller_per_scene_and_process():
    """The bridge starts the scene's link; the adapter's options that name only the scene use it, and options that
    ask for another controller of that scene are refused instead of starting a second one."""
    try:
        link = shared_link(thor_domain(), OPTIONS)
        assert shared_link(thor_domain(), {"scene": OPTIONS["scene"]}) is link
        with pytest.raises(ThorError, match="is the TEST DOUBLE"):
            shared_link(thor_domain(), {"scene": OPTIONS["scene"], "offline": False})
        with pytest.raises(ThorError, match="ask for another one"):
            shared_link(thor_domain(), {**OPTIONS, "executable": "/opt/thor/build"})
    finally:
        close_links()


def test_with_the_goal_the_adapter_fails_the_step_a_surprise_breaks():
    """What the executor node passes in AdapterContext (plan and goal): the mug found dirty on arrival fails the
    pickup before it runs, as `l3mp thor` does; without a goal only the action's preconditions are checked."""
    options = {"scene": "FloorPlan1", "offline": True}
    world = WorldModel(thor_domain())
    link = shared_link(thor_domain(), options)
    try:
        link.listen(world.perceive)
        goal = "(and (holding the_robot mug_1) (not (dirty mug_1)))"
        mug = link.perception.namer.object_id("mug_1")
        with link.executor.lock:
            used = link.controller.step({"action": "DirtyObject", "objectId": mug, "forceAction": True})
        assert used.metadata["lastActionSuccess"]
        plan = TaskPlanner(world, None, FullRetriever()).plan(goal, goal=goal).plan
        assert plan and plan[-1].startswith("(pickup")
        executor = make(AdapterContext(thor_domain(), world.graph.copy(), dict(options), goal=goal, plan=tuple(plan)))
        report = run_plan(world, executor, plan)
        assert report.status == "failed" and "breaks the rest of the plan" in report.failures[0], report.failures
        assert world.graph.has_fact(Fact("dirty", ("mug_1",)))
        executor.finish()
        without = make(AdapterContext(thor_domain(), world.graph.copy(), dict(options)))
        assert without.execute(plan[-1]).ok  # the dirty mug is picked up
    finally:
        close_links()


def test_reached_perceives_the_last_event_and_checks_the_goal_in_what_the_agent_saw():
    """The executor node asks `reached(goal)` when a plan has run to its end: the fridge the agent opened, shut
    again by someone before it looked (the TEST DOUBLE controller stepped by the test), is seen shut, the batch
    is sent (the world model fed by the link has it) and the goal is false; opened again, it holds."""
    options = {"scene": "FloorPlan1", "offline": True}
    world = WorldModel(thor_domain())
    link = shared_link(thor_domain(), options)
    try:
        link.listen(world.perceive)
        goal, is_open = "(is_open fridge_1)", Fact("is_open", ("fridge_1",))
        plan = TaskPlanner(world, None, FullRetriever()).plan(goal, goal=goal).plan
        assert plan and plan[-1].startswith("(open the_robot fridge_1")
        executor = make(AdapterContext(thor_domain(), world.graph.copy(), dict(options), goal=goal, plan=tuple(plan)))
        assert run_plan(world, executor, plan).status == "completed" and world.graph.has_fact(is_open)
        fridge = link.perception.namer.object_id("fridge_1")
        with link.executor.lock:
            assert link.controller.step({"action": "CloseObject", "objectId": fridge}).metadata["lastActionSuccess"]
        sent = len(executor.perceived)
        assert executor.reached(goal) is False
        assert len(executor.perceived) == sent + 1 and not world.graph.has_fact(is_open)
        assert executor.reached(goal) is False and len(executor.perceived) == sent + 1  # nothing new to perceive
        assert run_plan(world, executor, plan[-1:]).status == "completed"
        assert executor.reached(goal) is True and world.graph.has_fact(is_open)
        executor.finish()
        assert executor.rejected == []
    finally:
        close_links()
