"""Shared by the benchmark tests: run one registered suite at its quick sizes and read its metrics back."""

from __future__ import annotations

import json
from pathlib import Path

from l3mp.bench import run


def quick_suite(name: str, tmp_path: Path) -> dict[str, dict]:
    """Run suite `name` with ``quick=True`` into a JSON file under `tmp_path`; its metric rows by name."""
    out = tmp_path / "bench.json"
    assert run([name], quick=True, json_path=out) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))["suites"][name]
    return {row["name"]: row for row in rows}
