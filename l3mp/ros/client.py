"""A client of l3mp's nodes: publishes requests on their topics and collects what they publish (results, plans,
steps, state); optionally hosts nodes in the same process on the same executor (tests, demos)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter
from std_msgs.msg import String

from l3mp.errors import L3mpError
from l3mp.ros import protocol as m
from l3mp.ros.main import node_factory

TIMEOUT_S = 20.0
STACK = {"world_model": 2, "planner": 2, "executor": 1}
"""The nodes of the full stack and how many subscribers each one's result topic has once all are connected
(world model: the client and the executor; planner: the client and the executor; executor: the client)."""


class NoAnswer(L3mpError):
    """No matching message arrived in time."""


class Client:
    """A node in its own rclpy context (ROS domain `domain_id`, else $ROS_DOMAIN_ID) that collects what the nodes
    publish (protocol.OUTPUTS and the world model's state); `nodes` (names) are started in the same process with
    parameter overrides from `params` (``{node: {name: value}}``)."""

    def __init__(self, nodes: Iterable[str] = (), params: Mapping[str, Mapping[str, Any]] | None = None, *,
                 domain_id: int | None = None) -> None:
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.nodes: dict[str, Any] = {}
        self.executor = SingleThreadedExecutor(context=self.context)  # see l3mp.ros.main.run_nodes: lower latency
        try:
            for name in nodes:
                overrides = [Parameter(k, value=v) for k, v in (params or {}).get(name, {}).items()]
                self.nodes[name] = node_factory(name)(context=self.context, parameter_overrides=overrides)
                self.executor.add_node(self.nodes[name])
        except BaseException:
            self.close()
            raise
        self.node = rclpy.create_node("l3mp_client", context=self.context)
        self.received: dict[str, list[Any]] = {t: [] for t in (*m.OUTPUTS, m.WORLD_MODEL_STATE)}
        self.arrived: dict[str, list[float]] = {t: [] for t in self.received}
        self._new = threading.Condition()
        self._subscriptions = {}
        for topic in m.OUTPUTS:
            qos = m.changes_qos() if topic.endswith(m.CHANGES) else m.request_qos()
            self._subscriptions[topic] = self.node.create_subscription(String, topic, self._collector(topic), qos)
        self.node.create_subscription(String, m.WORLD_MODEL_STATE, self._collector(m.WORLD_MODEL_STATE),
                                      m.state_qos())
        self.health: dict[str, tuple[int, dict[str, str]]] = {}
        """The last diagnostics of each l3mp node: level and values."""
        self.node.create_subscription(DiagnosticArray, m.DIAGNOSTICS, self._on_diagnostics, 10)
        self._publishers: dict[str, Any] = {}
        self._requesters: dict[tuple[str, float | None], m.Requester] = {}
        self.executor.add_node(self.node)
        self._thread = threading.Thread(target=self.executor.spin, daemon=True)
        self._thread.start()

    def _collector(self, topic: str) -> Callable[[String], None]:
        def collect(msg: String) -> None:
            now = time.perf_counter()
            value = json.loads(msg.data)
            with self._new:
                self.received[topic].append(value)
                self.arrived[topic].append(now)
                self._new.notify_all()
        return collect

    def wait_ready(self, nodes: Mapping[str, int], timeout: float = TIMEOUT_S) -> None:
        """Wait until each node's diagnostics say it is healthy (level OK) and that its result topic has at least
        that many subscribers from its own side (so that no result is published before everyone listens)."""
        deadline = time.monotonic() + timeout
        while True:
            with self._new:
                seen = dict(self.health)
            missing = {n: seen.get(n) for n, count in nodes.items()
                       if n not in seen or seen[n][0] != 0 or int(seen[n][1].get("result_subscribers", 0)) < count}
            if not missing:
                return
            if time.monotonic() >= deadline:
                raise NoAnswer(f"nodes not ready within {timeout} s: {missing}")
            time.sleep(0.05)

    def _on_diagnostics(self, msg: DiagnosticArray) -> None:
        with self._new:
            for status in msg.status:
                if status.name.startswith("l3mp: "):
                    level = status.level[0] if isinstance(status.level, bytes) else int(status.level)
                    self.health[status.name.removeprefix("l3mp: ")] = (level, {v.key: v.value for v in status.values})
            self._new.notify_all()

    def publish(self, topic: str, payload: Any, timeout: float = TIMEOUT_S) -> float:
        """Publish a String (a dict is sent as JSON) once the topic has a subscriber and the topic its answer comes
        on (protocol.RESULT_TOPIC) reaches this client; the perf_counter time it was sent."""
        if topic not in self._publishers:
            self._publishers[topic] = self.node.create_publisher(String, topic, m.request_qos())
        publisher = self._publishers[topic]
        answers = self._subscriptions.get(m.RESULT_TOPIC.get(topic, ""))
        deadline = time.monotonic() + timeout
        while publisher.get_subscription_count() == 0 or (answers is not None and answers.get_publisher_count() == 0):
            if time.monotonic() >= deadline:
                raise NoAnswer(f"{topic} has no subscriber, or {m.RESULT_TOPIC.get(topic)} no publisher, "
                               f"after {timeout} s")
            time.sleep(0.02)
        data = payload if isinstance(payload, str) else json.dumps(payload)
        sent = time.perf_counter()
        publisher.publish(String(data=data))
        return sent

    def wait(self, topic: str, match: Callable[[Any], bool] = lambda _: True, timeout: float = TIMEOUT_S) -> Any:
        """The first message on `topic` (received so far or later) for which `match` is true."""
        deadline = time.monotonic() + timeout
        with self._new:
            while True:
                for message in self.received[topic]:
                    if match(message):
                        return message
                left = deadline - time.monotonic()
                if left <= 0:
                    raise NoAnswer(f"no matching message on {topic} within {timeout} s "
                                   f"(last: {json.dumps(self.received[topic][-3:])[:1500]})")
                self._new.wait(left)

    def result(self, topic: str, ident: str, timeout: float = TIMEOUT_S) -> dict:
        """The message with id `ident` on `topic`."""
        return self.wait(topic, lambda msg: isinstance(msg, dict) and msg.get("id") == ident, timeout)

    def arrival(self, topic: str, message: Any) -> float:
        """The perf_counter time `message` (received on `topic`) arrived."""
        with self._new:
            index = next(i for i, seen in enumerate(self.received[topic]) if seen is message)
            return self.arrived[topic][index]

    def ask(self, topic: str, payload: dict, timeout: float = TIMEOUT_S, *, resend_s: float | None = None) -> dict:
        """Publish a request (it keeps its ``id``, or ``observation_id`` for perception) and wait for its result on
        the topic protocol.RESULT_TOPIC names; with `resend_s`, publish it again every `resend_s` seconds until the
        result comes (a node that has just started: discovery may still deliver to the one it replaces)."""
        key = (topic, resend_s)
        if key not in self._requesters:
            self._requesters[key] = m.Requester(self.node, topic, m.RESULT_TOPIC[topic], kind="client",
                                                    resend_s=resend_s)
        ident = payload.get("id") or payload["observation_id"]
        answer = self._requesters[key].call(payload, timeout, ident=ident)
        if answer is None:
            raise NoAnswer(f"no answer to {ident} on {m.RESULT_TOPIC[topic]} within {timeout} s")
        return answer

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=5)
        for node in reversed(list(self.nodes.values())):
            node.close()
            node.destroy_node()
        rclpy.try_shutdown(context=self.context)
