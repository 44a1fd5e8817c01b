"""The AI2-THOR bridge node in one process with the world model (and the planner and executor for the surprise),
over loopback, on the TEST DOUBLE controller (`l3mp.thor.offline`) of a real iTHOR kitchen's metadata: the world
model's graph becomes the scene's perception, a later event sends only what changed, and the cup found dirty on
arrival re-plans on the node path. The bridge's hosting of the executor (ros2 launch) and its arguments."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
import rclpy
from rclpy.parameter import Parameter
from std_msgs.msg import String

from l3mp.domain.triplets import Fact
from l3mp.errors import L3mpError
from l3mp.ros import protocol as m
from l3mp.ros.client import Client
from l3mp.ros.executor_node import GOAL_FALSE
from l3mp.ros.main import bringup_args, node_factory
from l3mp.ros.thor_bridge import hosted_args
from l3mp.thor.adapter import close_links
from l3mp.thor.perception import ThorPerception
from l3mp.world.model import WorldModel
from tests.thor.support import thor_domain

SCENE = "FloorPlan1"
SURVEY = f"{SCENE}:1"
"""The observation id of the link's first batch: its survey of the scene."""
OPEN_FRIDGE = Fact("is_open", ("fridge_1",))
SERVE_COFFEE = "(and (filled_with mug_1 coffee) (not (dirty mug_1)) (in mug_1 counter_top_2))"
TIMEOUT_S = 40.0


def stack(tmp_path, nodes: tuple[str, ...], *, poll_period_s: float) -> Client:
    thor = {"domain": "thor", "diagnostics_period_s": 0.2}
    params = {
        "world_model": {**thor, "store_path": str(tmp_path / "world"), "fsync": False, "state_period_s": 0.05},
        "planner": {**thor, "retrieval": "full", "planner": "lapkt", "max_expansions": 0},
        "executor": {**thor, "adapter": "l3mp.thor.adapter:make",
                     "adapter_options": json.dumps({"scene": SCENE, "offline": True})},
        "thor_bridge": {**thor, "scene": SCENE, "offline": True, "poll_period_s": poll_period_s},
    }
    return Client(nodes, {n: params[n] for n in nodes})


class Published:
    """What reaches the world model's perception topic (every message the bridge publishes)."""

    def __init__(self, client: Client) -> None:
        self.batches: list[dict] = []
        self._new = threading.Condition()
        client.node.create_subscription(String, m.WORLD_MODEL_PERCEPTION, self._on, m.request_qos())

    def _on(self, msg: String) -> None:
        with self._new:
            self.batches.append(json.loads(msg.data))
            self._new.notify_all()

    def wait(self, count: int) -> list[dict]:
        with self._new:
            assert self._new.wait_for(lambda: len(self.batches) >= count, TIMEOUT_S), self.batches
            return list(self.batches)


@pytest.fixture
def bridged(tmp_path):
    client = stack(tmp_path, ("world_model", "thor_bridge"), poll_period_s=0.1)
    yield client
    client.close()
    close_links()


@pytest.fixture
def full_stack(tmp_path):
    client = stack(tmp_path, ("world_model", "planner", "executor", "thor_bridge"), poll_period_s=0.0)
    yield client
    client.close()
    close_links()


def truth(link) -> WorldModel:
    """What the controller's current metadata says, in the link's names (a perception of its own)."""
    perception = ThorPerception(thor_domain(), scene=SCENE)
    perception.namer = link.perception.namer
    world = WorldModel(thor_domain())
    world.perceive(perception.observe(link.controller.last_event.metadata, world.graph, at=link.executor.at,
                                      survey=True))
    return world


