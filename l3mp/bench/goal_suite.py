"""Suite ``goals``: hand-written household requests with gold outcomes, run through the planning pipeline (issue 13).

The cases are in ``l3mp/bench/cases/goals.yaml`` (package data): requests written by hand, the way people in the
home say them, on generated houses (``l3mp_sim.house.generate_house``), each with its gold outcome: a goal
(``goal``: PDDL literals over the house's entities), a goal that already holds (``satisfied``), a question back
because the request fits several things (``ask``), or a request this home cannot serve (``impossible``). A case may
name its ``speaker`` (who "me" is) and the perception changes seen ``before`` it (things that moved since). DEV (two
houses) is for tuning; TEST (four other houses) is for reporting. HOLDOUT (two more houses, in
``l3mp/bench/cases/goals-holdout.yaml`` with its own ``houses:``, loaded with the main file) was written after TEST's
failures had been read, and is only ever reported: nobody tunes on it or reads its results.

Every case runs on a fresh in-memory world of its house (its ``before`` changes applied, verified) through
`l3mp.planning.pipeline.TaskPlanner` (retrieval, goal, planner on the retrieved context, validation in the full
state, expansion). Scored per case:

- goal right: ``goal``: the produced goal asks the same of the house as the gold goal (or one of its equivalent
  ``also`` forms): `same_in_the_home`, which spells a one-variable ``forall`` out over the house's things
  (since 2026-11-25 midday; before, "every light" named one by one counted as wrong against a gold ``forall``);
  ``satisfied``: that, or the pipeline answered ``satisfied``; ``ask``/``impossible``: the pipeline answered
  ``asked``/``impossible`` (a produced goal is wrong);
- plan right: ``goal``: the plan the pipeline accepted, run in the full state, reaches the gold goal;
  ``satisfied``: that (an empty plan does), or the answer ``satisfied``; ``ask``/``impossible``: as goal right;
- wrong plan: the pipeline offered a plan whose steps all run in the full state and which is not plan-right (for
  ``ask``/``impossible`` cases every such plan);
- asked back (overall, on ``ask`` cases, on the others) and impossible recognised (on ``impossible`` cases);
- seconds from request to plan (p50, p95), with and without the planner's own seconds; tokens per request.

The pipeline's answer is read by `result_outcome`: ``planned``, ``no_plan``, ``no_goal``, ``asked``, ``impossible``
or ``satisfied``. A result with an ``outcome`` attribute of these (and a ``question``, for ``asked``) is taken at its
word, as `UpdateResult.outcome` is in the updates suite; a `PlanResult` without one is ``planned`` when it is `ok`,
``no_plan`` when it has a goal but no valid plan, ``no_goal`` otherwise. So the suite scores ask/impossible/satisfied
cases today (as wrong unless the pipeline says so) and counts them right once the pipeline gives those answers.

The speaker is passed as ``speaker=`` when `TaskPlanner.plan` takes it; until then the request is given as
``<Speaker> says: "<text>"``.

Targets (issue 13: goals right >= 90 %, plans right >= 85 %, p50 without the planner <= 8 s) are set on the rows of
a real model only. **Rows of the simulated LLM** (``simulated_...``) answer from the gold goal through an error model
(an ``ask`` case: the reading of its first candidate; an ``impossible`` one: its literal reading, where it has one):
they test the plumbing, they are never evidence of accuracy.

Runs: ``--quick`` (CI): the simulated LLM on every case (all three splits). Full: the configured LLM (``L3MP_LLM_*``;
default the embedded model) and the simulated LLM, on the TEST split. Environment variables (the runner has no
suite options):

- ``L3MP_BENCH_GOALS_SPLIT``: ``test`` (default), ``dev``, ``holdout``, ``holdout2`` ... ``holdout19`` or ``all``; the
  rows are tagged with it (``llm_search_holdout_goal_right``; cases chosen by id: ``ids``, or the held-out split's
  name when all are of that split);
- ``L3MP_BENCH_GOALS_RETRIEVAL``: comma-separated retrieval modes (``full``, ``entities``, ``search``; default
  ``search``, as ``l3mp plan``);
- ``L3MP_BENCH_GOALS_LLMS``: comma-separated ``configured`` and/or ``simulated`` (default both; quick: simulated);
- ``L3MP_BENCH_GOALS_IDS``: comma-separated case ids, to run only those (a smoke run);
- ``L3MP_BENCH_GOALS_READ``: ``on`` (default), ``off`` or ``both``: whether plain requests are read without the
  LLM (`l3mp.planning.request`); ``off`` rows are tagged ``_noread``;
- ``L3MP_BENCH_GOALS_PLANNER`` (default ``lapkt``) and ``L3MP_BENCH_GOALS_TIMEOUT`` (seconds per planner call,
  default 30);
- ``L3MP_BENCH_GOALS_CASES``: where to write the TEST split's per-case details (default
  ``docs/benchmarks/goals-cases.json`` in a full run; a quick run writes them only when this is set). DEV per-case
  details go into the ``..._dev_cases`` row. HOLDOUT per-case details go beside the TEST file, ``-holdout`` added
  to its name (default ``docs/benchmarks/goals-cases-holdout.json``).

Example: ``L3MP_BENCH_GOALS_SPLIT=dev l3mp bench goals --json /tmp/goals-dev.json``; the held-out report:
``L3MP_BENCH_GOALS_SPLIT=holdout l3mp bench goals --json docs/benchmarks/goals-holdout.json``. A house to write
cases against: ``python -m l3mp.bench.update_suite --dump SEED``.
"""

