"""A small recorded episode for the question tests: house 21 imported at 08:00, then four things people said."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from l3mp_sim.house import house_graph

from l3mp.domain.triplets import Fact
from l3mp.world.delta import Delta, state_delta
from l3mp.world.model import WorldModel
from l3mp.world.store import Store
from tests.helpers import household, household_rules

START = dt.datetime(2026, 11, 20, 8, 0).timestamp()
NOW = START + 3600.0
"""The episode's questions are asked at 09:00 of its day."""
SAID = (
    (12, "Michael put the grey mug in the dishwasher.", [("on", "grey_mug_1", "counter_1")],
     [("inside", "grey_mug_1", "dishwasher_1")]),
    (20, "Jessica opened the fridge.", [], [("is_open", "fridge_1")]),
    (31, "The fridge was shut, and the grey mug is on the kitchen table now.",
     [("is_open", "fridge_1"), ("inside", "grey_mug_1", "dishwasher_1")], [("on", "grey_mug_1", "kitchen_table_1")]),
    (40, "Sarah switched on the overhead light in the kitchen.", [], [("light_on", "overhead_light_1")]),
)
"""(minutes after 08:00, sentence, facts removed, facts added)."""


def at(minutes: float) -> float:
    return START + minutes * 60.0


def _fact(parts: tuple[str, ...]) -> Fact:
    return Fact(parts[0], tuple(parts[1:]))


def episode(path: Path) -> WorldModel:
    """A world model with a store at `path` holding the episode (records 1..5)."""
    clock = [START]
    world = WorldModel(household(), household_rules(), store=Store(path, fsync=False), clock=lambda: clock[0])
    world.apply(state_delta(household(), world.graph, house_graph(21), replace=True), source="import",
                input="house 21")
    for minutes, text, remove, add in SAID:
        clock[0] = at(minutes)
        world.apply(Delta(remove=tuple(_fact(f) for f in remove), add=tuple(_fact(f) for f in add)), source="nl",
                    input=text)
    return world