def test_the_world_model_becomes_the_scene_and_a_later_event_sends_only_its_change(bridged):
    published = Published(bridged)
    survey = bridged.result(m.WORLD_MODEL_RESULTS, SURVEY, TIMEOUT_S)
    assert survey["ok"] and survey["batches"][0]["accepted"], survey
    bridge = bridged.nodes["thor_bridge"]
    link, world = bridge.link, bridged.nodes["world_model"].world
    assert world.graph.entity_count() > 80
    assert world.graph == truth(link).graph
    record = bridged.wait(m.WORLD_MODEL_CHANGES, lambda r: r["ref"] == SURVEY)
    assert record["source"] == "perception"
    # someone opens the cabinet the agent stands at: the next look sends that one change
    cabinet = link.perception.namer.object_id("cabinet_8")
    with link.executor.lock:
        assert link.controller.step({"action": "OpenObject", "objectId": cabinet}).metadata["lastActionSuccess"]
    batch = published.wait(2)[-1]
    assert batch["triplets"] == [["cabinet_8", "is_open", True]] and "entities" not in batch
    result = bridged.result(m.WORLD_MODEL_RESULTS, batch["observation_id"], TIMEOUT_S)
    assert result["ok"] and world.graph.has_fact(Fact("is_open", ("cabinet_8",)))
    assert world.graph == truth(link).graph
    # nothing new happens: nothing more is sent
    assert link.look() is None and len(published.batches) == 2
    values = diagnostics(bridged, lambda v: v.get("batches_sent") == "2")
    assert values["controller"].startswith("TEST DOUBLE (offline) on FloorPlan1")
    assert values["refused_batches"] == "none" and values["perception"] == "connected"
    assert bridged.health["thor_bridge"][0] == 0


def diagnostics(client: Client, match) -> dict[str, str]:
    """The bridge's first diagnostics values (from now on) for which `match` is true."""
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        values = client.health.get("thor_bridge", (None, {}))[1]
        if match(values):
            return values
        time.sleep(0.05)
    raise AssertionError(f"no such diagnostics of the bridge: {client.health.get('thor_bridge')}")


def test_the_cup_found_dirty_on_arrival_replans_on_the_node_path_and_the_goal_is_reached(full_stack):
    survey = full_stack.result(m.WORLD_MODEL_RESULTS, SURVEY, TIMEOUT_S)
    assert survey["ok"], survey
    link = full_stack.nodes["thor_bridge"].link
    world = full_stack.nodes["world_model"].world
    # someone used the mug, unseen (it is not in view and the bridge does not poll here)
    mug = link.perception.namer.object_id("mug_1")
    with link.executor.lock:
        used = link.controller.step({"action": "DirtyObject", "objectId": mug, "forceAction": True})
    assert used.metadata["lastActionSuccess"]
    assert not world.graph.has_fact(Fact("dirty", ("mug_1",)))
    full_stack.publish(m.PLANNER_TASK, {"id": "t-coffee", "task": "serve a coffee in a clean mug", "execute": True,
                                        "goal": SERVE_COFFEE, "retrieval": "full"})
    first = full_stack.result(m.PLANNER_PLAN, "t-coffee", TIMEOUT_S)
    assert first["ok"] and not any(a.startswith("(wash ") for a in first["plan"]), first
    result = full_stack.result(m.EXECUTOR_RESULT, "t-coffee", TIMEOUT_S)
    assert result["ok"] and result["status"] == "completed", result
    assert result["replans"] == 1
    assert "breaks the rest of the plan" in result["failures"][0] and "(not (dirty mug_1))" in result["failures"][0]
    actions = [s["action"] for s in result["steps"]]
    assert any(a.startswith("(wash the_robot mug_1 ") for a in actions)
    graph = world.graph
    assert graph.has_fact(Fact("filled_with", ("mug_1", "coffee"))) and graph.has_fact(Fact("in", ("mug_1",
                                                                                                   "counter_top_2")))
    assert not graph.has_fact(Fact("dirty", ("mug_1",)))
    assert graph == truth(link).graph  # the last step's event was perceived and published before the result