from __future__ import annotations

import inspect
import os
import re
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from l3mp.bench.handwritten import (
    LLMS,
    Benchmark,
    cases_file,
    cases_out_option,
    check_header,
    detail_rows,
    ids_option,
    listed_option,
    load_cases,
    read_option,
    run_llm,
    run_split,
    select,
    split_about,
    split_option,
    write_held_out_details,
    write_test_details,
)
from l3mp.bench.runner import Metric, error_metric, percentile, register
from l3mp.bench.update_suite import household, pct, simulated_llm_module
from l3mp.domain.pddl_domain import Domain
from l3mp.errors import FormatError, L3mpError, ProblemError
from l3mp.planning.goal import WILDCARD, Literal, assemble_goal, same_in_the_home
from l3mp.planning.validate import validate_plan
from l3mp.world.delta import Delta, state_delta
from l3mp.world.graph import WorldGraph
from l3mp.world.model import WorldModel

GOLD = ("goal", "satisfied", "ask", "impossible")
"""Gold outcomes: reach this goal; it already holds; ask back (several things fit); this home cannot do it."""
PLANNED, NO_PLAN, NO_GOAL, ASKED, IMPOSSIBLE, SATISFIED = (
    "planned", "no_plan", "no_goal", "asked", "impossible", "satisfied")
ANSWERS = (PLANNED, NO_PLAN, NO_GOAL, ASKED, IMPOSSIBLE, SATISFIED)
"""What the pipeline answered (see `result_outcome`)."""
CATEGORIES = (
    # the simulator's task kinds (l3mp_sim.tasks) and the paper's
    "return_item", "bring", "wash_dish", "all_off", "device_off", "device_on", "close", "open", "answer_phone",
    # what people really say
    "speaker", "two_goals", "quantified", "negation", "satisfied", "impossible", "ambiguous", "moved", "indirect",
)
RETRIEVALS = ("full", "entities", "search")
READING = "?x"
"""The referent of an ``ask`` case's reading: each candidate in turn."""
CASES_FILE = "goals.yaml"
DEFAULT_CASES_OUT = Path("docs/benchmarks/goals-cases.json")
SIMULATED_NOTE = ("SIMULATED LLM (answers from the gold goal with injected errors): a test tool, not evidence of "
                  "accuracy")
