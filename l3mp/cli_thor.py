"""The `l3mp thor` subcommand: one task in an AI2-THOR scene, perceived, planned, executed and re-planned."""

from __future__ import annotations

import argparse
import json

from l3mp.cli_context import Context, UsageError
from l3mp.cli_nl import add_llm_options
from l3mp.cli_plan import MAX_REPLANS, _make_llm
from l3mp.report import execution_lines


def add_thor_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Add ``thor`` to the ``l3mp`` command's subparsers (`common`: the global options)."""
    about = "run a task in an AI2-THOR scene: perceive it, plan, execute through the controller, re-plan on surprises"
    p = sub.add_parser("thor", parents=[common], help=about, description=about)
    p.set_defaults(run=cmd_thor)
    p.add_argument("--scene", required=True, help="an iTHOR scene, e.g. FloorPlan1 (kitchens 1-30, living rooms "
                   "201-230, bedrooms 301-330, bathrooms 401-430)")
    p.add_argument("--task", required=True, help='what to do, e.g. "put the apple in the fridge"')
    p.add_argument("--goal", metavar="PDDL", help='the goal as PDDL, e.g. "(in apple_1 fridge_1)": no LLM writes it')
    world = p.add_mutually_exclusive_group()
    world.add_argument("--offline", action="store_true", help="no simulator: the TEST DOUBLE controller over the "
                       "scene's real initial metadata (for trying the adapter; its physics is approximated)")
    world.add_argument("--executable", metavar="PATH", help="a local AI2-THOR Unity build (default: ai2thor "
                       "downloads its build; needs a display or Vulkan with a GPU)")
    p.add_argument("--planner", choices=("lapkt", "fast-downward"), default="lapkt")
    p.add_argument("--timeout", type=float, default=60, metavar="S", help="planner seconds per plan (default 60)")
    p.add_argument("--max-replans", type=int, default=MAX_REPLANS, metavar="N",
                   help=f"re-plans after failures and surprises (default {MAX_REPLANS})")
    p.add_argument("--record", action="store_true", help="keep the belief in the store (--store DIR, domain thor): "
                   "every perception batch and plan step becomes a change record that l3mp history and facts show")
    p.add_argument("--json", action="store_true", help="print the whole run as JSON")
    add_llm_options(p)


def cmd_thor(ctx: Context) -> int:
    """Run the task; exit 0 when its goal holds in what the agent saw at the end, 1 when not."""
    from l3mp.thor.controller import real_controller
    from l3mp.thor.offline import offline_controller
    from l3mp.thor.scenes import openable_poses, scene_kind
    from l3mp.thor.session import DOMAIN as THOR_DOMAIN
    from l3mp.thor.session import ThorSession

    args = ctx.args
    if args.max_replans < 0:
        raise UsageError("--max-replans must be >= 0")
    scene_kind(args.scene)
    controller = offline_controller(args.scene) if args.offline else real_controller(
        args.scene, local_executable_path=args.executable)
    if getattr(args, "domain", None) is None:
        args.domain = THOR_DOMAIN
    if ctx.domain.name != THOR_DOMAIN:
        raise UsageError(f"l3mp thor needs the thor domain, not {ctx.domain.name} (drop --domain or use "
                         f"--domain {THOR_DOMAIN})")
    world = ctx.open() if args.record else None
    llm = None if args.goal is not None else _make_llm(args)
    try:
        session = ThorSession(controller, scene=args.scene, world=world, known_poses=openable_poses(args.scene),
                              llm=llm, planner=args.planner, timeout_s=args.timeout)
        start = session.start()
        run = session.run(args.task, goal=args.goal, max_replans=args.max_replans)
    finally:
        if llm is not None:
            llm.close()
        if world is not None:
            world.close()
    if args.json:
        print(json.dumps({"scene": args.scene, "start": start, **run.to_json()}, indent=2))
    else:
        print(f"scene {args.scene}: the agent starts at {start} and has perceived "
              f"{session.world.graph.entity_count()} entities, {session.world.graph.fact_count()} facts")
        print(f"task: {run.task!r}\ngoal: {run.goal or '(none)'}")
        for number, plan in enumerate(run.plans, 1):
            print(f"plan {number}: " + " ".join(plan))
        if run.execution is not None:
            print("\n".join(execution_lines(run.execution)))
        print(f"{run.status}: {run.reason} ({run.replans} re-plan(s), {run.seconds:.1f} s)")
    return 0 if run.goal_reached else 1
