"""A unified-planning engine for LAPKT's planners (SIW, BFS(f), SIW-then-BFS(f)), run as ``lapkt_cmd.py``."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import unified_planning as up
from unified_planning.engines import CompilationKind, Credits, OptimalityGuarantee
from unified_planning.engines import PlanGenerationResultStatus as Status
from unified_planning.engines.compilers import DisjunctiveConditionsRemover, QuantifiersRemover
from unified_planning.engines.pddl_planner import PDDLPlanner
from unified_planning.engines.results import CompilerResult, LogLevel, LogMessage, PlanGenerationResult
from unified_planning.io import PDDLWriter
from unified_planning.model import ProblemKind
from unified_planning.model.problem_kind_versioning import LATEST_PROBLEM_KIND_VERSION
from unified_planning.plans import SequentialPlan
from unified_planning.shortcuts import SequentialSimulator

PLANNERS = {
    "siw-then-bfsf": "SIW_PLUS_BFS_F_Planner",
    "siw": "SIW_Planner",
    "bfsf": "BFS_f_Planner",
}
"""Planner option value -> LAPKT planner class; the class names themselves are accepted too."""

COMPLETE = frozenset({"SIW_PLUS_BFS_F_Planner", "BFS_f_Planner"})
"""Planners whose search is exhaustive: when they find no plan, none exists."""

_REACH_GOAL = "REACH-GOAL"
_RELAXED_UNREACHABLE = "ReachabilityLPUnsolvable"
_FINISHED = "PLANNER_EXIT_CODE: SUCCESS"
_OUT_OF_MEMORY = ("MemoryError", "bad_alloc")
# Runs the planner under an address-space limit without preexec_fn (unsafe in threaded programs).
_LIMITED = (
    "import os, resource, sys; m = int(sys.argv[1]); resource.setrlimit(resource.RLIMIT_AS, (m, m)); "
    "os.execv(sys.argv[2], sys.argv[2:])"
)

CREDITS = Credits(
    name="LAPKT",
    author="Nir Lipovetzky, Miquel Ramirez, Christian Muise, Anubhav Singh and contributors",
    contact="https://github.com/LAPKT-dev/LAPKT-public (engine for unified-planning: l3mp)",
    website="http://lapkt.org/",
    license="MIT",
    short_description="LAPKT width-based planners: SIW, BFS(f) and SIW-then-BFS(f) (the L3M+P planner).",
    long_description="LAPKT width-based planners: SIW, BFS(f) and SIW-then-BFS(f) (the L3M+P planner), "
    "run as lapkt_cmd.py with the Tarski grounder.",
)


@dataclass(frozen=True)
class _Run:
    """What a finished (or killed) planner process left behind."""

    stdout: str
    stderr: str
    returncode: int | None
    timed_out: bool
    seconds: float


class LAPKTPlanner(PDDLPlanner):
    """LAPKT as a unified-planning one-shot planner.

    `planner` is ``siw-then-bfsf`` (default), ``siw`` or ``bfsf`` (or a LAPKT class name);
    `memory_limit_mb` caps the planner process's address space (None: no cap).

    LAPKT's Tarski front end silently drops quantified goals and mishandles other formulas
    (conjunctions of disjunctions, implications), so quantifiers and disjunctions are first
    compiled away with unified-planning's compilers and the plan is mapped back.
    """

    def __init__(self, planner: str = "siw-then-bfsf", memory_limit_mb: int | None = None) -> None:
        PDDLPlanner.__init__(self, needs_requirements=True)
        self._planner = _planner_class(planner)
        if memory_limit_mb is not None and memory_limit_mb <= 0:
            raise ValueError(f"memory_limit_mb must be positive or None, not {memory_limit_mb}")
        self._memory_limit_mb = memory_limit_mb

    @property
    def name(self) -> str:
        return "lapkt"

    @property
    def planner(self) -> str:
        """The LAPKT planner class this engine runs."""
        return self._planner

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

    def _get_cmd(self, domain_filename: str, problem_filename: str, plan_filename: str) -> list[str]:
        log_file = str(Path(plan_filename).with_name("lapkt.log"))
        cmd = [sys.executable, str(lapkt_script()), self._planner, "-d", domain_filename, "-p", problem_filename,
               "--plan_file", plan_filename, "--log_file", log_file]
        if self._memory_limit_mb is None:
            return cmd
        return [sys.executable, "-c", _LIMITED, str(self._memory_limit_mb * 1024 * 1024), *cmd]

    def _result_status(
        self,
        problem: up.model.Problem,
        plan: up.plans.Plan | None,
        retval: int | None,
        log_messages: list[LogMessage] | None = None,
    ) -> Status:
        out = "\n".join(m.message for m in log_messages or ())
        if plan is not None:
            return Status.SOLVED_SATISFICING
        if _RELAXED_UNREACHABLE in out:
            return Status.UNSOLVABLE_PROVEN
        if any(marker in out for marker in _OUT_OF_MEMORY):
            return Status.MEMOUT
        if retval == 0 and _FINISHED in out:
            return Status.UNSOLVABLE_PROVEN if self._planner in COMPLETE else Status.UNSOLVABLE_INCOMPLETELY
        return Status.INTERNAL_ERROR

    def _solve(self, problem, heuristic=None, timeout=None, output_stream=None) -> PlanGenerationResult:
        assert isinstance(problem, up.model.Problem)
        unsupported = sorted(set(problem.kind.features) - set(self.supported_kind().features))
        if unsupported:
            message = f"LAPKT cannot solve problems with: {', '.join(unsupported)}"
            return PlanGenerationResult(Status.UNSUPPORTED_PROBLEM, None, self.name,
                                        log_messages=[LogMessage(LogLevel.ERROR, message)])
        task, compilations = _lapkt_task(problem)
        writer = PDDLWriter(task, needs_requirements=True)
        with tempfile.TemporaryDirectory(prefix="l3mp-lapkt-") as tmp:
            domain_file, problem_file, plan_file = (os.path.join(tmp, n) for n in ("domain.pddl", "problem.pddl",
                                                                                     "plan.txt"))
            Path(domain_file).write_text(_with_preconditions(writer.get_domain()), encoding="utf-8")
            writer.write_problem(problem_file)
            run = _run(self._get_cmd(domain_file, problem_file, plan_file), cwd=tmp, timeout=timeout)
            steps = _plan_lines(plan_file)
        _echo(run, output_stream)
        logs = [LogMessage(LogLevel.INFO, run.stdout), LogMessage(LogLevel.ERROR, run.stderr)]
        metrics = {"engine_internal_time": str(run.seconds), "returncode": str(run.returncode)}
        if run.timed_out:
            return PlanGenerationResult(Status.TIMEOUT, None, self.name, metrics=metrics, log_messages=logs)
        plan = None
        if steps:
            plan = _map_back(self._plan_from_str(task, "\n".join(steps), writer.get_item_named), compilations)
        elif _goal_holds_initially(problem):  # LAPKT writes no plan file then, or an empty one
            plan = SequentialPlan([], problem.environment)
        status = self._result_status(task, plan, run.returncode, logs)
        return PlanGenerationResult(status, plan, self.name, metrics=metrics, log_messages=logs)


def lapkt_script() -> Path:
    """The ``lapkt_cmd.py`` of this Python environment (next to the interpreter, else on PATH)."""
    beside = Path(sys.executable).parent / "lapkt_cmd.py"
    if beside.is_file():
        return beside
    found = shutil.which("lapkt_cmd.py")
    if found is None:
        raise FileNotFoundError("lapkt_cmd.py not found next to the Python interpreter or on PATH; "
                                "install LAPKT with: pip install lapkt clingo")
    return Path(found)


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


def _lapkt_task(problem: up.model.Problem) -> tuple[up.model.Problem, list[CompilerResult]]:
    """The problem rewritten so that every goal and precondition is a conjunction of literals (LAPKT's
    front end drops quantified goals and mishandles other formulas), and the compilations that did it."""
    results = []
    kind = problem.kind
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


def _run(cmd: list[str], *, cwd: str, timeout: float | None) -> _Run:
    """Run `cmd` in `cwd` as a new process group, its output to files there; at the timeout, kill the group."""
    out_path, err_path = os.path.join(cwd, "stdout.txt"), os.path.join(cwd, "stderr.txt")
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    start = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd, env=env,
                                start_new_session=True)
        try:
            proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            _stop(proc)
            timed_out = True
    seconds = time.monotonic() - start
    return _Run(_read(out_path), _read(err_path), proc.returncode, timed_out, seconds)


def _read(path: str) -> str:
    return Path(path).read_text(encoding="utf-8", errors="replace")


def _stop(proc: subprocess.Popen) -> None:
    """Kill the planner's whole process group (the grounder runs in a child process) and reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _echo(run: _Run, output_stream) -> None:
    """Copy the planner's output to the caller's stream(s), as PDDLPlanner does (after the run)."""
    if output_stream is None:
        return
    if isinstance(output_stream, tuple):
        out, err = output_stream
        for stream, text in ((out, run.stdout), (err, run.stderr)):
            if stream is not None:
                stream.write(text)
    else:
        output_stream.write(run.stdout + run.stderr)