TARGETS = {"goal_right": (90.0, "min"), "plan_right": (85.0, "min"), "seconds_no_planner_p50": (8.0, "max")}
"""Issue 13's targets for the embedded default (set on real-model rows only)."""

ENV_SPLIT, ENV_RETRIEVAL, ENV_LLMS = "L3MP_BENCH_GOALS_SPLIT", "L3MP_BENCH_GOALS_RETRIEVAL", "L3MP_BENCH_GOALS_LLMS"
ENV_IDS, ENV_CASES = "L3MP_BENCH_GOALS_IDS", "L3MP_BENCH_GOALS_CASES"
ENV_PLANNER, ENV_TIMEOUT = "L3MP_BENCH_GOALS_PLANNER", "L3MP_BENCH_GOALS_TIMEOUT"
ENV_READ = "L3MP_BENCH_GOALS_READ"

_ATOM = re.compile(r"\(([^\s()]+)((?: [^\s()]+)*)\)")
_NEGATED = re.compile(r"\(not (\(.*\))\)")
_FORALL = re.compile(r"\(forall \((\?\S+) - (\S+)\) (\(.*\))\)")


# ---- the cases --------------------------------------------------------------------------------
@dataclass(frozen=True)
class GoalCase:
    """One hand-written request and its gold outcome.

    `goal` (``goal``/``satisfied``): literals; `also`: other literal lists that mean the same here (``forall`` or
    the objects named). `reading` (``ask``: literals over ``?x``, the referent; ``impossible``: the literal reading,
    which must not be plannable), `words` and `candidates` (``ask``: every thing whose label has all the words and
    for which the reading does not hold yet), `absent` (``impossible``: phrases no label of the house has all the
    words of) and `why` (``impossible``: for people)."""

    id: str
    split: str
    house: str
    seed: int
    categories: tuple[str, ...]
    text: str
    outcome: str
    speaker: str | None = None
    before: tuple[Delta, ...] = ()
    goal: tuple[Literal, ...] = ()
    also: tuple[tuple[Literal, ...], ...] = ()
    reading: tuple[Literal, ...] = ()
    words: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    why: str = ""

    @property
    def gold_goal(self) -> str | None:
        """The gold goal as PDDL (None for ``ask``/``impossible``)."""
        return assemble_goal(self.goal) if self.goal else None

    def gold_goals(self) -> list[str]:
        """The gold goal and its equivalent forms, as PDDL."""
        return [assemble_goal(g) for g in (self.goal, *self.also) if g]

    def reading_for(self, candidate: str) -> tuple[Literal, ...]:
        """An ``ask`` case's reading with `candidate` as the referent."""
        return tuple(Literal(lit.predicate, tuple(candidate if a == READING else a for a in lit.args), lit.negated)
                     for lit in self.reading)

    def gold_json(self) -> dict:
        out: dict[str, Any] = {"outcome": self.outcome}
        if self.goal:
            out["goal"] = self.gold_goal
        if self.candidates:
            out["candidates"] = list(self.candidates)
        if self.why:
            out["why"] = self.why
        return out


def cases_resource() -> Any:
    """The packaged cases file."""
    return cases_file(CASES_FILE)


def load_benchmark(path: str | Path | None = None) -> Benchmark[GoalCase]:
    """Parse the cases file (the packaged one by default); FormatError names a malformed case."""
    return load_cases(CASES_FILE, "goal", _case, path)


_GOLD_KEYS = {"goal": {"goal", "also"}, "satisfied": {"goal", "also"}, "ask": {"reading", "words", "candidates"},
              "impossible": {"reading", "absent", "why"}}


