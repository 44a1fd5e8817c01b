"""Questions about a simulated home, with gold answers, generated from recorded simulator episodes.

An episode is a house (`Simulator`) whose changes people tell in sentences: each delivery is applied to a world
model with a store, as a record of source ``nl`` with the sentence as its input, a few minutes after the one
before, so the history the questions ask about is real. The questions are then drawn from the final memory and
its records, each with its gold answer computed from the simulator's own knowledge (the events, their mentions,
the truth at every time), never from the question pipeline:

- ``where``: the place of a thing or the room of a person;
- ``since_when``: the time of the record that made a place or a state true;
- ``who``: the person who moved, took, switched or opened something (the event's actor; declined when the
  sentence named nobody), or who has a thing;
- ``how_many``: things of a kind in a state or at a place;
- ``yes_no``: a state, a place, who has what;
- ``at_time``: where a thing was, or whether a device was on, at a clock time between two records;
- ``multi_hop``: the room of a thing, what is on a receptacle of the room where someone is, who is in the room
  where a thing is;
- ``unanswerable``: things the home does not have, times before the memory begins, properties the memory does
  not keep; they must be declined.

The split is by house seed: DEV houses 21 and 23, TEST houses 4, 6, 12 and 17.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from l3mp_sim.events import Event
from l3mp_sim.simulated_questions import QuestionOracle
from l3mp_sim.simulator import SimConfig, Simulator
from l3mp_sim.state import SWITCHES, HouseState

from l3mp.retrieval.grounding import noun_phrase_of
from l3mp.world.delta import state_delta
from l3mp.world.graph import WorldGraph
from l3mp.world.model import WorldModel
from l3mp.world.record import ChangeRecord
from l3mp.world.store import Store

DEV_HOUSES = (21, 23)
TEST_HOUSES = (4, 6, 12, 17)
KINDS = ("where", "since_when", "who", "how_many", "yes_no", "at_time", "multi_hop", "unanswerable")
PER_KIND = 3
"""Questions of each kind per house (``yes_no`` gets one more)."""
DELIVERIES = 30
START = dt.datetime(2026, 11, 20, 8, 0)
"""When each episode's memory begins (local time): the import of the house."""
TIME_WINDOW_S = 60.0
"""A time answer is right within this many seconds of the gold record's time (clock answers name minutes)."""
OTHER_PHRASING = 0.35
"""How often a question takes a less usual phrasing (one the symbolic forms do not read: the LLM loop's share)."""
UNKNOWN_THINGS = ("keys", "umbrella", "wallet", "glasses", "remote control", "scissors", "charger", "backpack",
                  "passport", "headphones")
UNKEPT_PROPERTIES = ("broken", "full", "heavy", "expensive", "new")
_STATE_WORDS = {"light_on": "on", "tv_on": "on", "faucet_on": "running", "is_open": "open", "dirty": "dirty",
                "ringing": "ringing"}
_PREPOSITION = {"on": "on", "inside": "in", "in_room": "in"}


@dataclass(frozen=True)
class Gold:
    """A gold answer: ``entities`` (a set), ``count``, ``yes_no``, ``time`` (a record's time) or ``decline``."""

    kind: str
    entities: tuple[str, ...] = ()
    count: int | None = None
    yes: bool | None = None
    time: float | None = None
    record: int | None = None

    def to_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v not in (None, ())} | {"kind": self.kind}


@dataclass(frozen=True)
class QuestionCase:
    """One generated question: where it comes from, what it asks, its gold answer and the simulated LLM's oracle."""

    id: str
    split: str
    house: int
    kind: str
    text: str
    gold: Gold
    oracle: QuestionOracle

    def to_json(self) -> dict:
        return {"id": self.id, "split": self.split, "house": self.house, "kind": self.kind, "text": self.text,
                "gold": self.gold.to_json()}


