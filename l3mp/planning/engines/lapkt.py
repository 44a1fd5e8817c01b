"""A unified-planning engine for LAPKT's planners (SIW, BFS(f), SIW-then-BFS(f)), run in warm LAPKT processes."""

from __future__ import annotations

import os
import re
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import unified_planning as up
from unified_planning.engines import CompilationKind, Credits, Engine, OptimalityGuarantee
from unified_planning.engines import PlanGenerationResultStatus as Status
from unified_planning.engines.compilers import DisjunctiveConditionsRemover, QuantifiersRemover
from unified_planning.engines.mixins import OneshotPlannerMixin
from unified_planning.engines.results import CompilerResult, LogLevel, LogMessage, PlanGenerationResult
from unified_planning.io import PDDLWriter
from unified_planning.model import ProblemKind
from unified_planning.model.problem_kind_versioning import LATEST_PROBLEM_KIND_VERSION
from unified_planning.plans import ActionInstance, SequentialPlan
from unified_planning.shortcuts import SequentialSimulator

from l3mp.planning.engines import lapkt_pool
from l3mp.planning.engines.lapkt_pool import Ended, Request, default_memory_limit_mb

PLANNERS = {
    "siw-then-bfsf": "SIW_PLUS_BFS_F_Planner",
    "siw": "SIW_Planner",
    "bfsf": "BFS_f_Planner",
}
"""Planner option value -> LAPKT planner class; the class names themselves are accepted too."""

COMPLETE = frozenset({"SIW_PLUS_BFS_F_Planner", "BFS_f_Planner"})
"""Planners whose search is exhaustive: when they find no plan, none exists."""

DEFAULT = "default"
"""`memory_limit_mb` value meaning :func:`default_memory_limit_mb`."""

_REACH_GOAL = "REACH-GOAL"
_PHASES = {"LAPKT_PARSE_GROUND_TASK": "parse_ground_s", "LAPKT_SOLVE_TASK": "search_s"}
_PHASE_LINE = re.compile(r"\*\*\*Finished (\w+) after ([\d.]+) seconds wall-clock time")
_TASK_NAME = "l3mp_task"
_OUT_OF_MEMORY = ("MemoryError", "bad_alloc", "cannot allocate memory")
"""What a planning process that ran out of memory may print instead of reporting it (glibc when a library
needs memory, the C++ runtime)."""
_UP_LOCK = threading.Lock()
"""unified-planning's walkers are not thread-safe: the engine's own compile, write and plan mapping take turns."""

CREDITS = Credits(
    name="LAPKT",
    author="Nir Lipovetzky, Miquel Ramirez, Christian Muise, Anubhav Singh and contributors",
    contact="https://github.com/LAPKT-dev/LAPKT-public (engine for unified-planning: l3mp)",
    website="http://lapkt.org/",
    license="MIT",
    short_description="LAPKT width-based planners: SIW, BFS(f) and SIW-then-BFS(f) (the L3M+P planner).",
    long_description="LAPKT width-based planners: SIW, BFS(f) and SIW-then-BFS(f) (the L3M+P planner), "
    "run in warm LAPKT processes with LAPKT's Tarski front end.",
)