def _case(raw: Any, houses: dict[str, int]) -> GoalCase:
    where = check_header(raw, houses, what="goal", keys={"speaker", "before", "gold"}, categories=CATEGORIES)
    speaker = raw.get("speaker")
    if speaker is not None and not isinstance(speaker, str):
        raise FormatError(f"{where}: speaker must be a person's entity name")
    changes = _changes(where, raw.get("before") or [])
    gold = raw.get("gold")
    if not isinstance(gold, dict) or gold.get("outcome") not in GOLD:
        raise FormatError(f"{where}: gold needs an outcome of {GOLD}")
    outcome = gold["outcome"]
    extra = set(gold) - {"outcome"} - _GOLD_KEYS[outcome]
    if extra:
        raise FormatError(f"{where}: outcome {outcome} takes only {sorted(_GOLD_KEYS[outcome])}, not {sorted(extra)}")
    fields = _gold_fields(where, outcome, gold)
    return GoalCase(raw["id"], raw["split"], raw["house"], houses[raw["house"]], tuple(raw["categories"]),
                    raw["text"].strip(), outcome, speaker, changes, **fields)


def _changes(where: str, before: Any) -> tuple[Delta, ...]:
    """The perception changes seen before a request, in the updates benchmark's gold style."""
    if not isinstance(before, list):
        raise FormatError(f"{where}: before must be a list of changes {{remove: [...], add: [...]}}")
    changes = []
    for change in before:
        if not isinstance(change, dict) or not change or not set(change) <= {"remove", "add"}:
            raise FormatError(f"{where}: before: a change is a mapping of 'remove' and/or 'add', not {change!r}")
        try:
            changes.append(Delta.from_json({"remove": change.get("remove") or [], "add": change.get("add") or []}))
        except FormatError as exc:
            raise FormatError(f"{where}: before: {exc}") from None
    return tuple(changes)


def _gold_fields(where: str, outcome: str, gold: dict) -> dict[str, Any]:
    """The case's gold fields after checking their shapes (not yet against the house: the tests do that)."""
    def literals(key: str, *, required: bool) -> tuple[Literal, ...]:
        value = gold.get(key)
        return () if value is None and not required else _literals(f"{where}: {key}", value)

    def names(key: str) -> tuple[str, ...]:
        value = gold.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise FormatError(f"{where}: {key} must be a list of strings")
        return tuple(v.strip() for v in value)

    if outcome in ("goal", "satisfied"):
        also = gold.get("also") or []
        if not isinstance(also, list):
            raise FormatError(f"{where}: also must be a list of literal lists")
        return {"goal": literals("goal", required=True),
                "also": tuple(_literals(f"{where}: also", item) for item in also)}
    if outcome == "ask":
        fields = {"reading": literals("reading", required=True), "words": names("words"),
                  "candidates": names("candidates")}
        if not any(READING in lit.args for lit in fields["reading"]):
            raise FormatError(f"{where}: an ask reading names its referent {READING}")
        if len(fields["candidates"]) < 2 or not fields["words"]:
            raise FormatError(f"{where}: an ask case needs its words and at least two candidates")
        return fields
    why = gold.get("why")
    if not isinstance(why, str) or not why.strip():
        raise FormatError(f"{where}: an impossible case says why (for people)")
    return {"reading": literals("reading", required=False), "absent": names("absent"), "why": why.strip()}


