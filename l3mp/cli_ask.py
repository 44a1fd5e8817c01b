"""``l3mp ask "QUESTION"``: a question about the home, answered from the graph and its history with the facts and
change records it rests on (l3mp.questions)."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from l3mp.cli_context import Context
from l3mp.cli_nl import add_llm_options, llm_overrides


def add_ask_parser(sub: Any, common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add ``ask`` to the subcommands `sub`, with the global options `common`."""
    about = "answer a question about the home from the graph and its history, citing the records"
    p = sub.add_parser("ask", parents=[common], help=about, description=about)
    p.set_defaults(run=cmd_ask)
    p.add_argument("question", help='e.g. "where is the red mug?", "who opened the fridge?", "how many lights are on?"')
    p.add_argument("--no-llm", action="store_true",
                   help="answer only the common forms (no LLM); any other question is declined")
    p.add_argument("--max-steps", type=int, default=4, metavar="N", help="LLM steps per question at most (default 4)")
    p.add_argument("--max-tokens", type=int, default=8000, metavar="N",
                   help="LLM tokens per question at most (default 8000)")
    p.add_argument("--now", metavar="T", help="answer as if it were T (ISO 8601 or unix seconds; default: now)")
    p.add_argument("--json", action="store_true", help="print the answer JSON")
    add_llm_options(p)
    return p


def cmd_ask(ctx: Context) -> int:
    """Run ``l3mp ask``; exit status 0 when answered, 1 when declined."""
    from l3mp.cli import UsageError, parse_time
    from l3mp.questions import Caps, QuestionAnswerer
    from l3mp.questions.wording import answer_lines

    args = ctx.args
    try:
        caps = Caps(max_steps=args.max_steps, max_tokens=args.max_tokens)
    except ValueError as exc:
        raise UsageError(f"--max-steps and --max-tokens: {exc}") from None
    now = parse_time(args.now, time.time()) if args.now else None
    answerer = QuestionAnswerer(ctx.domain, ctx.rules, caps=caps, make_llm=None if args.no_llm else _llm_maker(args))
    try:
        with ctx.open(read_only=True) as world:
            answer = answerer.ask_world(world, args.question, now=now)
    finally:
        if answerer.llm is not None:
            answerer.llm.close()  # type: ignore[attr-defined]
    if args.json:
        print(json.dumps(answer.to_json(), indent=1))
    else:
        print("\n".join(answer_lines(answer, now=now or time.time())))
    return 0 if answer.answered else 1


def _llm_maker(args: argparse.Namespace) -> Any:
    def make() -> Any:
        from l3mp.llm.factory import make_llm
        from l3mp.llm.settings import LLMSettings

        return make_llm(LLMSettings.from_sources(overrides=llm_overrides(args)))
    return make
