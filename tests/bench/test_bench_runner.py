"""Tests of the benchmark runner (registry, table, JSON) and of the quick ``graph`` suite."""

from __future__ import annotations

import datetime as dt
import importlib
import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from l3mp.bench import Metric, register, run, runner
from l3mp.errors import L3mpError
from tests.bench.support import quick_suite

GRAPH_METRICS = {
    "import_house", "ingest_batched", "ingest_unbatched",
    "nl_delta_p50", "nl_delta_p99", "nl_delta_journal_p50", "nl_delta_journal_p99",
    "nl_delta_fsync_p50", "nl_delta_fsync_p99",
    "journal_write_rate", "journal_size", "recovery", "recovery_scan", "recovery_decode",
    "rss", "rss_over_baseline", "rss_baseline",
}
METRIC_KEYS = {"name", "value", "unit", "target", "target_value", "direction", "met", "notes", "quick"}


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> dict:
    """An empty registry for fake suites (the real suite modules are imported first, so they stay registered)."""
    for module in runner.SUITE_MODULES:
        importlib.import_module(module)
    fresh: dict = {}
    monkeypatch.setattr(runner, "SUITES", fresh)
    return fresh


def fake_metrics(quick: bool) -> list[Metric]:
    return [
        Metric("latency", 1.5, "ms", 2.0, "max"),
        Metric("rate", 10.0, "ops/s", 20.0, "min", notes="too slow"),
        Metric("size", 3.0, "MB"),
    ]


