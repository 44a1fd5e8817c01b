"""JSON payloads of the l3mp topics (std_msgs/String): request parsing, result building, topic names and QoS."""

from __future__ import annotations

import itertools
import json
import os
import socket
import time
from typing import Any

from l3mp.errors import FormatError

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

STATE_FORMAT = "l3mp.state/1"
CHANGES_DEPTH = 1000
"""Change events kept for late subscribers (transient local): a replica that joins within this many
records of the last state message catches up without asking for the state."""

_ids = itertools.count(1)


def topic(prefix: str, name: str) -> str:
    """The topic ``<prefix>/<name>`` (relative: a node's namespace applies)."""
    return f"{prefix.strip('/')}/{name}" if prefix.strip("/") else name


def new_id(kind: str) -> str:
    """A request id unique across processes and machines."""
    return f"{kind}-{socket.gethostname()}-{os.getpid()}-{next(_ids)}"


def decode(data: str, *, max_bytes: int) -> Any:
    """The JSON value of a message; FormatError (with the reason) when too large or not JSON."""
    _check_size(data, max_bytes)
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise FormatError(f"not JSON: {exc}") from None


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
