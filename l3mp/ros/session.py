"""The main job's steps through the ROS 2 nodes: the bringup (world model, planner, executor in one process on
loopback) on the session's store, and the session's perception, NL updates and task sent over their topics."""

from __future__ import annotations

import json
import shlex
import signal
from dataclasses import dataclass
from typing import Any

from l3mp import cli
from l3mp.demo import (
    HALLUCINATION,
    NL_UPDATES,
    PERCEPTION,
    PLAN_NOTE,
    TASK,
    DemoFailed,
    Session,
    hallucinated_delta,
    perception_batches,
    say_llm,
    task_and_goal,
    update_sentences,
)
from l3mp.ros.client import STACK, Client, NoAnswer
from l3mp.ros.launcher import NodeProcess, random_domain, ros_environment, use_loopback, write_params
from l3mp.world.graph import WorldGraph
from l3mp.world.record import ChangeRecord

START_S = 120.0
"""Deadline for the nodes to start and find each other (a loaded machine, a cold Python)."""
UPDATE_S = 1200.0
"""Deadline for one NL update through the node (up to 4 attempts of a slow local LLM)."""
PLAN_S = 300.0


@dataclass
class Stack:
    """The bringup process and the client that talks to it."""

    process: NodeProcess
    client: Client
    domain_id: int

    def close(self) -> int:
        """Stop the nodes with SIGINT (they close the store cleanly); the exit code."""
        code = self.process.stop(signal.SIGINT, timeout=60)
        self.client.close()
        return code


def _stack(s: Session) -> Stack:
    if s.stack is None:
        raise DemoFailed("the ROS 2 nodes are not running")
    return s.stack


def _ask(s: Session, topic: str, payload: dict, result_topic: str, timeout: float) -> dict:
    stack = _stack(s)
    stack.client.publish(topic, payload)
    try:
        return stack.client.result(result_topic, payload.get("id") or payload["observation_id"], timeout=timeout)
    except NoAnswer as exc:
        raise DemoFailed(f"no answer on {result_topic}: {exc}\nnode output:\n{stack.process.output()[-3000:]}") from exc


def _record(s: Session, seq: int) -> ChangeRecord:
    """A change record as the world-model node published it."""
    data = _stack(s).client.wait("/world_model/changes", lambda r: r.get("seq") == seq, timeout=30)
    return ChangeRecord.from_json(data)