def _literals(where: str, value: Any) -> tuple[Literal, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise FormatError(f"{where}: a non-empty list of PDDL literals, please")
    try:
        return tuple(literal_of(v) for v in value)
    except FormatError as exc:
        raise FormatError(f"{where}: {exc}") from None


def literal_of(text: str) -> Literal:
    """A PDDL literal as the goal pipeline's `Literal`: ``(p a b)``, ``(not (p a))``, or one quantified over a type,
    ``(forall (?v - t) (not (p ?v)))`` (the ``ALL_t`` wildcard). FormatError for anything else."""
    text = " ".join(text.replace("(", " ( ").replace(")", " ) ").split()).replace("( ", "(").replace(" )", ")")
    quantified = _FORALL.fullmatch(text)
    variable, type_ = (quantified.group(1), quantified.group(2)) if quantified else (None, None)
    body = quantified.group(3) if quantified else text
    negated = _NEGATED.fullmatch(body)
    atom = _ATOM.fullmatch(negated.group(1) if negated else body)
    if atom is None:
        raise FormatError(f"{text!r} is not a literal (p a ...), (not (p a ...)) or (forall (?v - t) <literal>)")
    args = tuple(WILDCARD + type_ if a == variable else a for a in atom.group(2).split())
    if any(a.startswith("?") and a != READING for a in args):
        raise FormatError(f"{text!r}: an unbound variable")
    return Literal(atom.group(1), args, bool(negated))


# ---- the houses -------------------------------------------------------------------------------
@cache
def _house(seed: int) -> WorldGraph:
    try:
        from l3mp_sim.house import house_graph
    except ImportError:
        raise L3mpError("the household generator (module l3mp_sim) is not installed; reinstall l3mp") from None
    return house_graph(seed)


def house_of(case: GoalCase) -> WorldGraph:
    """The case's house as generated (before its ``before`` changes); do not modify it."""
    return _house(case.seed)


def case_world(case: GoalCase) -> WorldModel:
    """An in-memory, verified world model of the case's house with its ``before`` changes applied as perception.
    DeltaRejected if a change does not verify."""
    domain = household()
    world = WorldModel(domain)
    world.apply(state_delta(domain, world.graph, house_of(case), replace=True), source="import")
    for index, change in enumerate(case.before, 1):
        world.apply(change, source="perception", ref=f"{case.id}-before-{index}")
    return world


def request(case: GoalCase, planner_takes_speaker: bool) -> tuple[str, dict[str, str]]:
    """The request text and the keyword arguments of `TaskPlanner.plan` (see the module docstring on speakers)."""
    if case.speaker is None:
        return case.text, {}
    if planner_takes_speaker:
        return case.text, {"speaker": case.speaker}
    label = house_of(case).entity_attrs(case.speaker).get("label") or case.speaker
    return f'{label} says: "{case.text}"', {}


# ---- one case ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Scored:
    """One case's result and how it scores (see the module docstring)."""

    case: GoalCase
    answer: str
    status: str
    goal: str | None
    plan: tuple[str, ...]
    goal_right: bool
    plan_right: bool
    wrong_plan: bool
    seconds: float
    planner_seconds: float
    prompt_tokens: int
    completion_tokens: int
    reason: str = ""
    question: str | None = None

    @property
    def asked(self) -> bool:
        return self.answer == ASKED

    def to_json(self) -> dict:
        case = self.case
        out: dict[str, Any] = {
            "id": case.id, "split": case.split, "house": case.house, "categories": list(case.categories),
            "text": case.text, "speaker": case.speaker, "gold": case.gold_json(), "answer": self.answer,
            "status": self.status, "goal": self.goal, "plan": list(self.plan), "goal_right": self.goal_right,
            "plan_right": self.plan_right, "wrong_plan": self.wrong_plan, "reason": self.reason,
            "question": self.question, "seconds": round(self.seconds, 3),
            "planner_seconds": round(self.planner_seconds, 3),
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens},
        }
        if case.before:
            out["before"] = [c.to_json() for c in case.before]
        return out


def result_outcome(result: Any) -> str:
    """What the pipeline answered: `result.outcome` when it is one of `ANSWERS`, else from a `PlanResult`'s
    status: ``planned`` (ok), ``no_plan`` (a goal, no valid plan), ``no_goal``."""
    outcome = getattr(result, "outcome", None)
    if outcome in ANSWERS:
        return outcome
    if result.ok:
        return PLANNED
    return NO_PLAN if result.goal is not None and result.status != "invalid_goal" else NO_GOAL


def _same_as_gold(domain: Domain, graph: WorldGraph, case: GoalCase, goal: str | None) -> bool:
    if goal is None:
        return False
    try:
        return any(same_in_the_home(domain, graph, goal, gold) for gold in case.gold_goals())
    except ProblemError:
        return False


