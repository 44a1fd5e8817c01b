"""Simulation helpers for l3mp: seeded household worlds for tests, demos and benchmarks."""
