"""Runs inside a small tmpfs made by test_full_disk.py: fills it with changes until the disk is full, frees space,
and checks that the same WorldModel goes on (no reopen), losing no acknowledged change and leaving no side file.

Usage: ``full_disk_writer.py DIR``; prints one JSON line with what it saw, exit 0 when every check held."""

from __future__ import annotations

import errno
import json
import os
import sys
from pathlib import Path

from l3mp import cli
from l3mp.errors import StoreError
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.model import WorldModel
from tests.helpers import F, house_delta, household

LABEL = "x" * 1500  # big records fill the disk in a few hundred appends


def change(i: int) -> Delta:
    """Record i: a new labelled entity on the table (each record adds bytes that stay)."""
    return Delta(entities={f"cup{i}": EntitySpec("dish", f"{LABEL} {i}")}, add=(F("on", f"cup{i}", "table1"),))


def fill(directory: Path, leave: int) -> Path:
    """A file that takes all free space of `directory`'s file system but `leave` bytes."""
    filler = directory / "filler"
    stat = os.statvfs(directory)
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, stat.f_bavail * stat.f_frsize - leave))
    return filler


def main(directory: Path) -> int:
    store = directory / "world"
    seen: dict = {"acknowledged": 0, "failures": []}
    with WorldModel.open(household(), store, snapshot_every=50) as model:
        model.apply(house_delta(), source="import")
        filler = fill(directory, 200_000)  # leave room for a few hundred records only
        acknowledged = []
        i = 0
        while len(seen["failures"]) < 3:
            i += 1
            before = model.graph.to_json()
            try:
                record = model.apply(change(i), source="perception")
            except StoreError as exc:
                seen["failures"].append(str(exc))
                assert model.graph.to_json() == before, "a failed change must leave the graph as it was"
                continue
            acknowledged.append(record.seq)
        seen["acknowledged"] = len(acknowledged)
        side = sorted(p.name for p in store.iterdir() if ".corrupt" in p.name or ".torn" in p.name or ".tmp" in p.name)
        assert not side, f"side files left on a full disk: {side}"
        filler.unlink()  # the cause goes away
        healed = model.apply(change(i + 1), source="perception")
        assert healed is not None and healed.seq == model.last_seq
        acknowledged.append(healed.seq)
        model.snapshot()
        final = model.graph.to_json()
    with WorldModel.open(household(), store) as again:
        assert again.graph.to_json() == final, "reopened graph differs"
        assert again.warnings == [] and again.damage() == [], again.warnings
        numbers = [r.seq for r in again.store.records()]
        assert set(acknowledged) <= set(numbers), "an acknowledged change was lost"
    seen["healed_seq"] = healed.seq
    seen["cli"] = cli_writer(directory, store)
    print(json.dumps(seen))
    return 0


def cli_writer(directory: Path, store: Path) -> list[int]:
    """`l3mp perceive` on the full disk fails with exit 1 and leaves nothing behind; with space again it works."""
    batch = directory / "batch.json"
    batch.write_text(json.dumps({"entities": {"cup_cli": {"type": "dish", "label": LABEL}},
                                 "triplets": [["cup_cli", "on", "table1"]]}))
    names = sorted(p.name for p in store.iterdir())
    filler = fill(directory, 0)
    codes = [cli.main(["--store", str(store), "perceive", str(batch)]) for _ in range(2)]
    assert sorted(p.name for p in store.iterdir()) == names, "a failed CLI writer left files behind"
    filler.unlink()
    codes.append(cli.main(["--store", str(store), "perceive", str(batch)]))
    return codes


if __name__ == "__main__":
    try:
        sys.exit(main(Path(sys.argv[1])))
    except OSError as exc:  # pragma: no cover - reported to the test
        print(json.dumps({"error": errno.errorcode.get(exc.errno, str(exc.errno)), "message": str(exc)}))
        sys.exit(1)
