"""The robot's perception channel: what its object recognition calls things, and observations as triplets.

Labels: ``true`` keeps every entity's name and label; ``wrong`` renames a fraction of the items after another
noun of the same type (a mug recognised as a bowl: ``bowl_7``, label ``bowl``); ``uninformative`` renames them
to ``object_N`` with the label ``object``. Names are identities shared by the ground truth and the agent; the
people of the home keep speaking of things with their true words (`Words`), so a wrongly or uninformatively
labelled entity can be found only through its relations (what search-based retrieval exists for).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from l3mp_sim.events import Event
from l3mp_sim.house import ITEM_TYPES, EntityInfo, House, slug

from l3mp.domain.triplets import Fact
from l3mp.world.model import Observation

LABEL_MODES = ("true", "wrong", "uninformative")


@dataclass(frozen=True)
class PerceivedHouse:
    """A house as the robot's perception named it, and the true words of every entity."""

    house: House
    words: dict[str, str]
    relabelled: dict[str, str]
    """Perceived name -> the true words, for every entity whose label is not the truth."""


def perceive_house(house: House, *, mode: str = "true", fraction: float = 0.3, seed: int = 0) -> PerceivedHouse:
    """Relabel a fraction of the items as `mode` says (see the module docstring); deterministic in `seed`."""
    if mode not in LABEL_MODES:
        raise ValueError(f"unknown label mode {mode!r}; valid: {', '.join(LABEL_MODES)}")
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"label fraction must be between 0 and 1, not {fraction}")
    words = distinct_words(house)
    if mode == "true" or fraction == 0.0:
        return PerceivedHouse(house, words, {})
    rng = random.Random(f"labels-{seed}")
    items = sorted(n for n, info in house.entities.items() if info.type in ITEM_TYPES)
    chosen = sorted(rng.sample(items, round(fraction * len(items))))
    nouns: dict[str, list[str]] = {}
    for name in items:
        nouns.setdefault(house.entities[name].type, []).append(house.entities[name].label)
    taken = set(house.entities)
    renames: dict[str, str] = {}
    entities = dict(house.entities)
    counter = 0
    for name in chosen:
        info = house.entities[name]
        if mode == "wrong":
            others = sorted({n for n in nouns[info.type] if n != info.label}) or [f"{info.type}"]
            label = rng.choice(others)
        else:
            label = "object"
        stem = slug(label)
        while True:
            counter += 1
            new = f"{stem}_{counter}"
            if new not in taken:
                break
        taken.add(new)
        renames[name] = new
        del entities[name]
        entities[new] = EntityInfo(info.type, label)
    facts = sorted({(p, tuple(renames.get(a, a) for a in args)) for p, args in house.facts})
    perceived = House(entities=dict(sorted(entities.items())), facts=facts)
    true_words = {renames.get(n, n): w for n, w in words.items()}
    return PerceivedHouse(perceived, true_words, {renames[n]: words[n] for n in chosen})


def distinct_words(house: House) -> dict[str, str]:
    """What people call each entity: its label, except that fixtures sharing a label are told apart by number
    (two ``pantry in the kitchen`` become ``pantry 1 in the kitchen`` and ``pantry 2 in the kitchen``)."""
    words = {name: info.label for name, info in house.entities.items()}
    groups: dict[str, list[str]] = {}
    for name, info in house.entities.items():
        if info.type not in ITEM_TYPES and info.type != "person":
            groups.setdefault(info.label, []).append(name)
    for label, names in groups.items():
        if len(names) < 2:
            continue
        noun, sep, rest = label.partition(" in ")
        for number, name in enumerate(sorted(names), 1):
            words[name] = f"{noun} {number}{sep}{rest}"
    return words


def observation(events: list[Event], observation_id: str) -> Observation:
    """The perception batch of events: every fact they make true or false, and the entities they bring."""
    facts: dict[Fact, bool] = {}
    for event in events:
        for fact in event.remove:
            facts[fact] = False
        for fact in event.add:
            facts[fact] = True
    entities = {n: s for e in events for n, s in e.new_entities.items()}
    return Observation(tuple(sorted(facts.items())), entities, (), observation_id)
