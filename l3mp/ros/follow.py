"""Links between nodes: a replica that follows the world-model node, and request/response over a pair of topics."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from std_msgs.msg import String
from std_srvs.srv import Trigger

from l3mp.ros import messages as m
from l3mp.ros.health import ERROR, OK
from l3mp.ros.replica import Replica

RESYNC_AFTER_S = 2.0
"""How long a replica may miss records before it asks the world model for its whole state."""


class Follower:
    """Keeps `replica` in step with the world-model node `prefix`: its state and change topics feed the replica,
    and when records are missing the node's get_state service fills the gap. Call `poll` from the replica's thread."""

    def __init__(self, node: Node, replica: Replica, prefix: str, group: CallbackGroup) -> None:
        self.replica = replica
        self._node = node
        node.create_subscription(String, m.topic(prefix, m.STATE), self._on_state, m.state_qos(), callback_group=group)
        node.create_subscription(String, m.topic(prefix, m.CHANGES), self._on_change, m.changes_qos(),
                                 callback_group=group)
        self._client = node.create_client(Trigger, m.topic(prefix, m.GET_STATE), callback_group=group)
        self._asked = 0.0
        self._behind_since: float | None = None

    def _on_state(self, msg: String) -> None:
        self.replica.offer_state(_json(msg.data))

    def _on_change(self, msg: String) -> None:
        self.replica.offer_change(_json(msg.data))

    def poll(self) -> None:
        """Apply what arrived; ask for the whole state when the replica has been behind for a while."""
        self.replica.sync()
        now = time.monotonic()
        if self.replica.synced:
            self._behind_since = None
            return
        self._behind_since = self._behind_since or now
        if now - self._behind_since >= RESYNC_AFTER_S and now - self._asked >= RESYNC_AFTER_S \
                and self._client.service_is_ready():
            self._asked = now
            self._client.call_async(Trigger.Request()).add_done_callback(self._on_get_state)

    def _on_get_state(self, future: Any) -> None:
        response = future.result()
        if response is not None and response.success:
            self.replica.offer_state(_json(response.message))

    def check(self) -> tuple[int, str]:
        """The health check of the link to the world model: in step, or why not."""
        if self.replica.synced:
            return OK, f"in step at record {self.replica.origin_seq}"
        return ERROR, self.replica.problem

    def wait_synced(self, timeout_s: float) -> bool:
        """Poll until the replica is in step (True) or `timeout_s` passed (False)."""
        deadline = time.monotonic() + timeout_s
        while True:
            self.poll()
            if self.replica.synced or time.monotonic() >= deadline:
                return self.replica.synced
            time.sleep(0.02)


class Requester:
    """Request/response over topics: publish ``{"id": ..., **payload}`` on `request_topic` and wait for the
    message with that id on `result_topic`. With `resend_s`, an unanswered request is published again (same id)
    every `resend_s` seconds: for requests the other side answers idempotently by id (the world model's
    ~/apply), so that a request sent while a restarted node is still being discovered is not lost."""

    def __init__(self, node: Node, request_topic: str, result_topic: str, *, kind: str, group: CallbackGroup,
                 resend_s: float | None = None) -> None:
        qos = m.request_qos()
        self._kind = kind
        self._resend_s = resend_s
        self._publisher = node.create_publisher(String, request_topic, qos)
        self._subscription = node.create_subscription(String, result_topic, self._on_result, qos, callback_group=group)
        self._waiting: dict[str, list[Any]] = {}
        self._lock = threading.Lock()

    def call(self, payload: dict[str, Any], timeout_s: float) -> dict[str, Any] | None:
        """The result for this request, or None if none came within `timeout_s` (or nobody listens)."""
        deadline = time.monotonic() + timeout_s
        while not self.connected():
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.02)
        ident = m.new_id(self._kind)
        waiter: list[Any] = [threading.Event(), None]
        with self._lock:
            self._waiting[ident] = waiter
        message = String(data=m.dumps({"id": ident, **payload}))
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

    def _on_result(self, msg: String) -> None:
        value = _json(msg.data)
        ident = value.get("id") if isinstance(value, dict) else None
        with self._lock:
            waiter = self._waiting.get(ident) if isinstance(ident, str) else None
        if waiter is not None:
            waiter[1] = value
            waiter[0].set()


def _json(data: str) -> Any:
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        return {"error": f"not JSON: {exc}"}