def score(case: GoalCase, graph: WorldGraph, result: Any, seconds: float) -> Scored:
    """Score a `PlanResult` (or a result with an ``outcome``) of `case` planned in `graph`, its full state."""
    domain = household()
    answer = result_outcome(result)
    plan = tuple(result.plan) if answer == PLANNED else ()
    runs = reaches = False
    if answer == PLANNED:
        check = validate_plan(domain, graph, plan, case.gold_goal or "(and)")
        runs = check.valid or check.failed_step is None
        reaches = check.valid and case.gold_goal is not None
    same = _same_as_gold(domain, graph, case, result.goal)
    if case.outcome == "goal":
        goal_right, plan_right = same, reaches
    elif case.outcome == "satisfied":
        goal_right, plan_right = same or answer == SATISFIED, reaches or answer == SATISFIED
    else:
        goal_right = plan_right = answer == (ASKED if case.outcome == "ask" else IMPOSSIBLE)
    ledger = result.ledger
    return Scored(case, answer, result.status, result.goal, plan, goal_right, plan_right,
                  answer == PLANNED and runs and not plan_right, seconds, result.planner_seconds,
                  ledger.prompt_tokens, ledger.completion_tokens, result.reason, getattr(result, "question", None))


def oracle_literals(case: GoalCase) -> tuple[Literal, ...]:
    """What the simulated LLM is told the goal is (see the module docstring)."""
    if case.outcome == "ask":
        return case.reading_for(case.candidates[0])
    return case.goal or case.reading


def oracle_for(case: GoalCase, graph: WorldGraph, literals: Sequence[Literal] | None = None) -> Any:
    """The simulated LLM's oracle for a case: the goal literals (the gold's by default), the entities they, the
    speaker and the candidates name with their labels, their types, and the relations among them."""
    literals = oracle_literals(case) if literals is None else tuple(literals)
    named = [a for lit in literals for a in lit.args if not a.startswith(WILDCARD)]
    names = [n for n in dict.fromkeys([*named, *([case.speaker] if case.speaker else []), *case.candidates])
             if graph.has_entity(n)]
    mentions = {n: str(graph.entity_attrs(n).get("label") or n.replace("_", " ")) for n in names}
    types = {n: graph.entity_type(n) or "" for n in names}
    relations = tuple(sorted(f for f in graph.facts() if len(f.args) == 2 and all(a in mentions for a in f.args)))
    return simulated_llm_module().Oracle(goal=tuple(literals), mentions=mentions, types=types, relations=relations)


def run_case(case: GoalCase, llm: Any, retrieval: str = "search", *, planner: str = "lapkt", timeout_s: float = 30,
             embedder: Any = None, oracle_goal: Sequence[Literal] | None = None, read_requests: bool = True) -> Scored:
    """Plan one case on a fresh world of its house with `TaskPlanner` (`read_requests`: plain requests read without
    the LLM); a simulated LLM is told the gold goal (or `oracle_goal`, for tests of the scoring)."""
    from l3mp.planning.pipeline import TaskPlanner
    from l3mp.retrieval import make_retriever

    world = case_world(case)
    if isinstance(llm, simulated_llm_module().SimulatedLLM):
        llm.set_oracle(oracle_for(case, world.graph, oracle_goal))
    retriever = make_retriever(retrieval, llm=llm, domain=world.domain, embedder=embedder)
    pipeline = TaskPlanner(world, llm, retriever, planner=planner, timeout_s=timeout_s, read_requests=read_requests)
    text, extra = request(case, "speaker" in inspect.signature(pipeline.plan).parameters)
    started = time.perf_counter()
    result = pipeline.plan(text, **extra)
    return score(case, world.graph, result, time.perf_counter() - started)


