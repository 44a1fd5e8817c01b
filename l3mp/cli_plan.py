"""The `l3mp plan` subcommand: plan a task in natural language (Algorithm 4), validated in the full state, and
optionally execute the plan step by step, writing its effects to the world model."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from l3mp.cli_context import Context, UsageError, read_state
from l3mp.cli_nl import add_llm_options, llm_overrides
from l3mp.report import execution_lines, plan_lines

if TYPE_CHECKING:
    from l3mp.planning.execute import ExecutionReport
    from l3mp.planning.pipeline import PlanResult, TaskPlanner
    from l3mp.world.graph import WorldGraph
    from l3mp.world.model import WorldModel


MAX_REPLANS = 3
"""Replans after failed steps when executing, unless --max-replans says otherwise."""


def add_plan_parser(command) -> None:
    p = command("plan", cmd_plan, "plan a task given in natural language (Algorithm 4), validate the plan and, "
                "with --execute, run it")
    p.add_argument("task", help='what to do, e.g. "turn off all lights and faucets"')
    p.add_argument("--speaker", metavar="PERSON", help='who asks (the entity name "me" stands for)')
    p.add_argument("--goal", metavar="PDDL", help='the goal as PDDL, e.g. "(and (not (light_on lamp_1)))": '
                   "no LLM writes it")
    p.add_argument("--retrieval", choices=("full", "entities", "search"), default="search",
                   help="context retrieval: full graph (R-), LLM entity selection (R+), search-based (R^S)")
    p.add_argument("--depth", type=int, default=1, metavar="D", help="fact depth around retrieved entities")
    p.add_argument("--planner", choices=("lapkt", "fast-downward"), default="lapkt")
    p.add_argument("--timeout", type=float, default=60, metavar="S", help="planner seconds per attempt (default 60)")
    p.add_argument("--max-expansions", type=int, default=2, metavar="N",
                   help="times the context is widened after no plan or an invalid plan (default 2)")
    p.add_argument("--memory-limit", type=int, metavar="MB",
                   help="LAPKT's address-space cap in MB (default: 4096 or half the RAM, whichever is less)")
    p.add_argument("--execute", action="store_true",
                   help="run the valid plan step by step against the world (a copy of the stored state, or --world) "
                        "and write each step's effects to the store (source plan); a failed step replans")
    p.add_argument("--world", metavar="FILE", help="with --execute: the true state to execute in (graph JSON or "
                   "PDDL problem), when it differs from the store")
    p.add_argument("--max-replans", type=int, metavar="N", help="with --execute: replans after failed steps "
                   f"(default {MAX_REPLANS})")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    add_llm_options(p)


def cmd_plan(ctx: Context) -> int:
    args = ctx.args
    if (args.world is not None or args.max_replans is not None) and not args.execute:
        raise UsageError("--world and --max-replans only apply with --execute")
    max_replans = MAX_REPLANS if args.max_replans is None else args.max_replans
    if max_replans < 0:
        raise UsageError("--max-replans must be >= 0")
    llm = None if args.goal is not None and args.retrieval == "full" else _make_llm(args)
    report = None
    try:
        with ctx.open(read_only=not args.execute) as world:
            truth = _truth(ctx, world) if args.execute else None
            planner = _planner(args, world, llm)
            result = planner.plan(args.task, goal=args.goal, speaker=args.speaker)
            if not args.json:
                print("\n".join(plan_lines(result)), flush=True)
            if truth is not None and result.ok:
                report = _execute(world, truth, planner, result, max_replans, echo=not args.json)
    finally:
        if llm is not None:
            llm.close()
    if args.json:
        data = result.to_json()
        if args.execute:
            data["execution"] = None if report is None else report.to_json()
        print(json.dumps(data, indent=1))
    done = result.ok or result.outcome == "satisfied"  # asked: exit 1 with the question, as for updates
    return 0 if done and (report is None or report.status == "completed") else 1


def _truth(ctx: Context, world: WorldModel) -> WorldGraph:
    """The state the plan runs in: --world's, else a copy of the stored state."""
    if ctx.args.world is None:
        return world.graph.copy()
    truth = read_state(world.domain, ctx.args.world)
    truth.add_missing_entities(world.domain.constants)  # the robot and other constants, as the store has them
    return truth


def _execute(
    world: WorldModel, truth: WorldGraph, planner: TaskPlanner, result: PlanResult, max_replans: int, *, echo: bool
) -> ExecutionReport:
    """Run the plan in a GraphExecutor over `truth`, printing each step and what it changed in the store."""
    from l3mp.planning.execute import GraphExecutor, run_plan

    replans: list[PlanResult] = []

    def replan() -> list[str] | None:
        again = planner.plan(result.task, goal=result.goal)
        replans.append(again)
        if echo:
            print(f"replanning from the updated store: {again.status}, {len(again.plan)} step(s)"
                  + ("" if again.ok else f" ({again.reason})"), flush=True)
        return again.plan if again.ok else None

    executor = GraphExecutor(world.domain, truth)
    report = run_plan(world, executor, result.plan, task_ref=f"plan: {result.task}", replan=replan,
                      max_replans=max_replans)
    if echo:
        print("\n".join(execution_lines(report)))
    return report


def _make_llm(args: argparse.Namespace):
    from l3mp.llm.factory import make_llm
    from l3mp.llm.settings import LLMSettings

    return make_llm(LLMSettings.from_sources(overrides=llm_overrides(args)))


def _planner(args: argparse.Namespace, world, llm):
    from l3mp.planning.pipeline import TaskPlanner
    from l3mp.retrieval import make_retriever

    retriever = make_retriever(args.retrieval, llm=llm, domain=world.domain, depth=args.depth)
    options = {} if args.memory_limit is None else {"memory_limit_mb": args.memory_limit}
    if options and args.planner != "lapkt":
        raise UsageError("--memory-limit applies to the lapkt planner only")
    return TaskPlanner(world, llm, retriever, planner=args.planner, timeout_s=args.timeout,
                       max_expansions=args.max_expansions, planner_options=options)
