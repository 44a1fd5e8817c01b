"""Suite ``goals``: accuracy of LLM-written PDDL goals against gold goals, without and with the worked examples.

It calls the configured LLM (by default the embedded local model: slow, ~5-40 s per call on two cores).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass

from l3mp_sim.house import house_graph

from l3mp.bench.runner import Metric, error_metric, register
from l3mp.domain.paths import domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.errors import L3mpError
from l3mp.llm.types import LLM, TokenLedger
from l3mp.planning.goal import GoalGenerator, same_goal
from l3mp.planning.planner import plan
from l3mp.planning.problem import full_state_problem
from l3mp.planning.validate import validate_plan
from l3mp.retrieval.context import assemble
from l3mp.world.graph import WorldGraph

SEED, SCALE = 5, 1.0
"""The house of the planning suite's scale 1 (105 entities)."""


@dataclass(frozen=True)
class GoalTask:
    """A request, its gold goal, and the entities a retrieval for it finds (the LLM's context)."""

    name: str
    text: str
    gold: str
    seeds: tuple[str, ...]


TASKS = (
    GoalTask("lights_faucets", "The water and electricity bills are high. Can you turn off all lights and faucets?",
             "(and (forall (?l - light) (not (light_on ?l))) (forall (?f - faucet) (not (faucet_on ?f))))",
             ("overhead_light_2", "faucet_1")),
    GoalTask("wash", "Please wash the grey frying pan.", "(not (dirty grey_frying_pan_1))", ("grey_frying_pan_1",)),
    GoalTask("food", "Michael is hungry. Bring him the banana.", "(has michael banana_1)", ("michael", "banana_1")),
    GoalTask("drink", "Sarah would like the cold beer bottle from the fridge.", "(has sarah cold_beer_bottle_1)",
             ("sarah", "cold_beer_bottle_1")),
    GoalTask("return", "Put the green atlas back on the bookshelf in the living room.",
             "(on green_atlas_1 bookshelf_1)", ("green_atlas_1", "bookshelf_1")),
    GoalTask("close", "Close the cupboard in the kitchen.", "(not (is_open cupboard_1))", ("cupboard_1",)),
    GoalTask("phone", "The smartphone is ringing, can you answer it?", "(not (ringing smartphone_1))",
             ("smartphone_1",)),
    GoalTask("one_light", "Turn off the overhead light in the living room.", "(not (light_on overhead_light_2))",
             ("overhead_light_2",)),
)
QUICK_TASKS = ("lights_faucets", "food", "close")


@dataclass(frozen=True)
class Judged:
    """One generated goal and how it compares with the gold goal."""

    task: GoalTask
    goal: str | None
    exact: bool
    success: bool
    seconds: float
    why: str


@register("goals")
def goal_suite(quick: bool) -> Iterator[Metric]:
    """Each variant (no example, worked examples) writes a goal for every task; a goal succeeds when the plan
    LAPKT makes for it in the full state also reaches the gold goal (validated there)."""
    from l3mp.llm.factory import make_llm
    from l3mp.llm.settings import LLMSettings

    domain = Domain.from_file(domain_path("household"))
    graph = house_graph(SEED, SCALE)
    tasks = [t for t in TASKS if not quick or t.name in QUICK_TASKS]
    settings = LLMSettings.from_sources(overrides={"cache": False})
    llm = make_llm(settings)
    try:
        for examples in (False, True):
            tag = "examples" if examples else "no_example"
            try:
                judged = [judge(domain, graph, llm, task, examples=examples) for task in tasks]
            except L3mpError as exc:
                yield error_metric(f"goal_{tag}_error", exc)
                continue
            yield from _metrics(tag, judged, settings.name)
    finally:
        llm.close()


def judge(domain: Domain, graph: WorldGraph, llm: LLM, task: GoalTask, *, examples: bool) -> Judged:
    """Generate the goal of `task` and compare it with the gold goal (exactly, and by plan success)."""
    retrieved = assemble("search", graph, domain, task.seeds, 1, {})
    start = time.perf_counter()
    result = GoalGenerator(llm, domain, examples=examples).generate(task.text, graph, retrieved,
                                                                     ledger=TokenLedger())
    seconds = time.perf_counter() - start
    if result.goal_pddl is None:
        return Judged(task, None, False, False, seconds, f"no goal: {result.reason}")
    exact = same_goal(domain, graph, result.goal_pddl, task.gold)
    outcome = plan(full_state_problem(domain, graph, result.goal_pddl), timeout_s=60)
    if not outcome.solved:
        return Judged(task, result.goal_pddl, exact, False, seconds, f"no plan for it: {outcome.message}")
    check = validate_plan(domain, graph, outcome.plan, task.gold)
    why = "its plan reaches the gold goal" if check.valid else f"its plan misses the gold goal: {check.message}"
    return Judged(task, result.goal_pddl, exact, check.valid, seconds, why)


def _metrics(tag: str, judged: list[Judged], llm_name: str) -> Iterator[Metric]:
    total = len(judged)
    success = sum(j.success for j in judged)
    exact = sum(j.exact for j in judged)
    details = "; ".join(f"{j.task.name}: {'OK' if j.success else 'FAIL'} {j.goal or '-'} ({j.why})" for j in judged)
    yield Metric(f"goal_success_{tag}", 100 * success / total, "%",
                 notes=f"{success}/{total} goals whose full-state plan reaches the gold goal; {llm_name}; {details}")
    yield Metric(f"goal_exact_{tag}", 100 * exact / total, "%",
                 notes=f"{exact}/{total} goals with exactly the gold goal's conjuncts")
    yield Metric(f"goal_seconds_{tag}", statistics.fmean(j.seconds for j in judged), "s",
                 notes="mean time of one goal generation (all attempts)")