@dataclass
class Episode:
    """A recorded episode: the memory (a world model with its store), when it begins and when questions are asked,
    and for every record the events that caused it."""

    seed: int
    world: WorldModel
    start: float
    now: float
    events: dict[int, tuple[Event, ...]] = field(default_factory=dict)
    truths: dict[float, WorldGraph] = field(default_factory=dict)
    """The simulator's true state after each record, by the record's time (what gold answers are read from)."""

    @property
    def state(self) -> HouseState:
        """The true state now."""
        return self.state_at(self.now)

    def state_at(self, time: float) -> HouseState:
        """The true state at `time`: after the last record not later than it."""
        last = max(t for t in self.truths if t <= time)
        return HouseState(self.truths[last], self.world.domain)

    def records(self) -> list[ChangeRecord]:
        return list(self.world.store.records())  # type: ignore[union-attr]


def split_of(seed: int) -> str:
    if seed in DEV_HOUSES:
        return "dev"
    if seed in TEST_HOUSES:
        return "test"
    raise ValueError(f"house {seed} is in no split: DEV {DEV_HOUSES}, TEST {TEST_HOUSES}")


def record_episode(seed: int, path: Path, *, deliveries: int = DELIVERIES) -> Episode:
    """Run `deliveries` sentences of the simulator on house `seed` into a store at `path` (see the module doc)."""
    sim = Simulator(SimConfig(seed=seed, perception_prob=0.0))
    domain = sim.domain
    rng = random.Random(f"{seed}/episode-times")
    clock = [START.timestamp()]
    world = WorldModel(domain, store=Store(path, fsync=False), clock=lambda: clock[0])
    world.apply(state_delta(domain, world.graph, sim.initial_graph(), replace=True), source="import",
                input=f"house {seed}")
    episode = Episode(seed, world, clock[0], clock[0])
    episode.truths[clock[0]] = sim.truth.graph.copy()
    for _ in range(deliveries):
        delivery = sim.next_delivery()
        clock[0] += 60.0 * rng.randint(2, 9)
        record = world.apply(delivery.delta(), source="nl", input=delivery.text, ref=f"sim-{delivery.step}")
        if record is not None:
            episode.events[record.seq] = delivery.events
            episode.truths[record.time] = sim.truth.graph.copy()
    episode.now = clock[0] + 600.0
    return episode


def cases_of(episode: Episode) -> list[QuestionCase]:
    """The questions of one episode, `PER_KIND` of each kind (fewer where the episode offers fewer)."""
    maker = _Maker(episode)
    out: list[QuestionCase] = []
    for kind in KINDS:
        drawn = []
        for text, gold, oracle in getattr(maker, kind)():
            drawn.append((text, gold, replace(oracle, rephrase=maker.usual if maker.usual != text else "")))
            maker.usual = ""
        maker.rng.shuffle(drawn)
        wanted = PER_KIND + (1 if kind == "yes_no" else 0)
        for text, gold, oracle in _distinct(drawn)[:wanted]:
            out.append(QuestionCase(f"h{episode.seed:02d}-{len(out) + 1:02d}", split_of(episode.seed), episode.seed,
                                    kind, text, gold, oracle))
    return out


def _distinct(drawn: list[tuple[str, Gold, QuestionOracle]]) -> list[tuple[str, Gold, QuestionOracle]]:
    """One question per thing asked about (its oracle's anchor), or per text for those about no thing."""
    seen: set[str] = set()
    out = []
    for case in drawn:
        key = case[2].anchor or case[0]
        if key not in seen:
            seen.add(key)
            out.append(case)
    return out


