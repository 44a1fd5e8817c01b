"""The `l3mp` subcommands that talk to an LLM: ``update`` (natural-language updates)."""

from __future__ import annotations

import argparse
import json

from l3mp.cli_context import Context
from l3mp.report import update_lines
from l3mp.updates import VARIANTS, NLUpdater


def add_llm_options(p: argparse.ArgumentParser) -> None:
    """Provider options (they override the params file and the L3MP_LLM_* environment variables)."""
    g = p.add_argument_group("LLM (default: the embedded local model, offline)")
    g.add_argument("--llm-provider", choices=("embedded", "openai", "compatible"))
    g.add_argument("--llm-base-url", metavar="URL", help="an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    g.add_argument("--llm-model", metavar="NAME")
    g.add_argument("--llm-timeout", type=float, metavar="S", help="seconds per LLM call")
    g.add_argument("--llm-cache", action=argparse.BooleanOptionalAction, default=None,
                   help="replay identical requests from the response cache (reproducible runs)")


def add_update_parser(command) -> None:
    p = command("update", cmd_update, "apply a natural-language update through the LLM (verified; Algorithm 3)")
    p.add_argument("text", help='what happened, e.g. "Jessica turned off the light in the laundry room"')
    p.add_argument("--variant", choices=sorted(VARIANTS), help="the paper's agent variant (sets the two options below)")
    p.add_argument("--retrieval", choices=("full", "entities", "search"), default="search",
                   help="context retrieval: full graph (R-), LLM entity selection (R+), search-based (R^S)")
    p.add_argument("--no-verify", action="store_true", help="no verification re-prompts (one attempt)")
    p.add_argument("--depth", type=int, default=1, metavar="D", help="fact depth around retrieved entities")
    p.add_argument("--max-attempts", type=int, default=3, metavar="N", help="LLM proposals at most (default 3)")
    p.add_argument("--max-delta", type=int, default=24, metavar="N", help="facts changed per update at most")
    p.add_argument("--ref", metavar="ID", help="an identifier of the utterance")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    add_llm_options(p)


def llm_overrides(args: argparse.Namespace) -> dict:
    return {
        "provider": args.llm_provider,
        "base_url": args.llm_base_url,
        "model": args.llm_model,
        "timeout_s": args.llm_timeout,
        "cache": args.llm_cache,
    }


def cmd_update(ctx: Context) -> int:
    from l3mp.llm.factory import make_llm
    from l3mp.llm.settings import LLMSettings
    from l3mp.retrieval import make_retriever

    args = ctx.args
    mode, verify = VARIANTS[args.variant] if args.variant else (args.retrieval, not args.no_verify)
    settings = LLMSettings.from_sources(overrides=llm_overrides(args))
    llm = make_llm(settings)
    try:
        with ctx.open() as world:
            retriever = make_retriever(mode, llm=llm, domain=world.domain, depth=args.depth)
            updater = NLUpdater(world, llm, retriever, verify=verify, max_attempts=args.max_attempts,
                                max_delta_size=args.max_delta)
            result = updater.update(args.text, ref=args.ref)
    finally:
        llm.close()
    if args.json:
        print(json.dumps(result.to_json(), indent=1))
    else:
        print("\n".join(update_lines(result, verbose=args.verbose)))
    return 0 if result.accepted else 1

