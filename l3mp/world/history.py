"""Provenance over a Store: what changed when, the graph at a past time, why a fact is true."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from itertools import chain
from typing import Any

from l3mp.domain.triplets import WORLD, Fact
from l3mp.errors import StoreError
from l3mp.world.graph import WorldGraph
from l3mp.world.record import ChangeRecord
from l3mp.world.store import Recovered, Store
from l3mp.world.verify import Verifier


@dataclass(frozen=True)
class FactStory:
    """A true fact and the record that made it true (seq 0 and None fields: no record known)."""

    fact: Fact
    seq: int
    time: float | None = None
    source: str | None = None
    input: str | None = None
    ref: str | None = None


def apply_record(graph: WorldGraph, record: ChangeRecord) -> None:
    """Replay one record: removals, entity removals (with their facts), new entities, additions."""
    delta = record.delta
    for fact in delta.remove:
        graph.remove_fact(fact)
        graph.note_former(fact, record.seq)
    for name in delta.remove_entities:
        if graph.has_entity(name):
            graph.remove_entity(name, cascade=True)
    for name, spec in delta.entities.items():
        graph.add_entity(name, spec.type, since=record.seq, **spec.attrs())
    for fact in delta.add:
        graph.add_fact(fact, since=record.seq)


def replay(graph: WorldGraph, records: Iterable[dict]) -> None:
    """Apply journaled records (their JSON dicts, in order) to `graph`, as `apply_record` would.

    The fast path of recovery: the net effect of all records is gathered in plain dicts and
    applied to the graph once, so a fact that changed a thousand times costs one graph update
    (and an error while reading the records leaves `graph` unchanged). The records must come
    after the state of `graph`: numbered above every ``since`` in it.
    """
    net = _NetEffect(graph)
    for data in records:
        net.add_record(data)
    net.apply()


def replay_checked(graph: WorldGraph, records: Iterable[dict], *, after: int, verifier: Verifier) -> list[int]:
    """Replay records numbered after `after` (their JSON dicts, in order; damaged ones missing) onto `graph`.

    Up to the first missing number this is `replay`. After it, each record is verified against the graph first
    (its delta may have depended on the missing record): one that still fits is applied, one that does not is
    held back. Returns the numbers of the held records. The result depends only on the records, so every
    recovery of the same journal gives the same graph, and records written on top of it fit again.
    """
    pending: list[dict] = []
    rest = iter(records)

    def until_gap() -> Iterator[dict]:
        expected = after + 1
        for data in rest:
            if data["seq"] != expected:
                pending.append(data)
                return
            expected += 1
            yield data

    replay(graph, until_gap())
    held: list[int] = []
    for data in chain(pending, rest):
        record = ChangeRecord.from_json(data)
        verdict = verifier.check(graph, record.delta, allow_new_entities=True)
        if verdict.ok:
            apply_record(graph, replace(record, delta=verdict.effective))
        else:
            held.append(record.seq)
    return held


def rebuild(recovered: Recovered) -> WorldGraph:
    """The graph that `Store.open()` recovered: its snapshot plus the records after it."""
    graph = WorldGraph() if recovered.snapshot is None else WorldGraph.from_json(recovered.snapshot)
    replay(graph, recovered.records.raw())
    return graph


def _key(triplet: list) -> tuple[str, tuple[str, ...]]:
    """A journaled triplet (validated and lowercased when written) as a tuple equal to its Fact."""
    subject, predicate, obj = triplet
    if obj is True:
        return (predicate, () if subject == WORLD else (subject,))
    if obj.__class__ is str:
        return (predicate, (subject, obj))
    return (predicate, (subject, *obj))


_Entity = tuple[str, dict[str, Any], int]  # type, attributes, since
FORMER_REPLAYED = 50_000
"""How many of the last removals a replay recalls (`WorldGraph.former_facts`): memory stays bounded however long the
journal is."""


class _NetEffect:
    """The state of every fact and entity a run of records touched, on top of a base graph.

    Facts are kept as plain ``(predicate, args)`` tuples (equal to, and hashing like, their Fact)
    because building a NamedTuple per journaled fact is a large part of replay time. Removing an
    entity cascades to its facts lazily: a fact is true only if it was added after the last removal
    of each of its arguments (facts of the base graph are older than every record replayed).
    """

    def __init__(self, base: WorldGraph) -> None:
        self.base = base
        self.facts: dict[tuple, int | None] = {}  # touched fact -> seq that added it, None if removed
        self.entities: dict[str, _Entity | None] = {}  # touched entity -> state, None if removed
        self.removed_at: dict[str, int] = {}  # entity -> seq of its last removal
        self.former: deque[tuple[tuple, int]] = deque(maxlen=FORMER_REPLAYED)  # (fact, seq) of the last removals

    def add_record(self, data: dict) -> None:
        seq, delta = data["seq"], data["delta"]
        facts = self.facts
        if "remove" in delta:
            for triplet in delta["remove"]:
                key = _key(triplet)
                facts[key] = None
                self.former.append((key, seq))
        if "remove_entities" in delta:
            for name in delta["remove_entities"]:
                self.remove_entity(name, seq)
        if "entities" in delta:
            for name, spec in delta["entities"].items():
                self.add_entity(name, spec, seq)
        if "add" in delta:
            for triplet in delta["add"]:
                key = _key(triplet)
                if self.fact_since(key) is None:
                    facts[key] = seq

    def fact_since(self, key: tuple) -> int | None:
        facts = self.facts
        since = facts[key] if key in facts else self.base.fact_since(key)  # type: ignore[arg-type]
        if since is None or not self.removed_at:
            return since
        return None if any(self.removed_at.get(arg, -1) > since for arg in key[1]) else since

    def entity(self, name: str) -> _Entity | None:
        if name in self.entities:
            return self.entities[name]
        if not self.base.has_entity(name):
            return None
        attrs = self.base.entity_attrs(name)
        type_, since = attrs.pop("type"), attrs.pop("since")
        return type_, attrs, since

    def remove_entity(self, name: str, seq: int) -> None:
        if self.entity(name) is not None:
            self.entities[name] = None
            self.removed_at[name] = seq

    def add_entity(self, name: str, spec: dict[str, Any], seq: int) -> None:
        attrs = {k: v for k, v in spec.items() if k != "type"}
        current = self.entity(name)
        if current is None:
            self.entities[name] = (spec["type"], attrs, seq)
        else:
            self.entities[name] = (spec["type"], {**current[1], **attrs}, current[2])

    def apply(self) -> None:
        """Change the base graph to the net state, as replaying each record would have."""
        graph = self.base
        changed = {Fact(*key): self.fact_since(key) for key in self.facts}
        for fact in changed:
            graph.remove_fact(fact)
        for name in self.removed_at:
            if graph.has_entity(name):
                graph.remove_entity(name, cascade=True)
        for name, state in self.entities.items():
            if state is not None:
                type_, attrs, since = state
                graph.add_entity(name, type_, since=since, **attrs)
        for fact, since in changed.items():
            if since is not None:
                graph.add_fact(fact, since=since)
        for key, seq in self.former:
            graph.note_former(Fact(*key), seq)


class History:
    """Queries over the records of a store: changes, past graphs, explanations."""

    def __init__(self, store: Store, *, constants: Mapping[str, str] | None = None,
                 verifier: Verifier | None = None) -> None:
        self.store = store
        self._constants = dict(constants or {})
        self._verifier = verifier

    def changes(
        self,
        *,
        start_time: float | None = None,
        end_time: float | None = None,
        entity: str | None = None,
        source: str | None = None,
    ) -> list[ChangeRecord]:
        """Records in [start_time, end_time], optionally only those of `source` or touching `entity`."""
        name = entity.lower() if entity is not None else None
        return [
            ChangeRecord.from_json(data)
            for data in self.store.raw_records(start_time=start_time, end_time=end_time)
            if (source is None or data["source"] == source)
            and (name is None or _touches(data["delta"], name))
        ]

    def graph_at(self, time: float) -> WorldGraph:
        """The graph as it was at `time`: after every record with a time <= `time`."""
        last = self.store.seq_at(time)
        graph, seq = self._base_graph(last)
        graph.add_missing_entities(self._constants)
        records = self.store.raw_records(start_seq=seq + 1, end_seq=last)
        if self._verifier is None:
            replay(graph, records)
        else:  # across damaged records as the live graph was recovered
            replay_checked(graph, records, after=seq, verifier=self._verifier)
        return graph

    def _base_graph(self, last: int) -> tuple[WorldGraph, int]:
        """The newest readable snapshot at or before record `last` (or the empty graph)."""
        for seq, _ in reversed(self.store.snapshots()):
            if seq <= last:
                try:
                    return WorldGraph.from_json(self.store.load_snapshot(seq)), seq
                except StoreError:
                    continue
        return WorldGraph(), 0

    def explain(self, graph: WorldGraph, entity: str) -> list[FactStory]:
        """Every fact about `entity` in `graph` with the record that made it true, oldest first."""
        found: dict[int, ChangeRecord | None] = {0: None}
        stories = []
        for fact in graph.facts(entity=entity.lower()):
            seq = graph.fact_since(fact) or 0
            if seq not in found:
                found[seq] = self._record(seq)
            stories.append(_story(fact, seq, found[seq]))
        return sorted(stories, key=lambda story: (story.seq, str(story.fact)))

    def _record(self, seq: int) -> ChangeRecord | None:
        try:
            return self.store.record(seq)
        except KeyError:
            return None


def _story(fact: Fact, seq: int, record: ChangeRecord | None) -> FactStory:
    if record is None:
        return FactStory(fact, seq)
    return FactStory(fact, seq, record.time, record.source, record.input, record.ref)


def _touches(delta: dict, name: str) -> bool:
    """Whether a journaled delta mentions entity `name`."""
    for subject, _, obj in (*delta.get("remove", ()), *delta.get("add", ())):
        if subject == name or obj == name or (isinstance(obj, list) and name in obj):
            return True
    return name in delta.get("entities", {}) or name in delta.get("remove_entities", ())
