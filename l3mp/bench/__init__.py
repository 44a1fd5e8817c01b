"""Benchmarks of l3mp: one entry point (`run`) over registered suites of `Metric`s."""

from l3mp.bench.runner import Metric, register, run

__all__ = ["Metric", "register", "run"]
