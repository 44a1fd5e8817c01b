"""The `l3mp listen` subcommand: a spoken request from a WAV file, recognised against the stored graph's grammar and
routed: a task is planned, an update applied (its recorded input is the transcript), a question answered; when
unsure the robot asks back and does nothing."""

from __future__ import annotations

import argparse
import json
from typing import Any

from l3mp.cli_context import Context
from l3mp.cli_nl import add_llm_options, llm_overrides
from l3mp.report import plan_lines, update_lines
from l3mp.speech.audio import read_wav
from l3mp.speech.dictation import ENV, Dictation, DictationSettings
from l3mp.speech.listener import Heard, Listener
from l3mp.speech.phrasings import QUESTION, TASK, UPDATE
from l3mp.speech.questions import answer_question
from l3mp.speech.routing import ASK, MIN_CONFIDENCE
from l3mp.world.model import WorldModel


def add_listen_parser(sub: Any, common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add ``listen`` to the subcommands `sub` (with the global options `common`); it runs through ``args.run``."""
    about = "hear a spoken request (16 kHz mono WAV) and plan it, apply it or answer it"
    p = sub.add_parser("listen", parents=[common], help=about, description=about)
    p.set_defaults(run=cmd_listen)
    p.add_argument("file", metavar="FILE.wav", help="16 kHz mono 16-bit PCM (sox in.wav -r 16000 -c 1 -b 16 out.wav)")
    p.add_argument("--dry-run", action="store_true", help="only recognise and route; plan, change and answer nothing")
    p.add_argument("--min-confidence", type=float, default=MIN_CONFIDENCE, metavar="C",
                   help=f"ask back below this confidence (0..1, default {MIN_CONFIDENCE})")
    p.add_argument("--dictation-url", metavar="URL", help="an OpenAI-compatible transcription endpoint for speech "
                   f"the grammar does not hear confidently (default ${ENV['base_url']}; unset: offline only)")
    p.add_argument("--dictation-model", metavar="NAME", help=f"its model (default ${ENV['model']} or whisper-1)")
    p.add_argument("--retrieval", choices=("full", "entities", "search"), default="search",
                   help="context retrieval for tasks and updates (default search, R^S)")
    p.add_argument("--planner", choices=("lapkt", "fast-downward"), default="lapkt")
    p.add_argument("--json", action="store_true", help="print what was heard and done as JSON")
    add_llm_options(p)
    return p


def cmd_listen(ctx: Context) -> int:
    args = ctx.args
    audio = read_wav(args.file)
    settings = DictationSettings.from_env(base_url=args.dictation_url, model=args.dictation_model)
    dictation = Dictation(settings) if settings.enabled else None
    try:
        with ctx.open(read_only=args.dry_run) as world:
            listener = Listener(world.domain, world.verifier.rules, dictation=dictation,
                                min_confidence=args.min_confidence)
            heard = listener.hear(audio, world.graph)
            if not args.json:
                print("\n".join(heard_lines(heard)), flush=True)
            done = None if args.dry_run or heard.route.kind == ASK else _act(args, world, heard)
    finally:
        if dictation is not None:
            dictation.close()
    if args.json:
        print(json.dumps({"heard": heard.to_json(), "dry_run": args.dry_run,
                          "result": None if done is None else done[1]}, indent=1))
    elif done is not None:
        print("\n".join(done[2]))
    if args.dry_run:
        return 0 if heard.route.kind != ASK else 1
    return 0 if done is not None and done[0] else 1


def heard_lines(heard: Heard) -> list[str]:
    """What was heard and where it goes, for people."""
    t, route = heard.transcript, heard.route
    lines = []
    if heard.refresh is not None:
        lines.append(f"grammar of the graph: {heard.refresh.phrases} names, built in {heard.refresh.seconds:.2f} s")
        if heard.refresh.unsayable:
            lines.append("cannot be said (a word is not in the pronunciation dictionary): "
                         + ", ".join(heard.refresh.unsayable))
    said = f'"{t.written}"' if t.text else f"nothing ({t.reason})"
    lines.append(f"heard: {said} (confidence {t.confidence:.2f}, {t.source}; {t.audio_seconds:.1f} s of audio, "
                 f"recognised in {t.seconds:.2f} s)")
    lines += [f"also heard: \"{o.written}\" ({o.source}, confidence {o.confidence:.2f})" for o in heard.others]
    if heard.note:
        lines.append(f"note: {heard.note}")
    if route.kind == ASK:
        lines.append(f"ask: {route.prompt}")
    else:
        lines.append(f"route: {route.kind}" + (f" ({route.action})" if route.action else "") + f" [{route.basis}]")
    return lines


def _act(args: argparse.Namespace, world: WorldModel, heard: Heard) -> tuple[bool, dict, list[str]]:
    """Carry out the routed request: (done, its JSON, its lines)."""
    text = heard.route.text
    if heard.route.kind == QUESTION:
        reply = answer_question(text, world.graph, world.domain, world.verifier.rules,
                                world.history if world.store is not None else None)
        return reply.supported, reply.to_json(), [f"answer: {reply.answer}"]
    from l3mp.llm.factory import make_llm
    from l3mp.llm.settings import LLMSettings
    from l3mp.retrieval import make_retriever

    llm = make_llm(LLMSettings.from_sources(overrides=llm_overrides(args)))
    try:
        retriever = make_retriever(args.retrieval, llm=llm, domain=world.domain)
        if heard.route.kind == TASK:
            from l3mp.planning.pipeline import TaskPlanner

            result = TaskPlanner(world, llm, retriever, planner=args.planner).plan(text)
            return result.ok, result.to_json(), plan_lines(result)
        assert heard.route.kind == UPDATE
        from l3mp.updates import NLUpdater

        update = NLUpdater(world, llm, retriever).update(text, ref=f"speech:{args.file}")
        return update.accepted, update.to_json(), update_lines(update, verbose=args.verbose)
    finally:
        llm.close()
