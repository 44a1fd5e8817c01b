"""The main job's way through the ROS 2 nodes: the bringup (world model, planner, executor in one process on
loopback) on the session's store, and the session's perception, NL updates and task sent over their topics.

`Nodes` answers the same requests as the main job's in-process way (l3mp.demo.InProcess), so that the main job's
steps are written once for both ways.
"""

from __future__ import annotations

import json
import shlex
import signal
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from l3mp.domain.triplets import Fact, fact_to_triplet
from l3mp.errors import L3mpError
from l3mp.report import format_record, goal_source, update_lines
from l3mp.ros import protocol as m
from l3mp.ros.client import STACK, Client, NoAnswer
from l3mp.ros.launcher import NodeProcess, random_domain, ros_environment, use_loopback, write_params
from l3mp.world.graph import WorldGraph
from l3mp.world.record import ChangeRecord

START_S = 120.0
"""Deadline for the nodes to start and find each other (a loaded machine, a cold Python)."""
UPDATE_S = 1200.0
"""Deadline for one NL update through the node (up to 4 attempts of a slow local LLM)."""
PLAN_S = 300.0
REQUEST_S = 60.0
TOPICS = (f"topics: {m.WORLD_MODEL}/{{{m.PERCEPTION},{m.NL_UPDATE},{m.APPLY},{m.QUERY}}} in, "
          f"{m.WORLD_MODEL}/{{{m.RESULTS},{m.CHANGES},{m.STATE}}} out; {m.PLANNER_TASK} in, "
          f"{m.PLANNER}/{{{m.PLAN},{m.STATUS}}} out; {m.EXECUTOR}/{{{m.STEPS},{m.RESULT}}} "
          f"out; {m.DIAGNOSTICS}")

Say = Callable[[str], None]


class NodesFailed(L3mpError):
    """The nodes did not start, did not answer, or answered what the session did not expect."""


