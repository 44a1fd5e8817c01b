"""The world-model node: owns the graph and its store; perception, NL updates, deltas, queries, state and changes."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from typing import Any

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.event_handler import SubscriptionEventCallbacks
from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from std_srvs.srv import Trigger

from l3mp.domain.triplets import fact_to_triplet
from l3mp.errors import FormatError, LLMError, StoreError
from l3mp.questions import QUESTION_KIND, QuestionAnswerer, question_fields
from l3mp.ros import protocol as m
from l3mp.ros.base import L3mpNode
from l3mp.ros.health import ERROR, OK, WARN, LazyLLM, age, store_writable
from l3mp.ros.params import WORLD_MODEL, check_retrieval, llm_settings
from l3mp.ros.replica import Replica, state_message
from l3mp.ros.worker import Worker
from l3mp.world.delta import Delta
from l3mp.world.jsondoc import MAX_DEPTH, check_depth
from l3mp.world.model import Observation, Outcome, Update, WorldModel
from l3mp.world.query import find_entities, find_facts, known_entity
from l3mp.world.record import ChangeRecord
from l3mp.world.store import default_store_path

PERCEPTION_DEPTH = 10_000
"""History of the perception subscription (reliable): messages DDS keeps for the node while its executor is busy
(a shallower history drops the oldest unread ones silently when a burst outruns the executor)."""
INBOX_MESSAGES = 10_000
"""Perception messages that may wait; the next one is answered ``busy`` at once (README: the burst absorbed)."""
INBOX_BYTES = 256_000_000
"""Bytes of perception messages that may wait."""
GROUP_MESSAGES = 500
"""Most waiting perception messages applied together (one fsync); fewer than the result topic's depth."""
_OBSERVATION_ID = re.compile(r'"observation_id"\s*:\s*"((?:[^"\\]|\\.){1,200})"')
log = logging.getLogger(__name__)

APPLY_SOURCES = ("user", "plan", "nl")
"""Sources a delta on ~/apply may claim (perception has its own topic; imports go through `l3mp init/import`)."""
REMEMBERED_APPLIES = 1000
"""Results of the last deltas with an id, answered again for a repeated id instead of applying twice."""


