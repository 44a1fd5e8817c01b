"""The ROS 2 protocol of l3mp's nodes, in one place: topic names, their QoS, the JSON payloads they carry
(std_msgs/String: request parsing, result building) and request/response over a pair of topics (Requester)."""

from __future__ import annotations

import itertools
import json
import os
import socket
import threading
import time
from typing import Any

from l3mp.errors import FormatError
from l3mp.world.jsondoc import parse_json

# ---- topic names ---------------------------------------------------------------------------
STATE = "state"
CHANGES = "changes"
PERCEPTION = "perception"
NL_UPDATE = "nl_update"
APPLY = "apply"
QUERY = "query"
RESULTS = "results"
GET_STATE = "get_state"
SNAPSHOT = "snapshot"
TASK = "task"
PLAN = "plan"
STATUS = "status"
EXECUTE = "execute"
STEPS = "steps"
RESULT = "result"
CANCEL = "cancel"

WORLD_MODEL = "/world_model"
PLANNER = "/planner"
EXECUTOR = "/executor"
"""The namespaces of the three nodes of the stack (their parameters world_model / planner_node name them)."""
DIAGNOSTICS = "/diagnostics"

STATE_FORMAT = "l3mp.state/1"
CHANGES_DEPTH = 1000
"""Change events kept for late subscribers (transient local): a replica that joins within this many
records of the last state message catches up without asking for the state."""

_ids = itertools.count(1)


def topic(prefix: str, name: str) -> str:
    """The topic ``<prefix>/<name>`` (relative: a node's namespace applies)."""
    return f"{prefix.strip('/')}/{name}" if prefix.strip("/") else name


WORLD_MODEL_STATE = f"{WORLD_MODEL}/{STATE}"
WORLD_MODEL_CHANGES = f"{WORLD_MODEL}/{CHANGES}"
WORLD_MODEL_PERCEPTION = f"{WORLD_MODEL}/{PERCEPTION}"
WORLD_MODEL_NL_UPDATE = f"{WORLD_MODEL}/{NL_UPDATE}"
WORLD_MODEL_APPLY = f"{WORLD_MODEL}/{APPLY}"
WORLD_MODEL_QUERY = f"{WORLD_MODEL}/{QUERY}"
WORLD_MODEL_RESULTS = f"{WORLD_MODEL}/{RESULTS}"
WORLD_MODEL_GET_STATE = f"{WORLD_MODEL}/{GET_STATE}"
WORLD_MODEL_SNAPSHOT = f"{WORLD_MODEL}/{SNAPSHOT}"
PLANNER_TASK = f"{PLANNER}/{TASK}"
PLANNER_PLAN = f"{PLANNER}/{PLAN}"
PLANNER_STATUS = f"{PLANNER}/{STATUS}"
EXECUTOR_EXECUTE = f"{EXECUTOR}/{EXECUTE}"
EXECUTOR_STEPS = f"{EXECUTOR}/{STEPS}"
EXECUTOR_RESULT = f"{EXECUTOR}/{RESULT}"
EXECUTOR_CANCEL = f"{EXECUTOR}/{CANCEL}"
"""The stack's topics and services under the default namespaces."""

RESULT_TOPIC = {WORLD_MODEL_PERCEPTION: WORLD_MODEL_RESULTS, WORLD_MODEL_NL_UPDATE: WORLD_MODEL_RESULTS,
                WORLD_MODEL_APPLY: WORLD_MODEL_RESULTS, WORLD_MODEL_QUERY: WORLD_MODEL_RESULTS,
                PLANNER_TASK: PLANNER_PLAN, EXECUTOR_EXECUTE: EXECUTOR_RESULT}
"""Where the answer to a request topic comes."""
OUTPUTS = (WORLD_MODEL_RESULTS, WORLD_MODEL_CHANGES, PLANNER_PLAN, PLANNER_STATUS, EXECUTOR_RESULT, EXECUTOR_STEPS)
"""What the nodes publish besides the state (WORLD_MODEL_STATE) and diagnostics."""


# ---- payloads ------------------------------------------------------------------------------
def new_id(kind: str) -> str:
    """A request id unique across processes and machines."""
    return f"{kind}-{socket.gethostname()}-{os.getpid()}-{next(_ids)}"


def decode(data: str, *, max_bytes: int) -> Any:
    """The JSON value of a message; FormatError (with the reason) when too large, not UTF-8 JSON, nested too deep or
    with a key twice (l3mp.world.jsondoc: the CLI reads files the same way)."""
    return parse_json(data, what="message", max_bytes=max_bytes)


def request_object(data: str, *, max_bytes: int, text_key: str) -> dict[str, Any]:
    """A request that may be plain text (then it becomes ``{text_key: data}``) or a JSON object (starts with '{');
    blank text, or a blank string under `text_key`, is refused."""
    if data.lstrip().startswith("{"):
        value = decode(data, max_bytes=max_bytes)  # JSON text that starts with '{' is an object
        if isinstance(value.get(text_key), str) and not value[text_key].strip():
            raise FormatError(f"'{text_key}' is empty")
        return value
    _check_size(data, max_bytes)
    text = data.strip()
    if not text:
        raise FormatError(f"empty request: send text, or a JSON object with '{text_key}'")
    return {text_key: text}


