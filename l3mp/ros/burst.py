"""Bursts of perception at the world model, for the faults benchmark and the burst test: a publisher that spreads
messages evenly over a time, and a deep reader of every result."""

from __future__ import annotations

import json
import threading
import time
from typing import TYPE_CHECKING, Any

from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

from l3mp.ros import protocol as m

if TYPE_CHECKING:
    from l3mp.ros.client import Client


class Answers:
    """Every result on the world model's result topic, by id, from a deep reader (so that what is counted is what
    the node sent, not what a shallow reader kept)."""

    def __init__(self, client: Client, depth: int) -> None:
        self.by_id: dict[str, list[dict]] = {}
        self._lock = threading.Lock()
        deep = QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE)
        client.node.create_subscription(String, m.WORLD_MODEL_RESULTS, self._on_result, deep)

    def _on_result(self, msg: Any) -> None:
        value = json.loads(msg.data)
        with self._lock:
            self.by_id.setdefault(value.get("id"), []).append(value)

    def wait_for(self, ids: set[str], timeout: float) -> set[str]:
        """The ids still unanswered after waiting up to `timeout` s for all of them."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                missing = ids - set(self.by_id)
            if not missing or time.monotonic() >= deadline:
                return missing
            time.sleep(0.05)


def publish_burst(client: Client, messages: list[str], seconds: float, *, depth: int = 1000) -> float:
    """Publish `messages` on the world model's perception topic (reliable, keeping the last `depth` unacknowledged
    ones: 1000 is the stack's request QoS) evenly over `seconds`, once the node listens; how long publishing took."""
    qos = QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE)
    publisher = client.node.create_publisher(String, m.WORLD_MODEL_PERCEPTION, qos)
    while publisher.get_subscription_count() == 0:
        time.sleep(0.05)
    start = time.monotonic()
    for i, data in enumerate(messages):
        publisher.publish(String(data=data))
        time.sleep(max(0.0, start + seconds * (i + 1) / len(messages) - time.monotonic()))
    return time.monotonic() - start
