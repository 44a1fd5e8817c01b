"""Benchmark ``thor``: every iTHOR scene's real metadata as a graph of the thor domain, and tasks run end to end
through the AI2-THOR adapter on the TEST DOUBLE controller (the Unity build cannot run on this machine).

Run it with ``python -m l3mp.bench.thor_suite`` (``--quick``: 5 scenes per kind, 3 tasks); it saves its numbers to
docs/benchmarks/thor.json. No number here comes from the real simulator.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from dataclasses import dataclass

from l3mp.bench.runner import Metric, error_metric, register, run
from l3mp.thor.offline import offline_controller
from l3mp.thor.scenes import KINDS, openable_poses, scene_names
from l3mp.thor.session import ThorSession

QUICK_SCENES = 5
JSON_PATH = "docs/benchmarks/thor.json"


@dataclass(frozen=True)
class Task:
    """A task of the suite: scene, words, PDDL goal, and what a person did unseen before it (object name,
    ai2thor action)."""

    name: str
    scene: str
    text: str
    goal: str
    unseen: tuple[tuple[str, str], ...] = ()


TASKS = (
    Task("kitchen_apple_in_fridge", "FloorPlan1", "put the apple in the fridge and close it",
         "(and (in apple_1 fridge_1) (not (is_open fridge_1)))"),
    Task("kitchen_dirty_mug_surprise", "FloorPlan1", "serve a coffee in a clean mug on the kitchen island",
         "(and (filled_with mug_1 coffee) (not (dirty mug_1)) (in mug_1 counter_top_2))", (("mug_1", "DirtyObject"),)),
    Task("living_remote_on_sofa", "FloorPlan201", "put the remote control on the sofa", "(in remote_control_1 sofa_1)"),
    Task("kitchen_cook_potato", "FloorPlan2", "cook the potato", "(cooked potato_1)"),
    Task("bedroom_phone_on_desk", "FloorPlan301", "put the cell phone on the desk", "(in cell_phone_1 desk_1)"),
    Task("bathroom_soap_in_basin", "FloorPlan401", "put the soap bar in the sink", "(in soap_bar_1 sink_basin_1)"),
)


@register("thor")
def thor_suite(quick: bool) -> Iterator[Metric]:
    """Scenes per kind as graphs (count, triplets, seconds), then each task end to end (reached, seconds)."""
    for kind in KINDS:
        try:
            yield from _scenes(kind, quick)
        except Exception as exc:  # a failed kind is recorded, the others still run
            yield error_metric(f"{kind}_scenes", exc)
    tasks = TASKS[:3] if quick else TASKS
    reached = 0
    for task in tasks:
        try:
            ok, metrics = _task(task)
        except Exception as exc:
            yield error_metric(f"task_{task.name}", exc)
            continue
        reached += ok
        yield from metrics
    yield Metric("tasks_reached", 100.0 * reached / len(tasks), "%", 100.0, "min",
                 notes=f"{reached} of {len(tasks)} tasks on the TEST DOUBLE controller")


def _scenes(kind: str, quick: bool) -> Iterator[Metric]:
    scenes = scene_names((kind,))[:QUICK_SCENES] if quick else scene_names((kind,))
    valid, triplets, started = 0, 0, time.perf_counter()
    for scene in scenes:
        session = ThorSession(offline_controller(scene), scene=scene, known_poses=openable_poses(scene))
        session.start()
        graph = session.world.graph
        valid += not session.world.verifier.check_state(graph)
        triplets += graph.fact_count()
    seconds = time.perf_counter() - started
    yield Metric(f"{kind}_scenes_valid", 100.0 * valid / len(scenes), "%", 100.0, "min",
                 notes=f"{valid} of {len(scenes)} scene graphs (the agent included) satisfy the thor domain and "
                       "its rules as a whole")
    yield Metric(f"{kind}_triplets", triplets, "triplets", notes=f"over {len(scenes)} scenes")
    yield Metric(f"{kind}_seconds_per_scene", seconds / len(scenes), "s",
                 notes="the TEST DOUBLE's first events (ai2thor Events) -> the agent's survey from its start pose "
                       "-> verified graph -> whole-state check")


def _task(task: Task) -> tuple[bool, list[Metric]]:
    started = time.perf_counter()
    session = ThorSession(offline_controller(task.scene), scene=task.scene, known_poses=openable_poses(task.scene))
    session.start()
    for name, action in task.unseen:
        object_id = session.perception.namer.object_id(name)
        session.controller.step({"action": action, "objectId": object_id, "forceAction": True})
    outcome = session.run(task.text, goal=task.goal)
    seconds = time.perf_counter() - started
    steps = len(outcome.execution.steps) if outcome.execution is not None else 0
    about = f"{task.scene}: {task.text}; {steps} step(s), {outcome.replans} replan(s); {outcome.reason}"
    return outcome.goal_reached, [
        Metric(f"task_{task.name}_reached", 100.0 if outcome.goal_reached else 0.0, "%", notes=about),
        Metric(f"task_{task.name}_seconds", seconds, "s",
               notes=f"session start, planning {outcome.plan_seconds:.2f} s, execution, perception"),
    ]


def main(argv: list[str] | None = None) -> int:
    """Run the thor suite and save it to docs/benchmarks/thor.json (or ``--json``)."""
    parser = argparse.ArgumentParser(prog="python -m l3mp.bench.thor_suite", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="5 scenes per kind and 3 tasks")
    parser.add_argument("--json", default=JSON_PATH, help=f"where to write the results (default {JSON_PATH})")
    args = parser.parse_args(argv)
    return run(["thor"], quick=args.quick, json_path=args.json)


if __name__ == "__main__":
    raise SystemExit(main())
