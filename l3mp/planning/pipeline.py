"""Planning a task in natural language (the paper's Algorithm 4), with validation in the full state and expansion."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import unified_planning.model as upm
from unified_planning.exceptions import UPException
from unified_planning.io import PDDLWriter

from l3mp.errors import LLMError, ProblemError
from l3mp.llm.types import LLM, TokenLedger
from l3mp.planning.execute import ActionEffects
from l3mp.planning.goal import GoalAttempt, GoalGenerator, parse_goal
from l3mp.planning.planner import PlanOutcome, plan
from l3mp.planning.problem import build_problem
from l3mp.planning.prune import without_needless_steps
from l3mp.planning.request import (
    ASKED,
    IMPOSSIBLE,
    SATISFIED,
    RequestReading,
    apply_keeps,
    ground_request,
    grounded_context,
    kept_things,
    plain_parts,
    read_request,
    settle_goal,
    with_parts,
)
from l3mp.planning.validate import Validation, validate_plan
from l3mp.planning.wording import Wording, given_to_them, goal_problems, without_unasked_places
from l3mp.retrieval.base import Retrieved, Retriever
from l3mp.retrieval.context import DEFAULT_DEPTH, assemble, context_entities
from l3mp.retrieval.grounding import Grounder, Mention, places_of
from l3mp.world.graph import WorldGraph
from l3mp.world.model import WorldModel

STATUSES = ("solved", "unsolvable", "timeout", "memout", "invalid_goal", "error", "asked", "satisfied",
            "impossible")
"""`asked`: the request fits several things, and `question` asks which (nothing planned); `satisfied`: the goal
holds already (nothing to do); `impossible`: this home cannot do it (no such thing or person, a state the thing's
type cannot have; `reason` says which), nothing planned."""
ANSWERED = ("asked", "satisfied", "impossible")
"""Statuses that are the answer themselves: no plan is made."""
_NAME = re.compile(r"[^\s()]+")


@dataclass
class PlanResult:
    """The outcome of planning one task; `status` is one of STATUSES, `reason` says why when it is not solved.

    A solved task's plan is valid when `validation.valid` (checked against the full graph).
    """

    task: str
    status: str
    goal: str | None = None
    problem_pddl: str = ""
    plan: list[str] = field(default_factory=list)
    planner_seconds: float = 0.0
    retrieval_seconds: float = 0.0
    validation: Validation | None = None
    expansions: int = 0
    context_entities: int = 0
    ledger: TokenLedger = field(default_factory=TokenLedger)
    goal_attempts: tuple[GoalAttempt, ...] = ()
    reason: str = ""
    engine: str = ""
    question: str | None = None
    goal_source: str = ""
    """Where the goal came from: ``given``, ``read`` (the request read without the LLM) or ``llm``."""
    respelt: tuple[tuple[str, str], ...] = ()
    """Misspelt words of the request read as words of the home (`l3mp.retrieval.spelling`): (word, read as)."""

    @property
    def outcome(self) -> str:
        """``planned`` (a valid plan), ``asked``, ``satisfied``, ``impossible``, ``no_plan`` (a goal, no valid plan)
        or ``no_goal``."""
        if self.status in ANSWERED:
            return self.status
        return "planned" if self.ok else ("no_plan" if self.goal else "no_goal")

    @property
    def ok(self) -> bool:
        """Solved, and the plan is valid in the full state."""
        return self.status == "solved" and self.validation is not None and self.validation.valid

    def to_json(self) -> dict:
        v = self.validation
        return {
            "task": self.task,
            "status": self.status,
            "outcome": self.outcome,
            "ok": self.ok,
            "question": self.question,
            "goal_source": self.goal_source,
            "respelt": [list(pair) for pair in self.respelt],
            "reason": self.reason,
            "goal": self.goal,
            "problem_pddl": self.problem_pddl,
            "plan": self.plan,
            "engine": self.engine,
            "planner_seconds": round(self.planner_seconds, 3),
            "retrieval_seconds": round(self.retrieval_seconds, 3),
            "validation": None if v is None else {"valid": v.valid, "failed_step": v.failed_step,
                                                  "failed_action": v.failed_action, "unsatisfied": v.unsatisfied,
                                                  "message": v.message},
            "expansions": self.expansions,
            "context_entities": self.context_entities,
            "goal_attempts": [a.__dict__ for a in self.goal_attempts],
            "tokens": self.ledger.to_json(),
        }


class TaskPlanner:
    """retrieve -> goal (LLM, or given) -> problem over the retrieved context -> plan -> validate in the full
    state; an invalid plan or no plan widens the context (at most `max_expansions` times) and plans again.

    `planner_options` go to the planner engine (e.g. ``{"memory_limit_mb": 2048}`` for LAPKT)."""

    def __init__(
        self,
        world: WorldModel,
        llm: LLM | None,
        retriever: Retriever,
        *,
        planner: str = "lapkt",
        timeout_s: float = 60,
        max_expansions: int = 2,
        goal_attempts: int = 3,
        planner_options: dict | None = None,
        read_requests: bool = True,
    ) -> None:
        if max_expansions < 0:
            raise ValueError("max_expansions must be >= 0")
        self.world = world
        self.llm = llm
        self.retriever = retriever
        self.planner = planner
        self.timeout_s = timeout_s
        self.max_expansions = max_expansions
        self.goal_attempts = goal_attempts
        self.planner_options = dict(planner_options or {})
        self.read_requests = read_requests
        """Read plain requests without the LLM (`l3mp.planning.request`); off: every goal is the LLM's."""
        self.grounder = Grounder(world.domain, world.verifier.rules)
        self._effects = ActionEffects(world.domain)

    def plan(self, task: str, *, goal: str | None = None, speaker: str | None = None) -> PlanResult:
        """Plan `task` (said by `speaker`, who "me" is); with `goal` (PDDL) given, no LLM is asked for the goal.
        A plain request is read without the LLM (`l3mp.planning.request`); the LLM writes the goal of any other
        over the context its grounded mentions give, and its goal is settled as a reading's: either may end asked,
        satisfied or impossible before any plan. Never raises for task failures."""
        result = PlanResult(task, "error")
        graph = self.world.graph
        started = time.perf_counter()
        mentions: tuple[Mention, ...] = ()
        if goal is None:
            task, result.respelt = self.grounder.respell(task, graph)
            mentions = ground_request(self.grounder, task, graph, speaker, self.world.verifier.rules)
        if goal is None and self.read_requests:
            read = read_request(task, graph, self.world.domain, self.world.verifier.rules, speaker=speaker,
                                grounder=self.grounder, mentions=mentions)
            if read is not None:
                result.goal_source = "read"
                if _answered(result, read):
                    return result
                goal = read.goal
        grounded = None if result.goal_source == "" and goal is not None else grounded_context(
            task, mentions, graph, self.world.domain, speaker=speaker)
        if grounded is None and result.goal_source == "read":  # "do the washing up": the read goal names the
            # things, the words none; no model call for a query graph
            named = {n for n in _NAME.findall(goal or "") if graph.has_entity(n)}
            grounded = assemble("grounded", graph, self.world.domain, named, DEFAULT_DEPTH,
                                {"mentions": [], "from_goal": True}) if named else None
        try:
            # the grounded mentions are the context when there are any (a read goal, or the LLM's over them): no
            # query-graph call; the plan widens the context when it needs more
            retrieved = grounded if grounded is not None else self.retriever.retrieve(task, graph,
                                                                                     ledger=result.ledger)
        except LLMError as exc:
            result.reason = f"retrieval failed: {exc}"
            return result
        result.retrieval_seconds = time.perf_counter() - started
        context = context_entities(graph, retrieved)
        if goal is not None:
            result.goal_source = result.goal_source or "given"
            result.goal, result.reason = self._given(goal, graph)
            context |= {n for n in _NAME.findall(result.goal or "") if graph.has_entity(n)}
        else:
            result.goal_source = "llm"
            settled = self._llm_goal(task, graph, grounded or retrieved, mentions, speaker, result)
            if settled is not None and _answered(result, settled):
                return result
            result.goal = settled.goal if settled is not None else None
            context |= {n for n in _NAME.findall(result.goal or "") if graph.has_entity(n)}
        if result.goal is None:
            result.status = "invalid_goal"
            return result
        return self._solve(result, graph, context)

    def _tools(self, goal: str, graph: WorldGraph) -> set[str]:
        """The fixtures the actions that reach the goal's predicates work with, of other types than those predicates
        take (a sink and its faucet to wash a dish), and the rooms they are in: a dish on a desk is washed at a sink
        that one hop of widening may not reach."""
        domain = self.world.domain
        used = {p for p in _NAME.findall(goal) if p in domain.predicates}
        own = {t for p in used for t in domain.predicates[p].types}
        if not domain.has_type("fixture"):
            return set()
        tools = {param.type.name for action in domain.up_problem.actions
                 if any(e.fluent.fluent().name in used for e in action.effects) for param in action.parameters
                 if domain.is_subtype(param.type.name, "fixture")
                 and not any(domain.is_subtype(param.type.name, t) for t in own)}
        names = {n for n in graph.entities() if (graph.entity_type(n) or "") in tools}
        return names | {r for n in names for r in places_of(graph, self.world.verifier.rules, n)}

    def _given(self, goal: str, graph: WorldGraph) -> tuple[str | None, str]:
        try:
            return parse_goal(self.world.domain, goal, graph=graph), ""
        except ProblemError as exc:
            return None, f"the goal is not valid: {exc}"

    def _llm_goal(self, task: str, graph: WorldGraph, context: Retrieved, mentions: tuple[Mention, ...],
                  speaker: str | None, result: PlanResult) -> RequestReading | None:
        """The LLM's goal over `context`, settled (`settle_goal`); None (and `result.reason`) when there is none."""
        domain = self.world.domain
        if self.llm is None:
            result.reason = "no goal given and no LLM to write one"
            return None
        wording = Wording.of(task, mentions)
        check = goal_problems(wording, graph, domain, self.world.verifier.rules, self.grounder.lexicon, speaker=speaker)
        parts = plain_parts(task, mentions, graph, domain, self.world.verifier.rules, self.grounder.lexicon,
                            speaker=speaker)
        added: list[str] = []
        named = frozenset(n for m in mentions for n in m.candidates)
        keeps, _ = kept_things(task, mentions, graph, domain, self.grounder.lexicon)  # "leave the lamp there on"
        generated = GoalGenerator(self.llm, domain).generate(
            task, graph, context, ledger=result.ledger, max_attempts=self.goal_attempts, speaker=speaker,
            keep_held=True, check=check,
            complete=lambda literals: apply_keeps(with_parts(given_to_them(without_unasked_places(
                literals, wording, graph, self.grounder.lexicon, added), wording, graph, domain, speaker, added), parts,
                self.world.verifier.rules, added, named), keeps, graph, domain))
        result.goal_attempts = generated.attempts
        result.reason = "; ".join(r for r in (generated.reason, *added) if r)
        if generated.goal_pddl is None:
            return None
        settled = settle_goal(task, generated.literals, mentions, graph, domain, self.world.verifier.rules)
        result.reason = "; ".join(r for r in (result.reason, settled.reason) if r)
        return settled

    def _solve(self, result: PlanResult, graph: WorldGraph, context: set[str]) -> PlanResult:
        goal = result.goal or "(and)"
        notes = [result.reason] if result.reason else []
        while True:
            try:
                problem = build_problem(self.world.domain, graph, entities=context, goal=goal)
                outcome = plan(problem, planner=self.planner, planner_options=self.planner_options,
                               timeout_s=self.timeout_s)
                _record(result, problem, outcome)
            except (ProblemError, UPException) as exc:  # a goal that can never hold ("false"), or no problem
                result.status, result.plan = "invalid_goal", []
                result.reason = "; ".join([*notes, f"the goal cannot be planned for: {exc}"])
                return result
            if outcome.solved:
                result.validation = validate_plan(self.world.domain, graph, outcome.plan, goal)
            if outcome.status in ("timeout", "memout", "error") or (result.validation and result.validation.valid):
                break
            wider = self._wider(graph, problem, result.validation) | self._tools(goal, graph)
            if result.expansions >= self.max_expansions or wider <= context:
                break
            notes.append(_expansion_note(outcome, result.validation, len(context), len(wider)))
            result.expansions += 1
            context = wider
        if result.validation is not None and result.validation.valid:
            shorter = without_needless_steps(self.world.domain, graph, result.plan, goal, self._effects)
            if len(shorter) < len(result.plan):
                notes.append(f"dropped {len(result.plan) - len(shorter)} step(s) the goal is reached without")
                result.plan = shorter
                result.validation = validate_plan(self.world.domain, graph, shorter, goal)
        notes.append(_final_note(result, outcome, graph))
        result.reason = "; ".join(n for n in notes if n)
        return result

    def _wider(self, graph: WorldGraph, problem: upm.Problem, validation: Validation | None) -> set[str]:
        """The problem's objects, the entities an unsatisfied literal names, and their neighbours one hop out."""
        seeds = {o.name for o in problem.all_objects if graph.has_entity(o.name)}
        if validation is not None:
            seeds |= {n for literal in validation.unsatisfied for n in _NAME.findall(literal) if graph.has_entity(n)}
        return graph.neighborhood(seeds, 1)