def _pub(topic: str, payload: Any) -> str:
    """The ros2 command that publishes the same message."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return f"$ ros2 topic pub --once {topic} std_msgs/msg/String {shlex.quote('{data: ' + json.dumps(text) + '}')}"


def start_nodes(s: Session) -> None:
    s.section("The ROS 2 nodes: world model, planner and executor on this store, talking over DDS on loopback")
    s.world.close()
    s.model = None
    params = write_params(s.directory / "ros-params.yaml", {
        "world_model": {"store_path": str(s.store), "fsync": s.fsync, "state_period_s": 0.2,
                        "update.retrieval": "search"},
        "planner": {"retrieval": "full"},
    })
    domain_id = random_domain()
    args = ["--ros-args", "--params-file", str(params)]
    s.say(f"$ ROS_DOMAIN_ID={domain_id} ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST l3mp-ros-bringup {' '.join(args)}")
    s.say(f"(on a ROS 2 installation: ros2 launch l3mp l3mp.launch.py params_file:={params})")
    process = NodeProcess("l3mp-ros-bringup", args, ros_environment(domain_id, s.directory / "ros-logs"),
                          s.directory / "ros-nodes.log")
    use_loopback()
    s.stack = Stack(process, Client(domain_id=domain_id), domain_id)
    client = s.stack.client
    try:
        state = client.wait("/world_model/state", timeout=START_S)
        client.wait_ready(STACK, timeout=START_S)
    except NoAnswer as exc:
        raise DemoFailed(f"the nodes did not start: {exc}\n{process.output()[-3000:]}") from exc
    graph = state["graph"]
    s.say(f"nodes up (pid {process.process.pid}); /world_model/state (transient local) holds record {state['seq']}: "
          f"{len(graph['entities'])} entities, {len(graph['facts'])} facts")
    s.say("topics: /world_model/{perception,nl_update,apply,query} in, /world_model/{results,changes,state} out; "
          "/planner/task in, /planner/{plan,status} out; /executor/{steps,result} out; /diagnostics")


def perceive(s: Session) -> None:
    s.section(PERCEPTION + " (through /world_model/perception)")
    c = s.roles
    for what, batch in perception_batches(c):
        s.say(f"observation: {what}")
        s.say(_pub("/world_model/perception", batch))
        result = _ask(s, "/world_model/perception", batch, "/world_model/results", 60)
        seq = result["batches"][0]["seq"] if result["ok"] else None
        if seq is None:
            raise DemoFailed(f"the observation '{what}' was not applied: {result}")
        record = _record(s, seq)
        s.say(cli.format_record(record))
    moved = [t for t in record.delta.to_json().get("remove", []) if t[0] == c.person and t[1] == "in_room"]
    if moved != [[c.person, "in_room", c.person_from]]:
        raise DemoFailed("the old room of the person stayed")
    s.say(f"(in_room {c.person} {c.person_from}) was superseded by the observation: a person is in exactly one room")


def nl_updates(s: Session) -> None:
    c = s.roles
    s.section(NL_UPDATES + " (through /world_model/nl_update)")
    s.say(HALLUCINATION)
    bad = {"id": "hallucinated", "delta": hallucinated_delta(c), "source": "nl"}
    s.say(_pub("/world_model/apply", bad))
    result = _ask(s, "/world_model/apply", bad, "/world_model/results", 60)
    if result["ok"]:
        raise DemoFailed("the hallucinated delta passed verification")
    for violation in result["violations"]:
        s.say(f"    - {violation['message']}")
    s.say("these messages are what the update loop sends back to the LLM when it errs.")
    say_llm(s)
    graph = _graph(s)
    for i, sentence in enumerate(update_sentences(graph, c), start=1):
        request = {"id": f"utterance-{i}", "text": sentence}
        s.say()
        s.say(_pub("/world_model/nl_update", request))
        for line in _update_lines(_ask(s, "/world_model/nl_update", request, "/world_model/results", UPDATE_S)):
            s.say(line)


def _graph(s: Session) -> WorldGraph:
    """The graph as the world-model node published it last."""
    return WorldGraph.from_json(_stack(s).client.received["/world_model/state"][-1]["graph"])


def _update_lines(result: dict) -> list[str]:
    """An NL update's result message, told like `l3mp update` tells it."""
    retrieval = result.get("retrieval") or {}
    lines = [f"update: {result.get('text')!r}", f"variant {result.get('variant')}, LLM {result.get('llm')}",
             f"retrieved ({retrieval.get('mode')}): {retrieval.get('entities')} entities, "
             f"{retrieval.get('facts')} facts"]
    for a in result.get("attempts", []):
        lines.append(f"attempt {a['number']}: {a['prompt_tokens']} prompt + {a['completion_tokens']} completion "
                     f"tokens, {a['seconds']:.1f} s")
        lines.append(f"    proposed: {json.dumps(a['delta']) if a['delta'] is not None else a['answer'][:300]!r}")
        lines += [f"    - {p}" for p in a["problems"]]
    tokens = result.get("tokens") or {}
    lines.append(f"tokens: {tokens.get('prompt_tokens', 0)} prompt + {tokens.get('completion_tokens', 0)} completion "
                 f"in {tokens.get('calls', 0)} call(s)")
    if result["ok"]:
        record = result.get("record")
        lines.append("applied:" if record else "accepted: nothing changes")
        if record:
            lines.append(cli.format_record(ChangeRecord.from_json(record)))
    else:
        lines.append(f"not applied, the graph is unchanged: {result['error']['message']}")
    return lines


def run_task(s: Session) -> None:
    c = s.roles
    s.section(TASK + " (through /planner/task and the executor)")
    task, goal = task_and_goal(_graph(s), c)
    request = {"id": "task-1", "task": task, "goal": goal, "retrieval": "full"}
    s.say(f'task: "{task}"  goal: {goal}  {PLAN_NOTE}')
    s.say(_pub("/planner/task", request))
    plan = _ask(s, "/planner/task", request, "/planner/plan", PLAN_S)
    if not plan["ok"]:
        raise DemoFailed(f"the task was not planned: {plan['error']['message']}")
    result = plan["result"]
    s.say(f"/planner/plan: {len(plan['plan'])} steps, {result['engine']} {result['planner_seconds']:.2f} s, "
          f"{result['context_entities']} objects; {result['validation']['message']}")
    done = _stack(s).client.result("/executor/result", "task-1", timeout=PLAN_S)
    for i, step in enumerate(done.get("steps", []), start=1):
        s.say(f"/executor/steps {i}/{len(done['steps'])}: {step['message']}")
        if step["seq"] is not None:
            s.say(cli.format_record(_record(s, step["seq"])))
    if not done["ok"]:
        raise DemoFailed(f"the plan did not run: {done['error']['message']}")
    s.say(f"/executor/result: {done['message']} in {done['seconds']:.2f} s")
    query = {"id": "check-task", "kind": "facts", "entity": c.mug, "predicate": "has"}
    answer = _ask(s, "/world_model/query", query, "/world_model/results", 30)
    if [c.person, "has", c.mug] not in answer.get("facts", []):
        raise DemoFailed("the person did not get the red mug")


def stop_nodes(s: Session) -> None:
    stack = _stack(s)
    s.say()
    s.say(f"$ kill -INT {stack.process.process.pid}   # the nodes stop; the world model writes a snapshot and closes "
          "the store")
    code = stack.close()
    s.stack = None
    if code != 0:
        raise DemoFailed(f"the nodes exited with code {code}:\n{stack.process.output()[-3000:]}")
    s.open()
    s.say(f"stopped cleanly; the store holds {s.world.last_seq} records, the last one from the executor's last step")
