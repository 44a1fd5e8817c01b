"""Plan execution: run each step in a world, write its effects back to the world model, replan on failure."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import unified_planning.model as upm
from unified_planning.exceptions import UPInvalidActionError
from unified_planning.plans import ActionInstance
from unified_planning.shortcuts import SequentialSimulator

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.errors import DeltaRejected, ProblemError
from l3mp.planning.problem import action_instance, action_words, build_problem, type_name
from l3mp.planning.validate import failing_literals
from l3mp.world.delta import Delta
from l3mp.world.graph import WorldGraph
from l3mp.world.model import WorldModel

Replanner = Callable[[], Sequence[str] | None]
"""Makes a new plan from the world model's current state; None when there is none."""


@dataclass(frozen=True)
class StepOutcome:
    """How executing one action in the world went."""

    ok: bool
    message: str = ""


class Executor(Protocol):
    """A world that runs ground actions: the simulator, AI2-THOR, a ROS robot."""

    def execute(self, action: str) -> StepOutcome: ...


class ActionEffects:
    """What a ground action such as ``(move the_robot kitchen_1 hall_1)`` needs and does in a world graph.

    A STRIPS-like action schema (preconditions a conjunction of possibly negated atoms and equalities,
    unconditional add/delete effects) is compiled once and checked directly against the graph's facts
    (PDDL semantics: deletions before additions). Every other action (quantifiers, conditional effects,
    disjunctions, ...) and every malformed one (unknown action or object, wrong arity or argument type,
    which raise ProblemError) goes through unified-planning's sequential simulator over the objects the
    action names. `compile_schemas=False` sends every action to the simulator (the reference the compiled
    path is tested against).
    """

    def __init__(self, domain: Domain, *, compile_schemas: bool = True) -> None:
        self._domain = domain
        self._global = {a.name for a in domain.up_problem.actions if _quantified(a)}
        self._schemas = _compile(domain) if compile_schemas else {}
        self._arity = {name: p.arity for name, p in domain.predicates.items()}

    def unsatisfied(self, graph: WorldGraph, action: str) -> list[str]:
        """The action's preconditions that are false in `graph`, as ground PDDL literals ([] if applicable).

        Raises ProblemError for an unknown action or object, or a wrong argument.
        """
        words = action_words(action)
        ground = self._compiled(graph, words)
        if ground is not None:
            schema, args = ground
            return schema.unsatisfied(graph, args)
        problem, step = self._ground(graph, words, action)
        with SequentialSimulator(problem=problem) as simulator:
            state = simulator.get_initial_state()
            try:
                conditions, reason = simulator.get_unsatisfied_conditions(state, step)
            except UPInvalidActionError:
                return [f"{action} cannot be applied ({_INVALID})"]
            if not conditions and reason is not None:
                return [f"{action} cannot be applied ({reason.name.lower()})"]
            return failing_literals(problem, state, conditions)

    def delta(self, graph: WorldGraph, action: str) -> Delta:
        """The facts the action removes and adds when applied in `graph` (ProblemError if inapplicable)."""
        words = action_words(action)
        ground = self._compiled(graph, words)
        if ground is not None:
            schema, args = ground
            false = schema.unsatisfied(graph, args)
            if false:
                raise ProblemError(f"{action} is not applicable: {', '.join(false)}")
            return schema.delta(graph, args)
        problem, step = self._ground(graph, words, action)
        with SequentialSimulator(problem=problem) as simulator:
            before = simulator.get_initial_state()
            try:
                after = simulator.apply(before, step)
            except UPInvalidActionError:
                after = None
        if after is None:
            why = ", ".join(self.unsatisfied(graph, action)) or "its effects conflict"
            raise ProblemError(f"{action} is not applicable: {why}")
        remove, add = [], []
        for atom in problem.initial_values:
            was, now = before.get_value(atom).bool_constant_value(), after.get_value(atom).bool_constant_value()
            if was != now:
                (add if now else remove).append(Fact(atom.fluent().name, tuple(a.object().name for a in atom.args)))
        return Delta(remove=tuple(sorted(remove)), add=tuple(sorted(add)))

    def _compiled(self, graph: WorldGraph, words: list[str]) -> tuple[_Schema, tuple[str, ...]] | None:
        """The compiled schema of a ground action (its `action_words`) and its arguments; None when the action
        is not compiled or anything about it would be an error (the simulator path then reports it)."""
        schema = self._schemas.get(words[0])
        args = tuple(words[1:])
        if schema is None or len(args) != len(schema.types):
            return None
        constants = self._domain.constants
        for arg, expected in zip(args, schema.types, strict=True):
            actual = constants.get(arg) or graph.entity_type(arg)
            if actual is None or not self._domain.has_type(actual) or not self._domain.is_subtype(actual, expected):
                return None
        scope = {*args, *constants}
        if any(self._arity.get(f.predicate) != len(f.args) for f in graph.facts_within(scope)):
            return None  # a graph fact that does not fit the domain: the simulator path says which
        return schema, args

    def _ground(self, graph: WorldGraph, words: list[str], action: str) -> tuple[upm.Problem, ActionInstance]:
        """A problem holding just what the action (`action`, its `action_words`) can touch (its arguments and
        the constants; every entity for an action with quantifiers), and the action in it."""
        scope = None if words[0] in self._global else [w for w in words[1:] if graph.has_entity(w)]
        problem = build_problem(self._domain, graph, entities=scope, goal="(and)", name="step")
        return problem, action_instance(problem, action)


