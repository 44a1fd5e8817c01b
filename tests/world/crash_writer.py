"""Writer process of test_crash.py: appends a deterministic stream of records to a Store until killed.

Usage: ``crash_writer.py DIR SEED TOTAL SNAPSHOT_EVERY RUN``. It opens the store in DIR, continues the
stream of SEED after the last recovered record, appends batches of 1..5 records (batch sizes drawn
from SEED and RUN) and prints ``ACK <last seq>`` once each append has returned, snapshotting when
due, until record TOTAL, then prints ``DONE``. Only the store and record modules are imported, so
that it starts fast.
"""

from __future__ import annotations

import random
import sys

from l3mp.domain.triplets import Fact, fact_to_triplet
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.record import ChangeRecord
from l3mp.world.store import Store

ROOMS = ("kitchen", "hall")
TABLES = ("table_1", "counter_1", "shelf_1")
LIGHTS = ("light_1", "light_2")
INPUTS = (None, "put the cup on the table", "the cup is on\nthe shelf — «ok» ☕")


class Scenario:
    """A small house changing deterministically: record n of a seed is always the same record."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seq = 0
        self.time = 1000.0
        self.entities: dict[str, dict] = {}  # name -> graph JSON attributes (type, label, since)
        self.facts: dict[Fact, int] = {}  # true fact -> seq that made it true
        self.next_cup = 1

    def next_record(self) -> ChangeRecord:
        """The next record of the stream (its delta is effective, cascades spelled out)."""
        self.seq += 1
        self.time += self.rng.choice((0.0, 0.25, 1.0))
        delta = self._first_delta() if self.seq == 1 else self._random_delta()
        self._apply(delta)
        source = "import" if self.seq == 1 else self.rng.choice(("perception", "nl", "plan"))
        ref = f"obs-{self.seq}" if self.rng.random() < 0.5 else None
        return ChangeRecord(self.seq, self.time, source, delta, input=self.rng.choice(INPUTS), ref=ref)

    def graph_json(self) -> dict:
        """The current state as graph JSON (what WorldGraph.to_json() would give)."""
        facts = sorted(self.facts, key=lambda f: (f.args, f.predicate))
        return {
            "format": "l3mp.graph/1",
            "entities": {name: dict(attrs) for name, attrs in sorted(self.entities.items())},
            "facts": [list(fact_to_triplet(f)) for f in facts],
            "since": [self.facts[f] for f in facts],
        }

    def _first_delta(self) -> Delta:
        kinds = {
            **dict.fromkeys(ROOMS, "room"),
            **dict.fromkeys(TABLES, "table"),
            **dict.fromkeys(LIGHTS, "light"),
        }
        entities = {name: EntitySpec(kind, label=name.replace("_", " ")) for name, kind in kinds.items()}
        add = [Fact("in_room", (t, ROOMS[i % 2])) for i, t in enumerate(TABLES)]
        return Delta(add=(*add, Fact("light_on", (LIGHTS[0],))), entities=entities)

    def _random_delta(self) -> Delta:
        cups = sorted(n for n, a in self.entities.items() if a["type"] == "cup")
        roll = self.rng.random()
        if roll < 0.2 or not cups:
            return self._new_cup()
        cup = self.rng.choice(cups)
        if roll < 0.3:
            return Delta(remove=tuple(f for f in self.facts if cup in f.args), remove_entities=(cup,))
        if roll < 0.45:
            return self._toggle(Fact("light_on", (self.rng.choice(LIGHTS),)))
        if roll < 0.5:
            return self._toggle(Fact("raining", ()))
        if roll < 0.6:
            return self._toggle(Fact("between", (cup, TABLES[0], TABLES[1])))
        return self._move(cup)

    def _new_cup(self) -> Delta:
        name = f"cup_{self.next_cup}"
        self.next_cup += 1
        spec = (
            EntitySpec("cup", label=f"cup number {name[4:]}")
            if self.rng.random() < 0.7
            else EntitySpec("cup")
        )
        return Delta(add=(Fact("on", (name, self.rng.choice(TABLES))),), entities={name: spec})

    def _toggle(self, fact: Fact) -> Delta:
        return Delta(remove=(fact,)) if fact in self.facts else Delta(add=(fact,))

    def _move(self, cup: str) -> Delta:
        old = next(f for f in self.facts if f.predicate == "on" and f.args[0] == cup)
        new = Fact("on", (cup, self.rng.choice([t for t in TABLES if t != old.args[1]])))
        return Delta(remove=(old,), add=(new,))

    def _apply(self, delta: Delta) -> None:
        for fact in delta.remove:
            del self.facts[fact]
        for name in delta.remove_entities:
            del self.entities[name]
        for name, spec in delta.entities.items():
            self.entities[name] = {"type": spec.type, **spec.attrs(), "since": self.seq}
        for fact in delta.add:
            self.facts[fact] = self.seq


def main(argv: list[str]) -> None:
    directory, seed, total, snapshot_every, run = (
        argv[1],
        int(argv[2]),
        int(argv[3]),
        int(argv[4]),
        int(argv[5]),
    )
    store = Store(directory, snapshot_every=snapshot_every)
    recovered = store.open()
    scenario = Scenario(seed)
    for _ in range(recovered.last_seq):
        scenario.next_record()
    batches = random.Random(seed * 1000 + run)
    while scenario.seq < total:
        count = min(batches.randint(1, 5), total - scenario.seq)
        store.append([scenario.next_record() for _ in range(count)])
        print(f"ACK {scenario.seq}", flush=True)
        if store.snapshot_due():
            store.snapshot(scenario.graph_json(), scenario.seq, scenario.time)
    store.close()
    print("DONE", flush=True)


if __name__ == "__main__":
    main(sys.argv)
