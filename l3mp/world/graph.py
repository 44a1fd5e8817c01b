"""The world-state knowledge graph: typed entities and the facts that hold between them.

Backed by a networkx MultiDiGraph (nodes are entities; a binary fact ``(p a b)`` is the
edge ``a -> b`` with key ``p``; unary facts are node properties; 0-ary facts are graph
properties; a fact with 3+ arguments is an edge from its first argument to each other
argument, keyed by the fact). Indexes by entity and predicate keep queries O(answer).

This class does no verification: use `WorldModel` (verified, durable) to change a live
graph. Every mutation here is a primitive that a verified delta is made of.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import networkx as nx

from l3mp.domain.triplets import Fact
from l3mp.errors import FormatError

GRAPH_FORMAT = "l3mp.graph/1"
ENTITY_ATTRS = frozenset({"type", "label", "description", "since"})
FORMER_KEPT = 16
"""How many facts that stopped holding are recalled per entity (`WorldGraph.former_facts`)."""


class WorldGraph:
    """Entities (name -> type and attributes) and the set of facts that are true."""

    def __init__(self) -> None:
        self._g = nx.MultiDiGraph(props=set())
        self._facts: dict[Fact, int] = {}
        self._by_entity: dict[str, set[Fact]] = {}
        self._by_predicate: dict[str, set[Fact]] = {}
        self._former: dict[str, list[tuple[Fact, int]]] = {}

    # ---- entities -------------------------------------------------------------------
    def add_entity(self, name: str, type_: str, *, since: int = 0, **attrs: str) -> None:
        """Add an entity (or replace the attributes of an existing one)."""
        if name in self._g:
            self._g.nodes[name].update(type=type_, **attrs)
            return
        self._g.add_node(name, type=type_, since=since, **attrs)

    def add_missing_entities(self, types: Mapping[str, str]) -> None:
        """Add each entity of `types` (name -> type) the graph lacks, e.g. a domain's constants."""
        for name, type_ in types.items():
            if name not in self._g:
                self._g.add_node(name, type=type_, since=0)

    def remove_entity(self, name: str, *, cascade: bool = False) -> None:
        """Remove an entity; its facts too with `cascade`, else it must have none left."""
        if cascade:
            for fact in self.facts_of(name):
                self.remove_fact(fact)
        if self._by_entity.get(name):
            raise ValueError(f"entity {name} still has facts; remove them first")
        self._g.remove_node(name)
        self._by_entity.pop(name, None)

    def has_entity(self, name: str) -> bool:
        return name in self._g

    def entity_type(self, name: str) -> str | None:
        node = self._g.nodes.get(name)
        return node["type"] if node is not None else None

    def entity_attrs(self, name: str) -> dict[str, object]:
        """Type, label, description, ``since`` (record number) of an entity."""
        return {k: v for k, v in self._g.nodes[name].items() if k != "props"}

    def entities(self) -> Iterator[str]:
        return iter(self._g.nodes)

    def entity_count(self) -> int:
        return self._g.number_of_nodes()

    # ---- facts ----------------------------------------------------------------------
    def add_fact(self, fact: Fact, *, since: int = 0) -> None:
        """Make `fact` true (its entities must exist)."""
        if fact in self._facts:
            return
        for arg in fact.args:
            if arg not in self._g:
                raise KeyError(f"fact {fact} mentions unknown entity {arg}")
        self._facts[fact] = since
        self._by_predicate.setdefault(fact.predicate, set()).add(fact)
        for arg in set(fact.args):
            self._by_entity.setdefault(arg, set()).add(fact)
        args = fact.args
        if not args:
            self._g.graph["props"].add(fact.predicate)
        elif len(args) == 1:
            self._g.nodes[args[0]].setdefault("props", set()).add(fact.predicate)
        elif len(args) == 2:
            self._g.add_edge(args[0], args[1], key=fact.predicate)
        else:
            for i, other in enumerate(args[1:], start=1):
                self._g.add_edge(args[0], other, key=(fact, i), predicate=fact.predicate, position=i)

    def remove_fact(self, fact: Fact) -> None:
        """Make `fact` false (no-op if it is already false)."""
        if fact not in self._facts:
            return
        del self._facts[fact]
        self._by_predicate[fact.predicate].discard(fact)
        for arg in set(fact.args):
            facts = self._by_entity[arg]
            facts.discard(fact)
            if not facts:
                del self._by_entity[arg]
        args = fact.args
        if not args:
            self._g.graph["props"].discard(fact.predicate)
        elif len(args) == 1:
            node = self._g.nodes[args[0]]
            node["props"].discard(fact.predicate)
            if not node["props"]:
                del node["props"]
        elif len(args) == 2:
            self._g.remove_edge(args[0], args[1], key=fact.predicate)
        else:
            for i, other in enumerate(args[1:], start=1):
                self._g.remove_edge(args[0], other, key=(fact, i))

    def has_fact(self, fact: Fact) -> bool:
        return fact in self._facts

    # ---- what held before -------------------------------------------------------------
    def note_former(self, fact: Fact, seq: int) -> None:
        """Recall that change record `seq` made `fact` false (kept for each of its arguments, the newest
        `FORMER_KEPT`). A change record does this for every fact it removes (`l3mp.world.history.apply_record`)."""
        for arg in dict.fromkeys(fact.args):
            kept = self._former.setdefault(arg, [])
            kept.append((fact, seq))
            if len(kept) > FORMER_KEPT:
                del kept[0]

    def forget_former(self, seq: int) -> None:
        """Forget what change record `seq` made false (the record was undone: journaling it failed)."""
        for name in list(self._former):
            kept = [(fact, at) for fact, at in self._former[name] if at != seq]
            if kept:
                self._former[name] = kept
            else:
                del self._former[name]

    def former_facts(self, entity: str, *, predicate: str | None = None) -> list[Fact]:
        """Facts about `entity` that held once and were made false by a change record, newest first ("put the
        butter back": where the butter was). Recalled from the records applied or replayed into this graph (after
        a restart: those since the last snapshot); a snapshot keeps only what holds now."""
        return [fact for fact, _ in reversed(self._former.get(entity, ()))
                if predicate is None or fact.predicate == predicate]

    def fact_since(self, fact: Fact) -> int | None:
        """Number of the change record that made `fact` true (0: loaded without history)."""
        return self._facts.get(fact)

    def facts(self, *, predicate: str | None = None, entity: str | None = None) -> Iterator[Fact]:
        """Facts, optionally only those of a predicate and/or mentioning an entity."""
        if entity is not None:
            pool: Iterable[Fact] = self._by_entity.get(entity, ())
            if predicate is not None:
                pool = (f for f in pool if f.predicate == predicate)
            return iter(pool)
        if predicate is not None:
            return iter(self._by_predicate.get(predicate, ()))
        return iter(self._facts)

    def facts_of(self, entity: str) -> frozenset[Fact]:
        return frozenset(self._by_entity.get(entity, ()))

    def fact_count(self) -> int:
        return len(self._facts)

    def __len__(self) -> int:
        return len(self._facts)

    def __contains__(self, fact: object) -> bool:
        return fact in self._facts

    # ---- structure ------------------------------------------------------------------
    def neighborhood(self, seeds: Iterable[str], depth: int) -> set[str]:
        """Entities within `depth` fact-hops of `seeds` (incoming and outgoing)."""
        frontier = {s for s in seeds if s in self._g}
        seen = set(frontier)
        for _ in range(depth):
            nxt = set()
            for entity in frontier:
                for fact in self._by_entity.get(entity, ()):
                    nxt.update(a for a in fact.args if a not in seen)
            seen |= nxt
            frontier = nxt
            if not frontier:
                break
        return seen

    def facts_within(self, entities: Iterable[str]) -> set[Fact]:
        """Facts all of whose arguments are in `entities` (plus every 0-ary fact)."""
        keep = set(entities)
        out = {Fact(p, ()) for p in self._g.graph["props"]}
        for entity in keep:
            for fact in self._by_entity.get(entity, ()):
                if all(a in keep for a in fact.args):
                    out.add(fact)
        return out

    def subgraph(self, entities: Iterable[str]) -> WorldGraph:
        """A new graph of `entities` and the facts among them (see facts_within)."""
        keep = set(entities)
        out = WorldGraph()
        for name in sorted(keep):
            attrs = self.entity_attrs(name)
            out.add_entity(name, attrs.pop("type"), **attrs)
        for fact in self.facts_within(keep):
            out.add_fact(fact, since=self._facts[fact])
        return out

    @property
    def nx(self) -> nx.MultiDiGraph:
        """The underlying networkx graph (read it; change the world through WorldModel)."""
        return self._g

    def copy(self) -> WorldGraph:
        other = WorldGraph()
        for name in self._g.nodes:
            attrs = self.entity_attrs(name)
            other.add_entity(name, attrs.pop("type"), **attrs)
        for fact, since in self._facts.items():
            other.add_fact(fact, since=since)
        other._former = {name: list(kept) for name, kept in self._former.items()}
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WorldGraph):
            return NotImplemented
        return (
            set(self._facts) == set(other._facts)
            and {n: self.entity_type(n) for n in self._g.nodes} == {n: other.entity_type(n) for n in other._g.nodes}
        )

    __hash__ = None  # type: ignore[assignment]

    # ---- JSON -----------------------------------------------------------------------
    def to_json(self, *, with_since: bool = True) -> dict:
        """The documented graph JSON (README, "Graph JSON")."""
        from l3mp.domain.triplets import fact_to_triplet

        entities = {}
        for name in sorted(self._g.nodes):
            attrs = self.entity_attrs(name)
            if not with_since:
                attrs.pop("since", None)
            entities[name] = attrs
        facts = sorted(self._facts, key=lambda f: (f.args, f.predicate))
        out = {"format": GRAPH_FORMAT, "entities": entities, "facts": [list(fact_to_triplet(f)) for f in facts]}
        if with_since:
            out["since"] = [self._facts[f] for f in facts]
        return out

    @classmethod
    def from_json(cls, data: object) -> WorldGraph:
        """Build a graph from graph JSON; no domain check (`Verifier.check_state` does that)."""
        from l3mp.domain.triplets import fact_from_triplet

        if not isinstance(data, dict) or data.get("format") != GRAPH_FORMAT:
            raise FormatError(f"graph JSON must be an object with \"format\": \"{GRAPH_FORMAT}\"")
        entities, facts = data.get("entities"), data.get("facts")
        if not isinstance(entities, dict) or not isinstance(facts, list):
            raise FormatError("graph JSON needs an 'entities' object and a 'facts' list")
        since = data.get("since") or [0] * len(facts)
        if not isinstance(since, list) or len(since) != len(facts) or not all(_is_seq(s) for s in since):
            raise FormatError("graph JSON 'since' must list one record number (integer >= 0) per fact")
        graph = cls()
        for name, attrs in entities.items():
            if not isinstance(attrs, dict) or not isinstance(attrs.get("type"), str) or not attrs["type"]:
                raise FormatError(f"entity {name!r} needs an object with a non-empty string 'type'")
            unknown = set(attrs) - ENTITY_ATTRS
            if unknown:
                raise FormatError(
                    f"entity {name!r}: unknown attribute(s) {sorted(unknown)}; valid: {sorted(ENTITY_ATTRS)}"
                )
            if not _is_seq(attrs.get("since", 0)) or not all(
                isinstance(attrs.get(k, ""), str) for k in ("label", "description")
            ):
                raise FormatError(f"entity {name!r}: 'since' must be an integer >= 0, 'label'/'description' strings")
            extra = {k: v for k, v in attrs.items() if k != "type"}
            graph.add_entity(name.lower(), attrs["type"].lower(), **extra)
        for triplet, seq in zip(facts, since, strict=True):
            fact, _ = fact_from_triplet(triplet)
            try:
                graph.add_fact(fact, since=seq)
            except KeyError as exc:
                raise FormatError(f"graph JSON fact {triplet!r}: {exc.args[0]}") from exc
        return graph


def _is_seq(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