_INVALID = "its ground preconditions contradict each other or its effects conflict"

_Term = int | str
"""An argument of a compiled literal: the index of an action parameter, or an object (constant) name."""


@dataclass(frozen=True)
class _Literal:
    """A possibly negated atom ``(predicate term ...)``, or an equality when `predicate` is None."""

    positive: bool
    predicate: str | None
    terms: tuple[_Term, ...]

    def holds(self, graph: WorldGraph, args: tuple[str, ...]) -> bool:
        names = _bind(self.terms, args)
        true = names[0] == names[1] if self.predicate is None else graph.has_fact(Fact(self.predicate, names))
        return true == self.positive

    def text(self, args: tuple[str, ...]) -> str:
        """The ground literal as PDDL, e.g. ``(not (is_open fridge_1))``."""
        atom = "(" + " ".join([self.predicate or "=", *_bind(self.terms, args)]) + ")"
        return atom if self.positive else f"(not {atom})"


@dataclass(frozen=True)
class _Schema:
    """An action schema compiled to precondition literals and add/delete effects over its parameters."""

    types: tuple[str, ...]
    preconditions: tuple[_Literal, ...]
    deletes: tuple[_Literal, ...]
    adds: tuple[_Literal, ...]

    def unsatisfied(self, graph: WorldGraph, args: tuple[str, ...]) -> list[str]:
        out: list[str] = []
        for literal in self.preconditions:
            if not literal.holds(graph, args):
                text = literal.text(args)
                if text not in out:
                    out.append(text)
        return out

    def delta(self, graph: WorldGraph, args: tuple[str, ...]) -> Delta:
        """PDDL semantics: deletions first, then additions (a fact both deleted and added ends up true)."""
        adds = {Fact(str(e.predicate), _bind(e.terms, args)) for e in self.adds}
        deletes = {Fact(str(e.predicate), _bind(e.terms, args)) for e in self.deletes} - adds
        return Delta(remove=tuple(sorted(f for f in deletes if graph.has_fact(f))),
                     add=tuple(sorted(f for f in adds if not graph.has_fact(f))))


