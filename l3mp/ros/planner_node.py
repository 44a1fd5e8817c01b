"""The planner node: task requests in, plans and their status out, planned on a replica of the world model's graph."""

from __future__ import annotations

import time
from typing import Any

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from std_msgs.msg import String

from l3mp.errors import FormatError, LLMError
from l3mp.ros import protocol as m
from l3mp.ros.base import L3mpNode
from l3mp.ros.follow import Follower
from l3mp.ros.health import LazyLLM, age
from l3mp.ros.params import PLANNER, check_retrieval, llm_settings
from l3mp.ros.replica import Replica
from l3mp.ros.worker import Worker

SYNC_WAIT_S = 10.0
"""How long a task waits for the first state of the world model before it fails."""
TASK_KEYS: dict[str, type | tuple[type, ...]] = {"id": str, "task": str, "goal": str, "execute": bool,
                                                 "retrieval": str, "speaker": str}


class PlannerNode(L3mpNode):
    """Plans task requests (``~/task``) one at a time on a worker thread with TaskPlanner, over a replica that
    follows the world model's state and change topics (so it works from another process or machine).
    Publishes each request's progress on ``~/status`` and its outcome on ``~/plan``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("planner", PLANNER, results_topic=f"~/{m.PLAN}", **kwargs)
        p = self.params
        check_retrieval(p["retrieval"], "parameter retrieval")
        self.llm = LazyLLM(llm_settings(p))
        self._retrievers: dict[str, Any] = {}
        self.replica = Replica(self.domain, self.rules)
        follow = MutuallyExclusiveCallbackGroup()
        self.follower = Follower(self, self.replica, p["world_model"], follow)
        self._status = self.create_publisher(String, f"~/{m.STATUS}", m.request_qos())
        self.create_subscription(String, f"~/{m.TASK}", self.guarded(m.TASK, self._on_task), m.request_qos(),
                                 callback_group=MutuallyExclusiveCallbackGroup())
        self.last_plan: float | None = None
        self._tasks = Worker("l3mp-planner", self._plan, capacity=p["limits.max_queue"],
                             failed=self.job_failed(m.PLAN), idle=self.follower.poll)

    def _on_task(self, msg: String) -> None:
        ident = m.new_id(m.TASK)
        try:
            request = m.request_object(msg.data, max_bytes=self.params["limits.max_message_bytes"], text_key="task")
            ident = m.request_id(request, m.TASK)
            m.take(request, TASK_KEYS, ("task",))
            if "retrieval" in request:
                check_retrieval(request["retrieval"], "the request")
        except FormatError as exc:
            self.publish_result(m.error(m.PLAN, ident, "malformed", str(exc)))
            return
        if self.submit_job(self._tasks, m.PLAN, ident, request, "tasks"):
            self._say(ident, "queued", queue_depth=self._tasks.depth)

    def _plan(self, job: tuple[str, dict[str, Any]]) -> None:
        from l3mp.planning.pipeline import TaskPlanner

        ident, request = job
        execute = request.get("execute", self.params["execute_by_default"])
        mode = request.get("retrieval", self.params["retrieval"])
        common = {"task": request["task"], "execute": execute, "retrieval": mode}
        if not self.follower.wait_synced(SYNC_WAIT_S):
            self.publish_result(m.error(m.PLAN, ident, "no_state", f"not in step with the world model: "
                                        f"{self.replica.problem}", **common))
            return
        goal = request.get("goal")
        try:
            llm = None if goal is not None and mode == "full" else self.llm.get()
            retriever = self._retriever(mode, llm)
        except LLMError as exc:
            self.publish_result(m.error(m.PLAN, ident, "llm_unavailable", str(exc), **common))
            return
        self._say(ident, "planning", state_seq=self.replica.origin_seq)
        p = self.params
        planner = TaskPlanner(self.replica, llm, retriever, planner=p["planner"], timeout_s=p["timeout_s"],
                              max_expansions=p["max_expansions"], goal_attempts=p["goal_attempts"])
        started = time.perf_counter()
        result = planner.plan(request["task"], goal=goal, speaker=request.get("speaker"))
        seconds = time.perf_counter() - started
        if llm is not None:
            self.llm.record(None if result.ledger.total_tokens else (result.reason or None))
        self.last_plan = time.time()
        fields = {**common, "state_seq": self.replica.origin_seq, "plan_seconds": round(seconds, 4),
                  "plan": result.plan, "goal": result.goal, "status": result.status, "result": result.to_json()}
        if result.ok:
            self.publish_result(m.result(m.PLAN, ident, True, **fields))
        elif result.outcome == "asked":  # as the world model asks about updates: code ask, the question beside
            self.publish_result(m.error(m.PLAN, ident, "ask", result.reason, question=result.question, **fields))
        else:
            self.publish_result(m.error(m.PLAN, ident, result.status, result.reason or result.status, **fields))
        self._say(ident, result.status)

    def _retriever(self, mode: str, llm: Any) -> Any:
        from l3mp.retrieval import make_retriever

        key = f"{mode}:{'llm' if llm is not None else 'none'}"
        if key not in self._retrievers:
            self._retrievers[key] = make_retriever(mode, llm=llm, domain=self.domain,
                                                   depth=self.params["retrieval_depth"])
        return self._retrievers[key]

    def _say(self, ident: str, status: str, **fields: Any) -> None:
        self._status.publish(String(data=m.dumps({"id": ident, "status": status, "time": time.time(), **fields})))

    def checks(self) -> dict[str, tuple[int, str]]:
        return {"llm": self.llm.status(), "world_model": self.follower.check()}

    def values(self) -> dict[str, Any]:
        return {**super().values(), "queue_depth": self._tasks.depth, "last_plan": age(self.last_plan)}

    def close(self) -> None:
        self._tasks.stop(timeout_s=self.params["timeout_s"] + 5)
        self.llm.close()
