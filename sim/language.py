"""How people in the simulated home speak of things: noun phrases for entities and sentences from clauses."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

from l3mp_sim.state import HouseState

PREPOSITION = {"on": "on", "inside": "in"}


class Words:
    """The true human words for every entity (never the perceived labels), and noun phrases built from them.

    Items whose words are shared with another item get their place added (``the apple in the fridge in the
    kitchen``), so a description always points at one item when read against the true state.
    """

    def __init__(self, words: Mapping[str, str]) -> None:
        self._words = dict(words)
        self._counts = Counter(self._words.values())

    def to_json(self) -> dict[str, str]:
        return dict(self._words)

    def add(self, name: str, words: str) -> None:
        """Words for a new entity (one that perception discovered during the episode)."""
        self._words[name] = words
        self._counts[words] += 1

    def bare(self, name: str) -> str:
        """A name for `name` without a leading article: ``Jessica``, ``bedroom 2``, ``red mug``."""
        return self._words.get(name, name.replace("_", " "))

    def the(self, name: str, state: HouseState, *, qualify: bool = True) -> str:
        """A definite noun phrase: ``Jessica``, ``the kitchen``, ``the coffee table in the living room``,
        ``the red mug`` (or ``the red mug on the desk in the office`` when another item has the same words, unless
        `qualify` is False because the sentence names the place anyway)."""
        kind = state.type_of(name)
        words = self.bare(name)
        if kind == "person" or (kind == "room" and words[-1:].isdigit()):
            return words
        if kind == "room" or not state.domain.is_subtype(kind, "item") or self._counts[words] < 2 or not qualify:
            return f"the {words}"
        fact = state.location(name)
        if fact.predicate in ("on", "inside"):
            return f"the {words} {PREPOSITION[fact.predicate]} {self.the(fact.args[1], state)}"
        holder = fact.args[0]
        return f"{self.the(holder, state)}'s {words}" if state.type_of(holder) == "person" else f"the {words}"

    def ambiguous(self, name: str, state: HouseState) -> bool:
        """Whether another entity has the same noun phrase (two frying pans in the same dishwasher)."""
        words = self.bare(name)
        if self._counts[words] < 2:
            return False
        phrase = self.the(name, state)
        twins = [n for n, w in self._words.items() if w == words and n != name and state.graph.has_entity(n)]
        return any(self.the(n, state) == phrase for n in twins)


def capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


def sentence(clauses: Sequence[str], rng: random.Random) -> str:
    """One sentence from one or more clauses, joined the way people chain events."""
    if len(clauses) == 1:
        return capitalize(clauses[0]) + "."
    if len(clauses) == 2:
        glue = rng.choice((", and ", "; also, ", ", then ", " and "))
        return capitalize(clauses[0]) + glue + clauses[1] + "."
    return capitalize(", ".join(clauses[:-1])) + rng.choice((", and ", ", and then ")) + clauses[-1] + "."