def test_a_goal_undone_after_the_last_action_is_seen_and_replanned_on_the_node_path(full_stack, monkeypatch):
    survey = full_stack.result(m.WORLD_MODEL_RESULTS, SURVEY, TIMEOUT_S)
    assert survey["ok"], survey
    link = full_stack.nodes["thor_bridge"].link
    world = full_stack.nodes["world_model"].world
    assert world.graph.has_fact(Fact("openable", ("fridge_1",))) and not world.graph.has_fact(OPEN_FRIDGE)
    fridge, step, undone = link.perception.namer.object_id("fridge_1"), link.controller.step, []

    def shut_once(action: dict) -> object:
        """TEST DOUBLE: someone shuts the fridge right after the agent first opens it (the stand-in controller)."""
        event = step(action)
        if action.get("action") == "OpenObject" and action.get("objectId") == fridge and not undone:
            undone.append(step({"action": "CloseObject", "objectId": fridge}).metadata["lastActionSuccess"])
        return event

    monkeypatch.setattr(link.controller, "step", shut_once)
    full_stack.publish(m.PLANNER_TASK, {"id": "t-fridge", "task": "open the fridge", "execute": True,
                                        "goal": "(is_open fridge_1)", "retrieval": "full"})
    first = full_stack.result(m.PLANNER_PLAN, "t-fridge", TIMEOUT_S)
    assert first["ok"] and first["plan"][-1].startswith("(open the_robot fridge_1"), first
    result = full_stack.result(m.EXECUTOR_RESULT, "t-fridge", TIMEOUT_S)
    assert undone == [True]
    assert result["ok"] and result["status"] == "completed", result
    assert result["replans"] == 1 and result["failures"] == [GOAL_FALSE]
    actions = [s["action"] for s in result["steps"]]
    assert actions == [*first["plan"], first["plan"][-1]]  # the agent stands at the fridge: it opens it again
    assert world.graph.has_fact(OPEN_FRIDGE)
    assert world.graph == truth(link).graph  # what the agent saw, and the second opening, reached the world model
    history = [world.store.record(s["seq"]) for s in result["steps"][-2:]]
    between = [world.store.record(q) for q in range(history[0].seq + 1, history[1].seq)]
    assert [r.source for r in between] == ["perception"] and not between[0].delta.add

def test_a_hosted_executor_gets_the_process_arguments_without_the_node_name():
    argv = ["l3mp-thor-bridge", "--ros-args", "-r", "__node:=thor_bridge", "-r", "__ns:=/robot1", "--params-file",
            "/tmp/p.yaml", "--remap", "thor_bridge:__node:=x", "--log-level", "info", "--", "extra"]
    assert hosted_args(argv) == ["--ros-args", "-r", "__ns:=/robot1", "--params-file", "/tmp/p.yaml",
                                 "--log-level", "info"]


def test_the_hosted_executor_runs_the_adapter_on_the_bridges_controller_and_a_wrong_domain_is_refused():
    context = rclpy.Context()
    rclpy.init(context=context, args=["l3mp-thor-bridge", "--ros-args", "-r", "__node:=thor_bridge"])
    overrides = [Parameter(k, value=v) for k, v in {"domain": "thor", "scene": "FloorPlan2", "offline": True,
                                                      "host_executor": True}.items()]
    try:
        bridge = node_factory("thor_bridge")(context=context, parameter_overrides=overrides)
        executor = bridge.hosted_executor(["l3mp-thor-bridge", "--ros-args", "-r", "__node:=thor_bridge"])
        try:
            assert executor.get_name() == "executor" and bridge.get_name() == "thor_bridge"
            assert executor.params["adapter"] == "l3mp.thor.adapter:make"
            assert json.loads(executor.params["adapter_options"]) == {"scene": "FloorPlan2", "offline": True}
        finally:
            for node in (executor, bridge):
                node.close()
                node.destroy_node()
        with pytest.raises(L3mpError, match="needs the thor domain"):
            node_factory("thor_bridge")(context=context, parameter_overrides=[Parameter("domain", value="household")])
    finally:
        rclpy.try_shutdown(context=context)


def test_the_bringup_starts_the_bridge_with_the_thor_parameters_file():
    path = Path(__file__).resolve().parents[2] / "config" / "l3mp_thor.yaml"
    names, args = bringup_args(["--params-file", str(path)])
    assert names == ["world_model", "planner", "executor", "thor_bridge"]
    context = rclpy.Context()
    rclpy.init(context=context, args=args)
    try:
        bridge = node_factory("thor_bridge")(context=context)
        executor = node_factory("executor")(context=context)
        try:
            assert bridge.domain.name == "thor" and bridge.params["scene"] == "FloorPlan1"
            assert not bridge.params["offline"] and not bridge.params["host_executor"]
            assert executor.params["adapter"] == "l3mp.thor.adapter:make"
            assert json.loads(executor.params["adapter_options"]) == {"scene": bridge.params["scene"]}
        finally:
            for node in (executor, bridge):
                node.close()
                node.destroy_node()
    finally:
        rclpy.try_shutdown(context=context)
