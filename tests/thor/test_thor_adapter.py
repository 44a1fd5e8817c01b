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
