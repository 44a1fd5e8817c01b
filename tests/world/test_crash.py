"""SIGKILL a store writer at random points; recovery must keep every acknowledged record exactly."""

from __future__ import annotations

import importlib.util
import os
import random
import signal
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest

from l3mp.world.graph import WorldGraph
from l3mp.world.history import apply_record, rebuild
from l3mp.world.record import ChangeRecord
from l3mp.world.store import Store

WRITER = Path(__file__).with_name("crash_writer.py")
ROOT = Path(__file__).resolve().parents[2]
DIRS = 10  # independent store directories (test cases)
KILLS_PER_DIR = 5  # writer runs killed on each directory: 50 kill points in all
SNAPSHOT_EVERY = 7  # small, so that kills also land while a snapshot is written
ENDLESS = 10**9


def _load_writer():
    spec = importlib.util.spec_from_file_location("crash_writer", WRITER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


crash_writer = _load_writer()


@cache
def expected_records(seed: int, count: int) -> tuple[ChangeRecord, ...]:
    scenario = crash_writer.Scenario(seed)
    return tuple(scenario.next_record() for _ in range(count))


def expected_graph(seed: int, count: int) -> dict:
    graph = WorldGraph()
    for record in expected_records(seed, count):
        apply_record(graph, record)
    return graph.to_json()


def start_writer(directory: Path, seed: int, total: int, run: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    args = [sys.executable, str(WRITER), str(directory), str(seed), str(total), str(SNAPSHOT_EVERY), str(run)]
    return subprocess.Popen(args, stdout=subprocess.PIPE, env=env, text=True)


def kill_after_acks(proc: subprocess.Popen, acks: int, delay: float) -> int:
    """Let the writer acknowledge `acks` appends, wait `delay` s, SIGKILL it; the last acknowledged seq."""
    last = 0
    for _ in range(acks):
        line = proc.stdout.readline()
        assert line.startswith("ACK "), f"writer said {line!r}"
        last = int(line.split()[1])
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL, f"writer ended by itself ({proc.returncode}) before the kill"
    acked = [int(line.split()[1]) for line in rest.splitlines() if line.startswith("ACK ")]
    return max([last, *acked])


def check_recovery(directory: Path, seed: int, acked: int) -> int:
    """Recover the store as a reader and as the writer; all must match the deterministic stream."""
    with Store(directory, read_only=True) as reader:
        seen = reader.open()
        assert seen.last_seq >= acked
    with Store(directory) as store:
        recovered = store.open()
        last = recovered.last_seq
        assert last >= acked, (
            f"acknowledged record {acked} lost; recovered up to {last}: {recovered.warnings}"
        )
        assert list(store.records()) == list(expected_records(seed, last))
        assert recovered.snapshot_seq <= last
        assert [r.seq for r in recovered.records] == list(range(recovered.snapshot_seq + 1, last + 1))
        assert rebuild(recovered).to_json() == expected_graph(seed, last)
    assert not list(directory.glob("*.tmp"))
    return last


@pytest.mark.slow
@pytest.mark.parametrize("case", range(DIRS))
def test_kill_writer_and_recover(tmp_path: Path, case: int) -> None:
    rng = random.Random(case)
    seed = 100 + case
    last = 0
    for run in range(KILLS_PER_DIR):
        proc = start_writer(tmp_path, seed, ENDLESS, run)
        delay = rng.choice((0.0, rng.uniform(0, 0.003), rng.uniform(0, 0.03)))
        acked = kill_after_acks(proc, rng.randint(1, 25), delay)
        assert acked >= last
        last = check_recovery(tmp_path, seed, acked)
    proc = start_writer(tmp_path, seed, last + 12, KILLS_PER_DIR)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0 and out.splitlines()[-1] == "DONE"
    assert check_recovery(tmp_path, seed, last + 12) == last + 12
