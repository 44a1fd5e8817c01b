"""Seeded, reproducible random households for the ``household`` PDDL domain.

This is the text household of L3M+P (section V-A): rooms of several kinds, each with the
furniture and appliances its kind calls for, items lying where one expects them (food in
fridges and cupboards, dishes in cupboards, dishwashers and sinks, books on shelves,
phones on tables), people in rooms who may hold something, and the robot
(``the_robot``) in some room with an empty hand. Some lights, TVs and faucets are on,
some containers are open, some dishes are dirty and some phones are ringing.

Every house satisfies the world-state rules of ``domains/household.rules.yaml``:

* each item is in exactly one place (``on``, ``inside``, ``holding`` or ``has``);
* each agent and fixture is in exactly one room (``in_room``);
* the robot's hand is empty (``hand_empty the_robot``) and it holds nothing;
* each faucet belongs to exactly one sink (``faucet_of``), in the sink's room.

Every house also has at least one person, one food item and one dirty dish, and its
first room is a kitchen (with a sink), so fetching, washing and switching tasks exist.

``generate_house(seed=...)`` builds a house like the paper's description (6-8 rooms,
60-120 entities; the paper gives no counts); ``scale`` multiplies the number of rooms and ``target_entities``
asks for a house of (about) that many entities, for benchmarks.
``house_graph(seed)`` is such a house as a WorldGraph; ``house_to_pddl_problem`` writes a house as the text of a
PDDL problem.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from l3mp.domain.paths import ROBOT
from l3mp.domain.triplets import Fact
from l3mp.world.graph import WorldGraph


@dataclass(frozen=True)
class EntityInfo:
    """What an entity is: its PDDL type and a human label (``"red mug"``)."""

    type: str
    label: str


@dataclass(frozen=True)
class House:
    """A generated household: entities by name and ground facts, sorted."""

    entities: dict[str, EntityInfo]
    facts: list[tuple[str, tuple[str, ...]]]

    def to_graph(self) -> WorldGraph:
        """The house as a WorldGraph (entities with their labels, every fact)."""
        graph = WorldGraph()
        for name, info in self.entities.items():
            graph.add_entity(name, info.type, label=info.label)
        for predicate, args in self.facts:
            graph.add_fact(Fact(predicate, args))
        return graph


# --------------------------------------------------------------------------- catalogues


@dataclass(frozen=True)
class _ItemKind:
    """A family of items: their PDDL type, nouns and optional adjectives."""

    type: str
    nouns: tuple[str, ...]
    adjectives: tuple[str, ...] = ()
    adjective_prob: float = 0.0


_COLOURS = ("red", "blue", "white", "green", "yellow", "black", "grey", "orange", "purple")

_ITEM_KINDS: dict[str, _ItemKind] = {
    "cold_food": _ItemKind(
        "food",
        ("apple", "cheese", "yogurt", "butter", "egg carton", "salad", "leftover pizza",
         "tomato", "sandwich", "ham", "carrot"),
        ("fresh", "small", "large", "half eaten"),
        0.3,
    ),
    "dry_food": _ItemKind(
        "food",
        ("cereal box", "pasta box", "bag of rice", "bag of chips", "granola bar", "soup can",
         "cracker box", "chocolate bar", "bag of coffee beans", "tea box", "cookie jar"),
        ("small", "large", "unopened"),
        0.2,
    ),
    "fresh_food": _ItemKind(
        "food",
        ("apple", "banana", "orange", "bread loaf", "avocado", "lemon", "bag of chips",
         "granola bar", "pear"),
        ("ripe", "fresh", "small", "large"),
        0.3,
    ),
    "cold_drink": _ItemKind(
        "drink",
        ("milk carton", "orange juice", "soda can", "water bottle", "lemonade", "iced tea",
         "beer bottle", "apple juice"),
        ("cold", "small", "large"),
        0.3,
    ),
    "room_drink": _ItemKind(
        "drink",
        ("water bottle", "soda can", "juice box", "wine bottle", "energy drink",
         "sparkling water"),
        ("small", "large", "half empty"),
        0.3,
    ),
    "dish": _ItemKind(
        "dish",
        ("mug", "plate", "bowl", "cup", "glass", "saucepan", "frying pan", "serving dish",
         "teapot", "wine glass", "salad bowl"),
        _COLOURS,
        0.8,
    ),
    "book": _ItemKind(
        "book",
        ("novel", "cookbook", "textbook", "notebook", "magazine", "photo album", "dictionary",
         "comic book", "atlas"),
        (*_COLOURS, "old", "thick", "paperback", "hardcover"),
        0.8,
    ),
    "phone": _ItemKind(
        "phone",
        ("phone", "smartphone", "cordless phone"),
        ("black", "silver", "white", "pink", "blue", "gold"),
        0.8,
    ),
}

_HELD_ITEMS: tuple[tuple[str, float], ...] = (
    ("phone", 3), ("room_drink", 3), ("book", 2), ("dish", 1), ("fresh_food", 1),
)
"""What a person may hold, with weights."""


@dataclass(frozen=True)
class _FixtureSpec:
    """A kind of fixture in a room: how many, and what items it holds."""

    type: str
    nouns: tuple[str, ...]
    count: tuple[int, int] = (1, 1)
    items: tuple[int, int] = (0, 0)
    contents: tuple[tuple[str, float], ...] = ()
    dirty_prob: float = 0.0


@dataclass(frozen=True)
class _RoomSpec:
    """A kind of room: its label, fixtures, lamps and how often it occurs."""

    label: str
    fixtures: tuple[_FixtureSpec, ...]
    lamps: tuple[str, ...]
    weight: float
    person_prob: float


_SHELF_BOOKS = (("book", 1.0),)

_ROOM_SPECS: dict[str, _RoomSpec] = {
    "kitchen": _RoomSpec(
        "kitchen",
        (
            _FixtureSpec("counter", ("counter", "kitchen island"), (1, 2), (1, 4),
                         (("fresh_food", 3), ("dish", 3), ("room_drink", 1)), 0.5),
            _FixtureSpec("fridge", ("fridge",), (1, 1), (2, 5),
                         (("cold_food", 6), ("cold_drink", 4))),
            _FixtureSpec("cupboard", ("cupboard", "pantry"), (1, 2), (2, 5),
                         (("dish", 5), ("dry_food", 4), ("room_drink", 1))),
            _FixtureSpec("dishwasher", ("dishwasher",), (1, 1), (0, 4), (("dish", 1),), 0.5),
            _FixtureSpec("sink", ("kitchen sink",), (1, 1), (1, 3), (("dish", 1),), 0.9),
            _FixtureSpec("table", ("kitchen table",), (0, 1), (0, 3),
                         (("dish", 3), ("fresh_food", 2), ("room_drink", 1), ("phone", 1)),
                         0.6),
        ),
        ("under cabinet light", "pendant light"),
        0.07,
        0.4,
    ),
    "living_room": _RoomSpec(
        "living room",
        (
            _FixtureSpec("table", ("coffee table", "side table"), (1, 2), (1, 3),
                         (("book", 3), ("phone", 2), ("room_drink", 3), ("dish", 2),
                          ("dry_food", 1)), 0.6),
            _FixtureSpec("shelf", ("bookshelf",), (1, 1), (2, 6), _SHELF_BOOKS),
            _FixtureSpec("tv", ("tv",)),
        ),
        ("floor lamp", "reading lamp"),
        0.1,
        0.6,
    ),
    "bedroom": _RoomSpec(
        "bedroom",
        (
            _FixtureSpec("table", ("nightstand", "desk", "dresser"), (1, 2), (1, 3),
                         (("book", 3), ("phone", 3), ("room_drink", 1), ("dish", 1)), 0.5),
            _FixtureSpec("shelf", ("bookshelf", "wall shelf"), (0, 1), (1, 4), _SHELF_BOOKS),
        ),
        ("bedside lamp", "desk lamp"),
        0.25,
        0.4,
    ),
    "bathroom": _RoomSpec(
        "bathroom",
        (
            _FixtureSpec("sink", ("sink",)),
            _FixtureSpec("shelf", ("bathroom shelf", "towel shelf"), (1, 1), (0, 1),
                         (("book", 2), ("phone", 1))),
            _FixtureSpec("cupboard", ("medicine cabinet",), (0, 1)),
        ),
        ("mirror light", "vanity light"),
        0.18,
        0.1,
    ),
    "dining_room": _RoomSpec(
        "dining room",
        (
            _FixtureSpec("table", ("dining table",), (1, 1), (1, 4),
                         (("dish", 5), ("fresh_food", 2), ("room_drink", 2)), 0.6),
            _FixtureSpec("cupboard", ("china cabinet",), (0, 1), (1, 4), (("dish", 1),)),
            _FixtureSpec("counter", ("sideboard",), (0, 1), (0, 2),
                         (("room_drink", 2), ("dish", 2), ("fresh_food", 1)), 0.3),
        ),
        ("chandelier", "wall lamp"),
        0.07,
        0.4,
    ),
    "office": _RoomSpec(
        "office",
        (
            _FixtureSpec("table", ("desk",), (1, 1), (1, 3),
                         (("book", 3), ("phone", 3), ("dish", 1), ("room_drink", 1)), 0.6),
            _FixtureSpec("shelf", ("bookshelf",), (1, 2), (1, 5), _SHELF_BOOKS),
        ),
        ("desk lamp",),
        0.1,
        0.4,
    ),
    "laundry_room": _RoomSpec(
        "laundry room",
        (
            _FixtureSpec("sink", ("utility sink",), (1, 1), (0, 1), (("dish", 1),), 0.8),
            _FixtureSpec("shelf", ("shelf",), (1, 1), (0, 2),
                         (("dry_food", 1), ("room_drink", 1))),
            _FixtureSpec("cupboard", ("cupboard",), (0, 1)),
            _FixtureSpec("table", ("folding table",), (0, 1), (0, 1), (("phone", 1),)),
        ),
        ("wall lamp",),
        0.06,
        0.2,
    ),
    "hallway": _RoomSpec(
        "hallway",
        (
            _FixtureSpec("table", ("console table",), (0, 1), (0, 2),
                         (("phone", 2), ("book", 1))),
            _FixtureSpec("shelf", ("shoe shelf",), (0, 1)),
        ),
        ("wall lamp",),
        0.1,
        0.2,
    ),
    "garage": _RoomSpec(
        "garage",
        (
            _FixtureSpec("shelf", ("shelf",), (1, 2), (0, 2),
                         (("dry_food", 1), ("room_drink", 1), ("book", 1))),
            _FixtureSpec("fridge", ("garage fridge",), (0, 1), (1, 4),
                         (("cold_drink", 3), ("cold_food", 1))),
            _FixtureSpec("table", ("workbench",), (0, 1)),
        ),
        ("work light",),
        0.07,
        0.2,
    ),
}

_FIRST_ROOMS = ("kitchen", "living_room", "bedroom", "bathroom")
"""The kinds of a house's first rooms, in order; further rooms are drawn by weight."""

