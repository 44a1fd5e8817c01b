"""The executor node: runs plans through a world adapter, writes each step's effects back to the world model
(source ``plan``) and asks the planner for a new plan when a step fails, or when a plan ran to its end but what
the robot sees leaves the goal false (adapters with ``reached``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from std_msgs.msg import String
from std_srvs.srv import Trigger

from l3mp.errors import FormatError, L3mpError, StoreError
from l3mp.planning.execute import ExecutionReport, Executor, StepOutcome, run_plan
from l3mp.planning.validate import validate_plan
from l3mp.ros import protocol as m
from l3mp.ros.adapters import AdapterContext, adapter_factory, adapter_options
from l3mp.ros.base import L3mpNode
from l3mp.ros.follow import Follower
from l3mp.ros.health import OK, WARN, age
from l3mp.ros.params import EXECUTOR
from l3mp.ros.replica import Replica
from l3mp.ros.worker import Worker
from l3mp.world.model import Outcome, Update
from l3mp.world.record import ChangeRecord
from l3mp.world.verify import Violation

SYNC_WAIT_S = 10.0
RESEND_S = 1.0
"""A step's effects are sent again (same id: the world model applies them once) after this long without an answer."""
GOAL_FALSE = "the plan ran, but what the robot saw leaves the goal false"
"""The failure recorded when an adapter's ``reached(goal)`` says no after a plan ran to its end."""
SETTLE_POLL_S = 0.02
EXECUTE_KEYS: dict[str, type | tuple[type, ...]] = {"id": str, "plan": list, "task": str, "goal": str,
                                                    "retrieval": str}


