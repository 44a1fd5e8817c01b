"""The nodes as separate processes (the console scripts), talking over DDS on loopback in a random ROS domain:
perception, an NL update (scripted LLM server, a TEST DOUBLE for a paid API), a task planned, executed and
written back; malformed messages; killing and restarting the world model; the one-process bringup; SIGTERM."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from l3mp.ros import protocol as m
from l3mp.ros.client import STACK, Client, NoAnswer
from l3mp.ros.launcher import NodeProcess, random_domain, ros_environment, write_params
from l3mp.world.model import WorldModel
from tests.helpers import F, household, household_rules
from tests.llm.scripted_server import reply
from tests.ros.support import make_store, scripted_llm

CONFIG = Path(__file__).resolve().parents[2] / "config" / "l3mp.yaml"
START_S = 60.0
"""Deadline for processes to start and discover each other on a loaded machine."""


class Stack:
    """Three node processes and a client in this process, all in one random ROS domain."""

    def __init__(self, tmp_path, llm_url: str) -> None:
        self.dir = tmp_path
        self.domain_id = random_domain()
        self.env = ros_environment(self.domain_id, tmp_path / "logs")
        self.store = make_store(tmp_path / "world")
        llm = scripted_llm(llm_url)
        self.params = write_params(tmp_path / "params.yaml", {
            "world_model": {"store_path": str(self.store), "fsync": True, "state_period_s": 0.1,
                            "update.retrieval": "full", **llm},
            "planner": {"retrieval": "full", "planner": "fast-downward", **llm},
        })
        self.procs: dict[str, NodeProcess] = {}
        self.client = Client(domain_id=self.domain_id)

    def start(self, script: str, name: str) -> NodeProcess:
        args = ["--ros-args", "--params-file", str(CONFIG), "--params-file", str(self.params)]
        self.procs[name] = NodeProcess(script, args, self.env, self.dir / f"{name}-{len(self.procs)}.log")
        return self.procs[name]

    def close(self) -> None:
        for proc in self.procs.values():
            proc.stop(timeout=15)
        self.client.close()


@pytest.fixture(scope="module")
def stack(tmp_path_factory, llm_server):
    stack = Stack(tmp_path_factory.mktemp("stack"), llm_server.url)
    for script, name in (("l3mp-world-model", "world_model"), ("l3mp-planner", "planner"),
                         ("l3mp-executor", "executor")):
        stack.start(script, name)
    try:
        stack.client.wait(m.WORLD_MODEL_STATE, timeout=START_S)
        stack.client.wait_ready(STACK, timeout=START_S)
        yield stack
    finally:
        stack.close()


def test_perception_an_nl_update_and_a_task_run_through_three_processes(stack, llm_server):
    ros = stack.client
    ros.publish(m.WORLD_MODEL_PERCEPTION, {"observation_id": "cam-7", "entities": {"cup9": {"type": "dish"}},
                                            "triplets": [["cup9", "on", "counter1"]]})
    assert ros.result(m.WORLD_MODEL_RESULTS, "cam-7", timeout=START_S)["ok"]
    llm_server.push(reply(json.dumps({"changes": [{"predicate": "light_on", "args": ["lamp1"], "true": False}]})))
    ros.publish(m.WORLD_MODEL_NL_UPDATE, {"id": "nl-7", "text": "Alice switched off the living-room lamp."})
    assert ros.result(m.WORLD_MODEL_RESULTS, "nl-7")["ok"]
    ros.publish(m.PLANNER_TASK, {"id": "task-7", "task": "bring the blue cup to Alice", "goal": "(has alice cup9)",
                                  "retrieval": "full"})
    plan = ros.result(m.PLANNER_PLAN, "task-7", timeout=START_S)
    assert plan["ok"] and plan["plan"][-1].startswith("(give the_robot cup9 alice"), plan
    done = ros.result(m.EXECUTOR_RESULT, "task-7", timeout=START_S)
    assert done["ok"] and done["status"] == "completed"
    last = done["steps"][-1]["seq"]
    state = ros.wait(m.WORLD_MODEL_STATE, lambda s: s["seq"] >= last)
    facts = state["graph"]["facts"]
    assert ["alice", "has", "cup9"] in facts and ["lamp1", "light_on", True] not in facts
    assert ["the_robot", "hand_empty", True] in facts


def test_malformed_messages_across_processes_leave_the_nodes_running(stack):
    ros = stack.client
    seen = len(ros.received[m.WORLD_MODEL_RESULTS])
    ros.publish(m.WORLD_MODEL_PERCEPTION, '{"observation_id": "broken", "triplets": [["cup9", "on"]]')
    ros.publish(m.PLANNER_TASK, {"id": "task-bad", "task": 42})
    error = ros.wait(m.WORLD_MODEL_RESULTS, lambda r: r in ros.received[m.WORLD_MODEL_RESULTS][seen:])["error"]
    assert error["code"] == "malformed" and "not valid JSON" in error["message"]
    assert ros.result(m.PLANNER_PLAN, "task-bad")["error"]["code"] == "malformed"
    ros.publish(m.WORLD_MODEL_QUERY, {"id": "still-there", "kind": "facts", "entity": "cup9"})
    assert ros.result(m.WORLD_MODEL_RESULTS, "still-there")["ok"]
    assert all(proc.alive() for proc in stack.procs.values())


def test_a_killed_world_model_restarts_with_its_state_and_the_others_carry_on(stack):
    ros = stack.client
    before = ros.wait(m.WORLD_MODEL_STATE, lambda s: True)
    ros.publish(m.WORLD_MODEL_QUERY, {"id": "before-kill", "kind": "facts"})
    facts = ros.result(m.WORLD_MODEL_RESULTS, "before-kill")
    stack.procs["world_model"].stop(signal.SIGKILL)
    stack.start("l3mp-world-model", "world_model")
    again = ros.ask(m.WORLD_MODEL_QUERY, {"id": "after-restart", "kind": "facts"}, timeout=START_S, resend_s=2.0)
    assert again["facts"] == facts["facts"] and again["seq"] == facts["seq"] >= before["seq"]
    ros.publish(m.PLANNER_TASK, {"id": "task-after", "task": "switch the living-room lamp on",
                                  "goal": "(light_on lamp1)", "retrieval": "full"})
    done = ros.result(m.EXECUTOR_RESULT, "task-after", timeout=START_S)
    assert done["ok"] and done["steps"][-1]["seq"] > again["seq"], done


def test_the_bringup_runs_all_nodes_in_one_process_and_sigterm_flushes_the_store(tmp_path, llm_server):
    stack = Stack(tmp_path, llm_server.url)
    try:
        proc = stack.procs["bringup"] = NodeProcess("l3mp-ros-bringup", ["--params-file", str(stack.params)],
                                                    stack.env, tmp_path / "bringup.log")
        ros = stack.client
        ros.wait_ready(STACK, timeout=START_S)
        ros.publish(m.PLANNER_TASK, {"id": "task-b", "task": "turn on the bedroom lamp", "goal": "(light_on lamp2)",
                                      "retrieval": "full"})
        done = ros.result(m.EXECUTOR_RESULT, "task-b", timeout=START_S)
        assert done["ok"], proc.output()
        assert proc.stop(signal.SIGTERM) == 0, proc.output()
    finally:
        stack.close()
    with WorldModel.open(household(), stack.store, rules=household_rules(), read_only=True) as world:
        assert world.graph.has_fact(F("light_on", "lamp2")) and not world.warnings
        assert any(p.name.startswith("snapshot-") for p in stack.store.iterdir())


def test_sigint_while_messages_arrive_is_a_clean_stop(tmp_path, llm_server):
    """A stop signal that lands while the executor takes a message ends the process with 0 and a flushed store
    (rclpy's own handlers raised KeyboardInterrupt inside the message conversion: a RuntimeError and exit 1)."""
    stack = Stack(tmp_path, llm_server.url)
    try:
        for round_ in range(3):
            proc = stack.procs[f"bringup-{round_}"] = NodeProcess(
                "l3mp-ros-bringup", ["--nodes", "world_model", "--params-file", str(stack.params)],
                stack.env, tmp_path / f"bringup-{round_}.log")
            ros = stack.client
            ros.ask(m.WORLD_MODEL_QUERY, {"id": f"up-{round_}", "kind": "entities"}, timeout=START_S, resend_s=2.0)
            for i in range(200):
                if i == 100:
                    proc.process.send_signal(signal.SIGINT)
                try:
                    ros.publish(m.WORLD_MODEL_QUERY, {"id": f"flood-{round_}-{i}", "kind": "facts"},
                                timeout=0.5 if i >= 100 else START_S)
                except NoAnswer:  # the node has gone: what the signal asked for
                    break
            proc.process.wait(timeout=START_S)  # one signal only: a second one may land after Python's finalization
            assert proc.stop() == 0 and "Traceback" not in proc.output(), proc.output()
    finally:
        stack.close()
    with WorldModel.open(household(), stack.store, rules=household_rules(), read_only=True) as world:
        assert not world.warnings


def test_random_domains_are_never_handed_out_twice_nor_the_sessions_own(monkeypatch):
    """Two stacks of one process in one domain would answer each other's clients (a node still starting then took a
    stop signal meant for a running one: a flaky exit -2)."""
    from l3mp.ros import launcher

    monkeypatch.setattr(launcher, "_handed_out", set())
    monkeypatch.setenv("ROS_DOMAIN_ID", "7")
    first = [random_domain() for _ in range(len(launcher.DOMAINS) - 1)]
    assert len(set(first)) == len(first) and 7 not in first and set(first) <= set(launcher.DOMAINS)
    again = random_domain()  # all taken: the count starts over, still never the session's own
    assert again != 7 and again in launcher.DOMAINS
