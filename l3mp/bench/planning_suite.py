"""Suite ``planning``: planning over a retrieved ``:init`` against the full graph, LAPKT against Fast Downward,
and the validity in the full state of plans made from retrieved context (gold goals, no LLM)."""

from __future__ import annotations

import itertools
import random
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import unified_planning.model as upm
from l3mp_sim.house import house_graph

from l3mp.bench.runner import Metric, error_metric, register
from l3mp.domain.paths import ROBOT, domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.planning.planner import PlanOutcome, plan
from l3mp.planning.problem import build_problem, full_state_problem
from l3mp.planning.validate import validate_plan
from l3mp.retrieval.context import always_needed, expand
from l3mp.world.graph import WorldGraph

SEED = 5
PAPER_SPEEDUP = 12.5
"""Mean planning speedup of retrieved context over the full state in the paper."""
TARGET_SPEEDUP = 25.0
"""Target mean speedup at the paper's house size (scale 1)."""
TARGET_VALIDITY = 99.0
KINDS = ("give", "wash", "shelve", "lights")


@dataclass(frozen=True)
class Scale:
    """How big the measurement is (full run or --quick)."""

    scales: tuple[float, ...]
    per_kind: int
    """Tasks of each kind per house (the lights task is always one: its goal covers every light)."""
    kinds: tuple[str, ...]
    timeout_s: float


FULL = Scale(scales=(1, 2, 4, 10), per_kind=2, kinds=KINDS, timeout_s=60.0)
QUICK = Scale(scales=(1,), per_kind=1, kinds=("give", "lights"), timeout_s=30.0)


@dataclass(frozen=True)
class Task:
    """A task with its gold goal and the entities a query graph for it would name (the seeds of retrieval)."""

    name: str
    goal: str
    seeds: tuple[str, ...]


@dataclass
class Measured:
    """What one task gave (seconds are None when that run did not solve the task)."""

    task: Task
    retrieved: float | None = None
    full: float | None = None
    full_unfinished: bool = False
    """The full-state run hit the time limit or the memory cap: its time is a lower bound."""
    full_lapkt: float | None = None
    lapkt: float | None = None
    phases: dict[str, dict[str, float]] = field(default_factory=dict)
    """LAPKT's own times (``parse_ground_s``, ``search_s``) of the ``retrieved`` and ``full`` runs that solved."""
    fd: float | None = None
    valid: bool = False
    fd_valid: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def speedup(self) -> float | None:
        if self.retrieved is None or self.full is None or self.retrieved <= 0:
            return None
        return self.full / self.retrieved


@register("planning")
def planning_suite(quick: bool) -> Iterator[Metric]:
    """Each house size runs even if an earlier one fails (its failure becomes an error metric)."""
    scale = QUICK if quick else FULL
    domain = Domain.from_file(domain_path("household"))
    yield from _warm_up(domain)
    speedups: dict[float, float] = {}
    valid = fd_valid = total = 0
    for size in scale.scales:
        tag = _tag(size)
        try:
            measured = yield from _house(domain, size, scale)
        except Exception as exc:  # the other sizes still measure
            yield error_metric(f"{tag}_error", exc)
            continue
        total += len(measured)
        valid += sum(m.valid for m in measured)
        fd_valid += sum(m.fd_valid for m in measured)
        ups = [m.speedup for m in measured if m.speedup is not None]
        if ups:
            speedups[size] = statistics.fmean(ups)
    if total:
        yield Metric("plan_validity", 100 * valid / total, "%", TARGET_VALIDITY, "min",
                     notes=f"{valid}/{total} tasks: LAPKT plan from the retrieved :init is valid in the full graph "
                           "(validate_plan); a task without a plan counts as not valid")
        yield Metric("plan_validity_fd", 100 * fd_valid / total, "%",
                     notes=f"{fd_valid}/{total} tasks: the same with Fast Downward's plans")
    if len(speedups) > 1:
        ordered = [speedups[s] for s in sorted(speedups)]
        grows = all(b > a for a, b in itertools.pairwise(ordered))
        yield Metric("speedup_grows", float(grows), "bool", 1.0, "min",
                     notes="mean speedup by house scale: " + ", ".join(f"{_tag(s)} {speedups[s]:.2f}x"
                                                                      for s in sorted(speedups)))


