"""What every l3mp node shares: typed parameters, the domain, a results topic, diagnostics and a clean close."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from std_msgs.msg import String

from l3mp.domain.paths import domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.ros import protocol
from l3mp.ros.health import diagnostic_array
from l3mp.ros.params import Param, declare
from l3mp.ros.worker import Worker


class L3mpNode(Node):
    """An rclpy node with l3mp's parameters declared, its domain and rules loaded, a JSON results publisher
    and a diagnostics timer. Subclasses add topics and override `checks`, `values` and `close`."""

    def __init__(self, name: str, params: tuple[Param, ...], *, results_topic: str, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self.params = declare(self, params)
        self.domain = Domain.from_file(domain_path(self.params["domain"]))
        rules = self.params["rules"]
        self.rules = RuleSet.from_file(rules, self.domain) if rules else RuleSet.for_domain(self.domain)
        self.rejected = 0
        self._results = self.create_publisher(String, results_topic, protocol.request_qos())
        self._diagnostics = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.housekeeping = MutuallyExclusiveCallbackGroup()
        self.create_timer(self.params["diagnostics_period_s"], self.publish_diagnostics,
                          callback_group=self.housekeeping)

    def publish_result(self, payload: dict[str, Any]) -> None:
        """Publish a result message; failed requests are also logged."""
        if not payload["ok"]:
            self.rejected += 1
            error = payload["error"]  # failed results are made by protocol.error
            self.get_logger().warning(f"{payload['kind']} {payload['id']} failed: {error['code']}: {error['message']}")
        self._results.publish(String(data=protocol.dumps(payload)))

    def guarded(self, kind: str, handle: Callable[[String], None]) -> Callable[[String], None]:
        """A subscription callback that turns an unexpected exception into an error result (the node goes on)."""
        def callback(msg: String) -> None:
            try:
                handle(msg)
            except Exception as exc:  # a bug must cost one request, not the node
                self.get_logger().error(f"{kind}: internal error: {type(exc).__name__}: {exc}")
                self.publish_result(protocol.error(kind, protocol.new_id(kind), "internal",
                                                   f"{type(exc).__name__}: {exc}"))
        return callback

    def submit_job(self, worker: Worker, kind: str, ident: str, request: dict[str, Any], waiting: str) -> bool:
        """Queue ``(ident, request)`` on `worker`; when its queue is full, answer `ident` with a ``busy`` error."""
        if worker.submit((ident, request)):
            return True
        self.publish_result(protocol.error(kind, ident, "busy", f"{worker.depth} {waiting} are waiting "
                                           f"(limits.max_queue = {self.params['limits.max_queue']}); send it later"))
        return False

    def job_failed(self, kind: str) -> Callable[[tuple[str, Any], Exception], None]:
        """For a Worker: a job ``(id, request)`` that raised gets an internal-error result."""
        def failed(job: tuple[str, Any], exc: Exception) -> None:
            self.publish_result(protocol.error(kind, job[0], "internal", f"{type(exc).__name__}: {exc}"))
        return failed

    def publish_diagnostics(self) -> None:
        self._diagnostics.publish(diagnostic_array(self, self.get_name(), self.checks(), self.values()))

    def checks(self) -> dict[str, tuple[int, str]]:
        """Health checks: name -> (level, message)."""
        return {}

    def values(self) -> dict[str, Any]:
        """Numbers and times reported with the diagnostics."""
        return {"rejected_requests": self.rejected, "result_subscribers": self._results.get_subscription_count()}

    def close(self) -> None:
        """Stop background work and release resources (before `destroy_node`)."""

