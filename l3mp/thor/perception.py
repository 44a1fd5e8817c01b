"""Perception from AI2-THOR event metadata: typed entities and the thor domain's facts, as perception batches.

Visibility-aware: a batch speaks only of what the agent sees in the event (objects whose ``visible`` flag is
set, what it holds, what a receptacle it sees in the open holds) and of the agent itself; every other object
keeps the state the belief has for it. Incremental: for each seen object the batch holds only the facts that
differ from the belief (true ones to add, false ones to drop), and an entity only the first time its object is
seen or named by a seen fact. Not seeing a thing from its own interaction pose denies where the belief put it.
`last_seen` records, per entity, the step and batch in which it was last seen.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.errors import FormatError
from l3mp.thor.naming import Namer
from l3mp.world.graph import WorldGraph
from l3mp.world.model import Observation

CAPABILITIES = {"receptacle": "receptacle", "openable": "openable", "toggleable": "toggleable",
                "sliceable": "sliceable", "dirtyable": "dirtyable", "canFillWithLiquid": "fillable",
                "cookable": "cookable"}
"""Metadata flag -> the domain's static predicate saying what an object can do."""
STATES = {"isOpen": "is_open", "isToggled": "toggled_on", "isDirty": "dirty", "isSliced": "sliced",
          "isCooked": "cooked", "isBroken": "broken"}
"""Metadata state flag -> the domain's unary predicate."""
TEMPERATURES = {"Hot": "hot", "Cold": "cold"}
LIQUIDS = ("water", "coffee", "wine")
BASIN_TYPES = ("SinkBasin", "BathtubBasin")
OBJECT_KEYS = ("objectId", "objectType", "position")
"""The per-object fields perception cannot do without (the others default to false or empty)."""
FAUCET_REACH_M = 1.5
"""A faucet runs into the nearest sink or bathtub basin within this horizontal distance."""


@dataclass(frozen=True)
class Sighting:
    """When an entity was last seen: the perception step and the batch's observation id."""

    step: int
    observation_id: str


def agent_of(domain: Domain) -> str:
    """The domain's agent constant (``the_robot`` in thor.pddl)."""
    for name, type_ in sorted(domain.constants.items()):
        if domain.is_subtype(type_, "agent"):
            return name
    raise ValueError(f"domain {domain.name} declares no constant of type agent")


class ThorPerception:
    """Turns successive AI2-THOR events of one scene into perception batches against a belief graph."""

    def __init__(self, domain: Domain, *, scene: str) -> None:
        self._domain = domain
        self._scene = scene
        self._agent = agent_of(domain)
        self.namer = Namer(domain)
        self._step = 0
        self._last_seen: dict[str, Sighting] = {}
        self._seen_as: dict[str, dict] = {}

    @property
    def agent(self) -> str:
        return self._agent

    @property
    def step(self) -> int:
        """How many events this perception has turned into batches."""
        return self._step

    def last_seen(self) -> dict[str, Sighting]:
        """Entity name -> when it was last seen (entities never seen are absent)."""
        return dict(self._last_seen)

    def seen_as(self, name: str) -> dict | None:
        """An entity's object metadata as last seen (None if never seen): where the agent believes it is."""
        return self._seen_as.get(name)

    def observe(self, metadata: Mapping[str, Any], belief: WorldGraph, *, at: str | None,
                survey: bool = False) -> Observation:
        """The batch of one event's metadata against `belief`.

        `at` is the entity whose interaction pose the agent stands at (the executor knows where it went);
        `survey` treats every object as seen (the agent's prior map of the scene, for the first batch).
        """
        objects, inventory = checked_metadata(metadata)
        self._step += 1
        observation_id = f"{self._scene}:{self._step}"
        by_id = {o["objectId"]: o for o in objects}
        self.namer.name_all(objects)
        held = [i for i in inventory if i in by_id]
        seen = [o for o in objects if survey or o.get("visible") or o["objectId"] in held]
        seen_names = {self.namer.name(o["objectId"]) for o in seen}
        facts: dict[Fact, bool] = {}
        for obj in seen:
            name = self.namer.name(obj["objectId"])
            _diff(facts, self._facts_of(obj, by_id, objects), _own_facts(belief, name))
            if _shows_contents(obj):
                self._emptied(facts, obj, belief, seen_names)
        decided = ("holding", "hand_empty") if at is None else ("at", "holding", "hand_empty")
        _diff(facts, self._agent_facts(held, at), _own_facts(belief, self._agent, decided))
        if at is not None and at not in seen_names:
            for fact in _own_facts(belief, at, ("in",)):
                facts[fact] = False
        for obj in seen:
            name = self.namer.name(obj["objectId"])
            self._last_seen[name] = Sighting(self._step, observation_id)
            self._seen_as[name] = obj
        gone = [n for i, n in self.namer.names().items() if i not in by_id and belief.has_entity(n)]
        return Observation(tuple(sorted(facts.items())), self._new_entities(facts, belief, seen_names),
                           tuple(sorted(gone)), observation_id)

    def _facts_of(self, obj: dict, by_id: Mapping[str, dict], objects: list[dict]) -> set[Fact]:
        """Everything one object's metadata says in the domain's terms (its name is the first argument)."""
        name = self.namer.name(obj["objectId"])
        out = {Fact(pred, (name,)) for flag, pred in CAPABILITIES.items() if obj.get(flag)}
        out |= {Fact(pred, (name,)) for flag, pred in STATES.items() if obj.get(flag)}
        if obj.get("temperature") in TEMPERATURES:
            out.add(Fact(TEMPERATURES[obj["temperature"]], (name,)))
        liquid = _liquid(obj)
        if liquid is not None:
            out.add(Fact("filled_with", (name, liquid)))
        parent = immediate_parent(obj, by_id)
        if parent is not None and not obj.get("isPickedUp"):
            out.add(Fact("in", (name, self.namer.name(parent))))
        for controlled in obj.get("controlledObjects") or ():
            if controlled in by_id:
                out.add(Fact("controls", (name, self.namer.name(controlled))))
        if obj["objectType"] == "Faucet":
            basin = _nearest_basin(obj, objects)
            if basin is not None:
                out.add(Fact("faucet_of", (name, self.namer.name(basin["objectId"]))))
        return out

    def _agent_facts(self, held: list[str], at: str | None) -> set[Fact]:
        out = {Fact("holding", (self._agent, self.namer.name(i))) for i in held}
        if not held:
            out.add(Fact("hand_empty", (self._agent,)))
        if at is not None:
            out.add(Fact("at", (self._agent, at)))
        return out

    def _emptied(self, facts: dict[Fact, bool], receptacle: dict, belief: WorldGraph, seen: set[str]) -> None:
        """A seen, open receptacle no longer holding what the belief puts in it: those facts are false now."""
        name = self.namer.name(receptacle["objectId"])
        inside = {self.namer.name(i) for i in receptacle.get("receptacleObjectIds") or () if self.namer.known(i)}
        for fact in belief.facts(predicate="in"):
            if fact.args[1] == name and fact.args[0] not in inside and fact.args[0] not in seen:
                facts[fact] = False

    def _new_entities(self, facts: Mapping[Fact, bool], belief: WorldGraph, seen: Iterable[str]) -> dict:
        named = {a for f, truth in facts.items() if truth for a in f.args} | set(seen)
        wanted = sorted(n for n in named if self.namer.object_id(n) is not None and not belief.has_entity(n))
        return {n: self.namer.spec(n) for n in wanted}