def _answered(result: PlanResult, reading: RequestReading) -> bool:
    """Record a request that ends before any plan (asked, impossible, satisfied); False for a goal to plan."""
    if reading.outcome == ASKED:
        result.status, result.question = "asked", reading.question
        result.reason = f"the request fits more than one thing in memory: {reading.question}"
    elif reading.outcome == IMPOSSIBLE:
        result.status, result.reason = "impossible", f"this cannot be done here: {reading.reason}"
    elif reading.outcome == SATISFIED:
        result.status, result.goal, result.reason = "satisfied", reading.goal, "nothing to do: the goal holds already"
    else:
        return False
    return True


def _record(result: PlanResult, problem: upm.Problem, outcome: PlanOutcome) -> None:
    result.status = outcome.status
    result.plan = outcome.plan
    result.engine = outcome.engine
    result.planner_seconds += outcome.seconds
    result.validation = None
    result.context_entities = len(problem.all_objects)
    result.problem_pddl = PDDLWriter(problem).get_problem()


def _expansion_note(outcome: PlanOutcome, validation: Validation | None, before: int, after: int) -> str:
    why = (f"the plan fails in the full state ({validation.message})" if validation is not None
           else f"{outcome.status} on the retrieved context ({outcome.message})")
    return f"{why}: widened the context from {before} to {after} entities"


def _final_note(result: PlanResult, outcome: PlanOutcome, graph: WorldGraph) -> str:
    if result.ok:
        return ""
    if result.validation is not None:
        return f"the plan found is not valid in the full state: {result.validation.message}"
    scope = "the full state" if result.context_entities >= graph.entity_count() else (
        f"the retrieved context ({result.context_entities} of {graph.entity_count()} entities, "
        f"{result.expansions} expansion(s))")
    return f"{outcome.message} [{outcome.engine}, on {scope}]"
