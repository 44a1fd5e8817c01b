"""The faults suite at its quick sizes: real SIGKILLs lose no acknowledged record, one changed byte anywhere loses
none, a zeroed sector costs a few records, and a burst at the node is answered in full."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import l3mp.bench.faults_suite as faults
from tests.bench.support import quick_suite


@pytest.mark.slow
def test_the_quick_faults_suite_meets_its_targets(tmp_path: Path) -> None:
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    rows = quick_suite("faults", tmp_path)
    errors = {name: row["notes"] for name, row in rows.items() if row["value"] is None}
    assert not errors, errors
    assert rows["kill_points"]["value"] == faults.QUICK.kills and rows["flips"]["value"] == faults.QUICK.flips
    assert all(row["met"] for row in rows.values() if row["target"] is not None), rows
    assert rows["burst_accepted"]["value"] + rows["burst_busy"]["value"] == faults.QUICK.burst
    assert 0 < rows["sector_records_lost_mean"]["value"] <= rows["sector_records_lost_max"]["value"]


def test_the_stream_is_deterministic_and_valid_to_replay() -> None:
    assert faults.record(7) == faults.record(7) and faults.record(7).seq == 7
    stream = faults._Stream()
    assert stream.after(9) == stream.after(9)
    graph = stream.graph
    assert graph.has_fact(faults.Fact("on", ("cup_3", "shelf_1"))) and not graph.has_fact(
        faults.Fact("on", ("cup_3", "table_1")))
