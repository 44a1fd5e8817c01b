"""Tests of the ``ros`` benchmark suite: a quick run reports every metric with sane values (never its speed)."""

from __future__ import annotations

import math
from pathlib import Path

from tests.bench.support import quick_suite

METRICS = {"perception_topic_throughput", "task_total_p50", "task_without_planner_p50", "task_without_planner_p95",
           "task_through_nodes_p50", "step_effects_compiled", "step_effects_simulator"}


def test_quick_ros_suite_reports_every_metric(tmp_path: Path) -> None:
    by_name = quick_suite("ros", tmp_path)
    assert set(by_name) == METRICS, [row["notes"] for row in by_name.values() if row["value"] is None]
    for row in by_name.values():
        assert isinstance(row["value"], float | int) and math.isfinite(row["value"]) and row["value"] > 0, row
    assert by_name["perception_topic_throughput"]["target_value"] == 5000
    assert by_name["perception_topic_throughput"]["direction"] == "min"
    assert by_name["task_without_planner_p50"]["target_value"] == 50
    assert by_name["task_without_planner_p50"]["direction"] == "max"
    assert by_name["task_through_nodes_p50"]["target_value"] is None
    total, without, through = (by_name[n]["value"] for n in ("task_total_p50", "task_without_planner_p50",
                                                              "task_through_nodes_p50"))
    assert total > without > through
    assert by_name["task_without_planner_p50"]["value"] <= by_name["task_without_planner_p95"]["value"]
