"""Planning on the world graph: PDDL problems from the graph, planners (LAPKT, Fast Downward), validation, execution.

Importing this package registers LAPKT in unified-planning's engine factory as ``lapkt`` and
silences unified-planning's credits banner.
"""

from l3mp.planning.engines import register_engines
from l3mp.planning.execute import (
    ActionEffects,
    ExecutionReport,
    Executor,
    GraphExecutor,
    StepOutcome,
    StepRecord,
    run_plan,
)
from l3mp.planning.planner import PlanOutcome, plan
from l3mp.planning.problem import action_instance, action_text, build_problem, full_state_problem
from l3mp.planning.validate import Validation, validate_plan

register_engines()

__all__ = [
    "ActionEffects",
    "ExecutionReport",
    "Executor",
    "GraphExecutor",
    "PlanOutcome",
    "StepOutcome",
    "StepRecord",
    "Validation",
    "action_instance",
    "action_text",
    "build_problem",
    "full_state_problem",
    "plan",
    "register_engines",
    "run_plan",
    "validate_plan",
]
