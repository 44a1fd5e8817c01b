"""``l3mp check`` and ``l3mp store status|ack|salvage``: the store's health as a person sees it.

`check` verifies the graph and reports damage in the store (damaged journal records, files set aside, records held
back) until a person acknowledges it with ``l3mp store ack``. ``l3mp store salvage`` writes what damage set aside
(the held records, the unreadable bytes) to a JSON file and, with ``--apply``, applies the held records that fit
the graph now as new records. Exit status: 0 ok, 1 problems or unacknowledged damage, 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from l3mp.cli_context import Context, UsageError
from l3mp.errors import DeltaRejected
from l3mp.files import write_text_atomic
from l3mp.world.journal import Damage
from l3mp.world.model import WorldModel, numbers_text
from l3mp.world.store import acknowledge_damage, acknowledged_damage

EXIT_PROBLEMS = 1


def add_store_parser(subparsers: Any, common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add ``store`` with its subcommands to `subparsers` (``l3mp check`` keeps its own line: `cmd_check`)."""
    about = "damage in the store: show it, acknowledge it, salvage what it set aside"
    p = subparsers.add_parser("store", parents=[common], help=about, description=about)
    sub = p.add_subparsers(dest="store_command", required=True, metavar="ACTION")
    status = sub.add_parser("status", parents=[common], help="all damage found, acknowledged or not, and held records")
    status.set_defaults(run=cmd_store_status)
    ack = sub.add_parser("ack", parents=[common], help="acknowledge damage, so that check and the node stop "
                         "reporting it (default: all that is reported now)")
    ack.add_argument("keys", nargs="*", metavar="KEY", help="the damage keys 'l3mp check' shows")
    ack.set_defaults(run=cmd_store_ack)
    salvage = sub.add_parser("salvage", parents=[common], help="write the held records and the unreadable bytes "
                             "to a JSON file; --apply applies the held records that fit now")
    salvage.add_argument("--out", required=True, metavar="FILE.json", help="where to write what was set aside")
    salvage.add_argument("--apply", action="store_true",
                         help="apply each held record that fits the graph now, as a new record")
    salvage.set_defaults(run=cmd_store_salvage)
    return p


def cmd_check(ctx: Context) -> int:
    """Verify the whole graph against the domain and its rules, and report unacknowledged damage in the store."""
    with ctx.open(read_only=True) as model:
        violations = model.verifier.check_state(model.graph)
        lines = damage_lines(model)
        graph = model.graph
    if violations:
        print(f"{len(violations)} problem(s):")
        print("\n".join(f"- {v.message}" for v in violations))
    if lines:
        print("\n".join(lines))
    if violations or lines:
        return EXIT_PROBLEMS
    print(f"ok: {graph.entity_count()} entities and {graph.fact_count()} facts satisfy domain "
          f"{ctx.domain.name} and its {len(ctx.rules)} rules; no unacknowledged damage in the store")
    return 0


def damage_lines(model: WorldModel) -> list[str]:
    """What a person must know about unacknowledged damage in the model's store (empty: none)."""
    damage = model.damage()
    if not damage:
        return []
    lines = [f"store damage ({len(damage)} not acknowledged):"]
    lines += [f"- {d.text} [key {d.key}]" for d in damage]
    if model.held:
        lines.append(f"- {len(model.held)} record(s) after lost ones no longer fit and are held back: "
                     f"{numbers_text(model.held)} ('l3mp store salvage --out FILE.json' shows them)")
    lines.append("acknowledge with 'l3mp store ack' once seen (this store keeps every byte)")
    return lines


def cmd_store_status(ctx: Context) -> int:
    with ctx.open(read_only=True) as model:
        store = model.store
        seen = acknowledged_damage(store.path)
        damage = store.damage()
        held = model.held
    if not damage:
        print("no damage found")
    for d in damage:
        print(f"{'acknowledged' if d.key in seen else 'NEW'}: {d.text} [key {d.key}]")
    if held:
        print(f"held back: {numbers_text(held)}")
    return EXIT_PROBLEMS if any(d.key not in seen for d in damage) else 0


def cmd_store_ack(ctx: Context) -> int:
    with ctx.open(read_only=True) as model:
        reported = {d.key: d for d in model.damage()}
        known = {d.key for d in model.store.damage()}
    keys = ctx.args.keys or sorted(reported)
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise UsageError(f"no damage with key {', '.join(unknown)}; 'l3mp store status' lists the keys")
    if not keys:
        print("nothing to acknowledge")
        return 0
    acknowledge_damage(ctx.store_path, keys, fsync=ctx.fsync)
    print(f"acknowledged {len(keys)} damage report(s): {', '.join(keys)}")
    return 0


def cmd_store_salvage(ctx: Context) -> int:
    out = Path(ctx.args.out)
    with ctx.open(read_only=not ctx.args.apply) as model:
        store = model.store
        held = [store.record(seq) for seq in model.held]
        unreadable = [_damaged_bytes(store.path, d) for d in store.damage() if d.lost and d.size]
        applied, still_held = _apply_held(model, held) if ctx.args.apply else ([], [r.seq for r in held])
    report = {"held": [r.to_json() for r in held], "unreadable": unreadable,
              "applied": applied, "still_held": still_held}
    write_text_atomic(out, json.dumps(report, indent=1) + "\n")
    print(f"wrote {out}: {len(held)} held record(s), {len(unreadable)} unreadable region(s)")
    for line in applied:
        print(f"applied held record #{line['held']} as #{line['seq']}")
    if still_held:
        print(f"still held (they do not fit the graph now): {numbers_text(still_held)}")
    return 0


def _apply_held(model: WorldModel, held: Sequence[Any]) -> tuple[list[dict], list[int]]:
    applied, still_held = [], []
    for record in held:
        try:
            new = model.apply(record.delta, source=record.source, input=record.input,
                              ref=f"salvaged record #{record.seq}", allow_new_entities=True)
        except DeltaRejected:
            still_held.append(record.seq)
            continue
        applied.append({"held": record.seq, "seq": new.seq if new else None})
    return applied, still_held


def _damaged_bytes(path: Path, damage: Damage) -> dict:
    """The bytes of a journal damage (key ``<segment>@<offset>``) as text (latin-1: one character per byte, so
    that a person can read what is left of the records)."""
    name, _, offset = damage.key.rpartition("@")
    with open(path / name, "rb") as f:
        f.seek(int(offset))
        data = f.read(damage.size)
    return {"key": damage.key, "lost": [damage.lost.start, damage.lost[-1]], "bytes": data.decode("latin-1")}
