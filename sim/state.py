"""Questions about a household graph that the simulator asks: where things are, who is where, what is on."""

from __future__ import annotations

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.world.graph import WorldGraph

SWITCHES = {"light": "light_on", "faucet": "faucet_on", "tv": "tv_on"}
"""Device type -> the unary predicate that says it is on."""


class HouseState:
    """Read-only queries over a household WorldGraph (typed by the household domain)."""

    def __init__(self, graph: WorldGraph, domain: Domain) -> None:
        self.graph = graph
        self.domain = domain

    def of_type(self, type_: str) -> list[str]:
        """Entities whose type is `type_` or a subtype, sorted (for reproducible draws)."""
        graph, domain = self.graph, self.domain
        return sorted(n for n in graph.entities() if domain.is_subtype(graph.entity_type(n) or "", type_))

    def type_of(self, name: str) -> str:
        return self.graph.entity_type(name) or ""

    def location(self, item: str) -> Fact:
        """The fact that says where `item` is (``on``, ``inside``, ``holding`` or ``has``)."""
        for fact in sorted(self.graph.facts_of(item)):
            if fact.predicate in ("on", "inside") and fact.args[0] == item:
                return fact
            if fact.predicate in ("holding", "has") and fact.args[1] == item:
                return fact
        raise LookupError(f"{item} is nowhere in the graph")

    def place(self, item: str) -> str:
        """The receptacle, person or robot that has `item`."""
        fact = self.location(item)
        return fact.args[1] if fact.predicate in ("on", "inside") else fact.args[0]

    def room(self, name: str) -> str | None:
        """The room an agent or fixture is in; an item's room through where it is."""
        for fact in self.graph.facts(predicate="in_room", entity=name):
            if fact.args[0] == name:
                return fact.args[1]
        if self.domain.is_subtype(self.type_of(name), "item"):
            return self.room(self.place(name))
        return None

    def holds(self, predicate: str, *args: str) -> bool:
        return self.graph.has_fact(Fact(predicate, args))

    def items_of(self, person: str) -> list[str]:
        """Items a person has, sorted."""
        return sorted(f.args[1] for f in self.graph.facts(predicate="has", entity=person) if f.args[0] == person)

    def placed_items(self) -> list[str]:
        """Items lying on a surface or inside a container (not held by anyone), sorted."""
        return sorted(i for i in self.of_type("item") if self.location(i).predicate in ("on", "inside"))
