"""Random changes people make in the home, each with its true effect on the world state and its description.

An `Event` is one change (a person moves an item, switches a light, answers a phone, ...): the facts it
removes and adds in the ground truth, the clause that tells it in natural language and the entities that
clause names. `draw_event` picks a kind at random (weighted) that can happen in the current state. A
*partial* description leaves out part of what changed (where an item was taken from, which room a person
left): the agent must infer it from its memory.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from l3mp_sim.house import slug
from l3mp_sim.language import PREPOSITION, Words
from l3mp_sim.state import SWITCHES, HouseState

from l3mp.domain.triplets import Fact
from l3mp.world.delta import Delta, EntitySpec


@dataclass(frozen=True)
class Event:
    """One change in the home: its kind, the clause that describes it, and its true effect."""

    kind: str
    clause: str
    remove: tuple[Fact, ...]
    add: tuple[Fact, ...]
    mentions: dict[str, str]
    """Entity -> the words the clause uses for it."""
    new_entities: dict[str, EntitySpec] = field(default_factory=dict)
    """Entities the event brings into the home (only perception reports such events)."""

    @property
    def partial(self) -> bool:
        """Whether the clause leaves an entity of the change unsaid (where an item was, which room a person left)."""
        return any(a not in self.mentions for f in (*self.remove, *self.add) for a in f.args)

    def delta(self) -> Delta:
        return Delta(remove=self.remove, add=self.add, entities=dict(self.new_entities))

    def entities(self) -> set[str]:
        names = set(self.mentions) | set(self.new_entities)
        for fact in (*self.remove, *self.add):
            names.update(fact.args)
        return names

    def to_json(self) -> dict:
        return {"kind": self.kind, "clause": self.clause, "partial": self.partial,
                "remove": [str(f) for f in self.remove], "add": [str(f) for f in self.add],
                "mentions": self.mentions, "new_entities": {n: s.type for n, s in self.new_entities.items()}}


@dataclass
class Draw:
    """What an event generator works with: the true state, the words, the random source, the entities
    another event of the same sentence already uses, and whether to describe the event partially."""

    state: HouseState
    words: Words
    rng: random.Random
    busy: set[str]
    partial: bool
    used: dict[str, str] = field(default_factory=dict)
    """Entity -> the noun phrase last used for it (what `mention` reports)."""

    def free(self, names: list[str]) -> list[str]:
        """Candidates not used by another event of the sentence and that a description can single out."""
        return [n for n in names if n not in self.busy and not self.words.ambiguous(n, self.state)]

    def pick(self, names: list[str]) -> str | None:
        names = self.free(names)
        return self.rng.choice(names) if names else None

    def the(self, name: str, *, qualify: bool = True) -> str:
        phrase = self.words.the(name, self.state, qualify=qualify)
        self.used[name] = phrase
        return phrase

    def say(self, *templates: str, **values: str) -> str:
        return self.rng.choice(templates).format(**values)

    def mention(self, *names: str) -> dict[str, str]:
        """The words the description uses for each entity (with the place that tells alike items apart)."""
        return {n: (self.used.get(n) or self.words.the(n, self.state)).removeprefix("the ") for n in names}


def target_fact(d: Draw, item: str, receptacle: str) -> Fact:
    container = d.state.domain.is_subtype(d.state.type_of(receptacle), "container")
    return Fact("inside" if container else "on", (item, receptacle))


def place_words(d: Draw, fact: Fact) -> str:
    """``on the coffee table ...`` / ``in the fridge ...`` for an on/inside fact."""
    return f"{PREPOSITION[fact.predicate]} {d.the(fact.args[1])}"


def _move_item(d: Draw) -> Event | None:
    item, person = d.pick(d.state.placed_items()), d.pick(d.state.of_type("person"))
    if item is None or person is None:
        return None
    old = d.state.location(item)
    target = d.pick([r for r in d.state.of_type("receptacle") if r != old.args[1]])
    if target is None:
        return None
    new = target_fact(d, item, target)
    values = {"p": d.words.bare(person), "i": d.the(item, qualify=d.partial), "old": d.the(old.args[1]),
              "new": place_words(d, new)}
    if d.partial:
        clause = d.say("{p} put {i} {new}", "{p} left {i} {new}", "{i} is now {new}", **values)
        mentions = d.mention(item, target) | ({person: values["p"]} if values["p"] in clause else {})
    else:
        clause = d.say("{p} moved {i} from {old}; it is now {new}", "{p} took {i} from {old} and put it {new}",
                       "{p} carried {i} from {old} and left it {new}", **values)
        mentions = d.mention(person, item, old.args[1], target)
    return Event("move_item", clause, (old,), (new,), mentions)


def _take_item(d: Draw) -> Event | None:
    return _taken(d, "take_item", d.state.placed_items(), ("{p} took {i}", "{p} has {i} now", "{p} grabbed {i}"),
                  ("{p} picked up {i} from {old}", "{p} took {i} off {old}"))


def _taken(d: Draw, kind: str, items: list[str], partial: tuple[str, ...], whole: tuple[str, ...]) -> Event | None:
    """A person takes one of `items` from where it lies: a `partial` template leaves out where, a `whole` one says
    it (``{p}`` person, ``{i}`` item, ``{old}`` its place, ``{verb}`` eat or drink)."""
    item, person = d.pick(items), d.pick(d.state.of_type("person"))
    if item is None or person is None:
        return None
    old = d.state.location(item)
    values = {"p": d.words.bare(person), "i": d.the(item, qualify=d.partial), "old": d.the(old.args[1]),
              "verb": "eat" if d.state.type_of(item) == "food" else "drink"}
    if d.partial:
        clause, mentions = d.say(*partial, **values), d.mention(person, item)
    else:
        clause, mentions = d.say(*whole, **values), d.mention(person, item, old.args[1])
    return Event(kind, clause, (old,), (Fact("has", (person, item)),), mentions)


def _put_down(d: Draw) -> Event | None:
    holders = [p for p in d.state.of_type("person") if d.state.items_of(p)]
    person = d.pick(holders)
    if person is None:
        return None
    item = d.pick(d.state.items_of(person))
    target = d.pick(d.state.of_type("receptacle"))
    if item is None or target is None:
        return None
    new = target_fact(d, item, target)
    values = {"p": d.words.bare(person), "i": d.the(item), "new": place_words(d, new)}
    clause = d.say("{p} put {i} down {new}", "{p} set {i} {new}", "{p} left {i} {new}", **values)
    return Event("put_down", clause, (Fact("has", (person, item)),), (new,), d.mention(person, item, target))


def _person_moves(d: Draw) -> Event | None:
    person = d.pick(d.state.of_type("person"))
    if person is None:
        return None
    old = d.state.room(person)
    room = d.pick([r for r in d.state.of_type("room") if r != old])
    if room is None or old is None:
        return None
    values = {"p": d.words.bare(person), "old": d.words.the(old, d.state), "new": d.words.the(room, d.state)}
    if d.partial:
        clause = d.say("{p} went to {new}", "{p} is in {new} now", "{p} walked into {new}", **values)
        mentions = d.mention(person, room)
    else:
        clause = d.say("{p} walked from {old} to {new}", "{p} left {old} and went to {new}", **values)
        mentions = d.mention(person, old, room)
    return Event("person_moves", clause, (Fact("in_room", (person, old)),), (Fact("in_room", (person, room)),),
                 mentions)


def _switch(d: Draw) -> Event | None:
    device = d.pick([n for t in SWITCHES for n in d.state.of_type(t)])
    if device is None:
        return None
    fact = Fact(SWITCHES[d.state.type_of(device)], (device,))
    on = d.state.graph.has_fact(fact)
    person = d.pick(d.state.of_type("person"))
    values = {"p": d.words.bare(person) if person else "someone", "d": d.the(device),
              "state": "off" if on else "on"}
    clause = d.say("{p} turned {state} {d}", "{p} switched {d} {state}", "{d} was switched {state}",
                   "someone turned {state} {d}", **values)
    mentions = d.mention(device) | ({person: values["p"]} if person and values["p"] in clause else {})
    return Event("switch", clause, (fact,) if on else (), () if on else (fact,), mentions)


def _open_close(d: Draw) -> Event | None:
    container = d.pick(d.state.of_type("container"))
    if container is None:
        return None
    fact = Fact("is_open", (container,))
    is_open = d.state.holds("is_open", container)
    person = d.pick(d.state.of_type("person"))
    values = {"p": d.words.bare(person) if person else "someone", "c": d.the(container)}
    if is_open:
        clause = d.say("{p} closed {c}", "{c} was shut", "{p} shut {c}", **values)
    else:
        clause = d.say("{p} opened {c}", "{c} was left open", "{p} left {c} open", **values)
    mentions = d.mention(container) | ({person: values["p"]} if person and values["p"] in clause else {})
    return Event("open_close", clause, (fact,) if is_open else (), () if is_open else (fact,), mentions)


def _phone_rings(d: Draw) -> Event | None:
    phone = d.pick([p for p in d.state.of_type("phone") if not d.state.holds("ringing", p)])
    if phone is None:
        return None
    clause = d.say("{ph} is ringing", "{ph} started to ring", "{ph} rang", ph=d.the(phone))
    return Event("phone_rings", clause, (), (Fact("ringing", (phone,)),), d.mention(phone))


def _answer_phone(d: Draw) -> Event | None:
    phone = d.pick([p for p in d.state.of_type("phone") if d.state.holds("ringing", p)])
    person = d.pick(d.state.of_type("person"))
    if phone is None or person is None:
        return None
    old = d.state.location(phone)
    remove, add = [Fact("ringing", (phone,))], []
    if old != Fact("has", (person, phone)):
        remove.append(old)
        add.append(Fact("has", (person, phone)))
    values = {"p": d.words.bare(person), "ph": d.the(phone)}
    if d.partial or old.predicate not in ("on", "inside"):
        clause = d.say("{p} answered {ph}", "{p} picked up {ph} and took the call", **values)
        mentions = d.mention(person, phone)
    else:
        values["old"] = d.the(old.args[1])
        clause = d.say("{p} picked up {ph} from {old} and answered it", **values)
        mentions = d.mention(person, phone, old.args[1])
    return Event("answer_phone", clause, tuple(remove), tuple(add), mentions)


def _eat_drink(d: Draw) -> Event | None:
    return _taken(d, "eat_drink", [i for i in d.state.placed_items() if d.state.type_of(i) in ("food", "drink")],
                  ("{p} is having {i}", "{p} took {i} to {verb}"),
                  ("{p} grabbed {i} from {old} to {verb}", "{p} took {i} out of {old} to {verb}"))


def _dirty_dish(d: Draw) -> Event | None:
    # not one the robot holds: a person cannot eat from it and leave it in the sink while it is in the robot's hand
    dish = d.pick([x for x in d.state.of_type("dish") if not d.state.holds("dirty", x)
                   and d.state.location(x).predicate != "holding"])
    person = d.pick(d.state.of_type("person"))
    if dish is None or person is None:
        return None
    sink = d.pick(d.state.of_type("sink"))
    old = d.state.location(dish)
    values = {"p": d.words.bare(person), "dish": d.the(dish)}
    if sink is not None and old.args[-1] != sink and d.rng.random() < 0.5:
        values["sink"] = d.the(sink)
        clause = d.say("{p} ate from {dish} and left it in {sink}", "{p} used {dish} and dropped it in {sink}",
                       **values)
        return Event("dirty_dish", clause, (old,), (Fact("dirty", (dish,)), Fact("on", (dish, sink))),
                     d.mention(person, dish, sink))
    clause = d.say("{p} used {dish}, so it is dirty now", "{dish} got dirty", **values)
    mentions = d.mention(dish) | ({person: values["p"]} if values["p"] in clause else {})
    return Event("dirty_dish", clause, (), (Fact("dirty", (dish,)),), mentions)


def _wash(d: Draw) -> Event | None:
    dish = d.pick([x for x in d.state.of_type("dish") if d.state.holds("dirty", x)])
    person = d.pick(d.state.of_type("person"))
    if dish is None or person is None:
        return None
    clause = d.say("{p} washed {dish}", "{p} cleaned {dish}", "{dish} has been washed", p=d.words.bare(person),
                   dish=d.the(dish))
    mentions = d.mention(dish) | ({person: d.words.bare(person)} if d.words.bare(person) in clause else {})
    return Event("wash", clause, (Fact("dirty", (dish,)),), (), mentions)


def _give(d: Draw) -> Event | None:
    giver = d.pick([p for p in d.state.of_type("person") if d.state.items_of(p)])
    if giver is None:
        return None
    item = d.pick(d.state.items_of(giver))
    taker = d.pick([p for p in d.state.of_type("person") if p != giver])
    if item is None or taker is None:
        return None
    clause = d.say("{a} gave {i} to {b}", "{a} handed {i} over to {b}", a=d.words.bare(giver), i=d.the(item),
                   b=d.words.bare(taker))
    return Event("give", clause, (Fact("has", (giver, item)),), (Fact("has", (taker, item)),),
                 d.mention(giver, item, taker))


def _new_item(d: Draw) -> Event | None:
    """Someone brings a new item home (groceries, a parcel); only perception can report it."""
    model = d.pick(d.state.of_type("item"))
    target = d.pick(d.state.of_type("receptacle"))
    if model is None or target is None:
        return None
    words = d.words.bare(model)
    stem = slug(words)
    number = 1
    while d.state.graph.has_entity(f"{stem}_{number}"):
        number += 1
    name = f"{stem}_{number}"
    new = target_fact(d, name, target)
    spec = EntitySpec(d.state.type_of(model), words)
    clause = f"a new {words} turned up {PREPOSITION[new.predicate]} {d.the(target)}"
    return Event("new_item", clause, (), (new,), {name: words, target: d.words.bare(target)},
                 new_entities={name: spec})


Generator = Callable[[Draw], "Event | None"]

EVENT_KINDS: dict[str, tuple[Generator, float]] = {
    "move_item": (_move_item, 3.0),
    "take_item": (_take_item, 2.0),
    "put_down": (_put_down, 2.0),
    "person_moves": (_person_moves, 2.0),
    "switch": (_switch, 4.0),
    "open_close": (_open_close, 1.0),
    "phone_rings": (_phone_rings, 1.0),
    "answer_phone": (_answer_phone, 1.0),
    "eat_drink": (_eat_drink, 2.0),
    "dirty_dish": (_dirty_dish, 2.0),
    "wash": (_wash, 1.0),
    "give": (_give, 1.0),
}
"""Kinds of change people make, with their relative frequency."""

PERCEPTION_ONLY: dict[str, tuple[Generator, float]] = {"new_item": (_new_item, 1.0)}
"""Kinds only perception reports (natural language may not create entities)."""


def draw_event(
    state: HouseState,
    words: Words,
    rng: random.Random,
    *,
    busy: set[str] | None = None,
    partial_prob: float = 0.3,
    kinds: dict[str, tuple[Generator, float]] = EVENT_KINDS,
) -> Event:
    """A random event that can happen in `state`, touching no entity in `busy`.

    Raises LookupError when no kind can happen (a house without people or items).
    """
    names = sorted(kinds)
    weights = [kinds[k][1] for k in names]
    draw = Draw(state, words, rng, set(busy or ()), rng.random() < partial_prob)
    for _ in range(50):
        kind = rng.choices(names, weights)[0]
        event = kinds[kind][0](draw)
        if event is not None:
            return event
    raise LookupError("no event can happen in this house (it needs people, items and devices)")
