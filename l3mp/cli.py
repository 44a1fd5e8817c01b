"""The ``l3mp`` command: create, inspect, change, query, export and draw the world-state store."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import os
import re
import sys
import time
import traceback
from pathlib import Path

from l3mp.cli_ask import add_ask_parser
from l3mp.cli_context import Context, UsageError, read_json, read_state
from l3mp.cli_eval import add_eval_parser
from l3mp.cli_llm import add_llm_parser, prefer_shared_server
from l3mp.cli_nl import add_update_parser
from l3mp.cli_plan import add_plan_parser
from l3mp.cli_speech import add_listen_parser
from l3mp.cli_store import add_store_parser, cmd_check
from l3mp.cli_thor import add_thor_parser
from l3mp.domain.paths import DEFAULT_DOMAIN
from l3mp.domain.triplets import fact_to_triplet
from l3mp.errors import DeltaRejected, DomainError, FormatError, L3mpError, ProblemError
from l3mp.report import delta_lines, entity_title, format_record, graph_lines, iso, record_header, story_lines
from l3mp.world.delta import Delta, state_delta
from l3mp.world.graph import WorldGraph
from l3mp.world.model import Observation
from l3mp.world.query import around, find_entities, find_facts, known_entity
from l3mp.world.store import make_room_for_store

EXIT_FAILED = 1
EXIT_USAGE = 2
DEFAULT_DEPTH = 2
RECORD_LINES = 12
_RELATIVE = re.compile(r"^-(\d+(?:\.\d+)?)([smhdw])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (exit status 2).

    Relative times such as ``-10m`` are read as values, as argparse reads ``-10``.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\d+(\.\d+)?[smhdw]?$|^-\.\d+$")

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


# ---- entry point ----------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    """Run the command line `argv` (default: sys.argv[1:]); returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error the parser already reported
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="l3mp: %(levelname)s: %(message)s")
    try:
        prefer_shared_server(args)
        return args.run(Context(args))
    except DeltaRejected as exc:
        _error(f"delta rejected ({len(exc.violations)} problem(s)):")
        for violation in exc.violations:
            print(f"- {violation.message}", file=sys.stderr)
        return EXIT_FAILED
    except (UsageError, FormatError, ProblemError, DomainError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    except L3mpError as exc:
        _error(str(exc))
        return EXIT_FAILED
    except BrokenPipeError:  # the reader of our output went away (l3mp facts | head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    except OSError as exc:
        _error(f"{exc.filename or 'output'}: {exc.strerror or exc}")
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug: still one line, unless -v asks for the traceback
        if args.verbose:
            traceback.print_exc()
        _error(f"internal error: {type(exc).__name__}: {exc}" + ("" if args.verbose else " (run with -v for details)"))
        return EXIT_FAILED


def _error(message: str) -> None:
    print(f"l3mp: error: {message}", file=sys.stderr)


# ---- arguments ------------------------------------------------------------------------------
def build_parser() -> Parser:
    """The parser of every subcommand; global options are accepted before or after the subcommand."""
    parser = Parser(prog="l3mp", description="Lifelong world-state memory of a service robot (L3M+P).",
                    parents=[_global_options(suppress=False)])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = _global_options(suppress=True)

    def command(name: str, run, help_: str) -> Parser:
        p = sub.add_parser(name, parents=[common], help=help_, description=help_)
        p.set_defaults(run=run)
        return p

    p = command("init", cmd_init, "create the store's initial state as one verified import record")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--house", type=int, metavar="SEED", help="a generated household (l3mp_sim)")
    source.add_argument("--problem", metavar="FILE.pddl", help="the :init of a PDDL problem")
    source.add_argument("--graph", metavar="FILE.json", help="graph JSON (l3mp export --format json)")
    p.add_argument("--scale", type=float, help="house size factor (with --house; default 1.0)")
    p.add_argument("--force", action="store_true", help="move an existing store aside (never deleted)")

    p = command("import", cmd_import, "merge a PDDL problem or graph JSON into the store as one import record")
    p.add_argument("file", metavar="FILE.pddl|FILE.json")
    p.add_argument("--replace", action="store_true",
                   help="make the store hold exactly the file's state (default: the file is authoritative "
                        "only about the facts among its own entities)")

    p = command("show", cmd_show, "summary of the store and every fact, grouped by entity")
    p.add_argument("--json", action="store_true", help="print the graph JSON instead")

    p = command("facts", cmd_facts, "list facts (PDDL atoms), optionally filtered")
    p.add_argument("--entity", metavar="E", help="only facts mentioning E")
    p.add_argument("--predicate", metavar="P", help="only facts of predicate P")
    p.add_argument("--type", metavar="T", help="only facts mentioning an entity of type T (or a subtype)")
    p.add_argument("--json", action="store_true", help="print triplets as JSON")

    p = command("entities", cmd_entities, "list entities with their types and labels")
    p.add_argument("--type", metavar="T", help="only entities of type T (or a subtype)")
    p.add_argument("--json", action="store_true", help="print the entities as JSON")

    command("check", cmd_check, "verify the whole graph against the domain and its rules, and report unacknowledged "
                                "damage in the store")

    p = command("apply", cmd_apply, "verify and apply a delta (JSON file, or - for stdin)")
    p.add_argument("file", metavar="FILE|-")
    p.add_argument("--source", choices=("user", "nl", "plan", "perception"), default="user")
    p.add_argument("--input", metavar="TEXT", help="what caused the change (a sentence, an action)")
    p.add_argument("--ref", metavar="ID", help="an identifier of the cause (task id, message id)")
    p.add_argument("--dry-run", action="store_true", help="only verify, and show what would change")

    p = command("perceive", cmd_perceive, "apply perception batches (a JSON object, or a list of them)")
    p.add_argument("file", metavar="FILE|-")

    p = command("export", cmd_export, "print the graph, or the part around some entities, as PDDL or JSON")
    _selection_options(p)
    p.add_argument("--format", choices=("pddl", "json"), help="default: json if --out ends in .json, else pddl")
    p.add_argument("--goal", metavar='"(and ...)"', help="the PDDL goal to write (pddl only)")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")

    about = "what changed when, the graph at a past time, and why a fact is true"
    _history_parser(sub.add_parser("history", parents=[common], help=about, description=about), common)

    p = command("render", cmd_render, "draw the graph, or the part around some entities, as PNG or SVG")
    p.add_argument("out", metavar="OUT.png|OUT.svg")
    _selection_options(p)
    p.add_argument("--max-nodes", type=int, default=150, metavar="N", help="refuse to draw more (default 150)")

    add_update_parser(command)
    add_ask_parser(sub, common)
    add_plan_parser(command)
    add_listen_parser(sub, common)
    add_eval_parser(command)
    add_llm_parser(sub, parents=[common])
    add_store_parser(sub, common)
    add_thor_parser(sub, common)

    p = command("bench", cmd_bench, "run benchmark suites and write their results as JSON")
    p.add_argument("suites", nargs="*", metavar="SUITE", help="default: every suite")
    p.add_argument("--quick", action="store_true", help="small sizes (for CI)")
    p.add_argument("--json", required=True, metavar="PATH", help="where to write the results")

    p = command("demo", cmd_demo, "the main job: a short household session in a fresh store")
    p.add_argument("--dir", metavar="DIR", help="where to put the store and the picture (default: a temp dir)")
    p.add_argument("--seed", type=int, default=7, metavar="N", help="house seed (default 7)")
    p.add_argument("--keep", action="store_true", help="keep the store and the picture, and print where")
    p.add_argument("--in-process", action="store_true",
                   help="run the session in this process through the Python API instead of the ROS 2 nodes")
    return parser


def _global_options(*, suppress: bool) -> Parser:
    """--domain, --rules, --store, --no-fsync, -v; given after the subcommand they override."""
    p = Parser(add_help=False)
    value = argparse.SUPPRESS if suppress else None
    flag = argparse.SUPPRESS if suppress else False
    p.add_argument("--domain", default=value, metavar="NAME|PATH",
                   help=f"shipped domain name or .pddl path (default $L3MP_DOMAIN or {DEFAULT_DOMAIN})")
    p.add_argument("--rules", default=value, metavar="PATH",
                   help="rules YAML (default <domain>.rules.yaml if present)")
    p.add_argument("--store", default=value, metavar="DIR",
                   help="store directory (default $L3MP_STORE, else $XDG_DATA_HOME/l3mp/world)")
    p.add_argument("--no-fsync", action="store_true", default=flag, help="do not fsync (tests only: not crash-safe)")
    p.add_argument("-v", "--verbose", action="store_true", default=flag, help="log more")
    return p


def _selection_options(p: Parser) -> None:
    p.add_argument("--entity", action="append", default=[], metavar="E",
                   help="only the part around E (repeatable)")
    p.add_argument("--depth", type=int, default=DEFAULT_DEPTH, metavar="N",
                   help=f"how many fact hops around the entities (default {DEFAULT_DEPTH})")


def _history_parser(p: Parser, common: Parser) -> None:
    sub = p.add_subparsers(dest="history_command", required=True, metavar="QUERY")
    q = sub.add_parser("entity", parents=[common], help="every current fact about E, with when and why")
    q.add_argument("entity", metavar="E")
    q.set_defaults(run=cmd_history_entity)
    q = sub.add_parser("changes", parents=[common], help="the change records in a time window")
    q.add_argument("--since", metavar="T", help="ISO 8601, unix seconds, or relative like -10m, -2h, -1d")
    q.add_argument("--until", metavar="T")
    q.add_argument("--entity", metavar="E", help="only records that touch E")
    q.add_argument("--source", choices=("perception", "nl", "plan", "user", "import"))
    q.add_argument("--json", action="store_true", help="print the records as a JSON list")
    q.set_defaults(run=cmd_history_changes)
    q = sub.add_parser("at", parents=[common], help="the graph as it was at time T")
    q.add_argument("time", metavar="T", help="ISO 8601, unix seconds, or relative like -10m, -2h, -1d")
    fmt = q.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print graph JSON")
    fmt.add_argument("--pddl", action="store_true", help="print a PDDL problem")
    q.set_defaults(run=cmd_history_at)


# ---- commands: creating and changing the state ----------------------------------------------
def cmd_init(ctx: Context) -> int:
    args = ctx.args
    if args.scale is not None and args.house is None:
        raise UsageError("--scale only applies to --house")
    target, description = _initial_state(ctx)
    aside = make_room_for_store(ctx.store_path, force=args.force, fsync=ctx.fsync)
    if aside is not None:
        print(f"moved the old store aside to {aside}")
    with ctx.open() as model:
        record = model.apply(state_delta(ctx.domain, model.graph, target, replace=True),
                             source="import", input=description)
        print(f"created store {ctx.store_path} (domain {ctx.domain.name}, {len(ctx.rules)} rules)")
        if record is not None:
            print(format_record(record, limit=0))
        print(f"{model.graph.entity_count()} entities, {model.graph.fact_count()} facts")
    return 0


def _initial_state(ctx: Context) -> tuple[WorldGraph, str]:
    args = ctx.args
    if args.house is not None:
        scale = 1.0 if args.scale is None else args.scale
        return _house(args.house, scale), f"generated house seed={args.house} scale={scale}"
    path = args.problem or args.graph
    return read_state(ctx.domain, path), f"{'PDDL problem' if args.problem else 'graph JSON'} {path}"


def _house(seed: int, scale: float) -> WorldGraph:
    from l3mp_sim.house import house_graph

    try:
        return house_graph(seed, scale)
    except ValueError as exc:
        raise UsageError(f"cannot generate a house: {exc}") from None


def cmd_import(ctx: Context) -> int:
    target = read_state(ctx.domain, ctx.args.file)
    with ctx.open() as model:
        delta = state_delta(ctx.domain, model.graph, target, replace=ctx.args.replace)
        mode = "replace" if ctx.args.replace else "merge"
        record = model.apply(delta, source="import", input=f"import ({mode}) {ctx.args.file}")
        print(format_record(record, limit=RECORD_LINES) if record else "no change: the store already holds that state")
    return 0


def cmd_apply(ctx: Context) -> int:
    args = ctx.args
    delta = Delta.from_json(read_json(args.file))
    with ctx.open(read_only=args.dry_run) as model:
        if args.dry_run:
            verdict = model.verify(delta, source=args.source)
            if not verdict.ok:
                raise DeltaRejected(list(verdict.violations))
            changes = delta_lines(verdict.effective)
            verdict_line = "dry run: the delta is valid; " + ("it would change:" if changes else "it changes nothing")
            print("\n".join([verdict_line, *changes]))
            return 0
        record = model.apply(delta, source=args.source, input=args.input, ref=args.ref)
        print(format_record(record) if record else "no change: every fact was already as stated")
    return 0


def cmd_perceive(ctx: Context) -> int:
    data = read_json(ctx.args.file)
    batches = data if isinstance(data, list) else [data]
    observations = []
    for i, batch in enumerate(batches):
        try:
            observations.append(Observation.from_json(batch))
        except FormatError as exc:
            raise FormatError(f"batch {i + 1}: {exc}" if isinstance(data, list) else str(exc)) from None
    with ctx.open() as model:
        outcomes = model.perceive_many(observations)
    status = 0
    for i, (obs, outcome) in enumerate(zip(observations, outcomes, strict=True), start=1):
        name = f"batch {i}" + (f" ({obs.observation_id})" if obs.observation_id else "")
        if not outcome.accepted:
            status = EXIT_FAILED
            print(f"{name}: rejected ({len(outcome.violations)} problem(s)):", file=sys.stderr)
            for violation in outcome.violations:
                print(f"- {violation.message}", file=sys.stderr)
        elif outcome.record is None:
            print(f"{name}: no change")
        else:
            print(f"{name}: {format_record(outcome.record)}")
    return status


# ---- commands: reading ----------------------------------------------------------------------
def cmd_show(ctx: Context) -> int:
    with ctx.open(read_only=True) as model:
        graph = model.graph
        if ctx.args.json:
            print(json.dumps(graph.to_json(), indent=1))
            return 0
        last = record_header(r) if (r := model.store.last_record()) else "none"
        print(f"domain:   {ctx.domain.name} ({ctx.domain.source}; {len(ctx.rules)} rules)")
        print(f"store:    {ctx.store_path}")
        print(f"state:    {graph.entity_count()} entities, {graph.fact_count()} facts")
        print(f"last:     {last}")
        print("warnings: " + ("; ".join(model.warnings) or "none"))
        print()
        print("\n".join(graph_lines(graph)))
    return 0


def cmd_facts(ctx: Context) -> int:
    args = ctx.args
    with ctx.open(read_only=True) as model:
        facts = find_facts(model.graph, ctx.domain, entity=args.entity, predicate=args.predicate, type_=args.type)
    if args.json:
        print(json.dumps([list(fact_to_triplet(f)) for f in facts]))
    else:
        print("\n".join(str(f) for f in facts) if facts else "(no fact)")
    return 0


def cmd_entities(ctx: Context) -> int:
    with ctx.open(read_only=True) as model:
        attrs = find_entities(model.graph, ctx.domain, type_=ctx.args.type)
    names = list(attrs)
    if ctx.args.json:
        print(json.dumps(attrs, indent=1))
        return 0
    width = max((len(n) for n in names), default=0)
    for name in names:
        label = attrs[name].get("label")
        print(f"{name:<{width}}  {attrs[name]['type']}" + (f'  "{label}"' if label else ""))
    return 0


def cmd_export(ctx: Context) -> int:
    from l3mp.world.pddl_io import problem_to_pddl

    args = ctx.args
    fmt = args.format or ("json" if args.out and args.out.lower().endswith(".json") else "pddl")
    if args.goal and fmt != "pddl":
        raise UsageError("--goal only applies to --format pddl")
    with ctx.open(read_only=True) as model:
        graph = model.graph
        chosen = around(graph, args.entity, args.depth)
        if fmt == "json":
            text = json.dumps((graph if chosen is None else graph.subgraph(chosen)).to_json(), indent=1)
        else:
            facts = None if chosen is None else graph.facts_within(chosen)
            text = problem_to_pddl(ctx.domain, graph, entities=chosen, facts=facts, goal=args.goal)
    _write_output(text, args.out)
    return 0


def cmd_render(ctx: Context) -> int:
    from l3mp.render import FORMATS, render_graph

    args = ctx.args
    if Path(args.out).suffix.lower() not in FORMATS:
        raise UsageError(f"cannot draw into {args.out}: the file name must end in {' or '.join(FORMATS)}")
    with ctx.open(read_only=True) as model:
        chosen = around(model.graph, args.entity, args.depth)
        where = f"around {', '.join(args.entity)} (depth {args.depth})" if args.entity else "whole graph"
        title = f"{ctx.domain.name} world, {where}"
        out = render_graph(model.graph, ctx.domain, args.out, entities=chosen, max_nodes=args.max_nodes, title=title)
    print(f"wrote {out}")
    return 0


def cmd_history_entity(ctx: Context) -> int:
    with ctx.open(read_only=True) as model:
        entity = known_entity(model.graph, ctx.args.entity)
        attrs = model.graph.entity_attrs(entity)
        stories = model.history.explain(model.graph, entity)
    print(entity_title(entity, attrs) + (f", known since record #{attrs['since']}" if attrs.get("since") else ""))
    print("\n".join(story_lines(stories)) if stories else "no fact mentions it")
    return 0


def cmd_history_changes(ctx: Context) -> int:
    args = ctx.args
    now = time.time()
    start = parse_time(args.since, now) if args.since else None
    end = parse_time(args.until, now) if args.until else None
    with ctx.open(read_only=True) as model:
        records = model.history.changes(start_time=start, end_time=end, entity=args.entity, source=args.source)
    if args.json:
        print("[" + ",\n".join(json.dumps(r.to_json()) for r in records) + "]")
    else:
        print("\n".join(format_record(r, limit=RECORD_LINES) for r in records) if records else "(no change)")
    return 0


def cmd_history_at(ctx: Context) -> int:
    from l3mp.world.pddl_io import problem_to_pddl

    when = parse_time(ctx.args.time, time.time())
    with ctx.open(read_only=True) as model:
        graph = model.history.graph_at(when)
        seq = model.store.seq_at(when)
    if ctx.args.json:
        print(json.dumps(graph.to_json(), indent=1))
    elif ctx.args.pddl:
        print(problem_to_pddl(ctx.domain, graph, problem_name="state_at"), end="")
    else:
        print(f"the graph at {iso(when)} (after record #{seq}): {graph.entity_count()} entities, "
              f"{graph.fact_count()} facts")
        print("\n".join(graph_lines(graph)))
    return 0


def cmd_bench(ctx: Context) -> int:
    from l3mp.bench import run

    return run(ctx.args.suites, quick=ctx.args.quick, json_path=ctx.args.json)


def cmd_demo(ctx: Context) -> int:
    from l3mp.demo import STEPS, main_job

    steps = STEPS if ctx.args.in_process else None
    return main_job(ctx.args.dir, seed=ctx.args.seed, keep=ctx.args.keep, fsync=ctx.fsync, steps=steps)


# ---- input, output and formatting -----------------------------------------------------------
def _write_output(text: str, out: str | None) -> None:
    if out is None:
        print(text, end="" if text.endswith("\n") else "\n")
        return
    Path(out).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    print(f"wrote {out}")


def parse_time(text: str, now: float) -> float:
    """Unix time from ISO 8601 (local time unless an offset is given), unix seconds, or ``-10m``/``-2h``/``-1d``."""
    relative = _RELATIVE.match(text.strip())
    if relative:
        return now - float(relative.group(1)) * _UNITS[relative.group(2)]
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return dt.datetime.fromisoformat(text.strip()).timestamp()
    except ValueError:
        raise UsageError(f"cannot read the time '{text}': use ISO 8601 (2026-11-21T14:30), unix seconds, "
                         "or relative like -30s, -10m, -2h, -1d, -1w") from None


if __name__ == "__main__":
    sys.exit(main())
