"""The `l3mp eval` subcommand: the paper's text-simulation experiment (section V-A) for the six agent variants."""

from __future__ import annotations

import argparse
import signal
from pathlib import Path
from typing import Any

from l3mp.cli_context import Context
from l3mp.errors import L3mpError
from l3mp.updates import VARIANTS

LLM_CHOICES = ("simulated", "embedded", "openai", "compatible")
PAPER_MODEL = "gpt-4o"
"""The model of the paper's experiment: the default of ``--llm openai`` here."""


def add_eval_parser(command) -> None:
    p = command("eval", cmd_eval, "run the paper's text-household experiment for the agent variants (Table I, "
                "Figs 2-4)")
    p.add_argument("--out", required=True, metavar="DIR", help="where results, table, figures and checkpoints go")
    p.add_argument("--variants", default=",".join(VARIANTS), metavar="V,...",
                   help="comma-separated agent variants (default: all six)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="episode seed (house, events, tasks)")
    p.add_argument("--events", type=int, default=40, metavar="N", help="state changes (default 40)")
    p.add_argument("--tasks-every", type=int, default=10, metavar="N",
                   help="a task after every N changes (0: none; default 10)")
    p.add_argument("--scale", type=float, default=1.0, metavar="S",
                   help="house size factor (1: the default house, 6-8 rooms)")
    p.add_argument("--labels", choices=("true", "wrong", "uninformative"), default="true",
                   help="what perception named the items (a share of them, --label-fraction)")
    p.add_argument("--label-fraction", type=float, default=0.3, metavar="F")
    p.add_argument("--perception", type=float, default=0.0, metavar="P",
                   help="share of changes the robot perceives as triplets instead of being told (default 0)")
    p.add_argument("--multi", type=float, default=0.25, metavar="P", help="share of sentences with several events")
    p.add_argument("--partial", type=float, default=0.3, metavar="P", help="share of partially described events")
    p.add_argument("--planner", choices=("lapkt", "fast-downward"), default="lapkt")
    p.add_argument("--planner-timeout", type=float, default=60.0, metavar="S")
    p.add_argument("--resume", action="store_true", help="continue the checkpointed run in --out")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--report-only", action="store_true",
                   help="only write the outputs from the checkpoints in --out, as far as they got (no LLM)")
    g = p.add_argument_group("LLM (default: the simulated LLM)")
    g.add_argument("--llm", choices=LLM_CHOICES, default="simulated",
                   help="simulated (oracle with an error model, offline, fast), embedded (local model), openai "
                        f"(default model {PAPER_MODEL}, key in OPENAI_API_KEY), compatible (--llm-base-url)")
    g.add_argument("--errors", default="default", metavar="SPEC",
                   help="simulated LLM error model: default, none, or kind=rate,... (see sim/simulated_llm.py)")
    g.add_argument("--llm-seed", type=int, default=0, metavar="N", help="seed of the simulated LLM's errors")
    g.add_argument("--llm-base-url", metavar="URL")
    g.add_argument("--llm-model", metavar="NAME")
    g.add_argument("--llm-timeout", type=float, metavar="S")
    g.add_argument("--llm-cache", action=argparse.BooleanOptionalAction, default=None,
                   help="replay identical requests from the response cache")


def cmd_eval(ctx: Context) -> int:
    from l3mp_sim.evaluation import EvalConfig, EvaluationError, evaluate, report_checkpoints
    from l3mp_sim.simulator import SimConfig

    args = ctx.args
    out = Path(args.out)
    sim = SimConfig(seed=args.seed, scale=args.scale, labels=args.labels, label_fraction=args.label_fraction,
                    perception_prob=args.perception, multi_event_prob=args.multi, partial_prob=args.partial,
                    planner=args.planner, planner_timeout_s=args.planner_timeout)
    config = EvalConfig(sim=sim, events=args.events, tasks_every=args.tasks_every,
                        variants=tuple(v.strip() for v in args.variants.split(",") if v.strip()))
    if args.report_only:
        report_checkpoints(config, out)
        print((out / "table.md").read_text(encoding="utf-8"))
        return 0
    runs = out / "runs"
    if runs.is_dir() and any(runs.glob("*.json")) and not args.resume:
        raise EvaluationError(f"{out} already holds a run; add --resume to continue it, or choose another --out")
    llm, info = _make_llm(args)
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        document = evaluate(config, llm, info, out, progress=not args.no_progress)
    finally:
        signal.signal(signal.SIGTERM, previous)
        llm.close()
    print((out / "table.md").read_text(encoding="utf-8"))
    print(f"results: {out / 'results.json'}, {out / 'results.csv'}, figures: {out}/fig2_cumulative.png, "
          f"fig3_planning_time.png, fig4_tokens.png")
    return 0 if document["summary"] else 1


def _stop(signum: int, frame: Any) -> None:
    """SIGTERM ends the run like Ctrl-C: completed steps stay checkpointed and the embedded server is stopped."""
    raise KeyboardInterrupt


def _make_llm(args: argparse.Namespace) -> tuple[Any, dict]:
    if args.llm == "simulated":
        from l3mp_sim.simulated_llm import ErrorModel, SimulatedLLM

        from l3mp.domain.paths import domain_path
        from l3mp.domain.pddl_domain import Domain

        domain = Domain.from_file(domain_path("household"))

        try:
            errors = ErrorModel.parse(args.errors)
        except ValueError as exc:
            raise L3mpError(f"--errors: {exc}") from exc
        llm = SimulatedLLM(domain, errors, seed=args.llm_seed)
        return llm, llm.describe()
    from l3mp.llm.factory import describe, make_llm
    from l3mp.llm.settings import LLMSettings

    model = args.llm_model or (PAPER_MODEL if args.llm == "openai" else None)
    settings = LLMSettings.from_sources(overrides={"provider": args.llm, "base_url": args.llm_base_url,
                                                   "model": model, "timeout_s": args.llm_timeout,
                                                   "cache": args.llm_cache})
    return make_llm(settings), describe(settings)
