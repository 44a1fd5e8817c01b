"""What a question can look at: the graph (now, or as it was at a past time) and the change records behind it.

`Memory` offers the small set of operations the question pipeline runs, symbolic or chosen by an LLM: the facts
of an entity (each with the record that made it true), the neighbours at depth N, a path between two entities,
the history of an entity, the memory at time T, and selecting entities by type, predicate and place. Every
operation only reads; a past memory answers from the graph as it was then and from the records up to then.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.domain.triplets import Fact
from l3mp.world.graph import WorldGraph
from l3mp.world.history import FactStory, History
from l3mp.world.record import ChangeRecord

MAX_DEPTH = 3
"""The deepest neighbourhood an operation returns (a house is small: depth 3 reaches most of it)."""


@dataclass(frozen=True)
class Selection:
    """What a selection asked for: a type (and its subtypes), a unary state that must hold (or not), a place."""

    type_: str | None = None
    state: str | None = None
    state_holds: bool = True
    place: str | None = None


class Memory:
    """Read-only operations over a graph and the history of its store (see the module docstring).

    `history` is None for a graph without a store (then no fact has a record and the past is unknown); `seq` is
    the last record the graph reflects and `time` when it was taken (None: now).
    """

    def __init__(self, graph: WorldGraph, domain: Domain, rules: RuleSet, history: History | None = None, *,
                 seq: int | None = None, time: float | None = None) -> None:
        self.graph = graph
        self.domain = domain
        self.rules = rules
        self.history = history
        self.seq = seq
        self.time = time
        self._records: dict[int, ChangeRecord] = {}

    # ---- the record behind a fact ----------------------------------------------------------
    def story(self, fact: Fact) -> FactStory:
        """`fact` (true in this graph) with the record that made it true (seq 0: known without a record)."""
        seq = self.graph.fact_since(fact) or 0
        record = self.record(seq)
        if record is None:
            return FactStory(fact, seq)
        return FactStory(fact, seq, record.time, record.source, record.input, record.ref)

    def record(self, seq: int) -> ChangeRecord | None:
        """Change record `seq` (None without a store, for 0, or for a record the journal no longer has)."""
        if self.history is None or seq <= 0:
            return None
        return self._records.get(seq) or self._load(seq)

    def _load(self, seq: int) -> ChangeRecord | None:
        try:
            record = self.history.store.record(seq)  # type: ignore[union-attr]
        except KeyError:
            return None
        self._records[seq] = record
        return record

    @cached_property
    def first_record(self) -> ChangeRecord | None:
        """The oldest record of the store: where the memory begins."""
        return self.record(1)

    # ---- operations ------------------------------------------------------------------------
    def facts_of(self, entity: str) -> list[FactStory]:
        """Every fact that mentions `entity`, with its record, oldest first."""
        stories = [self.story(f) for f in self.graph.facts(entity=entity)]
        return sorted(stories, key=lambda s: (s.seq, str(s.fact)))

    def neighbours(self, entity: str, depth: int = 1) -> set[str]:
        """The entities within `depth` (at most `MAX_DEPTH`) fact hops of `entity`, itself excluded."""
        return self.graph.neighborhood([entity], max(0, min(depth, MAX_DEPTH))) - {entity}

    def path(self, start: str, goal: str) -> list[Fact] | None:
        """The facts along a shortest chain of facts from `start` to `goal` ([] if they are the same, None if no
        chain joins them)."""
        graph = self.graph
        if not (graph.has_entity(start) and graph.has_entity(goal)):
            return None
        came: dict[str, tuple[str, Fact] | None] = {start: None}
        queue = deque([start])
        while queue and goal not in came:
            here = queue.popleft()
            for fact in sorted(graph.facts(entity=here)):
                for other in fact.args:
                    if other not in came:
                        came[other] = (here, fact)
                        queue.append(other)
        if goal not in came:
            return None
        chain: list[Fact] = []
        node = goal
        while came[node] is not None:
            node, fact = came[node]  # type: ignore[misc]
            chain.append(fact)
        return chain[::-1]

    def history_of(self, entity: str) -> list[ChangeRecord]:
        """The records that touched `entity`, oldest first (up to this memory's time)."""
        if self.history is None:
            return []
        return [r for r in self.history.changes(entity=entity) if self.seq is None or r.seq <= self.seq]

    def at(self, time: float) -> Memory:
        """The memory as it was at `time`: the graph after every record up to then (needs a history)."""
        if self.history is None:
            raise ValueError("a graph without a store has no past")
        seq = self.history.store.seq_at(time)
        return Memory(self.history.graph_at(time), self.domain, self.rules, self.history, seq=seq, time=time)

    def select(self, selection: Selection) -> list[str]:
        """The entities (sorted) of a type, whose state holds (or not), located at a place (see `located_at`)."""
        graph, domain = self.graph, self.domain
        names: Iterable[str] = graph.entities()
        if selection.type_:
            names = [n for n in names if domain.is_subtype(graph.entity_type(n) or "", selection.type_)]
        if selection.state:
            state = selection.state
            names = [n for n in names if graph.has_fact(Fact(state, (n,))) == selection.state_holds]
        if selection.place:
            names = [n for n in names if self.located_at(n, selection.place)]
        return sorted(names)

    # ---- where things are ------------------------------------------------------------------
    def location(self, entity: str) -> Fact | None:
        """The fact that says where `entity` is: the fact of another entity that a rule allows exactly one of
        (an item's place, an agent's or fixture's room); None if it has none."""
        for rule in self.rules.rules:
            if rule.max != 1 or rule.min < 1:
                continue
            for fact in sorted(self.graph.facts(entity=entity)):
                if len(fact.args) > 1 and entity in rule.keys_of(fact.predicate, fact.args):
                    return fact
        return None

    def place(self, entity: str) -> str | None:
        """The entity that `location` says `entity` is at (a surface, a container, a holder, a room)."""
        fact = self.location(entity)
        return None if fact is None else next(a for a in fact.args if a != entity)

    def room_chain(self, entity: str) -> list[Fact]:
        """The location facts from `entity` up to its room ([] for a room or an entity nowhere)."""
        chain: list[Fact] = []
        seen = {entity}
        here = entity
        while self.graph.entity_type(here) != "room":
            fact = self.location(here)
            if fact is None:
                return []
            chain.append(fact)
            here = next(a for a in fact.args if a != here)
            if here in seen:
                return []
            seen.add(here)
        return chain

    def room(self, entity: str) -> str | None:
        """The room `entity` is in (through its place: a mug on a table is in the table's room)."""
        chain = self.room_chain(entity)
        return None if not chain else next(a for a in chain[-1].args if self.graph.entity_type(a) == "room")

    def located_at(self, entity: str, place: str) -> bool:
        """Whether `entity` is at `place`: its place, or anywhere on the way up to its room."""
        return any(place in fact.args for fact in self.room_chain(entity)) and entity != place

    def label(self, entity: str) -> str:
        """The words for an entity: its label, else its name without the number."""
        attrs = self.graph.entity_attrs(entity) if self.graph.has_entity(entity) else {}
        return str(attrs.get("label") or attrs.get("description") or entity.replace("_", " "))
