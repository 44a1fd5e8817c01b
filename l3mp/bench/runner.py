"""The benchmark runner: a registry of suites, a printed table and one JSON result file."""

from __future__ import annotations

import datetime as dt
import importlib
import json
import math
import os
import platform
import sys
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import l3mp
from l3mp.errors import L3mpError
from l3mp.files import write_text_atomic

SUITE_MODULES = (
    "l3mp.bench.graph_suite", "l3mp.bench.retrieval_suite", "l3mp.bench.planning_suite", "l3mp.bench.goal_suite",
    "l3mp.bench.sim_suite",
    "l3mp.bench.ros_suite",
    "l3mp.bench.faults_suite",
    "l3mp.bench.update_suite",
    "l3mp.bench.thor_suite",
    "l3mp.bench.question_suite",
    "l3mp.bench.speech_suite",
)
"""Modules that register suites when imported (each later suite adds its module here)."""

QUICK_NOTE = "quick run (scaled down): not comparable with the target"
ALL = "all"
"""``l3mp bench all``: every registered suite, with a markdown report beside the JSON."""

Suite = Callable[[bool], Iterable["Metric"]]
"""A suite: given `quick`, yields (or returns) its metrics; a generator keeps the ones before a failure."""

SUITES: dict[str, Suite] = {}


@dataclass(frozen=True)
class Metric:
    """One measured number; with a target it is `met` or not, without one it is informative.

    `direction` "max": the value must stay at or below `target_value` (a latency);
    "min": at or above it (a throughput). A metric without a value records an error.
    """

    name: str
    value: float | None
    unit: str
    target_value: float | None = None
    direction: Literal["max", "min"] | None = None
    notes: str = ""

    def __post_init__(self) -> None:
        if (self.target_value is None) != (self.direction is None):
            raise ValueError(f"metric {self.name}: give both target_value and direction, or neither")
        if self.direction not in (None, "max", "min"):
            raise ValueError(f"metric {self.name}: direction must be 'max' or 'min', not {self.direction!r}")

    @property
    def target(self) -> str | None:
        """The target for people, e.g. ``<= 2 ms``."""
        if self.target_value is None:
            return None
        return f"{'<=' if self.direction == 'max' else '>='} {_number(self.target_value)} {self.unit}".rstrip()

    @property
    def met(self) -> bool | None:
        """Whether the target is met; None for an informative metric, False for a failed (or non-finite) one."""
        if self.value is None or not math.isfinite(self.value):
            return False
        if self.target_value is None:
            return None
        return self.value <= self.target_value if self.direction == "max" else self.value >= self.target_value

    def to_json(self) -> dict:
        value = self.value if self.value is not None and math.isfinite(self.value) else None
        return {"name": self.name, "value": value, "unit": self.unit, "target": self.target,
                "target_value": self.target_value, "direction": self.direction, "met": self.met,
                "notes": self.notes}


def register(name: str) -> Callable[[Suite], Suite]:
    """Decorator registering a suite under `name` (names are unique)."""
    def decorate(suite: Suite) -> Suite:
        if name in SUITES and SUITES[name] is not suite:
            raise ValueError(f"benchmark suite '{name}' is already registered")
        SUITES[name] = suite
        return suite
    return decorate


def error_metric(name: str, exc: BaseException) -> Metric:
    """A metric recording that a measurement failed (never met)."""
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f" at {Path(where.filename).name}:{where.lineno}" if where else ""
    return Metric(name, None, "", notes=f"{type(exc).__name__}: {exc}{at}")


def run(suites: list[str], *, quick: bool, json_path: str | Path) -> int:
    """Run suites (all registered ones if `suites` is empty), print a table, write JSON; 0 once it ran.

    ``["all"]`` runs every suite and also writes a markdown report next to the JSON (same name,
    ``.md``). Targets that are missed are reported, not raised; a suite that fails is recorded as an
    error metric and the other suites still run. An unknown suite name raises L3mpError.
    """
    _load_suite_modules()
    names = _select(suites)
    result = {"l3mp_version": l3mp.__version__, "created": dt.datetime.now(dt.timezone.utc).isoformat(),
              "machine": _machine(), "quick": quick, "suites": {}}
    path = Path(json_path)
    machine = result["machine"]
    print(f"l3mp {l3mp.__version__} benchmarks on {machine['cpu_count']} CPU(s), "
          f"load average {machine['load_average_1m']:.1f} (a busy machine slows every number)")
    report = path.with_suffix(".md") if suites == [ALL] else None
    _write_json(path, result)
    for name in names:
        result["suites"][name] = [_row(m, quick) for m in _run_suite(name, quick)]
        _write_json(path, result)
        if report is not None:
            write_text_atomic(report, markdown(result))
    print(f"results written to {path}" + (f" and {report}" if report is not None else ""))
    return 0