# ---- one house --------------------------------------------------------------------------------
def _house(domain: Domain, size: float, scale: Scale) -> Iterator[Metric]:
    """Metrics of one house size; returns the measured tasks (for the totals)."""
    tag = _tag(size)
    graph = house_graph(SEED, size)
    tasks = make_tasks(graph, random.Random(f"{SEED}-{size}"), scale.per_kind, scale.kinds)
    yield Metric(f"{tag}_entities", float(graph.entity_count()), "entities",
                 notes=f"house seed {SEED}, scale {size:g}: {len(tasks)} gold-goal tasks "
                       f"({', '.join(t.name for t in tasks)})")
    measured: list[Measured] = []
    for task in tasks:
        try:
            result = measure(domain, graph, task, scale.timeout_s)
        except Exception as exc:  # the other tasks still measure
            yield error_metric(f"{tag}_{task.name}_error", exc)
            measured.append(Measured(task, notes=[f"{type(exc).__name__}: {exc}"]))
            continue
        measured.append(result)
        yield Metric(f"{tag}_{task.name}_speedup", result.speedup, "x", notes="; ".join(result.notes))
    yield from _summary(tag, size, measured, scale)
    return measured


def _summary(tag: str, size: float, measured: list[Measured], scale: Scale) -> Iterator[Metric]:
    both = [m for m in measured if m.speedup is not None]
    unfinished = sum(m.full_unfinished for m in both)
    bound = (f"; {unfinished} full-state run(s) hit the time limit ({scale.timeout_s:g} s) or LAPKT's memory cap "
             "without a plan and count with the time they ran, so the speedup is a lower bound") if unfinished else ""
    if both:
        yield Metric(f"{tag}_retrieved_mean", statistics.fmean(m.retrieved for m in both), "s",  # type: ignore[misc]
                     notes="retrieval (goal entities + robot, depth 1) + building the problem + LAPKT")
        yield Metric(f"{tag}_full_mean", statistics.fmean(m.full for m in both), "s",  # type: ignore[misc]
                     notes="building the problem over the whole graph + LAPKT" + bound)
    target = TARGET_SPEEDUP if size == 1 else None
    speedups = [m.speedup for m in both]
    yield Metric(f"{tag}_speedup_mean", statistics.fmean(speedups) if speedups else None,  # type: ignore[arg-type]
                 "x", target, "min" if target else None,
                 notes=f"mean over the {len(both)}/{len(measured)} tasks timed both ways (paper: {PAPER_SPEEDUP}x)"
                       + bound)
    lapkt = [m.lapkt for m in measured if m.lapkt is not None]
    full_lapkt = [m.full_lapkt for m in measured if m.full_lapkt is not None]
    fd = [m.fd for m in measured if m.fd is not None]
    yield from _phase_metrics(tag, measured)
    yield Metric(f"{tag}_lapkt_mean", statistics.fmean(lapkt) if lapkt else None, "s",
                 notes=f"LAPKT on the retrieved problems, planner call only ({len(lapkt)}/{len(measured)} solved)")
    if full_lapkt:  # none when every full-state run hit a limit (the speedup notes say so)
        yield Metric(f"{tag}_full_lapkt_mean", statistics.fmean(full_lapkt), "s",
                     notes=f"LAPKT on the full-graph problems, planner call only ({len(full_lapkt)}/{len(measured)} "
                           "solved within the limits)")
    yield Metric(f"{tag}_fd_mean", statistics.fmean(fd) if fd else None, "s",
                 notes=f"Fast Downward on the same problems, planner call only ({len(fd)}/{len(measured)} solved)")


