"""Plan validation against the full world graph, explaining the first failing step or the goal atoms left false."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import unified_planning.model as upm
from unified_planning.engines import ValidationResultStatus
from unified_planning.model import FNode
from unified_planning.model.walkers import StateEvaluator
from unified_planning.plans import ActionInstance, PlanKind, SequentialPlan
from unified_planning.shortcuts import PlanValidator, SequentialSimulator

from l3mp.domain.pddl_domain import Domain
from l3mp.errors import ProblemError
from l3mp.planning.problem import action_instance, full_state_problem, type_name
from l3mp.world.graph import WorldGraph


@dataclass(frozen=True)
class Validation:
    """Whether a plan reaches its goal; if not, where and why.

    `failed_step` is the 0-based index of the first step that cannot be executed (None when
    every step can, but the goal is not reached); `unsatisfied` lists the false preconditions
    of that step, or the goal atoms false at the end, as ground PDDL literals.
    """

    valid: bool
    failed_step: int | None = None
    failed_action: str | None = None
    unsatisfied: list[str] = field(default_factory=list)
    message: str = ""


def validate_plan(domain: Domain, graph: WorldGraph, plan_actions: Sequence[str], goal: FNode | str) -> Validation:
    """Check a plan of PDDL action strings against the whole current graph and `goal`.

    Uses unified-planning's sequential plan validator for the verdict and its sequential
    simulator to explain a failure. A malformed `goal` raises ProblemError; a malformed or
    unknown action is reported as the failing step.
    """
    problem = full_state_problem(domain, graph, goal, name="validation")
    steps = []
    for index, text in enumerate(plan_actions):
        try:
            steps.append(action_instance(problem, text))
        except ProblemError as exc:
            return Validation(False, index, text, [], f"step {index + 1}: {exc}")
    validator = PlanValidator(problem_kind=problem.kind, plan_kind=PlanKind.SEQUENTIAL_PLAN)
    verdict = validator.validate(problem, SequentialPlan(steps, problem.environment))
    if verdict.status == ValidationResultStatus.VALID:
        return Validation(True, message=f"valid: the {len(steps)} step(s) reach the goal")
    return _explain(problem, steps, plan_actions)


def _explain(problem: upm.Problem, steps: list[ActionInstance], texts: Sequence[str]) -> Validation:
    """Step through the plan to find the first inapplicable step, else the goal atoms left false."""
    with SequentialSimulator(problem=problem) as simulator:
        state = simulator.get_initial_state()
        for index, step in enumerate(steps):
            conditions, reason = simulator.get_unsatisfied_conditions(state, step)
            following = simulator.apply(state, step) if not conditions else None
            if following is None:
                false = failing_literals(problem, state, conditions)
                why = f"{_listing(false)} false" if false else f"it cannot ({reason})"
                return Validation(False, index, texts[index], false,
                                  f"step {index + 1} of {len(steps)}, {texts[index]}, is not applicable: {why}")
            state = following
        false = failing_literals(problem, state, simulator.get_unsatisfied_goals(state))
    return Validation(False, None, None, false,
                      f"every step applies, but after the {len(steps)} step(s) the goal is not reached: "
                      f"{_listing(false)} false")


def _listing(literals: list[str]) -> str:
    return ", ".join(literals) + (" is" if len(literals) == 1 else " are")


def failing_literals(problem: upm.Problem, state: upm.State, conditions: Sequence[FNode]) -> list[str]:
    """The ground literals that make `conditions` false in `state`, as PDDL (a conjunction or a
    universal condition is broken down to its false instances; other formulas are shown whole)."""
    evaluator = StateEvaluator(problem)

    def holds(exp: FNode) -> bool:
        return evaluator.evaluate(exp, state).bool_constant_value()

    out: list[str] = []
    for condition in conditions:
        for literal in _false_parts(problem, condition, holds):
            if literal not in out:
                out.append(literal)
    return out


def _false_parts(problem: upm.Problem, exp: FNode, holds: Callable[[FNode], bool]) -> list[str]:
    if holds(exp):
        return []
    if exp.is_and():
        return [p for arg in exp.args for p in _false_parts(problem, arg, holds)]
    if exp.is_forall():
        return [p for inst in _instances(problem, exp) for p in _false_parts(problem, inst, holds)]
    if exp.is_not() and (exp.arg(0).is_or() or exp.arg(0).is_exists()):
        em = problem.environment.expression_manager
        parts = _instances(problem, exp.arg(0)) if exp.arg(0).is_exists() else list(exp.arg(0).args)
        return [p for part in parts for p in _false_parts(problem, em.Not(part), holds)]
    return [pddl(exp)]


def _instances(problem: upm.Problem, quantified: FNode) -> list[FNode]:
    """The body of a forall/exists for every assignment of objects to its variables."""
    variables = quantified.variables()
    choices = [list(problem.objects(v.type)) for v in variables]
    body = quantified.arg(0)
    return [body.substitute(dict(zip(variables, combo, strict=True))) for combo in itertools.product(*choices)]


def pddl(exp: FNode) -> str:
    """An expression as PDDL text, e.g. ``(not (light_on lamp_1))``."""
    if exp.is_fluent_exp():
        return "(" + " ".join([exp.fluent().name, *(pddl(a) for a in exp.args)]) + ")"
    if exp.is_object_exp():
        return exp.object().name
    if exp.is_variable_exp():
        return f"?{exp.variable().name}"
    if exp.is_parameter_exp():
        return f"?{exp.parameter().name}"
    if exp.is_bool_constant():
        return "(and)" if exp.bool_constant_value() else "(or)"
    if exp.is_forall() or exp.is_exists():
        variables = " ".join(f"?{v.name} - {type_name(v.type)}" for v in exp.variables())
        return f"({'forall' if exp.is_forall() else 'exists'} ({variables}) {pddl(exp.arg(0))})"
    for test, word in ((exp.is_and, "and"), (exp.is_or, "or"), (exp.is_not, "not"), (exp.is_implies, "imply"),
                       (exp.is_equals, "=")):
        if test():
            return "(" + " ".join([word, *(pddl(a) for a in exp.args)]) + ")"
    return str(exp)
