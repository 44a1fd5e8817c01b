"""Questions about a world graph by name: which facts, which entities, which part around some entities.

Names are checked: an unknown entity, type or predicate raises FormatError with the closest known names. The CLI
and the world-model node answer their queries here.
"""

from __future__ import annotations

from collections.abc import Iterable

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.errors import FormatError
from l3mp.world.graph import WorldGraph
from l3mp.world.verify import MAX_LISTED, closest_names

CUTOFF = 0.5
"""How like a known name a wrong one must be to be suggested."""


def known_entity(graph: WorldGraph, name: str) -> str:
    """`name` as the graph knows it (lower case); FormatError if it has no such entity."""
    if graph.has_entity(name.lower()):
        return name.lower()
    raise FormatError(f"unknown entity '{name}'; " + _hint(name, graph.entities(), "entities"))


def known_type(domain: Domain, name: str) -> frozenset[str]:
    """Type `name` and its subtypes; FormatError if the domain has no such type."""
    if not domain.has_type(name.lower()):
        raise FormatError(f"unknown type '{name}'; " + _hint(name, domain.types, "types"))
    return domain.subtypes(name.lower())


def known_predicate(domain: Domain, name: str) -> str:
    """`name` as the domain knows it (lower case); FormatError if it has no such predicate."""
    if domain.predicate(name.lower()) is None:
        raise FormatError(f"unknown predicate '{name}'; " + _hint(name, domain.predicates, "predicates"))
    return name.lower()


def find_facts(
    graph: WorldGraph, domain: Domain, *, entity: str | None = None, predicate: str | None = None,
    type_: str | None = None
) -> list[Fact]:
    """The facts (sorted) that mention `entity`, are of `predicate` and mention an entity of type `type_`."""
    name = known_entity(graph, entity) if entity else None
    if predicate:
        predicate = known_predicate(domain, predicate)
    kinds = known_type(domain, type_) if type_ else None
    facts = graph.facts(predicate=predicate or None, entity=name)
    if kinds is not None:
        facts = (f for f in facts if any(graph.entity_type(a) in kinds for a in f.args))
    return sorted(facts)


def find_entities(graph: WorldGraph, domain: Domain, *, type_: str | None = None) -> dict[str, dict[str, object]]:
    """The entities (sorted by name) of type `type_` or a subtype, with their attributes."""
    kinds = known_type(domain, type_) if type_ else None
    return {n: graph.entity_attrs(n) for n in sorted(graph.entities())
            if kinds is None or graph.entity_type(n) in kinds}


def around(graph: WorldGraph, seeds: Iterable[str], depth: int) -> set[str] | None:
    """The entities within `depth` fact hops of `seeds` (None, meaning all, without seeds)."""
    seeds = list(seeds)
    if not seeds:
        return None
    if depth < 0:
        raise FormatError(f"--depth must be 0 or more, not {depth}")
    return graph.neighborhood([known_entity(graph, s) for s in seeds], depth)


def _hint(word: str, names: Iterable[str], label: str) -> str:
    return closest_names(word.lower(), names, label=label, cutoff=CUTOFF, listed=MAX_LISTED)
