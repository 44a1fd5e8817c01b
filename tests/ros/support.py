"""Shared pieces of the ROS tests: a store holding the small test house."""

from __future__ import annotations

from pathlib import Path

from l3mp.world.model import WorldModel
from tests.helpers import house_delta, household, household_rules


def make_store(path: Path) -> Path:
    """A store holding the small test house (tests/helpers.py) as its first record."""
    with WorldModel.open(household(), path, rules=household_rules(), fsync=False) as world:
        world.apply(house_delta(), source="import")
    return path