def _phase_metrics(tag: str, measured: list[Measured]) -> Iterator[Metric]:
    """Where LAPKT's time goes, by LAPKT's own clock: search alone, and parsing plus grounding."""
    for run in ("retrieved", "full"):
        for phase, what in (("search_s", "search"), ("parse_ground_s", "parse_ground")):
            values = [m.phases[run][phase] for m in measured if phase in m.phases.get(run, {})]
            if values:
                yield Metric(f"{tag}_{run}_{what}_mean", statistics.fmean(values), "s",
                             notes=f"LAPKT's own wall-clock {what.replace('_', ' + ')} time on the {run} problems "
                                   f"({len(values)} runs); the rest of a call is unified-planning writing the PDDL "
                                   "and reading the plan, and the hand-over to the warm LAPKT process")


# ---- tasks with gold goals ----------------------------------------------------------------------
def make_tasks(graph: WorldGraph, rng: random.Random, per_kind: int, kinds: tuple[str, ...] = KINDS) -> list[Task]:
    """Gold-goal tasks of the given kinds, objects chosen by `rng` (a kind the house cannot pose is left out)."""
    by_type: dict[str, list[str]] = {}
    for name in sorted(graph.entities()):
        by_type.setdefault(graph.entity_type(name) or "", []).append(name)
    makers: dict[str, Callable[[WorldGraph, dict[str, list[str]], random.Random], Task | None]] = {
        "give": _give, "wash": _wash, "shelve": _shelve, "lights": _lights}
    tasks: list[Task] = []
    for kind in kinds:
        count = 1 if kind == "lights" else per_kind
        made: set[str] = set()
        for i in range(count):
            task = makers[kind](graph, by_type, rng)
            if task is not None and task.goal not in made:
                made.add(task.goal)
                tasks.append(Task(f"{kind}_{i + 1}" if count > 1 else kind, task.goal, task.seeds))
    return tasks


def _place(graph: WorldGraph, item: str) -> str | None:
    """The receptacle an item is on or inside (None when a person has it)."""
    for fact in graph.facts_of(item):
        if fact.predicate in ("on", "inside") and fact.args[0] == item:
            return fact.args[1]
    return None


def _placed(graph: WorldGraph, items: list[str]) -> list[str]:
    return [i for i in items if _place(graph, i) is not None]


def _give(graph: WorldGraph, by_type: dict[str, list[str]], rng: random.Random) -> Task | None:
    foods, people = _placed(graph, by_type.get("food", [])), by_type.get("person", [])
    if not foods or not people:
        return None
    food, person = rng.choice(foods), rng.choice(people)
    return Task("give", f"(has {person} {food})", (food, str(_place(graph, food)), person))


def _wash(graph: WorldGraph, by_type: dict[str, list[str]], rng: random.Random) -> Task | None:
    dirty = {f.args[0] for f in graph.facts(predicate="dirty")}
    dishes = [d for d in _placed(graph, by_type.get("dish", [])) if d in dirty]
    taps = sorted((f.args[1], f.args[0]) for f in graph.facts(predicate="faucet_of"))
    if not dishes or not taps:
        return None
    dish = rng.choice(dishes)
    sink, faucet = rng.choice(taps)
    return Task("wash", f"(not (dirty {dish}))", (dish, str(_place(graph, dish)), sink, faucet))


def _shelve(graph: WorldGraph, by_type: dict[str, list[str]], rng: random.Random) -> Task | None:
    books, shelves = _placed(graph, by_type.get("book", [])), by_type.get("shelf", [])
    if not books or not shelves:
        return None
    book = rng.choice(books)
    choices = [s for s in shelves if s != _place(graph, book)] or shelves
    shelf = rng.choice(choices)
    return Task("shelve", f"(on {book} {shelf})", (book, str(_place(graph, book)), shelf))


def _lights(graph: WorldGraph, by_type: dict[str, list[str]], rng: random.Random) -> Task | None:
    if not by_type.get("light"):
        return None
    return Task("lights", "(forall (?l - light) (not (light_on ?l)))", ())


# ---- measuring one task -------------------------------------------------------------------------
def retrieve(domain: Domain, graph: WorldGraph, task: Task) -> set[str]:
    """LLM-free retrieval: the entities a query graph of the task names (the gold goal's objects and where
    they are) and the robot, expanded to depth 1, plus the always-needed context."""
    entities, _ = expand(graph, (*task.seeds, ROBOT), 1)
    base, _ = always_needed(graph, domain)
    return entities | base