def markdown(result: dict) -> str:
    """A benchmark result document as a markdown report: the machine, then one table per suite."""
    machine = result["machine"]
    lines = [f"# l3mp benchmarks ({'quick, ' if result['quick'] else ''}l3mp {result['l3mp_version']})", "",
             f"Run {result['created']} on {machine['cpu_count']} CPU(s), Python {machine['python']}, "
             f"{machine['platform']}; load average {machine['load_average_1m']:.1f} at the start (a busy machine "
             "slows every number).", ""]
    for name, rows in result["suites"].items():
        met = [r["met"] for r in rows if r["target"] is not None]
        verdict = f"{sum(bool(m) for m in met)} of {len(met)} target(s) met." if met else "No targets (informative)."
        lines += [f"## {name}", "", verdict, "",
                  "| metric | value | unit | target | met | notes |", "|---|---|---|---|---|---|"]
        for r in rows:
            value = "error" if r["value"] is None else _number(r["value"])
            mark = {True: "✓", False: "✗", None: "–"}[r["met"]]
            notes = str(r["notes"]).replace("|", "\\|")
            lines.append(f"| {r['name']} | {value} | {r['unit']} | {r['target'] or '–'} | {mark} | {notes} |")
        lines.append("")
    return "\n".join(lines)


def _load_suite_modules() -> None:
    for module in SUITE_MODULES:
        importlib.import_module(module)


def _select(suites: list[str]) -> list[str]:
    if not suites or suites == [ALL]:
        return list(SUITES)
    unknown = [s for s in suites if s not in SUITES]
    if unknown:
        raise L3mpError(f"unknown benchmark suite(s) {', '.join(unknown)}; valid suites: {', '.join(SUITES)} "
                        f"(or none, or '{ALL}' for all with a markdown report)")
    return list(dict.fromkeys(suites))


def _run_suite(name: str, quick: bool) -> list[Metric]:
    print(f"\n== suite {name}{' (quick)' if quick else ''}")
    print(_format_row(("metric", "value", "unit", "target", "met")))
    metrics: list[Metric] = []
    try:
        for metric in SUITES[name](quick):
            metrics.append(metric)
            _print_metric(metric)
    except Exception as exc:  # a failing suite is a result too
        metric = error_metric("error", exc)
        metrics.append(metric)
        _print_metric(metric)
    return metrics


def _row(metric: Metric, quick: bool) -> dict:
    row = metric.to_json()
    row["quick"] = quick
    if quick and metric.target_value is not None:
        row["notes"] = "; ".join(n for n in (metric.notes, QUICK_NOTE) if n)
    return row


def _print_metric(metric: Metric) -> None:
    mark = {True: "✓", False: "✗", None: "-"}[metric.met]
    value = "error" if metric.value is None else _number(metric.value)
    print(_format_row((metric.name, value, metric.unit, metric.target or "-", mark)), flush=True)
    if metric.notes:
        print(f"    {metric.notes}", flush=True)


def _format_row(cells: tuple[str, str, str, str, str]) -> str:
    name, value, unit, target, met = cells
    return f"  {name:<32} {value:>14} {unit:<12} {target:<22} {met}"


def _number(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


def _machine() -> dict:
    return {"cpu_count": os.cpu_count(), "python": sys.version.split()[0],
            "implementation": platform.python_implementation(), "platform": platform.platform(),
            "load_average_1m": os.getloadavg()[0]}


def _write_json(path: Path, result: dict) -> None:
    """Write atomically, so an interrupted run leaves the previous complete file."""
    write_text_atomic(path, json.dumps(result, indent=2, allow_nan=False) + "\n")


def percentile(samples: Sequence[float], q: float) -> float:
    """The nearest-rank `q` quantile (0 < q <= 1) of `samples`."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]
