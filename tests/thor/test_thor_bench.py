"""The thor benchmark suite runs (quick) and measures every scene kind and task without an error metric."""

from __future__ import annotations

import json

from l3mp.bench.thor_suite import main, thor_suite


def test_the_quick_suite_measures_every_kind_and_task():
    metrics = list(thor_suite(True))
    by_name = {m.name: m for m in metrics}
    assert all(m.value is not None for m in metrics), [m.notes for m in metrics if m.value is None]
    for kind in ("kitchens", "living_rooms", "bedrooms", "bathrooms"):
        assert by_name[f"{kind}_scenes_valid"].met is True
        assert by_name[f"{kind}_triplets"].value > 100
    assert by_name["tasks_reached"].value == 100.0
    assert "1 replan(s)" in by_name["task_kitchen_dirty_mug_surprise_reached"].notes


def test_main_writes_the_results_where_asked(tmp_path, capsys):
    path = tmp_path / "thor.json"
    assert main(["--quick", "--json", str(path)]) == 0
    saved = json.loads(path.read_text())
    assert saved["quick"] is True and {r["name"] for r in saved["suites"]["thor"]} >= {"tasks_reached"}
    assert "tasks_reached" in capsys.readouterr().out
