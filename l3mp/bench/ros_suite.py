"""Suite ``ros``: perception triplets through the world model's topic into the graph (batched messages), the
latency of a task through the world-model, planner and executor nodes (separate processes) without planner time,
and the cost of one plan step's precondition and effect computation."""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from l3mp_sim.house import house_graph

from l3mp.bench.runner import Metric, error_metric, percentile, register
from l3mp.domain.paths import ROBOT, domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.planning.execute import ActionEffects
from l3mp.ros import protocol as m
from l3mp.world.delta import state_delta
from l3mp.world.model import WorldModel

SEED = 7
START_S = 90.0
"""Deadline for node processes to start and discover each other."""
TARGET_TRIPLETS_S = 5000.0
TARGET_TASK_MS = 50.0
STEP_REPEATS = 200
"""Calls per path in the step-cost measurement."""


@dataclass(frozen=True)
class Scale:
    messages: int
    triplets_per_message: int
    tasks: int


FULL = Scale(messages=40, triplets_per_message=1000, tasks=30)
QUICK = Scale(messages=4, triplets_per_message=500, tasks=4)


@register("ros")
def ros_suite(quick: bool) -> Iterator[Metric]:
    scale = QUICK if quick else FULL
    with tempfile.TemporaryDirectory(prefix="l3mp-bench-ros-") as tmp:
        try:
            yield from _perception(Path(tmp) / "perception", scale)
        except Exception as exc:  # the suite goes on with the next measurement
            yield error_metric("perception_topic", exc)
        try:
            yield from _task_latency(Path(tmp) / "tasks", scale)
        except Exception as exc:
            yield error_metric("task_latency", exc)
    try:
        yield from _step_cost(STEP_REPEATS // 10 if quick else STEP_REPEATS)
    except Exception as exc:
        yield error_metric("step_effects", exc)


# ---- the nodes as processes ------------------------------------------------------------------
class _Nodes:
    """Console-script processes of some nodes plus a client, in a random ROS domain on loopback."""

    def __init__(self, directory: Path, nodes: dict[str, dict], scripts: tuple[str, ...]) -> None:
        from l3mp.ros.client import Client
        from l3mp.ros.launcher import NodeProcess, random_domain, ros_environment, use_loopback, write_params
        from l3mp.ros.main import config_path

        directory.mkdir(parents=True, exist_ok=True)
        domain_id = random_domain()
        env = ros_environment(domain_id, directory / "logs")
        params = write_params(directory / "params.yaml", nodes)
        args = ["--ros-args", "--params-file", str(config_path()), "--params-file", str(params)]
        self.processes = [NodeProcess(s, args, env, directory / f"{s}.log") for s in scripts]
        use_loopback()
        self.client = Client(domain_id=domain_id)

    def close(self) -> None:
        for process in self.processes:
            process.stop(timeout=20)
        self.client.close()


def _store(path: Path) -> tuple[Path, list[str]]:
    """A store holding generated house SEED; the names of its surfaces."""
    domain = Domain.from_file(domain_path("household"))
    with WorldModel.open(domain, path, fsync=False) as world:
        world.apply(state_delta(domain, world.graph, house_graph(SEED), replace=True), source="import")
        surfaces = sorted(n for n in world.graph.entities()
                          if domain.is_subtype(world.graph.entity_type(n) or "", "surface"))
    return path, surfaces


# ---- perception throughput ------------------------------------------------------------------
def _perception(directory: Path, scale: Scale) -> Iterator[Metric]:
    """Batches of `triplets_per_message` triplets as fast as they can be published: the first creates that many
    dishes on surfaces, the next ones move them (each observed place supersedes the old one); every batch is
    verified, applied and journaled with fsync. Throughput = triplets / (last result - first publish)."""
    store, surfaces = _store(directory / "world")
    nodes = _Nodes(directory, {"world_model": {"store_path": str(store), "fsync": True}}, ("l3mp-world-model",))
    try:
        client = nodes.client
        client.wait(m.WORLD_MODEL_STATE, timeout=START_S)
        rng = random.Random(SEED)
        items = [f"bench_cup_{i}" for i in range(scale.triplets_per_message)]
        messages = []
        for k in range(scale.messages):
            batch = {"observation_id": f"bench-{k}", "triplets": [[i, "on", rng.choice(surfaces)] for i in items]}
            if k == 0:
                batch["entities"] = {i: {"type": "dish"} for i in items}
            messages.append(batch)
        started = None
        for batch in messages:
            sent = client.publish(m.WORLD_MODEL_PERCEPTION, batch)
            started = started or sent
        results = [client.result(m.WORLD_MODEL_RESULTS, b["observation_id"], timeout=START_S) for b in messages]
        rejected = [r["error"]["message"] for r in results if not r["ok"]]
        if rejected:
            raise RuntimeError(f"{len(rejected)} perception message(s) rejected: {rejected[0]}")
        ended = max(client.arrival(m.WORLD_MODEL_RESULTS, r) for r in results)
    finally:
        nodes.close()
    triplets = scale.messages * scale.triplets_per_message
    yield Metric("perception_topic_throughput", triplets / (ended - started), "triplets/s", TARGET_TRIPLETS_S,
                 "min", notes=f"{scale.messages} messages of {scale.triplets_per_message} triplets (std_msgs/String "
                 "JSON) published back to back to the world-model process; verified, applied, journaled with fsync")


# ---- task latency ---------------------------------------------------------------------------
def _task_latency(directory: Path, scale: Scale) -> Iterator[Metric]:
    """Tasks with a given goal (no LLM) and full retrieval: the robot goes to another room (a one-step plan),
    planned by the planner process, executed by the executor process (graph adapter), written back to the
    world-model process. Per task: total = result at the client - task published; planner = the planner's
    TaskPlanner time (planning and validation); the target is on total - planner (there is no LLM time);
    step work = the executor's run_plan time minus its write-back round trips (precondition and effect
    computation, and the adapter), subtracted too in an informative metric."""
    from l3mp.ros.client import STACK

    store, _ = _store(directory / "world")
    params = {"world_model": {"store_path": str(store), "fsync": True},
              "planner": {"retrieval": "full", "planner": "fast-downward"}}
    nodes = _Nodes(directory, params, ("l3mp-world-model", "l3mp-planner", "l3mp-executor"))
    totals, without_planner, overhead = [], [], []
    try:
        client = nodes.client
        state = client.wait(m.WORLD_MODEL_STATE, timeout=START_S)
        client.wait_ready(STACK, timeout=START_S)
        rooms = sorted(n for n, a in state["graph"]["entities"].items() if a["type"] == "room")
        here = next(t[2] for t in state["graph"]["facts"] if t[0] == ROBOT and t[1] == "in_room")
        targets = [r for r in rooms if r != here][:2]
        for k in range(scale.tasks + 1):
            room = targets[k % 2]
            ident = f"bench-task-{k}"
            sent = client.publish(m.PLANNER_TASK, {"id": ident, "task": f"go to {room}", "retrieval": "full",
                                                    "goal": f"(in_room {ROBOT} {room})"})
            timeout = START_S if k == 0 else 60.0
            plan = client.result(m.PLANNER_PLAN, ident, timeout=timeout)
            done = client.result(m.EXECUTOR_RESULT, ident, timeout=timeout)
            if not (plan["ok"] and done["ok"]):
                raise RuntimeError(f"task {ident} failed: {plan.get('error') or done.get('error')}")
            if k == 0:  # the first task also waits for discovery and warms up the planner
                continue
            total = client.arrival(m.EXECUTOR_RESULT, done) - sent
            totals.append(total)
            without_planner.append(total - plan["plan_seconds"])
            overhead.append(total - plan["plan_seconds"] - (done["run_seconds"] - done["write_back_seconds"]))
    finally:
        nodes.close()
    ms = 1000.0
    note = f"{scale.tasks} one-step tasks through three node processes"
    yield Metric("task_total_p50", statistics.median(totals) * ms, "ms", notes=f"{note}; everything included")
    yield Metric("task_without_planner_p50", statistics.median(without_planner) * ms, "ms", TARGET_TASK_MS, "max",
                 notes="end-to-end minus the planner node's TaskPlanner time (planning + validation) and LLM time "
                       "(none: the goal is given); includes messages, queues, JSON, replica sync, the executor's "
                       "step work and the fsync'd write-back round trip to the world model")
    yield Metric("task_without_planner_p95", percentile(without_planner, 0.95) * ms, "ms")
    yield Metric("task_through_nodes_p50", statistics.median(overhead) * ms, "ms",
                 notes="informative: also minus the executor's step work (precondition and effect computation, "
                       "adapter), i.e. messages, queues, JSON, replica sync and the write-back round trip")


# ---- one step's precondition and effect computation ----------------------------------------
def _step_cost(repeats: int) -> Iterator[Metric]:
    """ActionEffects.unsatisfied + delta of one applicable ``move`` on house SEED, compiled schema vs. the
    unified-planning simulator path (what every executed step computes, about twice)."""
    domain = Domain.from_file(domain_path("household"))
    graph = house_graph(SEED)
    here = next(f.args[1] for f in graph.facts(predicate="in_room", entity=ROBOT))
    there = min(n for n in graph.entities() if graph.entity_type(n) == "room" and n != here)
    action = f"(move {ROBOT} {here} {there})"
    for name, effects, count in (("step_effects_compiled", ActionEffects(domain), repeats),
                                 ("step_effects_simulator", ActionEffects(domain, compile_schemas=False),
                                  max(1, repeats // 20))):
        started = time.perf_counter()
        for _ in range(count):
            if effects.unsatisfied(graph, action):
                raise RuntimeError(f"{action} should be applicable in house {SEED}")
            effects.delta(graph, action)
        yield Metric(name, (time.perf_counter() - started) / count * 1000.0, "ms",
                     notes=f"unsatisfied + delta of {action} on house {SEED} ({graph.entity_count()} entities, "
                           f"{graph.fact_count()} facts), mean of {count}")