# ---- metrics ----------------------------------------------------------------------------------
def summary(scored: Sequence[Scored]) -> dict[str, Any]:
    """The numbers of a set of scored cases (None where undefined, e.g. no ``ask`` case among them)."""
    n = len(scored)
    asks = [s for s in scored if s.case.outcome == "ask"]
    others = [s for s in scored if s.case.outcome != "ask"]
    impossible = [s for s in scored if s.case.outcome == "impossible"]
    with_planner = [s.seconds for s in scored]
    without = [max(0.0, s.seconds - s.planner_seconds) for s in scored]
    return {
        "cases": n,
        "goal_right": pct(sum(s.goal_right for s in scored), n),
        "plan_right": pct(sum(s.plan_right for s in scored), n),
        "wrong_plan": pct(sum(s.wrong_plan for s in scored), n),
        "asked": pct(sum(s.asked for s in scored), n),
        "asked_on_ask": pct(sum(s.asked for s in asks), len(asks)),
        "asked_needlessly": pct(sum(s.asked for s in others), len(others)),
        "impossible_recognised": pct(sum(s.answer == IMPOSSIBLE for s in impossible), len(impossible)),
        "seconds_p50": percentile(with_planner, 0.5) if n else None,
        "seconds_p95": percentile(with_planner, 0.95) if n else None,
        "seconds_no_planner_p50": percentile(without, 0.5) if n else None,
        "seconds_no_planner_p95": percentile(without, 0.95) if n else None,
        "prompt_tokens": statistics.fmean(s.prompt_tokens for s in scored) if n else None,
        "completion_tokens": statistics.fmean(s.completion_tokens for s in scored) if n else None,
        "without_model": pct(sum(s.prompt_tokens == 0 for s in scored), n),
    }


_ABOUT = {
    "goal_right": ("%", "cases whose goal is the gold goal (same_in_the_home; satisfied: or said so; ask/impossible: "
                        "the pipeline asked back / said it cannot be done)"),
    "plan_right": ("%", "cases whose accepted plan, run in the full state, reaches the gold goal (ask/impossible: "
                        "as goal right)"),
    "wrong_plan": ("%", "cases with a plan that runs in the full state but does something else"),
    "asked": ("%", "cases the pipeline asked back on"),
    "asked_on_ask": ("%", "ask cases (several things fit) the pipeline asked back on"),
    "asked_needlessly": ("%", "other cases the pipeline asked back on"),
    "impossible_recognised": ("%", "impossible cases the pipeline said it cannot do"),
    "seconds_p50": ("s", "seconds from request to plan (retrieval, goal, planner, validation, expansions), median"),
    "seconds_p95": ("s", "seconds from request to plan, 95th percentile"),
    "seconds_no_planner_p50": ("s", "seconds from request to plan without the planner's own seconds, median"),
    "seconds_no_planner_p95": ("s", "seconds from request to plan without the planner's, 95th percentile"),
    "prompt_tokens": ("tokens", "prompt tokens per request (all calls)"),
    "completion_tokens": ("tokens", "completion tokens per request (all calls)"),
    "without_model": ("%", "requests answered without any model call (read from the request)"),
}
_PER_CATEGORY = ("goal_right", "plan_right", "wrong_plan", "asked")


def metrics(tag: str, scored: Sequence[Scored], *, simulated: bool, about: str) -> Iterator[Metric]:
    """Metric rows of one run: overall (every number), then per category (the accuracy numbers; the goal_right
    row's notes give the count and times)."""
    overall = summary(scored)
    for key, (unit, text) in _ABOUT.items():
        value = overall[key]
        if value is None:  # e.g. no ask case among those run: no row rather than a made-up number
            continue
        target = None if simulated else TARGETS.get(key)
        notes = text + ("; simulated LLM: not evidence of accuracy" if simulated else "")
        if key == "goal_right":
            notes = f"{text}; {overall['cases']} case(s); {SIMULATED_NOTE + '; ' if simulated else ''}{about}"
        yield Metric(f"{tag}_{key}", value, unit, *(target or (None, None)), notes=notes)
    for category in CATEGORIES:
        group = [s for s in scored if category in s.case.categories]
        if not group:
            continue
        numbers = summary(group)
        extra = (f"{numbers['cases']} case(s); p50 {numbers['seconds_p50']:.2f} s (without the planner "
                 f"{numbers['seconds_no_planner_p50']:.2f} s)" + ("; simulated LLM" if simulated else ""))
        for key in _PER_CATEGORY:
            yield Metric(f"{tag}_cat:{category}_{key}", numbers[key], "%", notes=extra if key == "goal_right" else "")


