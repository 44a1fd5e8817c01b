"""The `l3mp plan` subcommand: plan a task in natural language (Algorithm 4), validated in the full state."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from l3mp.cli_nl import add_llm_options, llm_overrides

if TYPE_CHECKING:
    from l3mp.cli import Context
    from l3mp.planning.pipeline import PlanResult


def add_plan_parser(command) -> None:
    p = command("plan", cmd_plan, "plan a task given in natural language (Algorithm 4) and validate the plan")
    p.add_argument("task", help='what to do, e.g. "turn off all lights and faucets"')
    p.add_argument("--goal", metavar="PDDL", help='the goal as PDDL, e.g. "(and (not (light_on lamp_1)))": '
                   "no LLM writes it")
    p.add_argument("--retrieval", choices=("full", "entities", "search"), default="search",
                   help="context retrieval: full graph (R-), LLM entity selection (R+), search-based (R^S)")
    p.add_argument("--depth", type=int, default=1, metavar="D", help="fact depth around retrieved entities")
    p.add_argument("--planner", choices=("lapkt", "fast-downward"), default="lapkt")
    p.add_argument("--timeout", type=float, default=60, metavar="S", help="planner seconds per attempt (default 60)")
    p.add_argument("--max-expansions", type=int, default=2, metavar="N",
                   help="times the context is widened after no plan or an invalid plan (default 2)")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    add_llm_options(p)


def cmd_plan(ctx: Context) -> int:
    args = ctx.args
    llm = None if args.goal is not None and args.retrieval == "full" else _make_llm(args)
    try:
        with ctx.open(read_only=True) as world:
            result = _planner(args, world, llm).plan(args.task, goal=args.goal)
    finally:
        if llm is not None:
            llm.close()
    print(json.dumps(result.to_json(), indent=1) if args.json else "\n".join(result_lines(result)))
    return 0 if result.ok else 1


def _make_llm(args: argparse.Namespace):
    from l3mp.llm.factory import make_llm
    from l3mp.llm.settings import LLMSettings

    return make_llm(LLMSettings.from_sources(overrides=llm_overrides(args)))


def _planner(args: argparse.Namespace, world, llm):
    from l3mp.planning.pipeline import TaskPlanner
    from l3mp.retrieval import make_retriever

    options = {} if args.retrieval == "full" else {"depth": args.depth}
    retriever = make_retriever(args.retrieval, llm=llm, domain=world.domain, **options)
    return TaskPlanner(world, llm, retriever, planner=args.planner, timeout_s=args.timeout,
                       max_expansions=args.max_expansions)


def result_lines(result: PlanResult) -> list[str]:
    """A readable account: goal, problem, plan, times, validation, outcome."""
    lines = [f"task: {result.task!r}", f"goal: {result.goal or '(none)'}"]
    for attempt in result.goal_attempts:
        lines.append(f"goal attempt {attempt.number}: {' '.join(attempt.literals) or attempt.answer[:300]!r}")
        lines += [f"    - {p}" for p in attempt.problems]
    if result.problem_pddl:
        lines += ["problem:", *(f"    {line}" for line in result.problem_pddl.splitlines())]
    lines.append(f"plan ({len(result.plan)} step(s)):" if result.status == "solved" else f"no plan: {result.status}")
    lines += [f"    {i}. {step}" for i, step in enumerate(result.plan, 1)]
    lines.append(f"planner {result.engine or '-'}: {result.planner_seconds:.2f} s; retrieval "
                 f"{result.retrieval_seconds:.2f} s; {result.expansions} expansion(s); "
                 f"{result.context_entities} objects in the problem")
    if result.validation is not None:
        lines.append(f"validation (full state): {result.validation.message}")
    t = result.ledger
    lines.append(f"tokens: {t.prompt_tokens} prompt + {t.completion_tokens} completion in {len(t.calls)} call(s)")
    lines.append("OK: the plan is valid in the full state" if result.ok else f"FAILED: {result.reason}")
    return lines
