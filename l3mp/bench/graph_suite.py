"""Suite ``graph``: perception ingest, NL delta latency, journal recovery and memory of the world model."""

from __future__ import annotations

import gc
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
from l3mp_sim.house import House, generate_house

from l3mp.bench.runner import Metric, error_metric, percentile, register
from l3mp.domain.paths import ROBOT, domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.model import Observation, WorldModel
from l3mp.world.record import ChangeRecord
from l3mp.world.store import Store

SEED = 7
NO_SNAPSHOT = 10**12
"""A `snapshot_every` that is never reached: recovery replays the whole journal."""

ITEM_TYPES = ("food", "drink", "dish", "book", "phone")
SURFACES = frozenset({"table", "counter", "shelf", "sink"})
CONTAINERS = frozenset({"fridge", "cupboard", "dishwasher"})
STATE_PREDICATE = {"light": "light_on", "tv": "tv_on", "faucet": "faucet_on", "fridge": "is_open",
                   "cupboard": "is_open", "dishwasher": "is_open", "dish": "dirty", "phone": "ringing"}
STRUCTURAL = frozenset({"in_room", "faucet_of", "on", "inside", "has", "hand_empty"})
NL_INPUT = "I moved it to the other table and switched the lights"


@dataclass(frozen=True)
class Scale:
    """How big each measurement is (full run or --quick)."""

    entities: int
    ingest_batches: int
    batch_triplets: int
    unbatched: int
    nl_deltas: int
    journal_records: int
    rss_facts: int


FULL = Scale(entities=10_000, ingest_batches=100, batch_triplets=1_000, unbatched=2_000, nl_deltas=5_000,
             journal_records=1_000_000, rss_facts=100_000)
QUICK = Scale(entities=1_000, ingest_batches=10, batch_triplets=1_000, unbatched=100, nl_deltas=500,
              journal_records=50_000, rss_facts=10_000)

Part = Callable[[Domain, House, Scale], Iterator[Metric]]


@register("graph")
def graph_suite(quick: bool) -> Iterator[Metric]:
    """Every part runs even if an earlier one fails (its failure becomes an error metric)."""
    scale = QUICK if quick else FULL
    domain = Domain.from_file(domain_path("household"))
    house = generate_house(seed=SEED, target_entities=scale.entities)
    parts: tuple[tuple[str, Part], ...] = (("ingest", _ingest), ("nl_delta", _nl_delta),
                                           ("recovery", _recovery), ("rss", _rss))
    for name, part in parts:
        try:
            yield from part(domain, house, scale)
        except Exception as exc:  # the other parts still measure
            yield error_metric(f"{name}.error", exc)


# ---- shared helpers -------------------------------------------------------------------
def _house_delta(house: House, domain: Domain, predicates: frozenset[str] | None = None) -> Delta:
    """The house as one delta: its entities (not the domain's constants) and its facts."""
    entities = {n: EntitySpec(e.type, e.label) for n, e in house.entities.items() if n not in domain.constants}
    facts = tuple(Fact(p, args) for p, args in house.facts if predicates is None or p in predicates)
    return Delta(add=facts, entities=entities)