_SWITCH_PROB = {"light": 0.4, "tv": 0.3, "faucet": 0.15}
_OPEN_PROB = {"fridge": 0.1, "cupboard": 0.3, "dishwasher": 0.3}
_RINGING_PROB = 0.3
_HELD_PROB = 0.4
_HELD_DIRTY_PROB = 0.3
_SECOND_LIGHT_PROB = 0.5

_PEOPLE = (
    "jessica", "michael", "sarah", "david", "emily", "james", "olivia", "daniel", "sophia",
    "william", "emma", "noah", "ava", "lucas", "mia", "ethan", "chloe", "liam", "grace",
    "henry", "zoe", "samuel", "lily", "jack", "hannah", "oliver", "nora", "leo", "ella",
    "isaac", "ruby", "adam", "alice", "thomas", "clara", "marcus", "julia", "victor", "maya",
    "oscar", "ivy", "peter", "laura", "felix", "anna", "hugo", "rosa", "ben",
)

_BASE_ROOMS = 7
"""Middle of the default 6-8 rooms; ``scale`` multiplies the drawn count."""

# --------------------------------------------------------------------------- builder


def slug(text: str) -> str:
    """Turn human words into a PDDL name stem: ``"half eaten apple"`` -> ``half_eaten_apple``."""
    stem = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return stem if stem[:1].isalpha() else f"x_{stem}"