class WorldModelNode(L3mpNode):
    """Owns the WorldModel. Short requests (perception, deltas, queries) are handled in callbacks under one
    lock; NL updates run on a worker thread against a replica of the graph, and their delta is applied
    to the live model (verified again there), so an LLM call never holds up perception."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("world_model", WORLD_MODEL, results_topic=f"~/{m.RESULTS}", **kwargs)
        p = self.params
        check_retrieval(p["update.retrieval"], "parameter update.retrieval")
        self.store_path = default_store_path(p["store_path"])
        self._lock = threading.Lock()
        self.world = WorldModel.open(self.domain, self.store_path, rules=self.rules, fsync=p["fsync"],
                                     snapshot_every=p["snapshot_every"])
        self._answerer = QuestionAnswerer(self.domain, self.rules)
        self.llm = LazyLLM(llm_settings(p))
        self._retriever: Any = None
        self._replica = Replica(self.domain, self.rules, writer=self._write)
        self._replica.offer_state(state_message(self.world, origin=self.get_fully_qualified_name()))
        self.last_update: float | None = None
        self.triplets = 0
        self._published_seq = -1
        self._applied: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._state_due = 0.0
        requests = MutuallyExclusiveCallbackGroup()
        self._state = self.create_publisher(String, f"~/{m.STATE}", m.state_qos())
        self._changes = self.create_publisher(String, f"~/{m.CHANGES}", m.changes_qos())
        qos = m.request_qos()
        self.busy = self.lost = 0
        self._inbox = Inbox("l3mp-perception", self._perceive_group, failed=self._group_failed)
        self.create_subscription(String, f"~/{m.PERCEPTION}", self.guarded(m.PERCEPTION, self._on_perception),
                                 QoSProfile(depth=PERCEPTION_DEPTH, reliability=ReliabilityPolicy.RELIABLE),
                                 callback_group=requests,
                                 event_callbacks=SubscriptionEventCallbacks(message_lost=self._on_lost))
        for name, handle in ((m.APPLY, self._on_apply), (m.QUERY, self._on_query), (m.NL_UPDATE, self._on_nl_update)):
            self.create_subscription(String, f"~/{name}", self.guarded(name, handle), qos, callback_group=requests)
        self.create_service(Trigger, f"~/{m.GET_STATE}", self._get_state, callback_group=requests)
        self.create_service(Trigger, f"~/{m.SNAPSHOT}", self._snapshot, callback_group=requests)
        self.create_timer(min(0.1, p["state_period_s"]), self._maybe_publish_state, callback_group=self.housekeeping)
        self._nl = Worker("l3mp-nl-updates", self._run_nl_update, capacity=p["limits.max_queue"],
                          failed=self.job_failed(m.NL_UPDATE),
                          idle=self._replica.sync)
        self._publish_state()
        self.get_logger().info(f"world model of domain {self.domain.name} at {self.store_path}: "
                               f"{self.world.graph.entity_count()} entities, {self.world.graph.fact_count()} facts, "
                               f"record {self.world.last_seq}")

    # ---- perception ----------------------------------------------------------------------
    def _on_perception(self, msg: String) -> None:
        """Take the message off DDS at once (so that its history never overflows) and queue it for the inbox
        thread; when the queue is full, answer ``busy`` now."""
        if self._inbox.offer(msg.data):
            return
        self.busy += 1
        self.publish_result(m.error(m.PERCEPTION, _perception_id(msg.data), "busy",
                                    f"{self._inbox.depth} perception messages are waiting (at most {INBOX_MESSAGES} "
                                    f"messages, {INBOX_BYTES} bytes); send it again later"))

    def _on_lost(self, info: Any) -> None:
        """DDS reports perception messages lost before they reached the node (counted for diagnostics)."""
        self.lost += info.total_count_change
        self.get_logger().warning(f"{info.total_count_change} perception message(s) lost before the node got them "
                                  f"({self.lost} in all)")

    def _perceive_group(self, messages: list[str]) -> None:
        """Apply every perception message waiting (their batches in arrival order, one fsync) and answer each."""
        parsed = []
        for data in messages:
            try:
                parsed.append(self._perception(data))
            except FormatError as exc:
                self.publish_result(m.error(m.PERCEPTION, _perception_id(data), "malformed", str(exc)))
            except Exception as exc:  # a bug reading one message must not cost the others of the group
                self._group_failed([data], exc)
        try:
            outcomes = iter(self._write([o for _, observations in parsed for o in observations]))
        except StoreError as exc:
            for ident, _ in parsed:
                self.publish_result(m.error(m.PERCEPTION, ident, "store", str(exc)))
            return
        for ident, observations in parsed:
            self._answer_perception(ident, observations, [next(outcomes) for _ in observations])

    def _perception(self, data: str) -> tuple[str, list[Observation]]:
        """A perception message's id and batches; FormatError if it is malformed or too large."""
        try:
            value = check_depth(m.decode(data, max_bytes=self.params["limits.max_message_bytes"]), "message")
        except RecursionError:  # json's own nesting limit
            raise FormatError(f"message is nested deeper than {MAX_DEPTH} levels") from None
        batches = value if isinstance(value, list) else [value]
        observations = [_observation(batch, i, len(batches)) for i, batch in enumerate(batches)]
        triplets = sum(len(o.facts) for o in observations)
        if triplets > self.params["limits.max_batch_triplets"]:
            raise FormatError(f"{triplets} triplets in one message; limits.max_batch_triplets is "
                              f"{self.params['limits.max_batch_triplets']}")
        return next((o.observation_id for o in observations if o.observation_id), m.new_id(m.PERCEPTION)), observations

    def _answer_perception(self, ident: str, observations: list[Observation], outcomes: list[Outcome]) -> None:
        self.triplets += sum(len(o.facts) for o in observations)
        batches_out = [{"observation_id": o.observation_id, "accepted": out.accepted,
                        "seq": out.record.seq if out.record else None,
                        "violations": [v.to_json() for v in out.violations]}
                       for o, out in zip(observations, outcomes, strict=True)]
        fields = {"batches": batches_out, "last_seq": self.world.last_seq}
        if all(out.accepted for out in outcomes):
            self.publish_result(m.result(m.PERCEPTION, ident, True, **fields))
        else:
            rejected = sum(1 for out in outcomes if not out.accepted)
            self.publish_result(m.error(m.PERCEPTION, ident, "rejected", f"{rejected} of {len(outcomes)} batch(es) "
                                        "rejected (see 'batches'); the others were applied", **fields))

    def _group_failed(self, messages: list[str], exc: Exception) -> None:
        self.get_logger().error(f"perception: internal error: {type(exc).__name__}: {exc}")
        for data in messages:
            self.publish_result(m.error(m.PERCEPTION, _perception_id(data), "internal", f"{type(exc).__name__}: {exc}"))

    # ---- deltas ----------------------------------------------------------------------------
    def _on_apply(self, msg: String) -> None:
        ident = m.new_id(m.APPLY)
        try:
            request = m.request_object(msg.data, max_bytes=self.params["limits.max_message_bytes"], text_key="delta")
            ident = m.request_id(request, m.APPLY)
            if ident in self._applied:  # a resent request: answer again, apply once
                self.publish_result(self._applied[ident])
                return
            m.take(request, {"id": str, "delta": dict, "source": str, "input": str, "ref": str}, ("delta",))
            source = request.get("source", "user")
            if source not in APPLY_SOURCES:
                raise FormatError(f"'source' must be one of {', '.join(APPLY_SOURCES)}, not {source!r}")
            update = Update(Delta.from_json(request["delta"]), source, request.get("input"), request.get("ref"))
        except FormatError as exc:
            self.publish_result(m.error(m.APPLY, ident, "malformed", str(exc)))
            return
        try:
            [outcome] = self._write([update])
        except StoreError as exc:
            self.publish_result(m.error(m.APPLY, ident, "store", str(exc)))
            return
        result = _outcome_result(m.APPLY, ident, outcome)
        self._applied[ident] = result
        while len(self._applied) > REMEMBERED_APPLIES:
            self._applied.popitem(last=False)
        self.publish_result(result)

    def _write(self, updates: Sequence[Update | Observation]) -> list[Outcome]:
        """Apply to the live model (one fsync), then publish each record (under the lock, so in record order) and
        hand it to the NL replica."""
        with self._lock:
            outcomes = self.world.apply_many(updates)
            records = [o.record for o in outcomes if o.record is not None]
            for record in records:
                self._changes.publish(String(data=m.dumps(record.to_json())))
                self._replica.offer_change(record)
        if records:
            self.last_update = time.time()
        return outcomes

    # ---- queries ---------------------------------------------------------------------------
    def _on_query(self, msg: String) -> None:
        ident = m.new_id(m.QUERY)
        try:
            request = m.request_object(msg.data, max_bytes=self.params["limits.max_message_bytes"], text_key="kind")
            ident = m.request_id(request, m.QUERY)
            m.take(request, {"id": str, "kind": str, "entity": str, "predicate": str, "type": str, "question": str,
                             "now": (int, float)}, ("kind",))
            with self._lock:
                answer = self._answer(request)
        except FormatError as exc:
            self.publish_result(m.error(m.QUERY, ident, "malformed", str(exc)))
            return
        except StoreError as exc:  # a history query reads the journal
            self.publish_result(m.error(m.QUERY, ident, "store", str(exc)))
            return
        self.publish_result(m.result(m.QUERY, ident, True, seq=self.world.last_seq, **answer))

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        graph, kind = self.world.graph, request["kind"]
        entity = known_entity(graph, request["entity"]) if request.get("entity") else None
        if kind == "facts":
            facts = find_facts(graph, self.domain, entity=entity, predicate=request.get("predicate"))
            return {"facts": [list(fact_to_triplet(f)) for f in facts]}
        if kind == "entities":
            return {"entities": find_entities(graph, self.domain, type_=request.get("type"))}
        if kind == "history":
            if entity is None:
                raise FormatError("a history query needs 'entity'")
            stories = self.world.history.explain(graph, entity)
            return {"entity": entity, "facts": [
                {"fact": list(fact_to_triplet(s.fact)), "seq": s.seq, "time": s.time, "source": s.source,
                 "input": s.input, "ref": s.ref} for s in stories]}
        if kind == QUESTION_KIND:  # answered without the LLM: queries run under the model's lock
            return question_fields(self._answerer, self.world, request)
        raise FormatError(f"unknown query kind {kind!r}; valid: facts, entities, history, question")

    # ---- natural-language updates -------------------------------------------------------------
    def _on_nl_update(self, msg: String) -> None:
        ident = m.new_id(m.NL_UPDATE)
        try:
            request = m.request_object(msg.data, max_bytes=self.params["limits.max_message_bytes"], text_key="text")
            ident = m.request_id(request, m.NL_UPDATE)
            m.take(request, {"id": str, "text": str, "ref": str}, ("text",))
        except FormatError as exc:
            self.publish_result(m.error(m.NL_UPDATE, ident, "malformed", str(exc)))
            return
        self.submit_job(self._nl, m.NL_UPDATE, ident, request, "NL updates")

    def _run_nl_update(self, job: tuple[str, dict[str, Any]]) -> None:
        from l3mp.updates import NLUpdater

        ident, request = job
        try:
            llm = self.llm.get()
            retriever = self._nl_retriever(llm)
        except (LLMError, ValueError) as exc:
            self.publish_result(m.error(m.NL_UPDATE, ident, "llm_unavailable", str(exc)))
            return
        p = self.params
        updater = NLUpdater(self._replica, llm, retriever, verify=p["update.verify"],
                            max_attempts=p["update.max_attempts"], max_delta_size=p["update.max_delta"],
                            read_text=p["update.read_text"])
        try:
            result = updater.update(request["text"], ref=request.get("ref", ident))
        except StoreError as exc:
            self.publish_result(m.error(m.NL_UPDATE, ident, "store", str(exc)))
            return
        self.llm.record(None if result.ledger.total_tokens or result.accepted else result.reason)
        payload = result.to_json()
        if result.accepted:
            self.publish_result(m.result(m.NL_UPDATE, ident, True, **payload))
        else:
            payload.pop("reason")
            code, message = ("ask", result.question) if result.question else ("not_applied", result.reason)
            self.publish_result(m.error(m.NL_UPDATE, ident, code, message or "not applied", **payload))

    def _nl_retriever(self, llm: Any) -> Any:
        from l3mp.retrieval import make_retriever

        if self._retriever is None:
            mode = self.params["update.retrieval"]
            self._retriever = make_retriever(mode, llm=llm, domain=self.domain, depth=self.params["update.depth"])
        return self._retriever

    # ---- state -----------------------------------------------------------------------------
    def _get_state(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        with self._lock:
            response.message = m.dumps(state_message(self.world, origin=self.get_fully_qualified_name()))
        response.success = True
        return response

    def _snapshot(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        try:
            with self._lock:
                self.world.snapshot()
        except (OSError, StoreError) as exc:
            response.success, response.message = False, f"snapshot failed: {exc}"
        else:
            response.success, response.message = True, f"snapshot written at record {self.world.last_seq}"
        return response

    def _maybe_publish_state(self) -> None:
        if self.world.last_seq != self._published_seq and time.monotonic() >= self._state_due:
            self._publish_state()

    def _publish_state(self) -> None:
        with self._lock:
            state = state_message(self.world, origin=self.get_fully_qualified_name())
        self._state.publish(String(data=m.dumps(state)))
        self._published_seq = state["seq"]
        self._state_due = time.monotonic() + self.params["state_period_s"]

    # ---- health and shutdown ------------------------------------------------------------------
    def checks(self) -> dict[str, tuple[int, str]]:
        store = store_writable(self.store_path) if self.world.store is not None else (ERROR, "closed")
        lost = (WARN, f"{self.lost} perception message(s) lost in DDS before the node got them") if self.lost else (
            OK, "none lost")
        return {"llm": self.llm.status(), "store": store, "journal": self._journal_health(), "perception": lost}

    def _journal_health(self) -> tuple[int, str]:
        """Damage in the store that no person has acknowledged (``l3mp store ack`` clears it while the node runs)."""
        try:
            damage = self.world.damage()
        except StoreError as exc:
            return ERROR, str(exc)
        if not damage:
            return OK, "no unacknowledged damage"
        held = f"; {len(self.world.held)} record(s) held back" if self.world.held else ""
        return ERROR, f"{len(damage)} damage report(s) not acknowledged ({damage[0].text}){held}; see 'l3mp check'"

    def values(self) -> dict[str, Any]:
        graph = self.world.graph
        return {**super().values(), "last_update": age(self.last_update), "queue_depth": self._nl.depth,
                "last_seq": self.world.last_seq, "entities": graph.entity_count(), "facts": graph.fact_count(),
                "perception_triplets": self.triplets, "perception_waiting": self._inbox.depth,
                "perception_busy": self.busy, "perception_lost": self.lost, "held_records": len(self.world.held)}

    def close(self) -> None:
        """Answer the perception waiting, stop NL updates (the running one finishes), write a snapshot, close the
        store, release the LLM."""
        self._inbox.stop()
        self._nl.stop(timeout_s=self.llm.settings.timeout_s)
        with self._lock:
            if self.world.store is not None:
                try:
                    self.world.snapshot()
                except (OSError, StoreError) as exc:  # the journal holds every change anyway
                    self.get_logger().warning(f"no snapshot at shutdown: {exc}")
                self.world.close()
        self.llm.close()


def _perception_id(data: str) -> str:
    """The id a perception message's result carries (its first observation_id), found without parsing all of it."""
    found = _OBSERVATION_ID.search(data, 0, 4096)
    return found[1] if found else m.new_id(m.PERCEPTION)


class Inbox:
    """Messages waiting for one thread that takes all of them at once (at most GROUP_MESSAGES) and hands them to
    `handle` in arrival order; at most INBOX_MESSAGES messages or INBOX_BYTES bytes wait. A group that raises goes
    to `failed` (so that its senders still get an answer)."""

    def __init__(self, name: str, handle: Callable[[list[str]], None], *,
                 failed: Callable[[list[str], Exception], None]) -> None:
        self._handle, self._failed = handle, failed
        self._waiting: deque[str] = deque()
        self._bytes = 0
        self._busy = 0
        self._stopping = False
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def depth(self) -> int:
        """Messages waiting plus those being applied."""
        return len(self._waiting) + self._busy

    def offer(self, data: str) -> bool:
        """Queue a message; False when the inbox is full or stopping."""
        with self._ready:
            if self._stopping or len(self._waiting) >= INBOX_MESSAGES or self._bytes + len(data) > INBOX_BYTES:
                return False
            self._waiting.append(data)
            self._bytes += len(data)
            self._ready.notify()
        return True

    def stop(self, timeout_s: float = 30.0) -> None:
        """Apply what waits, then end the thread."""
        with self._ready:
            self._stopping = True
            self._ready.notify()
        self._thread.join(timeout_s)

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._waiting and not self._stopping:
                    self._ready.wait()
                if not self._waiting:
                    return
                group = [self._waiting.popleft() for _ in range(min(GROUP_MESSAGES, len(self._waiting)))]
                self._bytes -= sum(len(data) for data in group)
                self._busy = len(group)
            try:
                self._handle(group)
            except Exception as exc:  # a bug must cost one group, not the node's perception
                log.exception("perception group failed")
                self._failed(group, exc)
            finally:
                self._busy = 0


def _observation(batch: object, index: int, count: int) -> Observation:
    try:
        return Observation.from_json(batch)
    except FormatError as exc:
        raise FormatError(f"batch {index + 1} of {count}: {exc}" if count > 1 else str(exc)) from None


def _outcome_result(kind: str, ident: str, outcome: Outcome) -> dict[str, Any]:
    if outcome.accepted:
        record: ChangeRecord | None = outcome.record
        return m.result(kind, ident, True, record=record.to_json() if record else None)
    return m.error(kind, ident, "rejected", "; ".join(v.message for v in outcome.violations),
                   violations=[v.to_json() for v in outcome.violations])

