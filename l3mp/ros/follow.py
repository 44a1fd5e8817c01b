"""The link from a node to the world-model node: a replica that follows its state and changes."""

from __future__ import annotations

import time
from typing import Any

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from std_msgs.msg import String
from std_srvs.srv import Trigger

from l3mp.ros import protocol as m
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
        self.replica.offer_state(m.loads(msg.data))

    def _on_change(self, msg: String) -> None:
        self.replica.offer_change(m.loads(msg.data))

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
            self.replica.offer_state(m.loads(response.message))

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