@dataclass
class _Builder:
    """Mutable state while a house is generated."""

    rng: random.Random
    entities: dict[str, tuple[str, str]] = field(default_factory=dict)
    fixture_rooms: dict[str, str] = field(default_factory=dict)
    facts: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    room_kinds: dict[str, str] = field(default_factory=dict)
    receptacles: list[tuple[str, _FixtureSpec]] = field(default_factory=list)
    people: list[str] = field(default_factory=list)

    def new_name(self, stem: str) -> str:
        """A fresh name ``stem_N`` (N counts from 1 per stem)."""
        number = self.counters.get(stem, 0) + 1
        self.counters[stem] = number
        return f"{stem}_{number}"

    def add(self, name: str, type_: str, label: str) -> str:
        """Record an entity; labels of fixtures are completed later with their room."""
        if name in self.entities:
            raise AssertionError(f"duplicate entity name {name}")
        self.entities[name] = (type_, label)
        return name

    def fact(self, predicate: str, *args: str) -> None:
        self.facts.append((predicate, args))

    def maybe(self, probability: float) -> bool:
        return self.rng.random() < probability

    def weighted(self, choices: tuple[tuple[str, float], ...]) -> str:
        keys = [key for key, _ in choices]
        weights = [weight for _, weight in choices]
        return self.rng.choices(keys, weights)[0]