def measure(domain: Domain, graph: WorldGraph, task: Task, timeout_s: float) -> Measured:
    """Plan `task` from the retrieved :init (LAPKT and Fast Downward) and from the full graph (LAPKT)."""
    out = Measured(task)
    start = time.perf_counter()
    context = retrieve(domain, graph, task)
    retrieval = time.perf_counter() - start
    problem = build_problem(domain, graph, entities=context, goal=task.goal, name="retrieved")
    build = time.perf_counter() - start - retrieval
    size = _size(problem)
    lapkt = plan(problem, planner="lapkt", timeout_s=timeout_s)
    out.notes.append(f"retrieved {size}: {_outcome(lapkt)} (retrieval {retrieval * 1e3:.1f} ms, "
                     f"build {build * 1e3:.0f} ms)")
    if lapkt.solved:
        out.lapkt = lapkt.seconds
        out.phases["retrieved"] = _phases(lapkt)
        out.retrieved = retrieval + build + lapkt.seconds
        out.valid = validate_plan(domain, graph, lapkt.plan, task.goal).valid
        if not out.valid:
            out.notes.append("LAPKT plan NOT valid in the full graph")
    fd = plan(problem, planner="fast-downward", timeout_s=timeout_s)
    out.notes.append(f"FD {_outcome(fd)}")
    if fd.solved:
        out.fd = fd.seconds
        out.fd_valid = validate_plan(domain, graph, fd.plan, task.goal).valid
    start = time.perf_counter()
    whole = full_state_problem(domain, graph, task.goal)
    build = time.perf_counter() - start
    size = _size(whole)
    full = plan(whole, planner="lapkt", timeout_s=timeout_s)
    out.notes.append(f"full {size}: {_outcome(full)} (build {build * 1e3:.0f} ms)")
    if full.solved:
        out.full = build + full.seconds
        out.full_lapkt = full.seconds
        out.phases["full"] = _phases(full)
    elif full.status in ("timeout", "memout"):
        out.full, out.full_unfinished = build + full.seconds, True
        out.notes.append(f"full state {full.status} without a plan: counted as the {full.seconds:.1f} s it ran "
                         "(speedup is a lower bound)")
    return out


def _phases(outcome: PlanOutcome) -> dict[str, float]:
    return {k: float(outcome.metrics[k]) for k in ("parse_ground_s", "search_s") if k in outcome.metrics}


def _size(problem: upm.Problem) -> str:
    """Objects and true facts of a problem (read before planning: a planner fills in the defaults)."""
    return f"{len(problem.all_objects)} objects/{len(problem.explicit_initial_values)} facts"


def _outcome(outcome: PlanOutcome) -> str:
    if outcome.solved:
        return f"{len(outcome.plan)} steps in {outcome.seconds:.2f} s"
    return f"{outcome.status} after {outcome.seconds:.2f} s ({outcome.message})"


def _warm_up(domain: Domain) -> Iterator[Metric]:
    """One tiny call per planner, so that the first measured task does not pay for loading them (LAPKT's
    warm server starts then); a second call measures the fixed cost of a planner call (which bounds the
    speedup on small houses)."""
    graph = WorldGraph()
    graph.add_entity("hall_1", "room")
    graph.add_entity(ROBOT, "robot")
    graph.add_entity("lamp_1", "light")
    for fact in (Fact("in_room", (ROBOT, "hall_1")), Fact("in_room", ("lamp_1", "hall_1")),
                 Fact("light_on", ("lamp_1",))):
        graph.add_fact(fact)
    problem = build_problem(domain, graph, goal="(not (light_on lamp_1))", name="warm_up")
    for planner, tag in (("lapkt", "lapkt"), ("fast-downward", "fd")):
        plan(problem, planner=planner, timeout_s=30)
        outcome = plan(problem, planner=planner, timeout_s=30)
        yield Metric(f"{tag}_call_floor", outcome.seconds if outcome.solved else None, "s",
                     notes=f"{planner} on a 1-step, 3-object problem: the fixed cost of one planner call "
                           f"({_outcome(outcome)})")


def _tag(size: float) -> str:
    return f"s{size:g}"