class ExecutorNode(L3mpNode):
    """Executes plans one at a time on a worker thread with `run_plan` over a replica of the world model whose
    writes go to the world-model node: plans the planner publishes with ``execute: true``, and plans sent to
    ``~/execute``. Each step is reported on ``~/steps``, each plan's outcome on ``~/result``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("executor", EXECUTOR, results_topic=f"~/{m.RESULT}", **kwargs)
        p = self.params
        self.adapter = adapter_factory(p["adapter"])
        self.options = adapter_options(p["adapter_options"])
        links = ReentrantCallbackGroup()
        world, planner = p["world_model"], p["planner_node"]
        self._apply = m.Requester(self, m.topic(world, m.APPLY), m.topic(world, m.RESULTS), kind="step", group=links,
                                resend_s=RESEND_S)
        self._replan = m.Requester(self, m.topic(planner, m.TASK), m.topic(planner, m.PLAN), kind="replan",
                                 group=links)
        self.replica = Replica(self.domain, self.rules, writer=self._write)
        self.follower = Follower(self, self.replica, world, MutuallyExclusiveCallbackGroup())
        self._steps = self.create_publisher(String, f"~/{m.STEPS}", m.request_qos())
        requests = MutuallyExclusiveCallbackGroup()
        self._plans_in = self.create_subscription(String, m.topic(planner, m.PLAN), self.guarded(m.PLAN, self._on_plan),
                                                  m.request_qos(), callback_group=requests)
        self.create_subscription(String, f"~/{m.EXECUTE}", self.guarded(m.EXECUTE, self._on_execute),
                                 m.request_qos(), callback_group=requests)
        self.create_service(Trigger, f"~/{m.CANCEL}", self._on_cancel, callback_group=requests)
        self._cancel = threading.Event()
        self.running: str | None = None
        self._write_seconds = 0.0
        self.last_execution: float | None = None
        self._plans = Worker("l3mp-executor", self._execute, capacity=p["limits.max_queue"],
                             failed=self.job_failed(m.EXECUTE), idle=self.follower.poll)

    # ---- requests --------------------------------------------------------------------------
    def _on_plan(self, msg: String) -> None:
        """A planner result: run it if it is a valid plan that asks for execution (others are not for us)."""
        try:
            value = m.decode(msg.data, max_bytes=self.params["limits.max_message_bytes"])
        except FormatError as exc:
            self.publish_result(m.error(m.EXECUTE, m.new_id(m.EXECUTE), "malformed", f"plan message: {exc}"))
            return
        if isinstance(value, dict) and value.get("ok") is True and value.get("execute") is True:
            ident = m.request_id(value, m.EXECUTE)
            try:
                self._submit(ident, {k: value.get(k) for k in EXECUTE_KEYS if value.get(k) is not None})
            except FormatError as exc:
                self.publish_result(m.error(m.EXECUTE, ident, "malformed", f"plan message: {exc}"))

    def _on_execute(self, msg: String) -> None:
        ident = m.new_id(m.EXECUTE)
        try:
            value = m.decode(msg.data, max_bytes=self.params["limits.max_message_bytes"])
            if not isinstance(value, dict):
                raise FormatError("an execute request must be a JSON object with 'plan'")
            ident = m.request_id(value, m.EXECUTE)
            self._submit(ident, value)
        except FormatError as exc:
            self.publish_result(m.error(m.EXECUTE, ident, "malformed", str(exc)))

    def _submit(self, ident: str, request: dict[str, Any]) -> None:
        m.take(request, EXECUTE_KEYS, ("plan",))
        plan = request["plan"]
        if not plan or not all(isinstance(a, str) and a.strip() for a in plan):
            raise FormatError("'plan' must be a non-empty list of ground actions such as \"(move the_robot a b)\"")
        self.submit_job(self._plans, m.EXECUTE, ident, request, "plans")

    def _on_cancel(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        running = self.running
        if running is not None:
            self._cancel.set()
        response.success = running is not None
        response.message = f"cancelling {running} after its current step" if running else "no plan is running"
        return response

    # ---- execution -------------------------------------------------------------------------
    def _execute(self, job: tuple[str, dict[str, Any]]) -> None:
        ident, request = job
        self._cancel.clear()
        self.running = ident
        started = time.perf_counter()
        try:
            payload = self._run(ident, request)
        except L3mpError as exc:
            payload = m.error(m.EXECUTE, ident, "failed", str(exc), task=request.get("task"))
        finally:
            self.running = None
        payload["seconds"] = round(time.perf_counter() - started, 4)
        self.last_execution = time.time()
        self.publish_result(payload)

    def _run(self, ident: str, request: dict[str, Any]) -> dict[str, Any]:
        if not self.follower.wait_synced(SYNC_WAIT_S):
            return m.error(m.EXECUTE, ident, "no_state", f"not in step with the world model: {self.replica.problem}")
        believed = self.replica.graph.copy()
        goal = request.get("goal")
        try:
            adapter = self.adapter(AdapterContext(self.domain, believed, dict(self.options), goal=goal,
                                                  plan=tuple(request["plan"])))
        except Exception as exc:  # a plug-in's own failure is reported, not raised
            return m.error(m.EXECUTE, ident, "adapter", f"adapter {self.params['adapter']!r} failed to start: {exc}")
        steps = _Reporting(adapter, ident, self._publish_step, self._cancel)
        expect = getattr(adapter, "expect", None)

        def replan() -> list[str] | None:
            plan = self._new_plan(request.get("task", goal), goal, request.get("retrieval"))
            if plan is not None and callable(expect):
                try:
                    expect(plan, goal)  # the adapter checks the new plan against what it sees
                except Exception as exc:  # a plug-in's crash: the new plan runs unchecked
                    self.get_logger().warning(f"adapter {self.params['adapter']!r}: expect() failed: "
                                              f"{type(exc).__name__}: {exc}")
            return plan

        reached = getattr(adapter, "reached", None)
        max_replans = self.params["max_replans"]
        self._write_seconds = 0.0
        started = time.perf_counter()
        try:
            report = run_plan(self.replica, steps, request["plan"], task_ref=ident,
                              replan=None if goal is None else replan, max_replans=max_replans)
            while goal is not None and callable(reached) and report.status == "completed" \
                    and not self._reached(reached, goal):
                report.failures.append(GOAL_FALSE)
                report.status = "failed"
                if report.replans >= max_replans:
                    report.message = f"stopped: {GOAL_FALSE} (after {report.replans} replans)"
                    break
                self._settle(goal)
                report.replans += 1
                plan = replan()
                if plan is None:
                    report.message = f"stopped: {GOAL_FALSE}; replanning found no plan"
                    break
                report = _merged(report, run_plan(self.replica, steps, plan, task_ref=ident, replan=replan,
                                                  max_replans=max_replans - report.replans))
        finally:
            self._finish(adapter)
        run_seconds = time.perf_counter() - started
        fields = {"task": request.get("task"), "status": report.status, "replans": report.replans,
                  "failures": report.failures, "message": report.message, "world_seq": self.replica.origin_seq,
                  "run_seconds": round(run_seconds, 4), "adapter_seconds": round(steps.seconds, 4),
                  "write_back_seconds": round(self._write_seconds, 4),
                  "steps": [{"action": s.action, "ok": s.ok, "message": s.message, "seq": s.record_seq}
                            for s in report.steps]}
        if report.status == "completed":
            return m.result(m.EXECUTE, ident, True, **fields)
        return m.error(m.EXECUTE, ident, "cancelled" if self._cancel.is_set() else "failed", report.message, **fields)

    def _reached(self, reached: Callable[[str], Any], goal: str) -> bool:
        """The adapter's ``reached(goal)``; a crash is logged and counts as reached (the plan's outcome stands)."""
        try:
            return bool(reached(goal))
        except Exception as exc:  # a plug-in's crash must not turn a completed plan into a failure
            self.get_logger().warning(f"adapter {self.params['adapter']!r}: reached() failed: "
                                      f"{type(exc).__name__}: {exc}")
            return True

    def _settle(self, goal: str) -> None:
        """Before re-planning for a goal the robot saw false: wait (at most ack_timeout_s) until this node's replica
        of the world model has it false too, so what the robot saw is in the world model the planner follows, and
        the new plan runs from it here."""
        deadline = time.monotonic() + self.params["ack_timeout_s"]
        while True:
            self.follower.poll()
            try:
                if not validate_plan(self.domain, self.replica.graph, [], goal).valid:
                    return
            except L3mpError:  # a goal that cannot be checked here: the planner says why
                return
            if time.monotonic() >= deadline or self._cancel.is_set():
                break
            time.sleep(SETTLE_POLL_S)
        self.get_logger().warning(f"the robot sees the goal {goal} false, but the world model still has it true "
                                  f"after {self.params['ack_timeout_s']} s (ack_timeout_s); re-planning anyway")

    def _finish(self, adapter: Any) -> None:
        """The adapter's ``finish()``, if it has one; its failure is logged (the plan's outcome stands)."""
        finish = getattr(adapter, "finish", None)
        if callable(finish):
            try:
                finish()
            except Exception as exc:  # a plug-in's crash must not lose the plan's result
                self.get_logger().warning(f"adapter {self.params['adapter']!r}: finish() failed: "
                                          f"{type(exc).__name__}: {exc}")

    def _new_plan(self, task: str, goal: str, retrieval: str | None) -> list[str] | None:
        if self._cancel.is_set():
            return None
        request = {"task": task, "goal": goal, "execute": False, **({"retrieval": retrieval} if retrieval else {})}
        reply = self._replan.call(request, self.params["replan_timeout_s"])
        if reply is None or not reply.get("ok"):
            self.get_logger().warning(f"replanning failed: {(reply or {}).get('error', 'no answer from the planner')}")
            return None
        return list(reply["plan"])

    def _write(self, updates: Sequence[Update]) -> list[Outcome]:
        """Send each update to the world model's ~/apply and wait for its result and for the replica to hold it."""
        started = time.perf_counter()
        outcomes = []
        for update in updates:
            request = {"delta": update.delta.to_json(), "source": update.source,
                       **{k: v for k, v in (("input", update.input), ("ref", update.ref)) if v is not None}}
            reply = self._apply.call(request, self.params["ack_timeout_s"])
            if reply is None:
                raise StoreError(f"the world model did not acknowledge the step's effects within "
                                 f"{self.params['ack_timeout_s']} s (parameter ack_timeout_s)")
            outcomes.append(_outcome(reply))
        records = [o.record for o in outcomes if o.record is not None]
        for record in records:
            self.replica.offer_change(record)
        deadline = time.monotonic() + self.params["ack_timeout_s"]
        while records:  # the records were just offered: the first poll usually applies them, so no sleep then
            self.follower.poll()
            if self.replica.origin_seq >= records[-1].seq or time.monotonic() >= deadline:
                break
            time.sleep(0.002)
        self._write_seconds += time.perf_counter() - started
        return outcomes

    def _publish_step(self, payload: dict[str, Any]) -> None:
        self._steps.publish(String(data=m.dumps(payload)))

    # ---- health ----------------------------------------------------------------------------
    def checks(self) -> dict[str, tuple[int, str]]:
        planner = (OK, "connected") if self._plans_in.get_publisher_count() else (WARN, "no planner publishes plans")
        write = (OK, "connected") if self._apply.connected() else (WARN, "the world model's ~/apply is not reachable")
        return {"world_model": self.follower.check(), "world_model_apply": write, "planner": planner,
                "adapter": (OK, self.params["adapter"])}

    def values(self) -> dict[str, Any]:
        return {**super().values(), "queue_depth": self._plans.depth, "running": self.running or "",
                "last_execution": age(self.last_execution)}

    def close(self) -> None:
        self._cancel.set()
        self._plans.stop(timeout_s=self.params["ack_timeout_s"] + 5)