def _room_kind_stream(rng: random.Random) -> Iterator[str]:
    """Room kinds in blocks of about a house each, so big houses keep their mix.

    A block is the kitchen, living room, bedroom and bathroom plus kinds drawn by
    weight; the first block starts with those four in order (so room 1 is a kitchen),
    later blocks are shuffled.
    """
    kinds = list(_ROOM_SPECS)
    weights = [_ROOM_SPECS[kind].weight for kind in kinds]
    extra = _BASE_ROOMS - len(_FIRST_ROOMS)
    first = True
    while True:
        block = list(_FIRST_ROOMS) + rng.choices(kinds, weights, k=extra)
        if not first:
            rng.shuffle(block)
        first = False
        yield from block


def _add_item(b: _Builder, kind_key: str, dirty_prob: float) -> str:
    """Create one item of a kind (not yet placed); dishes may be dirty, phones ringing."""
    kind = _ITEM_KINDS[kind_key]
    noun = b.rng.choice(kind.nouns)
    label = noun
    if kind.adjectives and b.maybe(kind.adjective_prob):
        label = f"{b.rng.choice(kind.adjectives)} {noun}"
    name = b.add(b.new_name(slug(label)), kind.type, label)
    if kind.type == "dish" and b.maybe(dirty_prob):
        b.fact("dirty", name)
    if kind.type == "phone" and b.maybe(_RINGING_PROB):
        b.fact("ringing", name)
    return name


def _fill_receptacle(b: _Builder, receptacle: str, spec: _FixtureSpec, count: int) -> None:
    """Put ``count`` items drawn from the spec's contents into or onto a receptacle."""
    predicate = "inside" if spec.type in _OPEN_PROB else "on"
    for _ in range(count):
        item = _add_item(b, b.weighted(spec.contents), spec.dirty_prob)
        b.fact(predicate, item, receptacle)


def _add_fixture(b: _Builder, room: str, spec: _FixtureSpec) -> None:
    """One fixture of a spec in a room, its faucet if it is a sink, and its items."""
    noun = b.rng.choice(spec.nouns)
    name = b.add(b.new_name(slug(noun)), spec.type, noun)
    b.fixture_rooms[name] = room
    b.fact("in_room", name, room)
    if spec.type in _SWITCH_PROB and b.maybe(_SWITCH_PROB[spec.type]):
        b.fact(f"{spec.type}_on", name)
    if spec.type in _OPEN_PROB and b.maybe(_OPEN_PROB[spec.type]):
        b.fact("is_open", name)
    if spec.type == "sink":
        faucet = b.add(b.new_name("faucet"), "faucet", f"faucet of the {noun}")
        b.fixture_rooms[faucet] = room
        b.fact("in_room", faucet, room)
        b.fact("faucet_of", faucet, name)
        if b.maybe(_SWITCH_PROB["faucet"]):
            b.fact("faucet_on", faucet)
    if spec.contents:
        b.receptacles.append((name, spec))
        _fill_receptacle(b, name, spec, b.rng.randint(*spec.items))


