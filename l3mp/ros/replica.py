"""A replica of a remote world model: a storeless WorldModel kept in step by state messages and change records."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.errors import FormatError, StoreError
from l3mp.ros.protocol import STATE_FORMAT
from l3mp.world.delta import state_delta
from l3mp.world.graph import WorldGraph
from l3mp.world.model import Observation, Outcome, Update, WorldModel
from l3mp.world.record import ChangeRecord

log = logging.getLogger(__name__)

Writer = Callable[[Sequence[Update]], list[Outcome]]
"""Sends updates to the origin world model and returns its outcomes (records numbered by the origin)."""


class Replica(WorldModel):
    """A copy of another world model's graph (the origin, usually in another node or on another machine).

    State messages and change records are offered from any thread and applied, in the origin's record
    order, by the one thread that uses the replica, each time it reads `graph` (so the graph never
    changes under a reader). Each record is verified again here, so a replica cannot become inconsistent.
    Changes go to the origin through `writer` (without one the replica is read-only); the origin's
    records come back and are applied here before `apply` returns.
    """

    def __init__(self, domain: Domain, rules: RuleSet | None = None, *, writer: Writer | None = None) -> None:
        super().__init__(domain, rules)
        self._writer = writer
        self._inbox: deque[tuple[str, Any]] = deque()
        self._pending: dict[int, ChangeRecord] = {}
        self._origin_seq = 0
        self._synced = False
        self._problem = "no state received yet"

    # ---- feeding (any thread) ----------------------------------------------------------
    def offer_state(self, state: object) -> None:
        """A state message (``l3mp.state/1``) of the origin."""
        self._inbox.append(("state", state))

    def offer_change(self, record: object) -> None:
        """A change record of the origin (its JSON or a ChangeRecord)."""
        self._inbox.append(("change", record))

    # ---- reading (the using thread) ---------------------------------------------------
    @property
    def graph(self) -> WorldGraph:
        """The graph, brought up to date with everything offered so far."""
        self.sync()
        return super().graph

    @property
    def origin_seq(self) -> int:
        """The origin's number of the last record this replica holds."""
        return self._origin_seq

    @property
    def synced(self) -> bool:
        """True once a state was loaded and no record is missing since."""
        return self._synced and not self._pending

    @property
    def problem(self) -> str:
        """Why the replica is not in step (empty when it is)."""
        return "" if self.synced else self._problem

    def sync(self) -> None:
        """Apply what was offered: a newer state replaces the graph, records apply in order."""
        while self._inbox:
            kind, payload = self._inbox.popleft()
            try:
                if kind == "state":
                    self._load_state(payload)
                else:
                    self._queue_change(payload)
            except (FormatError, StoreError) as exc:
                self._synced = False
                self._problem = str(exc)
                log.error("replica: %s", exc)
        self._apply_pending()

    # ---- writing -----------------------------------------------------------------------
    def apply_many(self, updates: Sequence[Update | Observation]) -> list[Outcome]:
        """Send the updates to the origin; its records are applied here too before this returns."""
        if self._writer is None:
            raise StoreError("this replica is read-only: send changes to the world-model node")
        if any(isinstance(u, Observation) for u in updates):
            raise StoreError("send perception to the world-model node's perception topic, not through a replica")
        outcomes = self._writer(updates)
        for outcome in outcomes:
            if outcome.record is not None:
                self.offer_change(outcome.record)
        self.sync()
        return outcomes

    # ---- internals ---------------------------------------------------------------------
    def _load_state(self, state: object) -> None:
        if not isinstance(state, dict) or not isinstance(state.get("seq"), int) or "graph" not in state:
            raise FormatError("a state message must be a JSON object with integer 'seq' and 'graph'")
        if state.get("domain_sha256") != self.domain.sha256:
            raise StoreError(f"the world model's domain {state.get('domain')!r} (sha256 "
                             f"{str(state.get('domain_sha256'))[:12]}) is not this node's domain {self.domain.name} "
                             f"(sha256 {self.domain.sha256[:12]}): give both nodes the same 'domain' parameter")
        if self._synced and state["seq"] <= self._origin_seq:
            return
        target = WorldGraph.from_json(state["graph"])
        delta = state_delta(self.domain, super().graph, target, replace=True)
        if not delta.is_empty():
            outcome = WorldModel.apply_many(self, [Update(delta, "import", ref=f"state@{state['seq']}")])[0]
            if not outcome.accepted:
                raise StoreError("the world model's state does not verify here (same domain, other rules?): "
                                 + "; ".join(v.message for v in outcome.violations[:3]))
        self._origin_seq = state["seq"]
        self._pending = {s: r for s, r in self._pending.items() if s > self._origin_seq}
        self._synced = True
        self._problem = ""

    def _queue_change(self, payload: object) -> None:
        record = payload if isinstance(payload, ChangeRecord) else ChangeRecord.from_json(payload)
        if record.seq > self._origin_seq:
            self._pending[record.seq] = record

    def _apply_pending(self) -> None:
        if not self._synced:
            return
        while self._origin_seq + 1 in self._pending:
            record = self._pending.pop(self._origin_seq + 1)
            update = Update(record.delta, record.source, record.input, record.ref, allow_new_entities=True)
            outcome = WorldModel.apply_many(self, [update])[0]
            if not outcome.accepted:
                self._synced = False
                self._problem = (f"record {record.seq} of the world model does not verify here: "
                                 + "; ".join(v.message for v in outcome.violations[:3]))
                log.error("replica: %s", self._problem)
                return
            self._origin_seq = record.seq
        if self._pending:
            self._problem = f"records {self._origin_seq + 1}..{min(self._pending) - 1} of the world model are missing"


def state_message(world: WorldModel, *, origin: str) -> dict[str, Any]:
    """The ``l3mp.state/1`` message of a world model (call it while no one changes the model)."""
    domain = world.domain
    return {"format": STATE_FORMAT, "seq": world.last_seq, "origin": origin, "domain": domain.name,
            "domain_sha256": domain.sha256, "graph": world.graph.to_json()}
