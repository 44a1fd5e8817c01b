"""Shared context building: the always-needed entities and the expansion of selected entities to facts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.llm.contract import entity_line
from l3mp.retrieval.base import Retrieved
from l3mp.world.graph import WorldGraph

DEFAULT_DEPTH = 1


def always_needed(graph: WorldGraph, domain: Domain) -> tuple[set[str], set[Fact]]:
    """The domain's constants (e.g. ``the_robot``) with every fact about them (its room, its hand)."""
    entities: set[str] = set()
    facts: set[Fact] = set()
    for name in domain.constants:
        if graph.has_entity(name):
            entities.add(name)
            facts.update(graph.facts_of(name))
    for fact in facts:
        entities.update(fact.args)
    return entities, facts


def expand(graph: WorldGraph, seeds: Iterable[str], depth: int = DEFAULT_DEPTH) -> tuple[set[str], set[Fact]]:
    """The seeds' surroundings: every entity within `depth` fact-hops, and as facts
    every fact touching an entity closer than `depth` (so every incoming and outgoing fact of a
    seed when depth >= 1) plus every fact among the entities within `depth` (and the 0-ary facts).
    Depth 0 gives only the facts among the seeds themselves."""
    if depth < 0:
        raise ValueError(f"depth must be >= 0, not {depth}")
    present = [s for s in seeds if graph.has_entity(s)]
    if depth == 0:
        return set(present), graph.facts_within(present)
    facts: set[Fact] = set()
    inner = graph.neighborhood(present, depth - 1)
    for name in inner:
        facts.update(graph.facts_of(name))
    entities = set(inner)
    for fact in facts:
        entities.update(fact.args)
    facts |= graph.facts_within(entities)
    return entities, facts


def assemble(
    mode: str,
    graph: WorldGraph,
    domain: Domain,
    seeds: Iterable[str],
    depth: int,
    details: dict[str, Any],
) -> Retrieved:
    """A Retrieved of the seeds' surroundings at `depth` plus the always-needed context."""
    entities, facts = expand(graph, seeds, depth)
    base_entities, base_facts = always_needed(graph, domain)
    return Retrieved(mode, frozenset(entities | base_entities), frozenset(facts | base_facts), details)


def describe_entities(graph: WorldGraph, names: Iterable[str]) -> str:
    """One `l3mp.llm.contract.entity_line` (``name (type): label``) per entity of the graph, sorted."""
    lines = []
    for name in sorted(set(names)):
        if graph.has_entity(name):
            attrs = graph.entity_attrs(name)
            words = str(attrs.get("label") or attrs.get("description") or "")
            lines.append(entity_line(name, str(attrs["type"]), words))
    return "\n".join(lines)


def context_entities(graph: WorldGraph, retrieved: Retrieved) -> set[str]:
    """The graph entities of a retrieval: those it selected and those its facts mention."""
    names = set(retrieved.entities)
    for fact in retrieved.facts:
        names.update(fact.args)
    return {n for n in names if graph.has_entity(n)}
