"""Shared builders for the world and domain tests: the household domain and a small valid house."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from types import SimpleNamespace

from hypothesis import strategies as st

from l3mp.domain import Domain, Fact, RuleSet
from l3mp.domain.paths import ROBOT
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.graph import WorldGraph
from l3mp.world.pddl_io import graph_from_problem
from l3mp.world.verify import Verifier

ROOT = Path(__file__).resolve().parents[1]
DOMAIN_FILE = ROOT / "domains" / "household.pddl"
RULES_FILE = ROOT / "domains" / "household.rules.yaml"


@cache
def household() -> Domain:
    """The shipped household domain, parsed once per test session."""
    return Domain.from_file(DOMAIN_FILE)


@cache
def household_rules() -> RuleSet:
    """The shipped household rules, parsed once per test session."""
    return RuleSet.from_file(RULES_FILE, household())


def verifier() -> Verifier:
    return Verifier(household(), household_rules())


def F(predicate: str, *args: str) -> Fact:
    """Shorthand for a fact: ``F("on", "book1", "table1")`` is ``(on book1 table1)``."""
    return Fact(predicate, tuple(args))


# A small house that satisfies every rule of household.rules.yaml.
HOUSE_ENTITIES: dict[str, str] = {
    "kitchen": "room",
    "living_room": "room",
    "bedroom": "room",
    "table1": "table",
    "counter1": "counter",
    "shelf1": "shelf",
    "sink1": "sink",
    "fridge1": "fridge",
    "cupboard1": "cupboard",
    "lamp1": "light",
    "lamp2": "light",
    "faucet1": "faucet",
    "tv1": "tv",
    "alice": "person",
    "book1": "book",
    "apple1": "food",
    "milk1": "drink",
    "mug1": "dish",
    "plate1": "dish",
    "phone1": "phone",
}

HOUSE_FACTS: tuple[Fact, ...] = (
    F("in_room", ROBOT, "kitchen"),
    F("hand_empty", ROBOT),
    F("in_room", "table1", "living_room"),
    F("in_room", "counter1", "kitchen"),
    F("in_room", "shelf1", "bedroom"),
    F("in_room", "sink1", "kitchen"),
    F("in_room", "fridge1", "kitchen"),
    F("in_room", "cupboard1", "kitchen"),
    F("in_room", "lamp1", "living_room"),
    F("in_room", "lamp2", "bedroom"),
    F("in_room", "faucet1", "kitchen"),
    F("in_room", "tv1", "living_room"),
    F("in_room", "alice", "living_room"),
    F("faucet_of", "faucet1", "sink1"),
    F("on", "book1", "table1"),
    F("inside", "apple1", "fridge1"),
    F("inside", "milk1", "fridge1"),
    F("on", "mug1", "counter1"),
    F("on", "plate1", "sink1"),
    F("has", "alice", "phone1"),
    F("dirty", "mug1"),
    F("light_on", "lamp1"),
    F("is_open", "cupboard1"),
    F("ringing", "phone1"),
)


def house_graph(*, with_robot: bool = True) -> WorldGraph:
    """A fresh WorldGraph of the small house (the_robot included, as WorldModel adds it;
    without it, the robot's facts are left out too)."""
    graph = WorldGraph()
    if with_robot:
        graph.add_entity(ROBOT, "robot")
    for name, type_ in HOUSE_ENTITIES.items():
        graph.add_entity(name, type_)
    for fact in HOUSE_FACTS:
        if with_robot or ROBOT not in fact.args:
            graph.add_fact(fact)
    return graph


def house_delta() -> Delta:
    """The delta that creates the small house in an empty world model."""
    return Delta(add=HOUSE_FACTS, entities={n: EntitySpec(t) for n, t in HOUSE_ENTITIES.items()})


def house_model(store=None, **kwargs):
    """A WorldModel (by default without durable store) holding the small house, imported as record 1."""
    from l3mp.world.model import WorldModel

    model = WorldModel(household(), household_rules(), store=store, **kwargs)
    model.apply(house_delta(), source="import")
    return model


def snapshot(graph: WorldGraph) -> str:
    """A canonical text of everything a graph holds (entities, attributes, facts, since)."""
    return json.dumps(graph.to_json(), sort_keys=True, default=str)


def codes(violations) -> list[str]:
    return sorted(v.code for v in violations)


class StoreDouble:
    """Test double of l3mp.world.store.Store: recovers an empty world; `append` fails while `fail` is set.

    Only the methods WorldModel calls are provided; a failing `append` raises `error` (by default
    OSError, a full disk), a working one keeps the records in memory.
    """

    def __init__(self, path: str = "/nonexistent/test-double-store", *, fail: bool = True, error=None) -> None:
        self.path = Path(path)
        self.read_only = False
        self.appends = 0
        self.appended: list = []
        self.snapshots = 0
        self.meta: dict | None = None
        self.fail = fail
        self.error = error or OSError(28, "No space left on device (test double)")
        self.closed = False

    def open(self):
        empty = SimpleNamespace(raw=lambda: [])
        return SimpleNamespace(meta=None, snapshot=None, snapshot_seq=0, records=empty, last_seq=0, last_time=None,
                               warnings=[])

    def append(self, records) -> None:
        self.appends += 1
        if self.fail:
            raise self.error
        self.appended.extend(records)

    def snapshot_due(self) -> bool:
        return False

    def snapshot(self, graph_json, last_seq, last_time) -> None:
        self.snapshots += 1

    def set_meta(self, meta) -> None:
        self.meta = dict(meta)

    def close(self) -> None:
        self.closed = True


# ---- hypothesis strategies: random deltas against the current state of a house -------------
NEW_NAMES = ("cup9", "box9", "room9", "lamp9", "bob")


def known_names() -> list[str]:
    return [*sorted(HOUSE_ENTITIES), ROBOT]


def entities_of(graph: WorldGraph, type_: str, extra: dict[str, str] | None = None) -> list[str]:
    """Names of `graph` (plus the_robot and `extra` new ones) whose type is `type_` or below it."""
    d = household()
    pool = {n: graph.entity_type(n) for n in graph.entities()} | {ROBOT: "robot"} | (extra or {})
    return sorted(n for n, t in pool.items() if t and d.is_subtype(t, type_))


@st.composite
def typed_facts(draw, graph: WorldGraph, extra: dict[str, str] | None = None) -> Fact:
    """A fact of a domain predicate with arguments of the right types (rules may still break)."""
    pred = household().predicate(draw(st.sampled_from(sorted(household().predicates))))
    args = []
    for t in pred.types:
        pool = entities_of(graph, t, extra)
        args.append(draw(st.sampled_from(pool)) if pool else "nothing")
    return Fact(pred.name, tuple(args))


@st.composite
def junk_facts(draw) -> Fact:
    """Any predicate (or a misspelt one) with any names and any number of arguments."""
    pred = draw(st.sampled_from([*sorted(household().predicates), "on_top", "holds"]))
    names = st.sampled_from([*known_names(), *NEW_NAMES, "tabel1"])
    return Fact(pred, tuple(draw(st.lists(names, max_size=3))))


@st.composite
def plausible_deltas(draw, graph: WorldGraph) -> Delta:
    """A move of an item, an agent or fixture, or the robot's hand: often valid, sometimes not."""
    kinds = [k for k, type_ in (("item", "item"), ("room", "room"), ("pick", "item"), ("place", "item"))
             if entities_of(graph, type_) and entities_of(graph, "locatable")]
    if not kinds:  # a graph whose entities earlier deltas removed: nothing plausible to move
        return Delta()
    kind = draw(st.sampled_from(kinds))
    if kind == "room":
        thing = draw(st.sampled_from(entities_of(graph, "locatable")))
        old = tuple(sorted(f for f in graph.facts_of(thing) if f.predicate == "in_room" and f.args[0] == thing))
        return Delta(remove=old, add=(F("in_room", thing, draw(st.sampled_from(entities_of(graph, "room")))),))
    items = entities_of(graph, "item")
    item = draw(st.sampled_from(items))
    placed = {"on": 0, "inside": 0, "has": 1, "holding": 1}  # where the item is in each place fact
    # facts_of is a frozenset: sort, so the delta does not depend on hash/insertion order
    old = tuple(
        sorted(f for f in graph.facts_of(item) if f.predicate in placed and f.args[placed[f.predicate]] == item)
    )
    if kind == "pick":
        return Delta(remove=(*old, F("hand_empty", ROBOT)), add=(F("holding", ROBOT, item),))
    targets = [(p, t) for p, t in (("on", "surface"), ("inside", "container"), ("has", "person"))
               if entities_of(graph, t)]
    if not targets:
        return Delta(remove=old)
    pred, type_ = draw(st.sampled_from(targets))
    target = draw(st.sampled_from(entities_of(graph, type_)))
    new = F("has", target, item) if pred == "has" else F(pred, item, target)
    if kind == "place":
        return Delta(remove=old, add=(new, F("hand_empty", ROBOT)))
    return Delta(remove=old, add=(new,))


@st.composite
def random_deltas(draw, graph: WorldGraph) -> Delta:
    """A delta mixing existing and junk facts, new (possibly bad) entities and entity removals."""
    if draw(st.integers(0, 2)) == 0:
        return draw(plausible_deltas(graph))
    all_types = sorted(household().types)
    entities = {}
    for name in draw(st.lists(st.sampled_from([*NEW_NAMES, "book1", ROBOT, "Bad Name"]), max_size=2, unique=True)):
        entities[name.lower()] = EntitySpec(draw(st.sampled_from([*all_types, "dish", "dish", "gizmo"])))
    extra = {n: s.type for n, s in entities.items()}
    existing = sorted(graph.facts())
    removals = st.one_of(st.sampled_from(existing), junk_facts()) if existing else junk_facts()
    remove = draw(st.lists(removals, max_size=3))
    add = draw(st.lists(st.one_of(typed_facts(graph, extra), typed_facts(graph, extra), junk_facts()), max_size=3))
    gone = draw(st.lists(st.sampled_from([*known_names(), *NEW_NAMES]), max_size=1))
    return Delta(remove=tuple(remove), add=tuple(add), entities=entities, remove_entities=tuple(gone))


def apply_effective(graph: WorldGraph, eff: Delta) -> None:
    """Apply an effective delta the documented way: removals, entity removals, new entities, additions."""
    for fact in eff.remove:
        graph.remove_fact(fact)
    for name in eff.remove_entities:
        graph.remove_entity(name)
    for name, spec in eff.entities.items():
        graph.add_entity(name, spec.type, **spec.attrs())
    for fact in eff.add:
        graph.add_fact(fact)


def init_atoms(domain: Domain, problem_text: str) -> set[Fact]:
    """The ground atoms that are true in the :init of a PDDL problem text of `domain`."""
    return set(graph_from_problem(domain, problem_text, is_text=True).facts())