def _bind(terms: tuple[_Term, ...], args: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(args[t] if isinstance(t, int) else t for t in terms)


def _compile(domain: Domain) -> dict[str, _Schema]:
    """The domain's actions that compile to a `_Schema`, by name."""
    out = {}
    for action in domain.up_problem.actions:
        schema = _schema(action)
        if schema is not None:
            out[action.name] = schema
    return out


def _schema(action: upm.Action) -> _Schema | None:
    """`action` compiled, or None when it is not an instantaneous action with a conjunctive precondition of
    literals and equalities and unconditional boolean effects."""
    if not isinstance(action, upm.InstantaneousAction) or action.simulated_effect is not None:
        return None
    index = {p.name: i for i, p in enumerate(action.parameters)}
    todo, preconditions = list(reversed(action.preconditions)), []
    while todo:
        node = todo.pop()
        if node.is_and():
            todo.extend(reversed(node.args))
            continue
        literal = _literal(node, index)
        if literal is None:
            return None
        preconditions.append(literal)
    deletes, adds = [], []
    for effect in action.effects:
        if effect.is_conditional() or effect.is_forall() or not effect.is_assignment():
            return None
        if not effect.value.is_bool_constant() or not effect.fluent.fluent().type.is_bool_type():
            return None
        terms = _terms(effect.fluent.args, index)
        if terms is None:
            return None
        (adds if effect.value.bool_constant_value() else deletes).append(
            _Literal(True, effect.fluent.fluent().name, terms))
    types = tuple(type_name(p.type) for p in action.parameters)
    return _Schema(types, tuple(preconditions), tuple(deletes), tuple(adds))


def _literal(node: upm.FNode, index: dict[str, int]) -> _Literal | None:
    positive = not node.is_not()
    atom = node if positive else node.arg(0)
    if atom.is_fluent_exp() and atom.fluent().type.is_bool_type():
        predicate: str | None = atom.fluent().name
    elif atom.is_equals():
        predicate = None
    else:
        return None
    terms = _terms(atom.args, index)
    return None if terms is None else _Literal(positive, predicate, terms)


def _terms(args: Sequence[upm.FNode], index: dict[str, int]) -> tuple[_Term, ...] | None:
    out: list[_Term] = []
    for arg in args:
        if arg.is_parameter_exp():
            out.append(index[arg.parameter().name])
        elif arg.is_object_exp():
            out.append(arg.object().name)
        else:
            return None
    return tuple(out)


def _quantified(action: upm.Action) -> bool:
    """True when the action's conditions or effects quantify over objects (so it may touch any of them)."""
    conditions = [*action.preconditions, *(e.condition for e in action.effects)]
    return any(e.is_forall() for e in action.effects) or any(
        node.is_forall() or node.is_exists() for c in conditions for node in _nodes(c)
    )


def _nodes(exp: upm.FNode) -> list[upm.FNode]:
    out, todo = [], [exp]
    while todo:
        node = todo.pop()
        out.append(node)
        todo.extend(node.args)
    return out


class GraphExecutor:
    """A simulated world for tests and the text simulator: each action is checked against a separate
    ground-truth WorldGraph and, if its preconditions hold there, applied to it."""

    def __init__(self, domain: Domain, truth: WorldGraph) -> None:
        self.truth = truth
        self._effects = ActionEffects(domain)

    def execute(self, action: str) -> StepOutcome:
        try:
            false = self._effects.unsatisfied(self.truth, action)
        except ProblemError as exc:
            return StepOutcome(False, str(exc))
        if false:
            return StepOutcome(False, f"{action} failed in the world: {', '.join(false)} false there")
        delta = self._effects.delta(self.truth, action)
        for fact in delta.remove:
            self.truth.remove_fact(fact)
        for fact in delta.add:
            self.truth.add_fact(fact)
        return StepOutcome(True, f"{action} done")


@dataclass(frozen=True)
class StepRecord:
    """One attempted step: the action, whether it ran, and the world-model record of its effects (its
    sequence number and the facts it removed and added; None when nothing was recorded)."""

    action: str
    ok: bool
    message: str
    record_seq: int | None = None
    delta: Delta | None = None

    def to_json(self) -> dict:
        return {"action": self.action, "ok": self.ok, "message": self.message, "record_seq": self.record_seq,
                "delta": None if self.delta is None else self.delta.to_json()}


@dataclass
class ExecutionReport:
    """How a plan's execution went: `status` is ``completed`` (every step of the last plan ran) or ``failed``."""

    status: str
    steps: list[StepRecord] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    replans: int = 0
    message: str = ""

    @property
    def steps_done(self) -> int:
        return sum(1 for s in self.steps if s.ok)

    def to_json(self) -> dict:
        return {"status": self.status, "message": self.message, "replans": self.replans, "failures": self.failures,
                "steps": [s.to_json() for s in self.steps]}


def run_plan(
    world: WorldModel,
    executor: Executor,
    plan_actions: Sequence[str],
    *,
    task_ref: str | None = None,
    replan: Replanner | None = None,
    max_replans: int = 3,
) -> ExecutionReport:
    """Execute a plan step by step, keeping the world model in step with the world.

    Before each step its preconditions are checked in the world model (an external update may
    have changed it); the step then runs in `executor`; on success its effects are written to
    the model as one ``source="plan"`` record (input: the action, ref: `task_ref`). A failed
    step, or one whose preconditions no longer hold, calls `replan` (at most `max_replans`
    times) and execution continues with the new plan.
    """
    effects = ActionEffects(world.domain)
    report = ExecutionReport("failed")
    pending = list(plan_actions)
    while pending:
        action = pending[0]
        failure = _blocked(effects, world.graph, action) or _step(world, effects, executor, action, task_ref, report)
        if failure is None:
            pending.pop(0)
            continue
        report.failures.append(failure)
        if replan is None or report.replans >= max_replans:
            report.message = f"stopped: {failure}" + ("" if replan is None else f" (after {report.replans} replans)")
            return report
        report.replans += 1
        new_plan = replan()
        if new_plan is None:
            report.message = f"stopped: {failure}; replanning found no plan"
            return report
        pending = list(new_plan)
    report.status = "completed"
    report.message = f"completed: {report.steps_done} step(s), {report.replans} replan(s)"
    return report


def _blocked(effects: ActionEffects, graph: WorldGraph, action: str) -> str | None:
    """Why the world model says the action cannot run now (None if it can)."""
    try:
        false = effects.unsatisfied(graph, action)
    except ProblemError as exc:
        return f"{action} cannot run in the world model's state: {exc}"
    return f"{action}: {', '.join(false)} no longer true in the world model" if false else None


def _step(
    world: WorldModel, effects: ActionEffects, executor: Executor, action: str, ref: str | None, report: ExecutionReport
) -> str | None:
    """Run the action in the world and write its effects back; the failure reason, or None."""
    outcome = executor.execute(action)
    if not outcome.ok:
        report.steps.append(StepRecord(action, False, outcome.message))
        return f"{action} failed: {outcome.message}"
    try:
        record = world.apply(effects.delta(world.graph, action), source="plan", input=action, ref=ref)
    except (DeltaRejected, ProblemError) as exc:
        report.steps.append(StepRecord(action, True, f"done, but its effects were not recorded: {exc}"))
        return f"{action} ran, but the world model rejected its effects: {exc}"
    report.steps.append(StepRecord(action, True, outcome.message, record.seq if record is not None else None,
                                   record.delta if record is not None else None))
    return None