def import_by_rooms(model: WorldModel, house: House, rooms_per_delta: int = 50) -> float:
    """Import the house in verified deltas of `rooms_per_delta` rooms (each with its fixtures, people
    and items), so that setting up a measurement does not depend on how verification scales with the
    size of one delta (`import_house` measures that); returns the time of the last record."""
    constants = model.domain.constants
    room = _rooms(house)
    names = [n for n, e in house.entities.items() if e.type == "room"]
    groups = {r: i // rooms_per_delta for i, r in enumerate(names)}
    entities: dict[int, dict[str, EntitySpec]] = {}
    facts: dict[int, list[Fact]] = {}
    for name, info in house.entities.items():
        if name not in constants:
            entities.setdefault(groups[room[name]], {})[name] = EntitySpec(info.type, info.label)
    for predicate, args in house.facts:
        anchor = next((a for a in args if a not in constants), None)
        facts.setdefault(groups[room[anchor]] if anchor else 0, []).append(Fact(predicate, args))
    last = 0.0
    for group in sorted(set(entities) | set(facts)):
        delta = Delta(add=tuple(facts.get(group, ())), entities=entities.get(group, {}))
        record = model.apply(delta, source="import")
        last = record.time if record is not None else last
    return last


def _rooms(house: House) -> dict[str, str]:
    """The room of every entity that is not a constant: its own, its fixture's, its holder's."""
    room = {n: n for n, e in house.entities.items() if e.type == "room"}
    room.update({args[0]: args[1] for p, args in house.facts if p == "in_room"})
    for predicate, args in house.facts:
        if predicate in ("on", "inside"):
            room[args[0]] = room[args[1]]
        elif predicate == "has":
            room[args[1]] = room[args[0]]
    return room


class _Stopwatch:
    """Wall and CPU seconds of a `with` block (CPU time shows how much a busy machine slowed it)."""

    wall = cpu = 0.0

    def __enter__(self) -> _Stopwatch:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall, self.cpu = time.perf_counter() - self._wall, time.process_time() - self._cpu


def _names_by_type(house: House) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, info in house.entities.items():
        out.setdefault(info.type, []).append(name)
    return out


def _receptacles(by_type: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(receptacle, "on" | "inside") for every surface and container."""
    out = [(n, "on") for t in sorted(SURFACES) for n in by_type.get(t, [])]
    return out + [(n, "inside") for t in sorted(CONTAINERS) for n in by_type.get(t, [])]


def _dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


# ---- 1. perception ingest ---------------------------------------------------------------
class _Perceiver:
    """Seeded perception: batches of item sightings (some moved), device/container states,
    new items, and re-sightings of fixtures; one subject at most once per batch."""

    def __init__(self, house: House, rng: random.Random) -> None:
        by_type = _names_by_type(house)
        self._rng = rng
        self._items = [n for t in ITEM_TYPES for n in by_type.get(t, [])]
        self._receptacles = _receptacles(by_type)
        self._stateful = [(n, p) for t, p in STATE_PREDICATE.items() for n in by_type.get(t, [])]
        self._fixtures = [(args[0], args[1]) for p, args in house.facts
                          if p == "in_room" and house.entities[args[0]].type not in ("person", "robot")]
        self._count = 0

    def observe(self, size: int) -> Observation:
        facts: list[tuple[Fact, bool]] = []
        entities: dict[str, EntitySpec] = {}
        seen: set[str] = set()
        while len(facts) < size:
            fact, truth = self._sighting(entities)
            if fact.args[0] not in seen:
                seen.add(fact.args[0])
                facts.append((fact, truth))
        self._count += 1
        return Observation(tuple(facts), entities, observation_id=f"obs-{self._count}")

    def _sighting(self, entities: dict[str, EntitySpec]) -> tuple[Fact, bool]:
        roll = self._rng.random()
        if roll < 0.10:
            name = f"seen_item_{len(self._items)}"
            entities[name] = EntitySpec(self._rng.choice(ITEM_TYPES), "newly seen item")
            self._items.append(name)
            return self._placed(name), True
        if roll < 0.45:
            return self._placed(self._rng.choice(self._items)), True
        if roll < 0.85:
            name, predicate = self._rng.choice(self._stateful)
            return Fact(predicate, (name,)), self._rng.random() < 0.5
        fixture, room = self._rng.choice(self._fixtures)
        return Fact("in_room", (fixture, room)), True

    def _placed(self, item: str) -> Fact:
        receptacle, predicate = self._rng.choice(self._receptacles)
        return Fact(predicate, (item, receptacle))


def _ingest(domain: Domain, house: House, scale: Scale) -> Iterator[Metric]:
    perceiver = _Perceiver(house, random.Random(SEED))
    with tempfile.TemporaryDirectory(prefix="l3mp-bench-") as tmp, \
            WorldModel.open(domain, Path(tmp) / "world", fsync=True) as model:
        delta = _house_delta(house, domain, STRUCTURAL)
        with _Stopwatch() as watch:
            model.apply(delta, source="import")
        yield Metric("import_house", watch.wall, "s",
                     notes=f"{len(delta.entities):,} entities + {len(delta.add):,} structural facts, one verified "
                           f"fsync'd record; CPU {watch.cpu:.3g} s")
        batches = [perceiver.observe(scale.batch_triplets) for _ in range(scale.ingest_batches)]
        rate, cpu = _perceive_rate(model, batches)
        yield Metric("ingest_batched", rate, "triplets/s", 20_000, "min",
                     notes=f"{len(batches)} perception batches x {scale.batch_triplets} triplets (moves, states, new "
                           f"items) on a {len(house.entities):,}-entity house; perceive() = delta + verify + apply "
                           f"+ one fsync'd journal record per batch; {cpu:,.0f} triplets per CPU second")
        singles = [perceiver.observe(1) for _ in range(scale.unbatched)]
        rate, cpu = _perceive_rate(model, singles)
        yield Metric("ingest_unbatched", rate, "triplets/s",
                     notes=f"{len(singles)} observations of one triplet, one fsync'd record each; {cpu:,.0f} "
                           "triplets per CPU second")


def _perceive_rate(model: WorldModel, observations: list[Observation]) -> tuple[float, float]:
    """Triplets per second of wall time and of CPU time."""
    with _Stopwatch() as watch:
        for observation in observations:
            model.perceive(observation)
    triplets = sum(len(o.facts) for o in observations)
    return triplets / watch.wall, triplets / watch.cpu


# ---- 2. one NL-sized delta ----------------------------------------------------------------
def _nl_deltas(model: WorldModel) -> tuple[Delta, Delta]:
    """Move an item to another surface and switch one light off and another on; and back."""
    graph = model.graph
    item, here = sorted(graph.facts(predicate="on"))[0].args
    there = next(n for n in sorted(graph.entities()) if graph.entity_type(n) in SURFACES and n != here)
    lights = sorted(n for n in graph.entities() if graph.entity_type(n) == "light")
    lit = next(n for n in lights if graph.has_fact(Fact("light_on", (n,))))
    dark = next(n for n in lights if not graph.has_fact(Fact("light_on", (n,))))
    forth = Delta(remove=(Fact("on", (item, here)), Fact("light_on", (lit,))),
                  add=(Fact("on", (item, there)), Fact("light_on", (dark,))))
    back = Delta(remove=forth.add, add=forth.remove)
    return forth, back


def _delta_latencies(model: WorldModel, count: int) -> tuple[list[float], list[float]]:
    """Milliseconds of wall and of CPU time per verified `apply` of an NL-sized delta (after a warm-up)."""
    deltas = _nl_deltas(model)
    warmup = min(100, count // 10)
    wall, cpu = [], []
    for i in range(count + warmup):
        start, start_cpu = time.perf_counter_ns(), time.process_time_ns()
        model.apply(deltas[i % 2], source="nl", input=NL_INPUT)
        if i >= warmup:
            wall.append((time.perf_counter_ns() - start) / 1e6)
            cpu.append((time.process_time_ns() - start_cpu) / 1e6)
    return wall, cpu


def _latency_metrics(label: str, model: WorldModel, count: int, how: str, target: float | None) -> list[Metric]:
    wall, cpu = _delta_latencies(model, count)
    p99_cpu = percentile(cpu, 0.99)
    return [
        Metric(f"{label}_p50", percentile(wall, 0.5), "ms", notes=how),
        Metric(f"{label}_p99", percentile(wall, 0.99), "ms", target, "max" if target else None,
               notes=f"{how}; CPU-time p99 {p99_cpu:.3g} ms (the rest is waiting: fsync, or other processes)"),
    ]


def _nl_delta(domain: Domain, house: House, scale: Scale) -> Iterator[Metric]:
    where = f"2 removals + 2 additions on a {len(house.entities):,}-entity house, {scale.nl_deltas} deltas"
    model = WorldModel(domain)
    import_by_rooms(model, house)
    yield from _latency_metrics("nl_delta", model, scale.nl_deltas, f"verify + apply, no store; {where}", 2.0)
    for fsync in (False, True):
        label = "nl_delta_fsync" if fsync else "nl_delta_journal"
        how = "verify + apply + journal append " + ("with fsync (durable ack)" if fsync else "without fsync")
        with tempfile.TemporaryDirectory(prefix="l3mp-bench-") as tmp, \
                WorldModel.open(domain, Path(tmp) / "world", fsync=fsync, snapshot_every=NO_SNAPSHOT) as durable:
            import_by_rooms(durable, house)
            metrics = _latency_metrics(label, durable, scale.nl_deltas, how, None)
        yield from metrics


# ---- 3. recovery of a long journal ----------------------------------------------------------
class _Household:
    """The changing state of a house, for writing a realistic journal without a model:
    light switches, item moves, robot moves, picks and places, doors, and NL-sized mixes."""

    def __init__(self, house: House, rng: random.Random) -> None:
        by_type = _names_by_type(house)
        self._rng = rng
        self._receptacles = _receptacles(by_type)
        self._place = {args[0]: Fact(p, args) for p, args in house.facts if p in ("on", "inside")}
        self._items = sorted(self._place)
        self._lights = by_type.get("light", [])
        self._lit = {args[0] for p, args in house.facts if p == "light_on"}
        self._containers = [n for t in sorted(CONTAINERS) for n in by_type.get(t, [])]
        self._open = {args[0] for p, args in house.facts if p == "is_open"}
        self._rooms = by_type["room"]
        self._robot_room = next(args[1] for p, args in house.facts if p == "in_room" and args[0] == ROBOT)
        self._held: str | None = None
        self.fact_count = len(house.facts)
        self._changes = (
            (0.25, "perception", self._switch_light), (0.35, "perception", self._move_item),
            (0.10, "plan", self._move_robot), (0.15, "plan", self._pick_or_place),
            (0.10, "perception", self._open_or_close), (0.05, "nl", self._tidy),
        )

    def record(self, seq: int, time: float) -> ChangeRecord:
        _, source, change = self._rng.choices(self._changes, [w for w, _, _ in self._changes])[0]
        remove, add = change()
        self.fact_count += len(add) - len(remove)
        ref = f"obs-{seq}" if source == "perception" else None
        text = "I tidied up and switched the light" if source == "nl" else None
        return ChangeRecord(seq, time, source, Delta(tuple(remove), tuple(add)), input=text, ref=ref)

    def _switch_light(self) -> tuple[list[Fact], list[Fact]]:
        return _toggle(self._lit, "light_on", self._rng.choice(self._lights))

    def _move_item(self) -> tuple[list[Fact], list[Fact]]:
        item = self._rng.choice(self._items)
        if item == self._held:
            return self._pick_or_place()
        old = self._place[item]
        receptacle, predicate = self._rng.choice(self._receptacles)
        while receptacle == old.args[1]:
            receptacle, predicate = self._rng.choice(self._receptacles)
        self._place[item] = Fact(predicate, (item, receptacle))
        return [old], [self._place[item]]

    def _move_robot(self) -> tuple[list[Fact], list[Fact]]:
        room = self._rng.choice(self._rooms)
        while room == self._robot_room:
            room = self._rng.choice(self._rooms)
        old, self._robot_room = Fact("in_room", (ROBOT, self._robot_room)), room
        return [old], [Fact("in_room", (ROBOT, room))]

    def _pick_or_place(self) -> tuple[list[Fact], list[Fact]]:
        empty = Fact("hand_empty", (ROBOT,))
        if self._held is None:
            self._held = self._rng.choice(self._items)
            return [self._place.pop(self._held), empty], [Fact("holding", (ROBOT, self._held))]
        item, self._held = self._held, None
        receptacle, predicate = self._rng.choice(self._receptacles)
        self._place[item] = Fact(predicate, (item, receptacle))
        return [Fact("holding", (ROBOT, item))], [empty, self._place[item]]

    def _open_or_close(self) -> tuple[list[Fact], list[Fact]]:
        return _toggle(self._open, "is_open", self._rng.choice(self._containers))

    def _tidy(self) -> tuple[list[Fact], list[Fact]]:
        moved_remove, moved_add = self._move_item()
        light_remove, light_add = self._switch_light()
        return moved_remove + light_remove, moved_add + light_add


def _write_journal(domain: Domain, house: House, path: Path, count: int) -> tuple[int, int, float]:
    """Import the house through a model, then append `count` records (one every half second)
    through its Store, batched, without fsync; returns the expected fact count and last record
    number, and the write rate (records/s)."""
    state = _Household(house, random.Random(SEED))
    with WorldModel.open(domain, path, fsync=False, snapshot_every=NO_SNAPSHOT) as model:
        start_time = import_by_rooms(model, house)
        store, first = model.store, model.last_seq + 1
        assert store is not None
        last = first + count - 1
        start = time.perf_counter()
        for chunk in range(first, last + 1, 10_000):
            seqs = range(chunk, min(chunk + 10_000, last + 1))
            store.append([state.record(seq, start_time + (seq - first + 1) * 0.5) for seq in seqs])
        rate = count / (time.perf_counter() - start)
    return state.fact_count, last, rate


def _recovery(domain: Domain, house: House, scale: Scale) -> Iterator[Metric]:
    with tempfile.TemporaryDirectory(prefix="l3mp-bench-") as tmp:
        path = Path(tmp) / "world"
        facts, last, rate = _write_journal(domain, house, path, scale.journal_records)
        yield Metric("journal_write_rate", rate, "records/s",
                     notes="Store.append in batches of 10,000 records, fsync off (building the journal)")
        yield Metric("journal_size", _dir_size(path) / 2**20, "MB",
                     notes=f"{scale.journal_records:,} records of 1-4 facts after importing a "
                           f"{len(house.entities):,}-entity house")
        gc.collect()
        with _Stopwatch() as watch:
            model = WorldModel.open(domain, path, snapshot_every=NO_SNAPSHOT)
        found = (model.graph.fact_count(), model.last_seq)
        model.close()
        if found != (facts, last):
            raise AssertionError(f"recovered {found[0]} facts at record {found[1]}; expected {facts} at {last}")
        yield Metric("recovery", watch.wall, "s", 10.0, "max",
                     notes=f"WorldModel.open replaying {last:,} records (no snapshot) into {facts:,} facts; "
                           f"CPU {watch.cpu:.3g} s")
        scan, decode = _read_times(path)
        yield Metric("recovery_scan", scan, "s", notes="of which: Store.open alone (scan + CRC check, no decoding)")
        yield Metric("recovery_decode", decode, "s",
                     notes="of which: decoding every record's JSON (Store raw records, no ChangeRecord, no graph)")


def _read_times(path: Path) -> tuple[float, float]:
    """Seconds to open (scan) the store, and then to decode all its records as JSON."""
    gc.collect()
    start = time.perf_counter()
    with Store(path, snapshot_every=NO_SNAPSHOT) as store:
        records = store.open().records
        opened = time.perf_counter()
        for _ in records.raw():
            pass
        return opened - start, time.perf_counter() - opened


# ---- 4. memory -----------------------------------------------------------------------------
def rss_probe(facts: int) -> dict[str, int]:
    """In a fresh process: RSS after imports (baseline), then holding a house of about `facts` facts
    (generated here, imported without a store, then dropped: only the model stays referenced)."""
    process = psutil.Process()
    domain = Domain.from_file(domain_path("household"))
    gc.collect()
    baseline = process.memory_info().rss
    sample = generate_house(seed=SEED, target_entities=2_000)
    entities = round(facts * len(sample.entities) / len(sample.facts))
    del sample
    model = WorldModel(domain)
    import_by_rooms(model, generate_house(seed=SEED, target_entities=entities))
    gc.collect()
    return {"baseline": baseline, "rss": process.memory_info().rss,
            "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "facts": model.graph.fact_count(), "entities": model.graph.entity_count()}


def _rss(domain: Domain, house: House, scale: Scale) -> Iterator[Metric]:
    code = f"import json; from l3mp.bench.graph_suite import rss_probe; print(json.dumps(rss_probe({scale.rss_facts})))"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"RSS probe failed: {done.stderr.strip()[-500:]}")
    probe = json.loads(done.stdout.strip().splitlines()[-1])
    size = f"{probe['facts']:,} facts, {probe['entities']:,} entities"
    mb = 2**20
    yield Metric("rss", probe["rss"] / mb, "MB", 300.0, "max",
                 notes=f"fresh process holding a WorldModel of {size} (no store; includes what the allocator kept "
                       f"of the generated house); peak {probe['peak'] / mb:.0f} MB")
    yield Metric("rss_over_baseline", (probe["rss"] - probe["baseline"]) / mb, "MB", notes=f"the model of {size}")
    yield Metric("rss_baseline", probe["baseline"] / mb, "MB", notes="interpreter + imports + household domain")


def _toggle(holding: set[str], predicate: str, entity: str) -> tuple[list[Fact], list[Fact]]:
    """Switch the unary fact ``(predicate entity)``, true for the entities in `holding`: (removed, added)."""
    fact = Fact(predicate, (entity,))
    if entity in holding:
        holding.discard(entity)
        return [fact], []
    holding.add(entity)
    return [], [fact]