# ---- the suite --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Options:
    split: str
    retrievals: tuple[str, ...]
    llms: tuple[str, ...]
    ids: tuple[str, ...]
    planner: str
    timeout_s: float
    cases_out: Path | None
    read: tuple[bool, ...] = (True,)


def options(quick: bool, env: dict[str, str] | None = None) -> Options:
    """The run's options from the environment (see the module docstring); L3mpError on a bad value."""
    from l3mp.planning.planner import PLANNERS

    env = dict(os.environ) if env is None else env
    planner = env.get(ENV_PLANNER, "").strip() or "lapkt"
    if planner not in PLANNERS:
        raise L3mpError(f"{ENV_PLANNER}={planner!r}: use one of {', '.join(PLANNERS)}")
    try:
        timeout_s = float(env.get(ENV_TIMEOUT, "").strip() or 30)
    except ValueError:
        raise L3mpError(f"{ENV_TIMEOUT}={env.get(ENV_TIMEOUT)!r}: seconds, a number") from None
    if timeout_s <= 0:
        raise L3mpError(f"{ENV_TIMEOUT}={timeout_s:g}: must be positive")
    read = read_option(env, ENV_READ)
    return Options(split_option(env, ENV_SPLIT, quick), listed_option(env, ENV_RETRIEVAL, "search", RETRIEVALS),
                   listed_option(env, ENV_LLMS, "simulated" if quick else ",".join(LLMS), LLMS),
                   ids_option(env, ENV_IDS), planner, timeout_s,
                   cases_out_option(env, ENV_CASES, quick, DEFAULT_CASES_OUT), read)


@register("goals")
def goal_suite(quick: bool) -> Iterator[Metric]:
    """Every selected case, for every LLM and retrieval mode (see the module docstring)."""
    opts = options(quick)
    cases = select(load_benchmark().cases, opts.split, opts.ids, ENV_IDS)
    split = run_split("ids" if opts.ids else opts.split, cases, opts.ids)
    test_details: dict[str, list[dict]] = {}
    holdout_details: dict[str, dict[str, list[dict]]] = {}  # held-out split -> tag -> results
    for which in opts.llms:
        try:
            llm, name = run_llm(which, _simulated_llm)
        except L3mpError as exc:
            yield error_metric(f"{which}_error", exc)
            continue
        try:
            for retrieval, read in ((r, x) for r in opts.retrievals for x in opts.read):
                tag = f"{'simulated' if which == 'simulated' else 'llm'}_{retrieval}{'' if read else '_noread'}_{split}"
                scored = []
                for case in cases:
                    scored.append(run_case(case, llm, retrieval, planner=opts.planner, timeout_s=opts.timeout_s,
                                           read_requests=read))
                    last = scored[-1]
                    print(f"    {case.id}: {last.answer}, goal {'right' if last.goal_right else 'wrong'}, plan "
                          f"{'right' if last.plan_right else 'wrong'}", file=sys.stderr, flush=True)
                about = (f"{name}, retrieval {retrieval}{'' if read else ' without the plain reading'}, planner "
                         f"{opts.planner}, {split_about(split)}")
                yield from metrics(tag, scored, simulated=which == "simulated", about=about)
                yield from detail_rows(tag, scored, unit="cases", cases_out=opts.cases_out, env_key=ENV_CASES,
                                       test_details=test_details, holdout_details=holdout_details)
        finally:
            llm.close()
    write_test_details(opts.cases_out, suite="goals", quick=quick, details=test_details)
    write_held_out_details(opts.cases_out, suite="goals", quick=quick, details=holdout_details)


def _simulated_llm() -> Any:
    module = simulated_llm_module()
    return module.SimulatedLLM(household(), module.ErrorModel(), seed=0)
