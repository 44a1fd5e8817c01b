"""Tests of the ``planning`` benchmark suite: structure and sanity of its numbers (never its speed)."""

from __future__ import annotations

import math
import random
from pathlib import Path

from l3mp_sim.house import house_graph

from l3mp.bench.planning_suite import KINDS, make_tasks, retrieve
from l3mp.domain.paths import domain_path
from l3mp.domain.pddl_domain import Domain
from tests.bench.support import quick_suite

QUICK_METRICS = {
    "lapkt_call_floor", "fd_call_floor", "s1_entities", "s1_give_speedup", "s1_lights_speedup",
    "s1_retrieved_mean", "s1_full_mean", "s1_speedup_mean", "s1_lapkt_mean", "s1_full_lapkt_mean", "s1_fd_mean",
    "plan_validity", "plan_validity_fd", "s1_retrieved_search_mean", "s1_retrieved_parse_ground_mean",
    "s1_full_search_mean", "s1_full_parse_ground_mean",
}


def test_quick_planning_suite_reports_every_metric(tmp_path: Path) -> None:
    by_name = quick_suite("planning", tmp_path)
    assert set(by_name) == QUICK_METRICS, [row["notes"] for row in by_name.values() if row["value"] is None]
    for row in by_name.values():
        assert isinstance(row["value"], float | int) and math.isfinite(row["value"]), row
        assert row["value"] >= 0 and row["quick"] is True
    assert by_name["s1_entities"]["value"] > 10
    assert 0 <= by_name["plan_validity"]["value"] <= 100
    assert by_name["s1_speedup_mean"]["target_value"] == 25
    assert by_name["s1_speedup_mean"]["direction"] == "min"
    assert by_name["plan_validity"]["target_value"] == 99
    assert "quick run" in by_name["s1_speedup_mean"]["notes"]
    assert "retrieved" in by_name["s1_give_speedup"]["notes"] and "full" in by_name["s1_give_speedup"]["notes"]


def test_tasks_are_deterministic_and_retrieval_is_small() -> None:
    graph = house_graph(5, 1)
    tasks = make_tasks(graph, random.Random(1), 2)
    assert tasks == make_tasks(graph, random.Random(1), 2)
    assert {t.name.split("_")[0] for t in tasks} == set(KINDS)
    domain = Domain.from_file(domain_path("household"))
    for task in tasks:
        context = retrieve(domain, graph, task)
        assert "the_robot" in context and set(task.seeds) <= context
        assert len(context) < graph.entity_count()
