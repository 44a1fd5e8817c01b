"""The world model: the one place where the live graph changes (verified, atomic, durable)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.domain.triplets import Fact, triplet_with_truth
from l3mp.errors import DeltaRejected, FormatError, L3mpError, StoreError
from l3mp.world.delta import Delta, EntitySpec, parse_entities, parse_names, parse_triplet
from l3mp.world.graph import WorldGraph
from l3mp.world.history import History, apply_record, replay_checked
from l3mp.world.journal import Damage
from l3mp.world.jsondoc import check_count, check_text, shown
from l3mp.world.record import SOURCES, ChangeRecord
from l3mp.world.store import Store
from l3mp.world.verify import Verdict, Verifier, Violation

log = logging.getLogger(__name__)

CREATES_ENTITIES = frozenset({"perception", "user", "import"})


@dataclass(frozen=True)
class Update:
    """A delta and where it came from, as submitted to `WorldModel.apply_many`."""

    delta: Delta
    source: str
    input: str | None = None
    ref: str | None = None
    allow_new_entities: bool | None = None


@dataclass(frozen=True)
class Outcome:
    """What became of one update: its record (None if it changed nothing) or its violations."""

    record: ChangeRecord | None = None
    violations: tuple[Violation, ...] = ()

    @property
    def accepted(self) -> bool:
        return not self.violations


@dataclass(frozen=True)
class Observation:
    """A perception batch: typed entities and triplets with truth values."""

    facts: tuple[tuple[Fact, bool], ...]
    entities: dict[str, EntitySpec] = field(default_factory=dict)
    remove_entities: tuple[str, ...] = ()
    observation_id: str | None = None

    @classmethod
    def from_json(cls, data: object) -> Observation:
        """Parse perception JSON (README, "Perception JSON")."""
        if not isinstance(data, dict):
            raise FormatError("a perception batch must be a JSON object with 'triplets'")
        unknown = set(data) - {"observation_id", "entities", "triplets", "remove_entities"}
        if unknown:
            raise FormatError(f"unknown perception key(s) {shown(sorted(unknown))}; valid: observation_id, "
                              "entities, triplets, remove_entities")
        triplets = data.get("triplets", [])
        if not isinstance(triplets, list):
            raise FormatError("'triplets' must be a list of [subject, relation, object] (object may be false), or "
                              "[subject, relation, object, false] for a fact with an object that is no longer true")
        check_count(triplets, "a perception batch")
        facts = tuple(parse_triplet(t, f"'triplets'[{i}]", allow_false=True) for i, t in enumerate(triplets))
        removed = parse_names(data.get("remove_entities", []), "remove_entities")
        obs_id = data.get("observation_id")
        if obs_id is not None and not isinstance(obs_id, str):
            raise FormatError("'observation_id' must be a string")
        if obs_id is not None:
            check_text(obs_id, "'observation_id'")
        return cls(facts, parse_entities(data.get("entities", {})), removed, obs_id)

    def to_json(self) -> dict:
        """Perception JSON that `from_json` reads back: a false fact with an object as ``[s, p, o, false]``."""
        out: dict = {}
        if self.observation_id is not None:
            out["observation_id"] = self.observation_id
        if self.entities:
            out["entities"] = {n: {"type": s.type, **s.attrs()} for n, s in self.entities.items()}
        out["triplets"] = [triplet_with_truth(fact, truth) for fact, truth in self.facts]
        if self.remove_entities:
            out["remove_entities"] = list(self.remove_entities)
        return out


class WorldModel:
    """Owns a WorldGraph: every change is verified, applied whole or not at all, and journaled
    (fsync'd) before it is acknowledged. Thread-safe."""

    def __init__(
        self,
        domain: Domain,
        rules: RuleSet | None = None,
        *,
        store: Store | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._domain = domain
        self._verifier = Verifier(domain, rules if rules is not None else RuleSet.for_domain(domain))
        self._store = store
        self._clock = clock
        self._lock = threading.RLock()
        self._graph = WorldGraph()
        self._last_seq = 0
        self._last_time = 0.0
        self._warnings: list[str] = []
        self._held: list[int] = []
        if store is not None:
            self._recover(store)
        self._graph.add_missing_entities(self._domain.constants)

    @classmethod
    def open(
        cls,
        domain: Domain,
        path: str | Path,
        *,
        rules: RuleSet | None = None,
        fsync: bool = True,
        snapshot_every: int = 10_000,
        read_only: bool = False,
    ) -> WorldModel:
        """Open (or create) the durable world model stored under `path`."""
        store = Store(path, fsync=fsync, snapshot_every=snapshot_every, read_only=read_only)
        return cls(domain, rules, store=store)

    # ---- read access ----------------------------------------------------------------
    @property
    def graph(self) -> WorldGraph:
        """The live graph. Read it; change it only through this model."""
        return self._graph

    @property
    def domain(self) -> Domain:
        return self._domain

    @property
    def verifier(self) -> Verifier:
        return self._verifier

    @property
    def store(self) -> Store | None:
        return self._store

    @property
    def history(self) -> History:
        """Queries over every change this model's store has journaled (needs a store)."""
        if self._store is None:
            raise StoreError("this world model has no store, so it keeps no history")
        return History(self._store, constants=self._domain.constants, verifier=self._verifier)

    @property
    def last_seq(self) -> int:
        return self._last_seq

    @property
    def warnings(self) -> list[str]:
        """Warnings from recovery (damage found, a torn journal tail cut off, a fallback snapshot, held records)."""
        return list(self._warnings)

    @property
    def held(self) -> list[int]:
        """Numbers of readable records left out of the graph: after a damaged record they no longer fitted."""
        return list(self._held)

    def damage(self) -> list[Damage]:
        """Damage in the store that no person has acknowledged yet (`l3mp store ack`); empty without a store."""
        with self._lock:
            return self._store.unacknowledged_damage() if self._store is not None else []

    def verify(self, delta: Delta, *, source: str, allow_new_entities: bool | None = None) -> Verdict:
        """Check a delta against the current graph without applying it."""
        with self._lock:
            return self._verifier.check(self._graph, delta, allow_new_entities=_allow_new(source, allow_new_entities))

    # ---- changes --------------------------------------------------------------------
    def apply(
        self,
        delta: Delta,
        *,
        source: str,
        input: str | None = None,
        ref: str | None = None,
        allow_new_entities: bool | None = None,
    ) -> ChangeRecord | None:
        """Verify and apply one delta; returns its record (None if it changed nothing).

        Raises DeltaRejected (graph unchanged) or StoreError (graph unchanged).
        """
        outcome = self.apply_many([Update(delta, source, input, ref, allow_new_entities)])[0]
        if not outcome.accepted:
            raise DeltaRejected(list(outcome.violations))
        return outcome.record

    def apply_many(self, updates: Sequence[Update | Observation]) -> list[Outcome]:
        """Verify each update (or perception batch) on top of the ones before it; journal all
        accepted ones with one fsync, then acknowledge. A rejected one does not stop the others."""
        with self._lock:
            outcomes: list[Outcome] = []
            applied: list[tuple[ChangeRecord, _Prior]] = []
            before = (self._last_seq, self._last_time)
            try:
                for update in updates:
                    outcome, prior = self._stage(update)
                    outcomes.append(outcome)
                    if outcome.record is not None:
                        applied.append((outcome.record, prior))
                if applied and self._store is not None:
                    self._store.append([record for record, _ in applied])
            except BaseException:
                for record, prior in reversed(applied):
                    _undo(self._graph, record, prior)
                self._last_seq, self._last_time = before
                raise
            self._maybe_snapshot()
            return outcomes

    def perceive_many(self, observations: Sequence[Observation]) -> list[Outcome]:
        """Apply perception batches in order with one fsync; each sees the effect of the previous."""
        return self.apply_many(observations)

    def perceive(self, observation: Observation) -> ChangeRecord | None:
        """Apply a perception batch: true triplets are added, false ones removed; an observed
        fact supersedes an existing fact that a rule allows only one of (e.g. a new place)."""
        return self.apply(self.perception_delta(observation), source="perception",
                          input=None, ref=observation.observation_id)

    def perception_delta(self, observation: Observation) -> Delta:
        """The delta a perception batch means against the current graph."""
        with self._lock:
            asserted = {f for f, truth in observation.facts if truth}
            denied = {f for f, truth in observation.facts if not truth}
            both = sorted(asserted & denied)
            if both:
                raise DeltaRejected([
                    Violation("contradiction", f"{f} is observed both true and false in this batch; keep one", fact=f)
                    for f in both
                ])
            adds = [f for f in asserted if not self._graph.has_fact(f)]
            # a false fact that is absent is a no-op, unless it does not fit the domain: then let
            # the verifier explain it (unknown predicate, wrong arity) instead of ignoring it
            removes = {f for f in denied if self._graph.has_fact(f) or not self._fits_domain(f)}
            for fact in adds:
                removes.update(self._superseded(fact, asserted))
            entities = {n: s for n, s in observation.entities.items() if self._graph.entity_type(n) != s.type}
            return Delta(remove=tuple(sorted(removes)), add=tuple(sorted(adds)), entities=entities,
                         remove_entities=observation.remove_entities)

    def snapshot(self) -> None:
        """Write a compacted snapshot now (also happens every `snapshot_every` records)."""
        with self._lock:
            if self._store is not None and self._last_seq > 0:
                self._store.snapshot(self._graph.to_json(), self._last_seq, self._last_time)

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def __enter__(self) -> WorldModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- internals ------------------------------------------------------------------
    def _stage(self, update: Update | Observation) -> tuple[Outcome, _Prior | None]:
        if isinstance(update, Observation):
            try:
                update = Update(self.perception_delta(update), "perception", ref=update.observation_id)
            except DeltaRejected as exc:
                return Outcome(violations=tuple(exc.violations)), None
        if update.source not in SOURCES:
            raise ValueError(f"unknown source {update.source!r}; use one of {SOURCES}")
        allow = _allow_new(update.source, update.allow_new_entities)
        verdict = self._verifier.check(self._graph, update.delta, allow_new_entities=allow)
        if not verdict.ok:
            return Outcome(violations=verdict.violations), None
        if verdict.effective.is_empty():
            return Outcome(), None
        self._last_time = max(self._clock(), self._last_time)
        record = ChangeRecord(seq=self._last_seq + 1, time=self._last_time, source=update.source,
                              delta=verdict.effective, input=update.input, ref=update.ref)
        prior = _Prior(
            entities={n: self._graph.entity_attrs(n) for n in record.delta.remove_entities},
            since={f: self._graph.fact_since(f) or 0 for f in record.delta.remove},
        )
        apply_record(self._graph, record)
        self._last_seq = record.seq
        return Outcome(record=record), prior

    def _superseded(self, fact: Fact, asserted: set[Fact]) -> Iterable[Fact]:
        for rule in self._verifier.rules.for_predicate(fact.predicate):
            if rule.max != 1:
                continue
            for key in rule.keys_of(fact.predicate, fact.args):
                for old in self._graph.facts_of(key):
                    if old not in asserted and key in rule.keys_of(old.predicate, old.args):
                        yield old

    def _fits_domain(self, fact: Fact) -> bool:
        pred = self._domain.predicate(fact.predicate)
        return pred is not None and pred.arity == len(fact.args)

    def _maybe_snapshot(self) -> None:
        if self._store is None or not self._store.snapshot_due():
            return
        try:
            self._store.snapshot(self._graph.to_json(), self._last_seq, self._last_time)
        except (OSError, StoreError) as exc:  # the journal still holds every change
            log.warning("snapshot failed, will retry at the next change: %s", exc)

    def _recover(self, store: Store) -> None:
        recovered = store.open()
        meta = recovered.meta or {}
        if not meta and recovered.last_seq:
            store.close()
            raise StoreError(f"{store.path / 'meta.json'} is missing, but the journal holds records "
                             f"1..{recovered.last_seq}; restore it (it names the domain those records belong to)")
        if meta and meta.get("domain_sha256") not in (None, self._domain.sha256):
            store.close()
            raise StoreError(
                f"store {store.path} holds a world of domain '{meta.get('domain')}' "
                f"(sha256 {str(meta.get('domain_sha256'))[:12]}), not of {self._domain.source} "
                f"(sha256 {self._domain.sha256[:12]}); open it with that domain or use another store path"
            )
        if not meta and not store.read_only:
            store.set_meta({"domain": self._domain.name, "domain_sha256": self._domain.sha256,
                            "domain_source": self._domain.source})
        try:
            if recovered.snapshot is not None:
                self._graph = WorldGraph.from_json(recovered.snapshot)
            self._graph.add_missing_entities(self._domain.constants)
            self._held = replay_checked(self._graph, recovered.records.raw(), after=recovered.snapshot_seq,
                                        verifier=self._verifier)
            if recovered.last_time is not None:
                self._last_time = max(self._last_time, recovered.last_time)
        except (L3mpError, KeyError, ValueError) as exc:
            store.close()
            raise StoreError(f"store {store.path} cannot be replayed onto domain {self._domain.name}: {exc}") from exc
        self._last_seq = recovered.last_seq
        self._warnings = list(recovered.warnings)
        if self._held:
            self._warnings.append(f"{len(self._held)} record(s) after damaged ones no longer fit and are held back "
                                  f"(not in the graph): {numbers_text(self._held)}; see 'l3mp store salvage'")
        for warning in self._warnings:
            log.warning("%s", warning)



def numbers_text(seqs: Sequence[int], shown: int = 10) -> str:
    """Record numbers for people: ``#4, #6`` (the first `shown`, then how many more)."""
    text = ", ".join(f"#{n}" for n in seqs[:shown])
    return text + (f" and {len(seqs) - shown} more" if len(seqs) > shown else "")


def _allow_new(source: str, explicit: bool | None) -> bool:
    return explicit if explicit is not None else source in CREATES_ENTITIES


@dataclass(frozen=True)
class _Prior:
    """What a staged record overwrote, so that it can be undone exactly."""

    entities: dict[str, dict]
    since: dict[Fact, int]


def _undo(graph: WorldGraph, record: ChangeRecord, prior: _Prior) -> None:
    """Reverse an applied record (used only when journaling it failed)."""
    delta = record.delta
    for fact in delta.add:
        graph.remove_fact(fact)
    for name in delta.entities:
        graph.remove_entity(name)
    for name, attrs in prior.entities.items():
        attrs = dict(attrs)
        graph.add_entity(name, attrs.pop("type"), **attrs)
    for fact in delta.remove:
        graph.add_fact(fact, since=prior.since[fact])
    graph.forget_former(record.seq)