def _add_light(b: _Builder, room: str, noun: str) -> None:
    name = b.add(b.new_name(slug(noun)), "light", noun)
    b.fixture_rooms[name] = room
    b.fact("in_room", name, room)
    if b.maybe(_SWITCH_PROB["light"]):
        b.fact("light_on", name)


def _add_person(b: _Builder, room: str) -> str:
    """A person in a room, possibly holding an item."""
    index = len(b.people)
    first = _PEOPLE[index % len(_PEOPLE)]
    round_ = index // len(_PEOPLE) + 1
    name = first if round_ == 1 else f"{first}_{round_}"
    label = first.capitalize() if round_ == 1 else f"{first.capitalize()} {round_}"
    b.add(name, "person", label)
    b.people.append(name)
    b.fact("in_room", name, room)
    if b.maybe(_HELD_PROB):
        item = _add_item(b, b.weighted(_HELD_ITEMS), _HELD_DIRTY_PROB)
        b.fact("has", name, item)
    return name


def _add_room(b: _Builder, kind: str) -> str:
    """A room of a kind with its lights, fixtures, items and perhaps a person."""
    spec = _ROOM_SPECS[kind]
    room = b.add(b.new_name(kind), "room", spec.label)
    b.room_kinds[room] = kind
    _add_light(b, room, "overhead light")
    if b.maybe(_SECOND_LIGHT_PROB):
        _add_light(b, room, b.rng.choice(spec.lamps))
    for fixture in spec.fixtures:
        for _ in range(b.rng.randint(*fixture.count)):
            _add_fixture(b, room, fixture)
    if b.maybe(spec.person_prob):
        _add_person(b, room)
    return room


def _ensure_minimums(b: _Builder) -> None:
    """At least one person, one food item and one dirty dish (the kitchen is room 1)."""
    rooms = list(b.room_kinds)
    if not b.people:
        _add_person(b, b.rng.choice(rooms))
    if not any(type_ == "food" for type_, _ in b.entities.values()):
        fridge = next(name for name, spec in b.receptacles if spec.type == "fridge")
        b.fact("inside", _add_item(b, "cold_food", 0.0), fridge)
    if not any(predicate == "dirty" for predicate, _ in b.facts):
        sink = next(name for name, spec in b.receptacles if spec.type == "sink")
        b.fact("on", _add_item(b, "dish", 1.0), sink)


def _add_robot(b: _Builder) -> None:
    b.add(ROBOT, "robot", "robot")
    b.fact("in_room", ROBOT, b.rng.choice(list(b.room_kinds)))
    b.fact("hand_empty", ROBOT)


def _room_phrases(b: _Builder) -> dict[str, str]:
    """``"the kitchen"`` for a room alone of its kind, else ``"bedroom 2"``."""
    per_kind: dict[str, int] = {}
    for kind in b.room_kinds.values():
        per_kind[kind] = per_kind.get(kind, 0) + 1
    phrases = {}
    for room, kind in b.room_kinds.items():
        label = _ROOM_SPECS[kind].label
        number = room.rsplit("_", 1)[1]
        phrases[room] = f"the {label}" if per_kind[kind] == 1 else f"{label} {number}"
    return phrases


def _finish(b: _Builder) -> House:
    """Label rooms and fixtures by room, sort, and freeze."""
    phrases = _room_phrases(b)
    entities = {}
    for name in sorted(b.entities):
        type_, label = b.entities[name]
        if name in b.room_kinds:
            label = phrases[name].removeprefix("the ")
        elif name in b.fixture_rooms:
            label = f"{label} in {phrases[b.fixture_rooms[name]]}"
        entities[name] = EntityInfo(type_, label)
    return House(entities=entities, facts=sorted(set(b.facts)))


# --------------------------------------------------------------------------- public API

