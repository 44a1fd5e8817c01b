"""Entity names, PDDL types and readable labels for AI2-THOR objects, stable for a whole episode."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from l3mp.domain.pddl_domain import Domain
from l3mp.world.delta import EntitySpec

ITEM = "item"
FIXTURE = "fixture"
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def type_words(object_type: str) -> list[str]:
    """The words of an AI2-THOR object type: ``CounterTop`` -> [counter, top], ``TVStand`` -> [tv, stand]."""
    return [w.lower() for w in _WORD.findall(object_type)]


def pddl_type(domain: Domain, obj: dict) -> str:
    """The domain type of an object: its object type in snake case when the domain has it and it agrees with
    the object's pickupable flag, else the group ``item`` (pickupable) or ``fixture``."""
    group = ITEM if obj.get("pickupable") else FIXTURE
    name = "_".join(type_words(obj["objectType"]))
    if domain.has_type(name) and domain.is_subtype(name, group):
        return name
    return group


class Namer:
    """Names each AI2-THOR object id once (``mug_2``) and remembers it; labels say the type in words, numbered
    when the scene has several of it (``cabinet 3``); the description keeps the AI2-THOR object id."""

    def __init__(self, domain: Domain) -> None:
        self._domain = domain
        self._names: dict[str, str] = {}
        self._ids: dict[str, str] = {}
        self._specs: dict[str, EntitySpec] = {}
        self._counts: Counter[str] = Counter()

    def name_all(self, objects: Iterable[dict]) -> None:
        """Name every object not named yet, in object-id order (so a scene's names do not depend on the order
        of its metadata)."""
        fresh = sorted((o for o in objects if o["objectId"] not in self._names), key=lambda o: o["objectId"])
        per_type = Counter(pddl_type(self._domain, o) for o in objects)
        for obj in fresh:
            type_ = pddl_type(self._domain, obj)
            self._counts[type_] += 1
            number = self._counts[type_]
            name = f"{type_}_{number}"
            words = " ".join(type_words(obj["objectType"]))
            label = f"{words} {number}" if per_type[type_] > 1 or number > 1 else words
            self._names[obj["objectId"]] = name
            self._ids[name] = obj["objectId"]
            self._specs[name] = EntitySpec(type_, label, f"AI2-THOR object {obj['objectId']}")

    def name(self, object_id: str) -> str:
        return self._names[object_id]

    def known(self, object_id: str) -> bool:
        return object_id in self._names

    def object_id(self, name: str) -> str | None:
        """The AI2-THOR object id an entity stands for (None for entities this namer did not make)."""
        return self._ids.get(name)

    def spec(self, name: str) -> EntitySpec:
        return self._specs[name]

    def names(self) -> dict[str, str]:
        """Object id -> entity name, for every object named so far."""
        return dict(self._names)
