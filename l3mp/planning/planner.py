"""Run a planner on a problem: a status and PDDL action strings out, never an exception for planner failures."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import unified_planning.model as upm
from unified_planning.engines import PlanGenerationResult
from unified_planning.engines import PlanGenerationResultStatus as Status
from unified_planning.engines.results import LogLevel
from unified_planning.exceptions import UPNoRequestedEngineAvailableException
from unified_planning.plans import SequentialPlan
from unified_planning.shortcuts import OneshotPlanner, SequentialSimulator

from l3mp.planning.problem import action_text

PLANNERS = ("lapkt", "fast-downward")
"""The planners l3mp is tested with (any one-shot planner of unified-planning's factory works)."""

_STATUS = {
    Status.SOLVED_SATISFICING: "solved",
    Status.SOLVED_OPTIMALLY: "solved",
    Status.UNSOLVABLE_PROVEN: "unsolvable",
    Status.UNSOLVABLE_INCOMPLETELY: "unsolvable",
    Status.TIMEOUT: "timeout",
    Status.MEMOUT: "memout",
}
_ERROR_LINES = 6


@dataclass(frozen=True)
class PlanOutcome:
    """What one planner call gave: `status` is solved, unsolvable, timeout, memout (out of memory) or error."""

    status: str
    plan: list[str] = field(default_factory=list)
    up_plan: SequentialPlan | None = None
    seconds: float = 0.0
    engine: str = ""
    message: str = ""
    up_status: str | None = None
    metrics: dict[str, str] = field(default_factory=dict)
    """The engine's own measurements (for LAPKT: ``parse_ground_s``, ``search_s``)."""

    @property
    def solved(self) -> bool:
        return self.status == "solved"


def plan(
    problem: upm.Problem,
    *,
    planner: str = "lapkt",
    planner_options: dict | None = None,
    timeout_s: float = 30,
) -> PlanOutcome:
    """Solve `problem` with the named unified-planning one-shot planner within `timeout_s` seconds.

    `planner_options` are the engine's parameters, e.g. ``{"planner": "siw"}`` or ``{"memory_limit_mb": 2048}``
    for LAPKT, or ``{"fast_downward_alias": "lama-first"}`` for Fast Downward.
    """
    if timeout_s <= 0:
        return PlanOutcome("error", engine=planner, message=f"timeout_s must be positive, not {timeout_s}")
    start = time.monotonic()
    if _holds_already(problem):  # LAPKT crashes on a goal the initial state satisfies: the empty plan, without it
        return PlanOutcome("solved", [], SequentialPlan([]), seconds=time.monotonic() - start, engine=planner,
                           message="plan of 0 step(s): the goal holds in the initial state")
    try:
        with OneshotPlanner(name=planner, params=dict(planner_options or {})) as engine:
            result = engine.solve(problem, timeout=timeout_s)
    except UPNoRequestedEngineAvailableException:
        return PlanOutcome("error", engine=planner, message=f"no planner named {planner!r} is installed in "
                           f"unified-planning; use one of: {', '.join(PLANNERS)}")
    except Exception as exc:  # unified-planning raises many types (unsupported problem, bad options, ...)
        return PlanOutcome("error", seconds=time.monotonic() - start, engine=planner,
                           message=f"{planner} could not run: {type(exc).__name__}: {exc}")
    return _outcome(result, planner, time.monotonic() - start, timeout_s)


def _holds_already(problem: upm.Problem) -> bool:
    """Whether the initial state satisfies the goal (unified-planning's sequential simulator); False when it
    cannot tell (the planner then decides)."""
    try:
        with SequentialSimulator(problem=problem) as simulator:
            return bool(simulator.is_goal(simulator.get_initial_state()))
    except Exception:  # a problem the simulator does not support: the planner decides
        return False


def _outcome(result: PlanGenerationResult, planner: str, seconds: float, timeout_s: float) -> PlanOutcome:
    status = _STATUS.get(result.status, "error")
    engine = result.engine_name or planner
    if status == "solved" and not isinstance(result.plan, SequentialPlan):
        return PlanOutcome("error", seconds=seconds, engine=engine, up_status=result.status.name,
                           message=f"{engine} reported a solution but gave no sequential plan")
    up_plan = result.plan if status == "solved" else None
    steps = up_plan.actions if up_plan is not None else []
    return PlanOutcome(
        status,
        plan=[action_text(step) for step in steps],
        up_plan=up_plan,
        seconds=seconds,
        engine=engine,
        message=_message(result, status, len(steps), timeout_s),
        up_status=result.status.name,
        metrics=dict(result.metrics or {}),
    )


def _message(result: PlanGenerationResult, status: str, steps: int, timeout_s: float) -> str:
    if status == "solved":
        return f"plan of {steps} step(s)"
    if result.status == Status.UNSOLVABLE_PROVEN:
        return "no plan exists: the goal cannot be reached from this state"
    if result.status == Status.UNSOLVABLE_INCOMPLETELY:
        return "no plan found; the planner's search is incomplete, so a plan may still exist (try a complete planner)"
    if status == "timeout":
        return f"no plan within the time limit of {timeout_s:g} s"
    if status == "memout":
        return f"the planner ran out of memory{_memory_cap(result)} before finding a plan"
    return f"planner failed ({result.status.name}): {_error_tail(result)}"


def _memory_cap(result: PlanGenerationResult) -> str:
    """`` (its cap: N MB)`` when the engine reports the cap it ran under (LAPKT's ``memory_limit_mb`` metric)."""
    limit = (result.metrics or {}).get("memory_limit_mb")
    return f" (its cap: {limit} MB, set by the memory_limit_mb option)" if limit else ""


def _error_tail(result: PlanGenerationResult) -> str:
    """The last lines the planner printed (its error output first), for the error message."""
    logs = sorted(result.log_messages or (), key=lambda m: m.level != LogLevel.ERROR)
    for log in logs:
        lines = [line for line in log.message.strip().splitlines() if line.strip()]
        if lines:
            return " | ".join(lines[-_ERROR_LINES:])
    return "it printed nothing"