class Nodes:
    """The bringup process on the session's store and the client that talks to it."""

    def __init__(self, process: NodeProcess, client: Client, say: Say) -> None:
        self.process = process
        self.client = client
        self._say = say
        self._seen_seq = 0
        """The newest change record this session has seen (`graph` waits for a state at least that new)."""

    @classmethod
    def start(cls, directory: Path, store: Path, *, fsync: bool, say: Say) -> Nodes:
        """Start the bringup on `store` (closed by the caller) and wait until its nodes are ready."""
        params = write_params(directory / "ros-params.yaml", {
            "world_model": {"store_path": str(store), "fsync": fsync, "state_period_s": 0.2,
                            "update.retrieval": "search"},
            "planner": {"retrieval": "full"},
        })
        domain_id = random_domain()
        args = ["--ros-args", "--params-file", str(params)]
        say(f"$ ROS_DOMAIN_ID={domain_id} ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST l3mp-ros-bringup {' '.join(args)}")
        say(f"(on a ROS 2 installation: ros2 launch l3mp l3mp.launch.py params_file:={params})")
        process = NodeProcess("l3mp-ros-bringup", args, ros_environment(domain_id, directory / "ros-logs"),
                              directory / "ros-nodes.log")
        use_loopback()
        nodes = cls(process, Client(domain_id=domain_id), say)
        try:
            state = nodes.client.wait(m.WORLD_MODEL_STATE, timeout=START_S)
            nodes.client.wait_ready(STACK, timeout=START_S)
        except NoAnswer as exc:
            nodes.close()
            raise NodesFailed(f"the nodes did not start: {exc}\n{process.output()[-3000:]}") from exc
        graph = state["graph"]
        say(f"nodes up (pid {process.process.pid}); {m.WORLD_MODEL_STATE} (transient local) holds record "
            f"{state['seq']}: {len(graph['entities'])} entities, {len(graph['facts'])} facts")
        say(TOPICS)
        return nodes

    def close(self) -> int:
        """Stop the nodes with SIGINT (they close the store cleanly); the exit code."""
        code = self.process.stop(signal.SIGINT, timeout=60)
        self.client.close()
        return code

    def stop(self) -> None:
        """Stop the nodes and say so; NodesFailed if they did not exit cleanly."""
        self._say("")
        self._say(f"$ kill -INT {self.process.process.pid}   # the nodes stop; the world model writes a snapshot and "
                  "closes the store")
        code = self.close()
        if code != 0:
            raise NodesFailed(f"the nodes exited with code {code}:\n{self.process.output()[-3000:]}")

    # ---- the requests of the main job ---------------------------------------------------------
    def through(self, kind: str) -> str:
        """How a section's title says where its requests of `kind` (perception, nl_update, task) go."""
        topics = {m.PERCEPTION: m.WORLD_MODEL_PERCEPTION, m.NL_UPDATE: m.WORLD_MODEL_NL_UPDATE,
                  m.TASK: f"{m.PLANNER_TASK} and the executor"}
        return f" (through {topics[kind]})"

    def graph(self) -> WorldGraph:
        """The graph as the world-model node published it last, once that holds the last change record seen here
        (under load the state topic may trail the changes topic for a moment)."""
        self.client.wait(m.WORLD_MODEL_STATE, lambda msg: isinstance(msg, dict) and int(
            msg.get("seq") or 0) >= self._seen_seq, timeout=REQUEST_S)
        return WorldGraph.from_json(self.client.received[m.WORLD_MODEL_STATE][-1]["graph"])

    def perceive(self, batch: dict) -> ChangeRecord:
        self._say(_pub(m.WORLD_MODEL_PERCEPTION, batch))
        result = self._ask(m.WORLD_MODEL_PERCEPTION, batch, REQUEST_S)
        seq = result["batches"][0]["seq"] if result["ok"] else None
        if seq is None:
            raise NodesFailed(f"the observation {batch.get('observation_id')} was not applied: {result}")
        return self._record(seq)

    def check(self, delta: dict) -> list[str]:
        """The verifier's messages for `delta` (none if it is valid: then it is applied)."""
        request = {"id": "hallucinated", "delta": delta, "source": "nl"}
        self._say(_pub(m.WORLD_MODEL_APPLY, request))
        result = self._ask(m.WORLD_MODEL_APPLY, request, REQUEST_S)
        return [] if result["ok"] else [v["message"] for v in result["violations"]]

    def updates(self, sentences: Sequence[str]) -> Iterator[list[str]]:
        """Each sentence through the world model's NL update; the account of each."""
        for i, sentence in enumerate(sentences, start=1):
            request = {"id": f"utterance-{i}", "text": sentence}
            self._say("")
            self._say(_pub(m.WORLD_MODEL_NL_UPDATE, request))
            yield update_lines(self._ask(m.WORLD_MODEL_NL_UPDATE, request, UPDATE_S))

    def run_task(self, task: str, speaker: str, ref: str) -> str:
        """Plan `task`, said by `speaker`, on the planner node (it reads or asks the LLM for the goal), wait for the
        executor node to run it; the goal."""
        request = {"id": ref, "task": task, "speaker": speaker, "retrieval": "full"}
        self._say(_pub(m.PLANNER_TASK, request))
        plan = self._ask(m.PLANNER_TASK, request, PLAN_S)
        if not plan["ok"]:
            question = plan.get("question")
            raise NodesFailed(f"the task was not planned: {plan['error']['message']}"
                              + (f" ({question})" if question else ""))
        result = plan["result"]
        self._say(f"goal: {plan['goal']} ({goal_source(result.get('goal_source', ''))})")
        self._say(f"{m.PLANNER_PLAN}: {len(plan['plan'])} steps, {result['engine']} "
                  f"{result['planner_seconds']:.2f} s, {result['context_entities']} objects; "
                  f"{result['validation']['message']}")
        done = self.client.result(m.EXECUTOR_RESULT, ref, timeout=PLAN_S)
        for i, step in enumerate(done.get("steps", []), start=1):
            self._say(f"{m.EXECUTOR_STEPS} {i}/{len(done['steps'])}: {step['message']}")
            if step["seq"] is not None:
                self._say(format_record(self._record(step["seq"])))
        if not done["ok"]:
            raise NodesFailed(f"the plan did not run: {done['error']['message']}")
        self._say(f"{m.EXECUTOR_RESULT}: {done['message']} in {done['seconds']:.2f} s")
        return str(plan["goal"])

    def holds(self, fact: Fact) -> bool:
        """Whether the world-model node holds `fact` (asked through its query topic)."""
        query = {"id": f"check-{fact.predicate}", "kind": "facts", "entity": fact.args[0], "predicate": fact.predicate}
        answer = self._ask(m.WORLD_MODEL_QUERY, query, REQUEST_S)
        return list(fact_to_triplet(fact)) in answer.get("facts", [])

    # ---- helpers ------------------------------------------------------------------------------
    def _ask(self, topic: str, payload: dict, timeout: float) -> dict:
        try:
            return self.client.ask(topic, payload, timeout)
        except NoAnswer as exc:
            raise NodesFailed(f"{exc}\nnode output:\n{self.process.output()[-3000:]}") from exc

    def _record(self, seq: int) -> ChangeRecord:
        """A change record as the world-model node published it."""
        data = self.client.wait(m.WORLD_MODEL_CHANGES, lambda r: r.get("seq") == seq, timeout=30)
        self._seen_seq = max(self._seen_seq, seq)
        return ChangeRecord.from_json(data)


def _pub(topic: str, payload: Any) -> str:
    """The ros2 command that publishes the same message."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return f"$ ros2 topic pub --once {topic} std_msgs/msg/String {shlex.quote('{data: ' + json.dumps(text) + '}')}"
