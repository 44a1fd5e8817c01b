"""In-process harness for the node tests: the nodes on one multi-threaded executor, and a client node that
publishes requests and collects what the nodes publish."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import rclpy
from rclpy.executors import MultiThreadedExecutor
from rclpy.parameter import Parameter
from std_msgs.msg import String

from l3mp.ros import messages as m
from l3mp.ros.main import node_factory
from l3mp.world.model import WorldModel
from tests.helpers import house_delta, household, household_rules

TIMEOUT_S = 20.0
LISTENED = ("/world_model/results", "/world_model/changes", "/planner/plan", "/planner/status",
            "/executor/result", "/executor/steps")


def make_store(path: Path) -> Path:
    """A store holding the small test house (tests/helpers.py) as its first record."""
    with WorldModel.open(household(), path, rules=household_rules(), fsync=False) as world:
        world.apply(house_delta(), source="import")
    return path


class Harness:
    """Nodes in one process (their own rclpy context) plus a client node; `wait` returns the first message on a
    topic that matches a predicate."""

    def __init__(self, nodes: Iterable[str], params: Mapping[str, Mapping[str, Any]], *,
                 domain_id: int | None = None) -> None:
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.nodes: dict[str, Any] = {}
        self.executor = MultiThreadedExecutor(num_threads=8, context=self.context)
        try:
            for name in nodes:
                overrides = [Parameter(k, value=v) for k, v in params.get(name, {}).items()]
                self.nodes[name] = node_factory(name)(context=self.context, parameter_overrides=overrides)
                self.executor.add_node(self.nodes[name])
        except BaseException:
            self.close()
            raise
        self.client = rclpy.create_node("l3mp_test_client", context=self.context)
        self.received: dict[str, list[Any]] = {t: [] for t in (*LISTENED, "/world_model/state")}
        self._new = threading.Condition()
        for topic in LISTENED:
            qos = m.changes_qos() if topic.endswith("changes") else m.request_qos()
            self.client.create_subscription(String, topic, self._collector(topic), qos)
        self.client.create_subscription(String, "/world_model/state", self._collector("/world_model/state"),
                                        m.state_qos())
        self._publishers: dict[str, Any] = {}
        self.executor.add_node(self.client)
        self._thread = threading.Thread(target=self.executor.spin, daemon=True)
        self._thread.start()

    def _collector(self, topic: str) -> Callable[[String], None]:
        def collect(msg: String) -> None:
            with self._new:
                self.received[topic].append(json.loads(msg.data))
                self._new.notify_all()
        return collect

    def publish(self, topic: str, payload: Any) -> None:
        """Publish a String (a dict is sent as JSON) once the topic has a subscriber."""
        if topic not in self._publishers:
            self._publishers[topic] = self.client.create_publisher(String, topic, m.request_qos())
        publisher = self._publishers[topic]
        deadline = time.monotonic() + TIMEOUT_S
        while publisher.get_subscription_count() == 0:
            assert time.monotonic() < deadline, f"nobody subscribes to {topic}"
            time.sleep(0.02)
        publisher.publish(String(data=payload if isinstance(payload, str) else json.dumps(payload)))

    def wait(self, topic: str, match: Callable[[Any], bool] = lambda _: True, timeout: float = TIMEOUT_S) -> Any:
        deadline = time.monotonic() + timeout
        with self._new:
            while True:
                for message in self.received[topic]:
                    if match(message):
                        return message
                left = deadline - time.monotonic()
                assert left > 0, f"no matching message on {topic} within {timeout} s; got {self.received[topic]}"
                self._new.wait(left)

    def result(self, topic: str, ident: str, timeout: float = TIMEOUT_S) -> dict:
        """The result message with id `ident`."""
        return self.wait(topic, lambda msg: msg.get("id") == ident, timeout)

    def ask(self, topic: str, payload: dict, result_topic: str, timeout: float = TIMEOUT_S) -> dict:
        """Publish a request until its result comes (for a node that has just (re)started: discovery may still
        deliver to the one it replaces); each try has its own id (``<id>-<try>``)."""
        deadline = time.monotonic() + timeout
        for attempt in range(1, 1000):
            ident = f"{payload['id']}-{attempt}"
            self.publish(topic, {**payload, "id": ident})
            try:
                return self.result(result_topic, ident, timeout=min(2.0, max(0.1, deadline - time.monotonic())))
            except AssertionError:
                if time.monotonic() >= deadline:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=5)
        for node in reversed(list(self.nodes.values())):
            node.close()
            node.destroy_node()
        rclpy.try_shutdown(context=self.context)