def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_json_schema_and_table(registry: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    register("fake")(fake_metrics)
    out = tmp_path / "sub" / "bench.json"
    assert run(["fake"], quick=False, json_path=out) == 0
    data = read(out)
    assert set(data) == {"l3mp_version", "created", "machine", "quick", "suites"}
    assert dt.datetime.fromisoformat(data["created"]).tzinfo is not None
    assert set(data["machine"]) >= {"cpu_count", "python", "platform"}
    assert data["quick"] is False
    metrics = data["suites"]["fake"]
    assert all(set(m) == METRIC_KEYS for m in metrics)
    by_name = {m["name"]: m for m in metrics}
    assert by_name["latency"] == {
        "name": "latency", "value": 1.5, "unit": "ms", "target": "<= 2 ms", "target_value": 2.0,
        "direction": "max", "met": True, "notes": "", "quick": False,
    }
    assert (by_name["rate"]["target"], by_name["rate"]["met"]) == (">= 20 ops/s", False)
    assert (by_name["size"]["target"], by_name["size"]["met"]) == (None, None)
    table = capsys.readouterr().out
    assert "latency" in table and "✓" in table and "✗" in table and "<= 2 ms" in table


@pytest.mark.parametrize(
    ("value", "target", "direction", "met"),
    [
        (1.0, 2.0, "max", True), (2.0, 2.0, "max", True), (2.5, 2.0, "max", False),
        (30.0, 20.0, "min", True), (20.0, 20.0, "min", True), (19.0, 20.0, "min", False),
        (None, 20.0, "min", False), (math.nan, 2.0, "max", False), (5.0, None, None, None),
    ],
)
def test_met_follows_direction(value: float | None, target: float | None, direction: str | None,
                               met: bool | None) -> None:
    assert Metric("m", value, "u", target, direction).met is met  # type: ignore[arg-type]


def test_metric_needs_target_and_direction_together() -> None:
    with pytest.raises(ValueError, match="both"):
        Metric("m", 1.0, "ms", target_value=2.0)
    with pytest.raises(ValueError, match="direction"):
        Metric("m", 1.0, "ms", 2.0, "up")  # type: ignore[arg-type]


def test_unknown_suite_lists_valid_ones(registry: dict, tmp_path: Path) -> None:
    register("fake")(fake_metrics)
    with pytest.raises(L3mpError, match=r"unknown benchmark suite\(s\) nope; valid suites: fake"):
        run(["nope"], quick=False, json_path=tmp_path / "bench.json")
    assert not (tmp_path / "bench.json").exists()


def test_duplicate_registration_is_refused(registry: dict) -> None:
    register("fake")(fake_metrics)
    with pytest.raises(ValueError, match="already registered"):
        register("fake")(lambda quick: [])


def test_failing_suite_is_recorded_and_others_still_run(registry: dict, tmp_path: Path) -> None:
    def broken(quick: bool) -> Iterator[Metric]:
        yield Metric("first", 1.0, "s", 10.0, "max")
        raise RuntimeError("boom")

    register("broken")(broken)
    register("fake")(fake_metrics)
    out = tmp_path / "bench.json"
    assert run([], quick=False, json_path=out) == 0
    suites = read(out)["suites"]
    assert list(suites) == ["broken", "fake"]
    first, error = suites["broken"]
    assert (first["name"], first["met"]) == ("first", True)
    assert (error["name"], error["value"], error["met"]) == ("error", None, False)
    assert "RuntimeError: boom" in error["notes"]
    assert len(suites["fake"]) == 3


def test_quick_flags_every_metric_and_notes_targets(registry: dict, tmp_path: Path) -> None:
    register("fake")(fake_metrics)
    out = tmp_path / "bench.json"
    run(["fake"], quick=True, json_path=out)
    data = read(out)
    assert data["quick"] is True
    by_name = {m["name"]: m for m in data["suites"]["fake"]}
    assert all(m["quick"] is True for m in by_name.values())
    assert by_name["rate"]["notes"] == f"too slow; {runner.QUICK_NOTE}"
    assert by_name["size"]["notes"] == ""


@pytest.mark.slow
def test_quick_graph_suite_reports_every_metric(tmp_path: Path) -> None:
    metrics = quick_suite("graph", tmp_path)
    assert set(metrics) == GRAPH_METRICS, [m["notes"] for m in metrics.values() if "error" in m["name"]]
    for metric in metrics.values():
        assert isinstance(metric["value"], float) and math.isfinite(metric["value"]) and metric["value"] > 0
        assert metric["met"] in ((True, False) if metric["target_value"] is not None else (None,))
    assert {n for n, m in metrics.items() if m["target_value"] is not None} == {
        "ingest_batched", "nl_delta_p99", "recovery", "rss"}
    assert metrics["nl_delta_p50"]["value"] <= metrics["nl_delta_p99"]["value"]
    assert metrics["nl_delta_fsync_p50"]["value"] <= metrics["nl_delta_fsync_p99"]["value"]
    assert metrics["rss_over_baseline"]["value"] < metrics["rss"]["value"]


def test_all_writes_a_markdown_report_beside_the_json(registry: dict, tmp_path: Path) -> None:
    register("fake")(fake_metrics)
    register("other")(lambda quick: [Metric("size", 2.0, "MB", notes="a | b")])
    out = tmp_path / "all.json"
    assert run([runner.ALL], quick=True, json_path=out) == 0
    assert list(read(out)["suites"]) == ["fake", "other"]
    report = (tmp_path / "all.md").read_text(encoding="utf-8")
    assert report.startswith("# l3mp benchmarks (quick, ")
    assert "## fake" in report and "## other" in report and "1 of 2 target(s) met." in report
    assert "| latency | 1.5 | ms | <= 2 ms | ✓ |" in report
    assert "| size | 2 | MB | – | – | a \\| b |" in report
    run(["fake"], quick=True, json_path=tmp_path / "one.json")
    assert not (tmp_path / "one.md").exists()


@pytest.mark.slow
def test_quick_sim_suite_measures_every_variant(tmp_path: Path) -> None:
    metrics = quick_suite("sim", tmp_path)
    assert not [m for m in metrics.values() if "error" in m["name"]], metrics
    for variant in ("R-", "R-_V", "R+", "R+_V", "R^S", "R^S_V"):
        assert 0 <= metrics[f"x1_{variant}_state_changes"]["value"] <= 100
        assert metrics[f"x1_{variant}_seconds_per_step"]["value"] > 0
    assert "x1_token_saving_R^S_V_vs_R-" in metrics