def checked_metadata(metadata: object) -> tuple[list[dict], list[str]]:
    """The objects and the held object ids of event metadata; FormatError naming what is malformed."""
    if not isinstance(metadata, Mapping) or not isinstance(metadata.get("objects"), list):
        raise FormatError("AI2-THOR metadata must be a mapping with an 'objects' list (event.metadata)")
    for index, obj in enumerate(metadata["objects"]):
        missing = [k for k in OBJECT_KEYS if not isinstance(obj, Mapping) or k not in obj]
        if missing or not isinstance(obj["objectId"], str) or not isinstance(obj["position"], Mapping):
            raise FormatError(f"AI2-THOR metadata 'objects'[{index}] lacks or mistypes {missing or OBJECT_KEYS}; "
                              "each object needs a string objectId, an objectType and a position {x, y, z}")
    inventory = metadata.get("inventoryObjects") or []
    if not isinstance(inventory, list) or not all(isinstance(i, Mapping) and isinstance(i.get("objectId"), str)
                                                  for i in inventory):
        raise FormatError("AI2-THOR metadata 'inventoryObjects' must be a list of {objectId, objectType}")
    return list(metadata["objects"]), [i["objectId"] for i in inventory]


def immediate_parent(obj: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The receptacle an object is directly in or on: of its parentReceptacles, the one inside the others
    (a mug on a coffee machine on a table is in the coffee machine)."""
    parents = [p for p in obj.get("parentReceptacles") or () if p in by_id]
    if not parents:
        return None
    def depth(p: str) -> int:
        return sum(1 for q in parents if q in (by_id[p].get("parentReceptacles") or ()))
    return max(sorted(parents), key=depth)


def _shows_contents(obj: Mapping[str, Any]) -> bool:
    return bool(obj.get("receptacle")) and (not obj.get("openable") or bool(obj.get("isOpen")))


def _liquid(obj: Mapping[str, Any]) -> str | None:
    if not obj.get("isFilledWithLiquid"):
        return None
    liquid = str(obj.get("fillLiquid") or "").lower()
    if liquid in LIQUIDS:
        return liquid
    return "wine" if obj["objectType"] == "WineBottle" else "water"


def _nearest_basin(faucet: Mapping[str, Any], objects: list[dict]) -> dict | None:
    basins = [o for o in objects if o["objectType"] in BASIN_TYPES]
    if not basins:
        return None
    best = min(basins, key=lambda b: (horizontal_distance(faucet["position"], b["position"]), b["objectId"]))
    return best if horizontal_distance(faucet["position"], best["position"]) <= FAUCET_REACH_M else None


def horizontal_distance(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Distance between two AI2-THOR positions on the floor plane (x, z)."""
    return math.hypot(a["x"] - b["x"], a["z"] - b["z"])


def _own_facts(belief: WorldGraph, name: str, predicates: tuple[str, ...] | None = None) -> set[Fact]:
    """The facts the belief holds that perception of `name` decides: those with it as first argument (only of
    `predicates` when given)."""
    if not belief.has_entity(name):
        return set()
    own = {f for f in belief.facts_of(name) if f.args and f.args[0] == name}
    return own if predicates is None else {f for f in own if f.predicate in predicates}


def _diff(out: dict[Fact, bool], observed: set[Fact], believed: set[Fact]) -> None:
    for fact in observed - believed:
        out[fact] = True
    for fact in believed - observed:
        out.setdefault(fact, False)

