"""One AI2-THOR episode: perceive the scene, plan a task, execute it through the controller, re-plan on surprises.

The goal comes from the LLM (the paper's goal generation) or is given in PDDL; plans come from the project's
planner over the whole belief (`TaskPlanner` with full retrieval) and run through `run_plan` with a
`ThorExecutor`. When a plan ends with the goal still false in what the agent saw, it re-plans too.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from l3mp.domain.paths import domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.llm.types import LLM
from l3mp.planning.execute import ExecutionReport, run_plan
from l3mp.planning.pipeline import TaskPlanner
from l3mp.retrieval.full import FullRetriever
from l3mp.thor.executor import Controller, ThorExecutor
from l3mp.thor.perception import ThorPerception
from l3mp.thor.poses import reachable_pose_finder
from l3mp.world.model import WorldModel

DOMAIN = "thor"


@dataclass
class ThorRun:
    """What became of one task: its goal, every plan made, the execution and whether the goal holds at the end."""

    task: str
    status: str
    goal: str | None = None
    plans: list[list[str]] = field(default_factory=list)
    execution: ExecutionReport | None = None
    goal_reached: bool = False
    replans: int = 0
    plan_seconds: float = 0.0
    seconds: float = 0.0
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task, "status": self.status, "goal": self.goal, "goal_reached": self.goal_reached,
                "replans": self.replans, "plans": self.plans, "plan_seconds": round(self.plan_seconds, 3),
                "seconds": round(self.seconds, 3), "reason": self.reason,
                "execution": None if self.execution is None else self.execution.to_json()}


class ThorSession:
    """A scene, its belief (an in-memory or stored `WorldModel` of the thor domain) and the agent acting in it."""

    def __init__(self, controller: Controller, *, scene: str, world: WorldModel | None = None,
                 known_poses: Mapping[str, tuple] | None = None, llm: LLM | None = None, planner: str = "lapkt",
                 timeout_s: float = 60.0) -> None:
        self.world = world if world is not None else WorldModel(Domain.from_file(domain_path(DOMAIN)))
        self.controller = controller
        self.perception = ThorPerception(self.world.domain, scene=scene)
        self.poses = reachable_pose_finder(controller, known_poses)
        self.executor = ThorExecutor(controller, self.world, self.perception, self.poses)
        self.planner = TaskPlanner(self.world, llm, FullRetriever(), planner=planner, timeout_s=timeout_s,
                                   max_expansions=0)

    def start(self, *, survey: bool = True) -> str:
        """Go to the start pose and perceive the scene; returns the entity the agent stands at."""
        return self.executor.start(survey=survey)

    def run(self, task: str, *, goal: str | None = None, max_replans: int = 3) -> ThorRun:
        """Plan `task` (with `goal` in PDDL, no LLM is asked) and execute it; never raises for task failures."""
        started = time.perf_counter()
        run = ThorRun(task, "failed")
        first = self.planner.plan(task, goal=goal)
        run.plan_seconds += first.planner_seconds
        run.goal = first.goal
        if not first.ok or first.goal is None:
            run.status, run.reason = first.status, first.reason or "no valid plan"
            run.seconds = time.perf_counter() - started
            return run
        goal_pddl = first.goal
        run.plans.append(list(first.plan))

        def replan() -> list[str] | None:
            again = self.planner.plan(task, goal=goal_pddl)
            run.plan_seconds += again.planner_seconds
            if not again.ok:
                run.reason = again.reason
                return None
            run.plans.append(list(again.plan))
            self.executor.expect(again.plan, goal_pddl)
            return again.plan

        plan = list(first.plan)
        while True:
            self.executor.expect(plan, goal_pddl)
            report = run_plan(self.world, self.executor, plan, task_ref=task, replan=replan,
                              max_replans=max_replans - run.replans)
            run.replans += report.replans
            run.execution = _merged(run.execution, report)
            run.goal_reached = self.executor.reached(goal_pddl)  # what the agent sees, as on the node path
            if run.goal_reached or report.status != "completed" or run.replans >= max_replans:
                break
            run.execution.failures.append("the plan ran, but what the agent saw leaves the goal false")
            run.replans += 1
            new_plan = replan()
            if new_plan is None:
                break
            plan = new_plan
        run.status = "reached" if run.goal_reached else "failed"
        run.reason = run.reason or run.execution.message
        run.seconds = time.perf_counter() - started
        return run

def _merged(before: ExecutionReport | None, after: ExecutionReport) -> ExecutionReport:
    if before is None:
        return after
    return ExecutionReport(after.status, [*before.steps, *after.steps], [*before.failures, *after.failures],
                           before.replans + after.replans, after.message)
