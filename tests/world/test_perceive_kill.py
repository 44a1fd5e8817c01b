"""A perception list is applied per batch: killed at any moment, `l3mp perceive` leaves the batches it had written
as whole records, in order (a prefix of the list), and nothing of the others (issue 17, point 4)."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from l3mp import cli
from l3mp.world.store import Store

BATCHES = 400


def batches() -> list[dict]:
    """Many small batches: mugs appear on tables and move (each batch one record)."""
    out = []
    for i in range(BATCHES):
        mug = f"mug_{i % 40}"
        table = "kitchen_table_1" if i % 2 else "kitchen_island_1"
        entities = {mug: {"type": "dish", "label": f"mug {i % 40}"}} if i < 40 else {}
        out.append({"observation_id": f"cam-{i}", "entities": entities, "triplets": [[mug, "on", table]]})
    return out


@pytest.mark.slow
def test_a_killed_perceive_keeps_a_prefix_of_whole_batches(tmp_path: Path) -> None:
    template = tmp_path / "template"
    assert cli.main(["--store", str(template), "--no-fsync", "init", "--house", "3"]) == 0
    data = tmp_path / "batches.json"
    data.write_text(json.dumps(batches()))
    full = tmp_path / "full"
    shutil.copytree(template, full)
    assert cli.main(["--store", str(full), "--no-fsync", "perceive", str(data)]) == 0
    with Store(full, read_only=True) as store:
        store.open()
        expected = [(r.ref, r.delta) for r in store.records(start_seq=2)]
    rng = random.Random(17)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for run in range(6):
        target = tmp_path / f"run-{run}"
        shutil.copytree(template, target)
        proc = subprocess.Popen([sys.executable, "-m", "l3mp.cli", "--store", str(target), "perceive", str(data)],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 2.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        with Store(target, read_only=True) as store:
            store.open()
            kept = [(r.ref, r.delta) for r in store.records(start_seq=2)]
        assert kept == expected[: len(kept)]  # whole batches, in order, nothing of a later one


def test_a_list_cut_anywhere_in_its_write_keeps_whole_batches(tmp_path: Path) -> None:
    """Every place a crash can cut the one write of a list leaves a prefix of whole batches."""
    template = tmp_path / "template"
    assert cli.main(["--store", str(template), "--no-fsync", "init", "--house", "3"]) == 0
    segment = template / "journal-000000000001.log"
    start = segment.stat().st_size
    data = tmp_path / "batches.json"
    data.write_text(json.dumps(batches()[:5]))
    assert cli.main(["--store", str(template), "--no-fsync", "perceive", str(data)]) == 0
    written = segment.read_bytes()
    lines = written[start:].splitlines(keepends=True)
    ends = [start + sum(len(line) for line in lines[: i + 1]) for i in range(len(lines))]
    for cut in range(start, len(written), 7):
        segment.write_bytes(written[:cut])
        with Store(template, read_only=True) as store:
            store.open()
            kept = [r.ref for r in store.records(start_seq=2)]
        # a cut just before a line's newline leaves that record whole (its checksum holds): the scan may restore it
        # as a lost newline, so it is either kept or not, and nothing after it
        whole = sum(end <= cut for end in ends)
        assert kept in ([f"cam-{i}" for i in range(whole)], [f"cam-{i}" for i in range(whole + (cut + 1 in ends))])