class _Reporting:
    """Wraps an adapter: publishes each step as it ends, stops at a cancel, and turns adapter crashes into failures."""

    def __init__(self, adapter: Executor, plan_id: str, publish: Callable[[dict[str, Any]], None],
                 cancelled: threading.Event) -> None:
        self._adapter = adapter
        self._plan_id = plan_id
        self._publish = publish
        self._cancelled = cancelled
        self.seconds = 0.0

    def execute(self, action: str) -> StepOutcome:
        if self._cancelled.is_set():
            return StepOutcome(False, "cancelled")
        started = time.perf_counter()
        try:
            outcome = self._adapter.execute(action)
        except Exception as exc:  # the adapter is a plug-in: its crash is this step's failure
            outcome = StepOutcome(False, f"adapter error: {type(exc).__name__}: {exc}")
        took = time.perf_counter() - started
        self.seconds += took
        self._publish({"plan_id": self._plan_id, "action": action, "ok": outcome.ok, "message": outcome.message,
                       "seconds": round(took, 4), "time": time.time()})
        return outcome


def _merged(before: ExecutionReport, after: ExecutionReport) -> ExecutionReport:
    """One report of a plan's run and of the run of the plan made after it."""
    merged = ExecutionReport(after.status, [*before.steps, *after.steps], [*before.failures, *after.failures],
                             before.replans + after.replans, after.message)
    if merged.status == "completed":
        merged.message = f"completed: {merged.steps_done} step(s), {merged.replans} replan(s)"
    else:
        merged.message = after.message.replace(f"(after {after.replans} replans)", f"(after {merged.replans} replans)")
    return merged


def _outcome(reply: dict[str, Any]) -> Outcome:
    if reply.get("ok"):
        record = reply.get("record")
        return Outcome(record=ChangeRecord.from_json(record) if record else None)
    error = reply.get("error") or {}
    if error.get("code") == "rejected":
        violations = tuple(Violation(v.get("code", ""), v.get("message", "")) for v in reply.get("violations", []))
        return Outcome(violations=violations or (Violation("rejected", str(error.get("message", "rejected"))),))
    raise StoreError(f"the world model did not apply the step's effects: {error.get('message', reply)}")