_AVERAGE_ROOM = 13
"""About the number of entities a room brings (fixtures, items, people)."""

ITEM_TYPES = frozenset(kind.type for kind in _ITEM_KINDS.values())
"""The PDDL types of the items (what people move, use and hold)."""


def _build_rooms(b: _Builder, rooms: int) -> None:
    kinds = _room_kind_stream(b.rng)
    for _ in range(rooms):
        _add_room(b, next(kinds))
    _ensure_minimums(b)
    _add_robot(b)


def _drop_newest_items(b: _Builder, count: int) -> None:
    """Remove the ``count`` newest items (fewer if there are fewer) and their facts."""
    dropped: set[str] = set()
    for name in reversed(list(b.entities)):
        if len(dropped) >= count:
            break
        if b.entities[name][0] in ITEM_TYPES:
            dropped.add(name)
    for name in dropped:
        del b.entities[name]
    b.facts = [fact for fact in b.facts if dropped.isdisjoint(fact[1])]


def _build_to_target(b: _Builder, target: int) -> None:
    """Add rooms until about the target, then drop or add items to reach it.

    Only items are dropped, so every rule still holds; the minimums (a person, a food
    item, a dirty dish) and the robot come after, and items on random receptacles
    top the house up. A house ends at the target or at most a few entities above it.
    """
    kinds = _room_kind_stream(b.rng)
    _add_room(b, next(kinds))
    while len(b.entities) + _AVERAGE_ROOM < target:
        _add_room(b, next(kinds))
    _drop_newest_items(b, len(b.entities) + 1 - target)
    _ensure_minimums(b)
    _add_robot(b)
    while len(b.entities) < target:
        name, spec = b.receptacles[b.rng.randrange(len(b.receptacles))]
        _fill_receptacle(b, name, spec, 1)


def generate_house(
    *,
    seed: int,
    rooms: int | None = None,
    scale: float = 1.0,
    target_entities: int | None = None,
) -> House:
    """Generate a random household; the same arguments always give the same house.

    ``rooms`` fixes the number of rooms (else 6-8, times ``scale``). ``target_entities``
    (exclusive with ``rooms`` and ``scale``) builds a house of that many entities, the
    robot included; a target below the smallest house (one kitchen) gives that house.
    """
    if target_entities is not None and (rooms is not None or scale != 1.0):
        raise ValueError("target_entities cannot be combined with rooms or scale")
    if rooms is not None and rooms < 1:
        raise ValueError(f"a house needs at least one room, not {rooms}")
    if scale <= 0:
        raise ValueError(f"scale must be positive, not {scale}")
    b = _Builder(rng=random.Random(seed))
    if target_entities is not None:
        _build_to_target(b, target_entities)
    else:
        drawn = b.rng.randint(_BASE_ROOMS - 1, _BASE_ROOMS + 1)
        _build_rooms(b, rooms if rooms is not None else max(1, round(drawn * scale)))
    return _finish(b)


def house_graph(seed: int, scale: float = 1.0) -> WorldGraph:
    """A generated household as a graph, labels included (ValueError for a scale that makes no house)."""
    return generate_house(seed=seed, scale=scale).to_graph()


def house_to_pddl_problem(
    house: House,
    *,
    domain_name: str = "household",
    problem_name: str = "house",
    goal: str = "(and)",
) -> str:
    """The house as a PDDL problem text: objects by type (not the robot), init, goal."""
    by_type: dict[str, list[str]] = {}
    for name, info in house.entities.items():
        if name != ROBOT:
            by_type.setdefault(info.type, []).append(name)
    lines = [f"(define (problem {problem_name})", f"  (:domain {domain_name})", "  (:objects"]
    for type_ in sorted(by_type):
        names = by_type[type_]
        for start in range(0, len(names), 8):
            lines.append(f"    {' '.join(names[start:start + 8])} - {type_}")
    lines.append("  )")
    lines.append("  (:init")
    lines.extend(f"    ({' '.join((predicate, *args))})" for predicate, args in house.facts)
    lines.append("  )")
    lines.append(f"  (:goal {goal})")
    lines.append(")")
    return "\n".join(lines) + "\n"