class LAPKTPlanner(Engine, OneshotPlannerMixin):
    """LAPKT as a unified-planning one-shot planner.

    `planner` is ``siw-then-bfsf`` (default), ``siw`` or ``bfsf`` (or a LAPKT class name).
    The result's metrics hold LAPKT's own wall-clock times, ``parse_ground_s`` and ``search_s``, and the
    cap it ran under, ``memory_limit_mb`` (absent without a cap).
    `memory_limit_mb` caps the address space of the process that grounds and searches (``"default"``:
    4 GB or half the RAM, whichever is less; None: no cap). Running out of it gives MEMOUT.

    Each problem is solved by LAPKT's own Tarski front end and search in a child forked from a warm
    server process (see ``lapkt_worker.py``), so a call pays neither Python's start nor LAPKT's import,
    and a timeout kills that child alone. LAPKT's front end silently drops quantified goals and
    mishandles other formulas (conjunctions of disjunctions, implications), so quantifiers and
    disjunctions are first compiled away with unified-planning's compilers and the plan is mapped back.
    """

    def __init__(self, planner: str = "siw-then-bfsf", memory_limit_mb: int | str | None = DEFAULT) -> None:
        Engine.__init__(self)
        OneshotPlannerMixin.__init__(self)
        self._planner = _planner_class(planner)
        if memory_limit_mb == DEFAULT:
            memory_limit_mb = default_memory_limit_mb()
        if memory_limit_mb is not None and (isinstance(memory_limit_mb, (str, bool)) or memory_limit_mb <= 0):
            raise ValueError(f"memory_limit_mb must be a positive number of MB, {DEFAULT!r} or None, "
                             f"not {memory_limit_mb!r}")
        self._memory_limit_mb = memory_limit_mb

    @property
    def name(self) -> str:
        return "lapkt"

    @property
    def planner(self) -> str:
        """The LAPKT planner class this engine runs."""
        return self._planner

    @property
    def memory_limit_mb(self) -> int | None:
        """The address-space cap of the planning process in MB (None: no cap)."""
        return self._memory_limit_mb  # type: ignore[return-value]

    @staticmethod
    def get_credits(**kwargs) -> Credits:
        return CREDITS

    @staticmethod
    def satisfies(optimality_guarantee: OptimalityGuarantee) -> bool:
        return optimality_guarantee == OptimalityGuarantee.SATISFICING

    @staticmethod
    def supported_kind() -> ProblemKind:
        kind = ProblemKind(version=LATEST_PROBLEM_KIND_VERSION)
        kind.set_problem_class("ACTION_BASED")
        kind.set_typing("FLAT_TYPING")
        kind.set_typing("HIERARCHICAL_TYPING")
        for conditions in ("NEGATIVE_CONDITIONS", "DISJUNCTIVE_CONDITIONS", "EXISTENTIAL_CONDITIONS",
                           "UNIVERSAL_CONDITIONS", "EQUALITIES"):
            kind.set_conditions_kind(conditions)
        kind.set_effects_kind("CONDITIONAL_EFFECTS")
        kind.set_effects_kind("FORALL_EFFECTS")
        kind.set_quality_metrics("PLAN_LENGTH")
        return kind

    @staticmethod
    def supports(problem_kind: ProblemKind) -> bool:
        return problem_kind <= LAPKTPlanner.supported_kind()

    def _solve(self, problem, heuristic=None, timeout=None, output_stream=None) -> PlanGenerationResult:
        assert isinstance(problem, up.model.Problem)
        kind = problem.kind  # computed once: unified-planning recomputes it on every access
        unsupported = sorted(set(kind.features) - set(self.supported_kind().features))
        if unsupported:
            message = f"LAPKT cannot solve problems with: {', '.join(unsupported)}"
            return PlanGenerationResult(Status.UNSUPPORTED_PROBLEM, None, self.name,
                                        log_messages=[LogMessage(LogLevel.ERROR, message)])
        with _UP_LOCK:
            task, compilations = _lapkt_task(problem, kind)
            writer = PDDLWriter(task, needs_requirements=True)
        with tempfile.TemporaryDirectory(prefix="l3mp-lapkt-") as tmp:
            with _UP_LOCK:
                request = self._request(tmp, writer)
            try:
                ended = lapkt_pool.run(request, timeout)  # unlocked: concurrent calls plan in parallel
            except lapkt_pool.LAPKTUnavailable as exc:
                return PlanGenerationResult(Status.INTERNAL_ERROR, None, self.name,
                                            log_messages=[LogMessage(LogLevel.ERROR, str(exc))])
            steps = _plan_lines(request.plan_file)
            out, err = _read(request.stdout), _read(request.stderr)
        _echo(out, err, output_stream)
        error = "\n".join(part for part in (err, ended.message) if part)
        logs = [LogMessage(LogLevel.INFO, out), LogMessage(LogLevel.ERROR, error)]
        metrics = {"engine_internal_time": str(ended.seconds), "outcome": ended.outcome, **_phases(out)}
        if self._memory_limit_mb is not None:
            metrics["memory_limit_mb"] = str(self._memory_limit_mb)
        plan = None
        with _UP_LOCK:
            if ended.outcome == "finished" and steps:
                plan = _map_back(_plan_from_lines(steps, writer), compilations)
            elif ended.outcome == "finished" and _goal_holds_initially(problem):  # LAPKT then writes no plan
                plan = SequentialPlan([], problem.environment)
        return PlanGenerationResult(self._status(ended, plan, error), plan, self.name, metrics=metrics,
                                    log_messages=logs)

    def _request(self, tmp: str, writer: PDDLWriter) -> Request:
        """Write the task's files into `tmp` and describe the request. The domain and problem names are
        normalised, so that the server parses a domain text once for all the problems that share it."""
        files = {key: os.path.join(tmp, name) for key, name in (
            ("domain", "domain.pddl"), ("problem", "problem.pddl"), ("plan_file", "plan.txt"),
            ("log_file", "lapkt.log"), ("stdout", "stdout.txt"), ("stderr", "stderr.txt"), ("result", "result.json"))}
        domain = re.sub(r"\(domain\s+[^\s()]+\)", f"(domain {_TASK_NAME})", writer.get_domain(), count=1)
        problem = re.sub(r"\(:domain\s+[^\s()]+\)", f"(:domain {_TASK_NAME})", writer.get_problem(), count=1)
        Path(files["domain"]).write_text(_with_preconditions(domain), encoding="utf-8")
        Path(files["problem"]).write_text(problem, encoding="utf-8")
        limit = None if self._memory_limit_mb is None else int(self._memory_limit_mb) * 1024 * 1024
        return Request(planner=self._planner, memory_limit_bytes=limit, **files)

    def _status(self, ended: Ended, plan: SequentialPlan | None, error: str) -> Status:
        if plan is not None:
            return Status.SOLVED_SATISFICING
        if ended.outcome == "timeout":
            return Status.TIMEOUT
        if ended.outcome == "unreachable":
            return Status.UNSOLVABLE_PROVEN
        if ended.outcome == "memout" or (ended.outcome != "finished" and any(m in error for m in _OUT_OF_MEMORY)):
            return Status.MEMOUT
        if ended.outcome == "finished":
            return Status.UNSOLVABLE_PROVEN if self._planner in COMPLETE else Status.UNSOLVABLE_INCOMPLETELY
        return Status.INTERNAL_ERROR