class _Maker:
    """Draws the questions of an episode (one method per kind, each yielding (text, gold, oracle))."""

    def __init__(self, episode: Episode) -> None:
        self.episode = episode
        self.graph = episode.state.graph
        self.domain = episode.world.domain
        self.rng = random.Random(f"{episode.seed}/questions")
        self.usual = ""
        """The usual phrasing of the question `say` made last."""
        self.records = episode.records()
        labels = [self.label(n) for n in self.graph.entities()]
        self.unique = {n for n in self.graph.entities() if labels.count(self.label(n)) == 1}

    # ---- words -------------------------------------------------------------------------------
    def label(self, name: str) -> str:
        return str(self.graph.entity_attrs(name).get("label") or name.replace("_", " "))

    def the(self, name: str) -> str:
        return self.label(name) if self.graph.entity_type(name) == "person" else f"the {self.label(name)}"

    def of_type(self, type_: str) -> list[str]:
        return self.episode.state.of_type(type_)

    def items(self) -> list[str]:
        return [i for i in self.of_type("item") if i in self.unique]

    def moved_items(self) -> list[str]:
        """Unique items whose place some record changed."""
        moved = {a for r in self.records[1:] for f in r.delta.add for a in f.args}
        return [i for i in self.items() if i in moved]

    def say(self, usual: tuple[str, ...], other: tuple[str, ...] = (), **values: str) -> str:
        """A question in one of the usual phrasings, or (`OTHER_PHRASING` of the time) in another one; `usual` keeps
        its first usual phrasing (what the simulated LLM rephrases the other ones to)."""
        capitals = {k.upper(): v[:1].upper() + v[1:] for k, v in values.items()}
        self.usual = usual[0].format(**values, **capitals)
        templates = other if other and self.rng.random() < OTHER_PHRASING else usual
        return self.rng.choice(templates).format(**values, **capitals)

    # ---- kinds -------------------------------------------------------------------------------
    def where(self) -> Iterator[tuple[str, Gold, QuestionOracle]]:
        state = self.episode.state
        for item in self.moved_items() + self.items()[:6]:
            place = state.place(item)
            yield (self.say(("Where is {x}?", "Where's {x}?", "Where did {x} end up?"),
                            ("Can you find {x} for me?", "I'm looking for {x}, any idea?"), x=self.the(item)),
                   Gold("entities", (place,)), QuestionOracle("entities", (place,), anchor=item))
        for person in self.of_type("person"):
            room = state.room(person) or ""
            yield (self.say(("Where is {x}?",), ("Can you find {x} for me?",), x=self.the(person)),
                   Gold("entities", (room,)),
                   QuestionOracle("entities", (room,), anchor=person))

    def since_when(self) -> Iterator[tuple[str, Gold, QuestionOracle]]:
        state = self.episode.state
        made = {f: r for r in self.records[1:] for f in r.delta.add}
        for fact in sorted(self.graph.facts()):
            record = made.get(fact)
            if record is None:
                continue
            seq = record.seq
            gold = Gold("time", time=record.time, record=seq)
            oracle = QuestionOracle("time", record=seq, anchor=fact.args[0] if fact.args else None)
            if fact.predicate in _STATE_WORDS and fact.args[0] in self.unique:
                yield (self.say(("Since when is {x} {s}?",), ("{X} has been {s} since what time?",),
                                x=self.the(fact.args[0]), s=_STATE_WORDS[fact.predicate]), gold, oracle)
            elif fact.predicate in ("on", "inside") and fact.args[0] in self.unique:
                item, place = fact.args
                yield (self.say(("Since when has {x} been {p} {y}?", "How long has {x} been {p} {y}?"),
                                ("{X} has been {p} {y} since when?",), x=self.the(item),
                                p=_PREPOSITION[fact.predicate], y=self.the(place)),
                       gold, QuestionOracle("time", record=seq, anchor=item))
            elif fact.predicate == "in_room" and state.type_of(fact.args[0]) == "person":
                person, room = fact.args
                yield (f"How long has {self.the(person)} been in {self.the(room)}?", gold,
                       QuestionOracle("time", record=seq, anchor=person))

    def who(self) -> Iterator[tuple[str, Gold, QuestionOracle]]:
        state = self.episode.state
        done: set[str] = set()
        for record in reversed(self.records[1:]):
            for event in self.episode.events.get(record.seq, ()):
                thing, verb = _subject(event, state)
                touched = {a for f in (*event.add, *event.remove) for a in f.args} - {thing}
                if thing is None or thing in done or thing not in self.unique:
                    done |= touched
                    continue
                done |= touched | {thing}
                actor = _actor(event, state)
                gold = Gold("entities", (actor,)) if actor else Gold("decline")
                oracle = QuestionOracle("entities", (actor,), anchor=thing) if actor else QuestionOracle("decline")
                yield self.say(("Who {v} {x}?",), ("Which person {v} {x}?",), v=verb, x=self.the(thing)), gold, oracle
        for person in self.of_type("person"):
            for item in state.items_of(person):
                if item in self.unique:
                    yield (self.say(("Who has {x}?",), ("Which person has {x} now?",), x=self.the(item)),
                           Gold("entities", (person,)),
                           QuestionOracle("entities", (person,), anchor=item))

    def how_many(self) -> Iterator[tuple[str, Gold, QuestionOracle]]:
        state = self.episode.state
        graph = self.graph
        dirty = [d for d in self.of_type("dish") if state.holds("dirty", d)]
        yield (self.say(("How many dirty dishes are there?",), ("What's the number of dirty dishes?",)),
               Gold("count", count=len(dirty)),
               QuestionOracle("count", count=len(dirty), select={"type": "dish", "state": "dirty"}))
        lit = [n for n in self.of_type("light") if state.holds("light_on", n)]
        yield (self.say(("How many lights are on?",), ("Count the lights that are on.",)),
               Gold("count", count=len(lit)),
               QuestionOracle("count", count=len(lit), select={"type": "light", "state": "light_on"}))
        for room in self.of_type("room"):
            if room in self.unique:
                people = [p for p in self.of_type("person") if state.room(p) == room]
                yield (f"How many people are in {self.the(room)}?", Gold("count", count=len(people)),
                       QuestionOracle("count", count=len(people), select={"type": "person", "place": room}))
        for receptacle in self.of_type("receptacle"):
            if receptacle in self.unique:
                inside = "inside" if self.domain.is_subtype(state.type_of(receptacle), "container") else "on"
                held = [f.args[0] for f in graph.facts(predicate=inside, entity=receptacle)]
                yield (f"How many things are {_PREPOSITION[inside]} {self.the(receptacle)}?",
                       Gold("count", count=len(held)),
                       QuestionOracle("count", count=len(held), select={"type": "item", "place": receptacle}))

    def yes_no(self) -> Iterator[tuple[str, Gold, QuestionOracle]]:
        state = self.episode.state
        for device in [n for t in SWITCHES for n in self.of_type(t) if n in self.unique]:
            on = state.holds(SWITCHES[state.type_of(device)], device)
            yield (self.say(("Is {x} on?",), ("Tell me whether {x} is on.",), x=self.the(device)),
                   Gold("yes_no", yes=on), QuestionOracle("yes_no", yes=on))
        for container in self.of_type("container"):
            if container in self.unique:
                is_open = state.holds("is_open", container)
                yield (f"Is {self.the(container)} open?", Gold("yes_no", yes=is_open),
                       QuestionOracle("yes_no", yes=is_open))
        receptacles = [r for r in self.of_type("receptacle") if r in self.unique]
        for item in self.moved_items():
            fact = state.location(item)
            if fact.predicate in ("on", "inside"):
                other = self.rng.choice(receptacles)
                place = self.rng.choice((fact.args[1], other))
                prep = "in" if self.domain.is_subtype(state.type_of(place), "container") else "on"
                yes = place == fact.args[1]
                yield (f"Is {self.the(item)} {prep} {self.the(place)}?", Gold("yes_no", yes=yes),
                       QuestionOracle("yes_no", yes=yes))
            if state.type_of(item) == "dish":
                dirty = state.holds("dirty", item)
                yield f"Is {self.the(item)} dirty?", Gold("yes_no", yes=dirty), QuestionOracle("yes_no", yes=dirty)
        for person in self.of_type("person"):
            room = self.rng.choice([r for r in self.of_type("room") if r in self.unique])
            yes = state.room(person) == room
            yield f"Is {self.the(person)} in {self.the(room)}?", Gold("yes_no", yes=yes), QuestionOracle(
                "yes_no", yes=yes)

    def at_time(self) -> Iterator[tuple[str, Gold, QuestionOracle]]:
        times = [r.time for r in self.records]
        for _ in range(12):
            i = self.rng.randrange(1, len(times) - 1)
            if times[i + 1] - times[i] < 120:
                continue
            when = times[i] + 60.0 * self.rng.randint(1, int((times[i + 1] - times[i]) // 60) - 1)
            then = self.episode.state_at(when)
            clock = dt.datetime.fromtimestamp(when).strftime("%H:%M")
            item = self.rng.choice(self.moved_items() or self.items())
            if then.graph.has_entity(item):
                place = then.place(item)
                yield (self.say(("Where was {x} at {t}?",), ("At {t}, where was {x}?",), x=self.the(item), t=clock),
                       Gold("entities", (place,)),
                       QuestionOracle("entities", (place,), anchor=item))
            lights = [n for n in self.of_type("light") if n in self.unique]
            light = self.rng.choice(lights)
            on = then.holds("light_on", light)
            yield (self.say(("Was {x} on at {t}?",), ("At {t}, was {x} on?",), x=self.the(light), t=clock),
                   Gold("yes_no", yes=on), QuestionOracle("yes_no", yes=on))

    def multi_hop(self) -> Iterator[tuple[str, Gold, QuestionOracle]]:
        state = self.episode.state
        for item in self.moved_items()[:4]:
            room = state.room(item) or ""
            yield (self.say(("Which room is {x} in?", "In which room is {x}?"),
                            ("In what part of the house is {x}?",), x=self.the(item)),
                   Gold("entities", (room,)),
                   QuestionOracle("entities", (room,), anchor=item))
        for person in self.of_type("person"):
            room = state.room(person)
            there = [r for r in self.of_type("receptacle") if state.room(r) == room]
            nouns = [noun_phrase_of(self.label(r)) for r in there]
            for receptacle, noun in zip(there, nouns, strict=True):
                if nouns.count(noun) != 1:
                    continue
                inside = "inside" if self.domain.is_subtype(state.type_of(receptacle), "container") else "on"
                held = tuple(sorted(f.args[0] for f in self.graph.facts(predicate=inside, entity=receptacle)))
                yield (self.say(("What is {p} the {n} in the room where {x} is?",),
                                ("Name what is {p} the {n} in the room where {x} is.",), p=_PREPOSITION[inside],
                                n=noun, x=self.the(person)),
                       Gold("entities", held), QuestionOracle("entities", held, anchor=receptacle))
        for item in self.moved_items()[:4]:
            room = state.room(item)
            people = tuple(sorted(p for p in self.of_type("person") if state.room(p) == room))
            yield (self.say(("Who is in the room where {x} is?",), ("Name the people in the room where {x} is.",),
                            x=self.the(item)), Gold("entities", people),
                   QuestionOracle("entities", people, anchor=item))

    def unanswerable(self) -> Iterator[tuple[str, Gold, QuestionOracle]]:
        words = {w for n in self.graph.entities() for w in self.label(n).lower().split()}
        for thing in UNKNOWN_THINGS:
            noun = thing.split()[-1]
            if not {noun, noun[:-1], noun[:-2]} & words:  # "glasses" would be the wine glasses
                yield (self.rng.choice(("Where are my {x}?", "Where did I leave the {x}?", "Who has the {x}?")).format(
                    x=thing), Gold("decline"), QuestionOracle("decline"))
        for item in self.items()[:6]:
            early = dt.datetime.fromtimestamp(self.episode.start - 60.0 * self.rng.randint(20, 120))
            yield (f"Where was {self.the(item)} at {early.strftime('%H:%M')}?", Gold("decline"),
                   QuestionOracle("decline"))
            yield (f"Is {self.the(item)} {self.rng.choice(UNKEPT_PROPERTIES)}?", Gold("decline"),
                   QuestionOracle("decline"))


def _subject(event: Event, state: HouseState) -> tuple[str | None, str]:
    """The thing an event happened to, and the verb a question about who did it uses."""
    if event.kind in ("move_item", "take_item", "put_down", "eat_drink", "give", "answer_phone", "dirty_dish"):
        item = next((a for f in event.add if len(f.args) == 2 for a in f.args
                     if state.domain.is_subtype(state.type_of(a), "item")), None)
        return item, {"move_item": "moved", "put_down": "put down", "give": "gave away"}.get(event.kind, "took")
    if event.kind == "switch":
        fact = (*event.add, *event.remove)[0]
        return fact.args[0], "turned on" if event.add else "turned off"
    if event.kind == "open_close":
        fact = (*event.add, *event.remove)[0]
        return fact.args[0], "opened" if event.add else "closed"
    return None, ""


def _actor(event: Event, state: HouseState) -> str | None:
    """The person who did the event: the first person its clause names (the giver of a gift), None if none."""
    return next((n for n in event.mentions if state.type_of(n) == "person"), None)