def _check_size(data: str, max_bytes: int) -> None:
    size = len(data.encode("utf-8"))
    if size > max_bytes:
        raise FormatError(f"message of {size} bytes exceeds limits.max_message_bytes = {max_bytes}")


def take(request: dict[str, Any], allowed: dict[str, type | tuple[type, ...]], required: tuple[str, ...] = ()
         ) -> dict[str, Any]:
    """Check a request object's keys and value types (bool is not an int here); FormatError names the first problem."""
    unknown = set(request) - set(allowed)
    if unknown:
        raise FormatError(f"unknown key(s) {sorted(unknown)}; valid: {', '.join(sorted(allowed))}")
    for key in required:
        if key not in request:
            raise FormatError(f"missing key '{key}'")
    for key, value in request.items():
        kinds = allowed[key] if isinstance(allowed[key], tuple) else (allowed[key],)
        wrong_bool = isinstance(value, bool) and bool not in kinds
        if wrong_bool or not isinstance(value, kinds):
            names = " or ".join(k.__name__ for k in kinds)
            raise FormatError(f"'{key}' must be {names}, not {type(value).__name__} {json.dumps(value)[:60]}")
    return request


def request_id(request: Any, kind: str) -> str:
    """The request's ``id`` if it is a non-empty string, else a fresh one."""
    given = request.get("id") if isinstance(request, dict) else None
    return given if isinstance(given, str) and given else new_id(kind)


def result(kind: str, id_: str, ok: bool, /, **fields: Any) -> dict[str, Any]:
    """A result message: ``{"id", "kind", "ok", "time", ...fields}``."""
    return {"id": id_, "kind": kind, "ok": ok, "time": time.time(), **fields}


def error(kind: str, id_: str, code: str, message: str, /, **fields: Any) -> dict[str, Any]:
    """A failed request's result: ``error`` holds a code (``malformed``, ``rejected``, ``busy``, ...) and a message."""
    return result(kind, id_, False, error={"code": code, "message": message}, **fields)


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# ---- quality of service --------------------------------------------------------------------
def state_qos() -> Any:
    """Reliable, transient local, depth 1: a late subscriber gets the latest state at once."""
    from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL)


def changes_qos() -> Any:
    """Reliable, transient local, the last CHANGES_DEPTH change records."""
    from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=CHANGES_DEPTH, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL)


def request_qos() -> Any:
    """Reliable, volatile, deep enough for bursts of requests and results."""
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)


# ---- request/response ----------------------------------------------------------------------
class Requester:
    """Request/response over topics: publish a request on `request_topic` and wait for the message with its id on
    `result_topic`. With `resend_s`, an unanswered request is published again (same id) every `resend_s` seconds:
    for requests the other side answers idempotently by id (the world model's ~/apply, queries), so that a request
    sent while a restarted node is still being discovered is not lost."""

    def __init__(self, node: Any, request_topic: str, result_topic: str, *, kind: str, group: Any = None,
                 resend_s: float | None = None) -> None:
        from std_msgs.msg import String

        self._string = String
        self._kind = kind
        self._resend_s = resend_s
        self._publisher = node.create_publisher(String, request_topic, request_qos())
        self._subscription = node.create_subscription(String, result_topic, self._on_result, request_qos(),
                                                      callback_group=group)
        self._waiting: dict[str, list[Any]] = {}
        self._lock = threading.Lock()

    def call(self, payload: dict[str, Any], timeout_s: float, *, ident: str | None = None) -> dict[str, Any] | None:
        """The result for this request, or None if none came within `timeout_s` (or nobody listens). The request
        is ``{"id": <a new id>, **payload}``, or `payload` as it is when `ident` says which id its result has."""
        deadline = time.monotonic() + timeout_s
        while not self.connected():
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.02)
        if ident is None:
            ident = new_id(self._kind)
            payload = {"id": ident, **payload}
        waiter: list[Any] = [threading.Event(), None]
        with self._lock:
            self._waiting[ident] = waiter
        message = self._string(data=dumps(payload))
        try:
            while True:
                self._publisher.publish(message)
                left = deadline - time.monotonic()
                if waiter[0].wait(max(0.0, min(left, self._resend_s or left))) or time.monotonic() >= deadline:
                    break
        finally:
            with self._lock:
                self._waiting.pop(ident, None)
        return waiter[1]

    def connected(self) -> bool:
        """Both topics are matched with the other side."""
        return self._publisher.get_subscription_count() > 0 and self._subscription.get_publisher_count() > 0

    def _on_result(self, msg: Any) -> None:
        value = loads(msg.data)
        ident = value.get("id") if isinstance(value, dict) else None
        with self._lock:
            waiter = self._waiting.get(ident) if isinstance(ident, str) else None
        if waiter is not None:
            waiter[1] = value
            waiter[0].set()


def loads(data: str) -> Any:
    """The JSON value of a message a node published; ``{"error": ...}`` if it is not JSON."""
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        return {"error": f"not JSON: {exc}"}
