"""Household tasks posed to the robot in natural language, with their gold goals.

A `Task` has the request as people say it, the gold goal as typed literals (the same `Literal`s the
planning pipeline asks an LLM for, so ``ALL_light`` stands for every light), and the entities the request
names. `draw_task` picks a kind that is not already done in the current state.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from l3mp_sim.events import Draw, place_words, target_fact
from l3mp_sim.language import Words, capitalize
from l3mp_sim.state import HouseState

from l3mp.planning.goal import Literal, assemble_goal

HOMES = {"book": ("shelf",), "dish": ("cupboard", "dishwasher"), "food": ("fridge", "cupboard"),
         "drink": ("fridge", "table"), "phone": ("table",)}
"""Where items of a type belong, for "put it back" tasks."""
TOOLS = {"wash_dish": ("sink", "faucet")}
"""Types of the entities a task kind may need besides those its goal names (washing needs a sink and its faucet):
the ground-truth sub-problem of such a task holds every entity of these types."""


@dataclass(frozen=True)
class Task:
    """A request, its gold goal and the entities it names (entity -> words used)."""

    kind: str
    text: str
    literals: tuple[Literal, ...]
    mentions: dict[str, str]

    @property
    def goal_pddl(self) -> str:
        return assemble_goal(self.literals)

    def to_json(self) -> dict:
        return {"task_kind": self.kind, "text": self.text, "goal": self.goal_pddl, "mentions": self.mentions}


def _return_item(d: Draw) -> Task | None:
    item = d.pick(d.state.of_type("item"))
    if item is None:
        return None
    homes = [r for t in HOMES[d.state.type_of(item)] for r in d.state.of_type(t) if r != d.state.place(item)]
    target = d.pick(homes)
    if target is None:
        return None
    fact = target_fact(d, item, target)
    text = d.say("Please put {i} {place}.", "Could you return {i} to {r}?", "{I} belongs {place}; put it back.",
                 i=d.the(item), I=capitalize(d.the(item)), r=d.the(target), place=place_words(d, fact))
    return Task("return_item", text, (Literal(fact.predicate, fact.args, False),), d.mention(item, target))


def _wash_dish(d: Draw) -> Task | None:
    return _undo(d, "wash_dish", {"dish": "dirty"}, "Please wash {x}.", "{X} is dirty, can you clean it?",
                 "Could you do the washing up of {x}?")


def _bring(d: Draw) -> Task | None:
    item = d.pick([i for t in ("food", "drink") for i in d.state.of_type(t)])
    person = d.pick([p for p in d.state.of_type("person") if item and not d.state.holds("has", p, item)])
    if item is None or person is None:
        return None
    want = "hungry" if d.state.type_of(item) == "food" else "thirsty"
    text = d.say("{p} is {want}: bring {i} to {p}.", "Could you give {i} to {p}?", "{p} wants {i}; please bring it.",
                 p=d.words.bare(person), i=d.the(item), want=want)
    return Task("bring", text, (Literal("has", (person, item), False),), d.mention(person, item))


def _all_off(d: Draw) -> Task | None:
    on = [x for x in d.state.of_type("light") if d.state.holds("light_on", x)]
    running = [x for x in d.state.of_type("faucet") if d.state.holds("faucet_on", x)]
    if not on and not running:
        return None
    text = d.say("The water and electricity bills are high. Can you turn off all lights and faucets?",
                 "Please switch off every light and every faucet in the house.")
    return Task("all_off", text, (Literal("light_on", ("ALL_light",), True),
                                  Literal("faucet_on", ("ALL_faucet",), True)), {})


def _device_off(d: Draw) -> Task | None:
    return _undo(d, "device_off", {"tv": "tv_on", "light": "light_on", "faucet": "faucet_on"}, "Please turn off {x}.",
                 "Can you switch {x} off?")


def _close(d: Draw) -> Task | None:
    return _undo(d, "close", {"container": "is_open"}, "Please close {x}.", "{X} is open; shut it, please.")


def _answer(d: Draw) -> Task | None:
    return _undo(d, "answer_phone", {"phone": "ringing"}, "{X} is ringing; please answer it.", "Can you answer {x}?")


def _undo(d: Draw, kind: str, predicates: dict[str, str], *templates: str) -> Task | None:
    """A task to make false the unary fact (`predicates`: type -> predicate) of an entity for which it holds
    (``{x}``/``{X}`` in `templates`: the entity's noun phrase, lower-case/capitalised)."""
    holding = {x: p for t, p in predicates.items() for x in d.state.of_type(t) if d.state.holds(p, x)}
    entity = d.pick(list(holding))
    if entity is None:
        return None
    text = d.say(*templates, x=d.the(entity), X=capitalize(d.the(entity)))
    return Task(kind, text, (Literal(holding[entity], (entity,), True),), d.mention(entity))


TASK_KINDS: dict[str, tuple[Callable[[Draw], Task | None], float]] = {
    "return_item": (_return_item, 3.0),
    "wash_dish": (_wash_dish, 2.0),
    "bring": (_bring, 3.0),
    "all_off": (_all_off, 1.0),
    "device_off": (_device_off, 1.0),
    "close": (_close, 1.0),
    "answer_phone": (_answer, 1.0),
}
"""Kinds of task, with their relative frequency."""


def draw_task(state: HouseState, words: Words, rng: random.Random) -> Task:
    """A random task not yet done in `state`; LookupError if there is none."""
    names = sorted(TASK_KINDS)
    weights = [TASK_KINDS[k][1] for k in names]
    draw = Draw(state, words, rng, set(), False)
    for _ in range(50):
        task = TASK_KINDS[rng.choices(names, weights)[0]][0](draw)
        if task is not None:
            return task
    raise LookupError("no task can be posed in this house")