def _planner_class(planner: str) -> str:
    if planner in PLANNERS.values():
        return planner
    if planner in PLANNERS:
        return PLANNERS[planner]
    choices = ", ".join([*PLANNERS, *PLANNERS.values()])
    raise ValueError(f"unknown LAPKT planner {planner!r}; choose one of: {choices}")


def _is_literal_conjunction(condition: up.model.FNode) -> bool:
    if condition.is_and():
        return all(_is_literal_conjunction(c) for c in condition.args)
    if condition.is_not():
        condition = condition.arg(0)
    return condition.is_fluent_exp() or condition.is_bool_constant() or condition.is_equals()


def _conditions(problem: up.model.Problem) -> Iterator[up.model.FNode]:
    yield from problem.goals
    for action in problem.actions:
        yield from action.preconditions


def _lapkt_task(problem: up.model.Problem, kind: ProblemKind) -> tuple[up.model.Problem, list[CompilerResult]]:
    """The problem rewritten so that every goal and precondition is a conjunction of literals (LAPKT's
    front end drops quantified goals and mishandles other formulas), and the compilations that did it."""
    results = []
    if kind.has_existential_conditions() or kind.has_universal_conditions():
        results.append(QuantifiersRemover().compile(problem, CompilationKind.QUANTIFIERS_REMOVING))
        problem = results[-1].problem
    if not all(_is_literal_conjunction(c) for c in _conditions(problem)):
        results.append(DisjunctiveConditionsRemover().compile(problem, CompilationKind.DISJUNCTIVE_CONDITIONS_REMOVING))
        problem = results[-1].problem
    return problem, results


def _goal_holds_initially(problem: up.model.Problem) -> bool:
    with SequentialSimulator(problem=problem) as simulator:
        return simulator.is_goal(simulator.get_initial_state())


def _map_back(plan: SequentialPlan, results: list[CompilerResult]) -> SequentialPlan:
    """The plan in the original problem's actions; steps of the compilations' goal actions are dropped."""
    for result in reversed(results):
        plan = plan.replace_action_instances(result.map_back_action_instance)
    return plan


def _with_preconditions(domain: str) -> str:
    """The domain text with ``:precondition (and)`` in the actions that have none (Tarski requires one)."""
    return re.sub(r"(:parameters \([^()]*\))(\s*):effect", r"\1\2:precondition (and)\2:effect", domain)


def _plan_lines(plan_file: str) -> list[str]:
    """The plan's steps ``(name args)``, without comments and LAPKT's own ``REACH-GOAL`` steps."""
    try:
        text = Path(plan_file).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    steps = []
    for line in text.splitlines():
        m = re.match(r"^\s*\(\s*([^\s()]+)", line)
        if m and m.group(1).upper() != _REACH_GOAL:
            steps.append(line.strip())
    return steps



def _plan_from_lines(steps: list[str], writer: PDDLWriter) -> SequentialPlan:
    """The plan of LAPKT's ``(name arg ...)`` lines, in the written task's actions and objects."""
    actions = []
    for step in steps:
        name, *args = step.strip().strip("()").lower().split()
        action = writer.get_item_named(name)
        actions.append(ActionInstance(action, [writer.get_item_named(a) for a in args]))  # type: ignore[arg-type]
    return SequentialPlan(actions)


def _phases(stdout: str) -> dict[str, str]:
    """LAPKT's own wall-clock times: parsing and grounding (``parse_ground_s``) and search (``search_s``)."""
    return {_PHASES[m.group(1)]: m.group(2) for m in _PHASE_LINE.finditer(stdout) if m.group(1) in _PHASES}


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def _echo(out: str, err: str, output_stream) -> None:
    """Copy the planner's output to the caller's stream(s) (after the run)."""
    if output_stream is None:
        return
    if isinstance(output_stream, tuple):
        out_stream, err_stream = output_stream
        for stream, text in ((out_stream, out), (err_stream, err)):
            if stream is not None:
                stream.write(text)
    else:
        output_stream.write(out + err)
