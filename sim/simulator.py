"""The text household simulator (section V-A): a seeded house whose ground truth changes by people's events
and by the robot's plans, told to the agent in natural language (or seen by perception), with tasks.

`Simulator` owns the ground truth (a verified in-memory `WorldModel`, so it always satisfies the domain and
its rules). `next_delivery` draws the next change (one event, or several told in one sentence), applies it to
the truth and returns how the agent learns of it; `next_task` poses a task that is solvable from the truth,
with its ground-truth problem and plan; `execute` runs one of the agent's actions in the truth (an
`Executor`: preconditions checked there, effects applied through the domain's action semantics). Every draw
uses a random source seeded by (seed, step, purpose), so episodes are reproducible and two agents facing the
same seed meet the same events for as long as their plans leave the truth the same.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import unified_planning.model as upm
from l3mp_sim.events import EVENT_KINDS, PERCEPTION_ONLY, Event, draw_event
from l3mp_sim.house import generate_house
from l3mp_sim.language import Words, sentence
from l3mp_sim.perception import LABEL_MODES, observation, perceive_house
from l3mp_sim.state import HouseState
from l3mp_sim.tasks import TOOLS, Task, draw_task
from unified_planning.io import PDDLWriter

from l3mp.domain.paths import domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.errors import DeltaRejected, L3mpError
from l3mp.planning import (
    GraphExecutor,
    PlanOutcome,
    StepOutcome,
    build_problem,
    full_state_problem,
    plan,
    validate_plan,
)
from l3mp.retrieval.context import always_needed, expand
from l3mp.world.delta import Delta, state_delta
from l3mp.world.graph import WorldGraph
from l3mp.world.model import Observation, WorldModel

FULL_STATE_MAX_ENTITIES = 200
"""Largest true state (entities) whose gold plans are made on the full state, timed as the paper's Fig. 3 baseline
(the paper's house, scale 1, has about 75; at scale 10, about 780, LAPKT on the full state exceeds its memory cap)."""
SUB_PROBLEM_DEPTHS = (1, 2)
"""The depths of the ground-truth sub-problems tried, in order, before the full state (`gold_plan`)."""


class SimulationError(L3mpError):
    """The simulator reached a state it should never reach (an event or task it cannot realise)."""


class SimConfigError(L3mpError, ValueError):
    """A simulator setting is out of range; the message names the setting and what is valid."""


@dataclass(frozen=True)
class SimConfig:
    """What house and what kind of stream of changes an episode has."""

    seed: int = 0
    scale: float = 1.0
    labels: str = "true"
    label_fraction: float = 0.3
    multi_event_prob: float = 0.25
    partial_prob: float = 0.3
    perception_prob: float = 0.0
    new_item_prob: float = 0.2
    planner: str = "lapkt"
    planner_timeout_s: float = 60.0

    def __post_init__(self) -> None:
        for name in ("label_fraction", "multi_event_prob", "partial_prob", "perception_prob", "new_item_prob"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise SimConfigError(f"{name} must be between 0 and 1, not {value}")
        if self.labels not in LABEL_MODES:
            raise SimConfigError(f"labels must be one of {', '.join(LABEL_MODES)}, not {self.labels!r}")
        if self.scale <= 0:
            raise SimConfigError(f"scale must be positive, not {self.scale}")
        if self.planner_timeout_s <= 0:
            raise SimConfigError(f"planner_timeout_s must be positive, not {self.planner_timeout_s}")

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Delivery:
    """How the agent learns of one change: a sentence (channel ``nl``) or a perception batch (``perception``)."""

    step: int
    text: str
    events: tuple[Event, ...]
    channel: str
    observation: Observation | None = None

    def mentions(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for event in self.events:
            out.update(event.mentions)
        return out

    def delta(self) -> Delta:
        """The true change of the whole delivery (what the truth went through, in order, netted)."""
        removed: list = []
        added: list = []
        for event in self.events:
            for fact in event.remove:
                if fact in added:
                    added.remove(fact)
                else:
                    removed.append(fact)
            for fact in event.add:
                if fact in removed:
                    removed.remove(fact)
                else:
                    added.append(fact)
        entities = {n: s for e in self.events for n, s in e.new_entities.items()}
        return Delta(remove=tuple(removed), add=tuple(added), entities=entities)

    def to_json(self) -> dict:
        return {"step": self.step, "channel": self.channel, "text": self.text,
                "events": [e.to_json() for e in self.events]}


@dataclass(frozen=True)
class PosedTask:
    """A task with its ground truth: the problem that produced the gold plan, the gold plan, and how it was made.

    `gold_scope` says what that problem holds: ``full`` (the whole true state) or ``depth N`` (a sub-problem of
    the true state, see `gold_plan`; its plan was checked valid in the full truth). `full_state_seconds` is the
    planner's time on the full true state (the paper's Fig. 3 baseline), None where it was not measured (houses
    above `FULL_STATE_MAX_ENTITIES`, where a sub-problem gave the gold plan).
    """

    step: int
    task: Task
    gold_problem: str
    gold_plan: list[str] = field(default_factory=list)
    full_state_seconds: float | None = 0.0
    gold_scope: str = "full"
    gold_entities: int = 0
    gold_seconds: float = 0.0

    def to_json(self) -> dict:
        full = None if self.full_state_seconds is None else round(self.full_state_seconds, 4)
        return {"step": self.step, **self.task.to_json(), "gold_plan": self.gold_plan, "full_state_seconds": full,
                "gold_scope": self.gold_scope, "gold_entities": self.gold_entities,
                "gold_seconds": round(self.gold_seconds, 4)}


@dataclass(frozen=True)
class GoldPlan:
    """How the ground truth of a task was planned: the problem planned on, the planner's outcome (solved only if
    its plan is valid in the full truth), its scope, its entity count, and the attempts that failed first."""

    problem: upm.Problem
    outcome: PlanOutcome
    scope: str
    entities: int
    failed: tuple[str, ...] = ()

    @property
    def solved(self) -> bool:
        return self.outcome.solved


def gold_plan(domain: Domain, graph: WorldGraph, task: Task, *, planner: str, timeout_s: float,
              full_state_max_entities: int = FULL_STATE_MAX_ENTITIES) -> GoldPlan:
    """Plan `task` on the true state `graph`.

    Up to `full_state_max_entities` entities: on the full state, as the paper's ground truth. Above: on the
    sub-problem of `task_entities` at depth 1, then depth 2, and the full state last; a sub-problem's plan counts
    only if `validate_plan` finds it valid in the full `graph` (a plan over fewer objects may miss a fact that
    matters). The full state always decides in the end, so which tasks are solvable does not depend on the scope.
    """
    failed: list[str] = []
    if graph.entity_count() > full_state_max_entities:
        for depth in SUB_PROBLEM_DEPTHS:
            entities = task_entities(domain, graph, task, depth)
            problem = build_problem(domain, graph, entities=entities, goal=task.goal_pddl,
                                    name=f"ground_truth_depth_{depth}")
            outcome = plan(problem, planner=planner, timeout_s=timeout_s)
            scope = f"depth {depth}"
            if outcome.solved:
                check = validate_plan(domain, graph, outcome.plan, task.goal_pddl)
                if check.valid:
                    return GoldPlan(problem, outcome, scope, len(problem.all_objects), tuple(failed))
                failed.append(f"{scope}: plan not valid in the full truth ({check.message})")
            else:
                failed.append(f"{scope}: {outcome.status} ({outcome.message})")
    problem = full_state_problem(domain, graph, task.goal_pddl, name="ground_truth")
    outcome = plan(problem, planner=planner, timeout_s=timeout_s)
    return GoldPlan(problem, outcome, "full", len(problem.all_objects), tuple(failed))


def task_entities(domain: Domain, graph: WorldGraph, task: Task, depth: int) -> set[str]:
    """The entities of a task's ground-truth sub-problem at `depth`: the surroundings within `depth` of what the
    gold goal and the request name, of every entity of the task kind's `TOOLS` types, and of the robot (with the
    domain constants' facts); and the room of each of them (acting on a thing needs its room). `build_problem`
    adds every entity of a type the goal quantifies over, with its neighbours."""
    seeds = {a for lit in task.literals for a in lit.args if graph.has_entity(a)} | set(task.mentions)
    seeds |= {e for type_ in TOOLS.get(task.kind, ()) for e in HouseState(graph, domain).of_type(type_)}
    entities, _ = expand(graph, (*sorted(seeds), *domain.constants), depth)
    entities |= always_needed(graph, domain)[0]
    rooms = {f.args[1] for e in entities for f in graph.facts_of(e) if f.predicate == "in_room" and f.args[0] == e}
    return entities | rooms


def verified_world(domain: Domain, graph: WorldGraph) -> WorldModel:
    """An in-memory `WorldModel` that holds exactly `graph` (imported as one verified record)."""
    world = WorldModel(domain)
    world.apply(state_delta(domain, world.graph, graph, replace=True), source="import")
    return world


class Simulator:
    """A seeded household episode: ground truth, events, tasks, and execution of the agent's actions."""

    def __init__(self, config: SimConfig, *, domain: Domain | None = None, state: dict | None = None) -> None:
        self.config = config
        self.domain = domain or Domain.from_file(domain_path("household"))
        house = generate_house(seed=config.seed, scale=config.scale)
        perceived = perceive_house(house, mode=config.labels, fraction=config.label_fraction, seed=config.seed)
        self._initial = perceived.house.to_graph()
        self.relabelled = dict(perceived.relabelled)
        self.truth = verified_world(self.domain, WorldGraph.from_json(state["truth"]) if state else self._initial)
        self.words = Words(state["words"] if state else perceived.words)
        self.step = int(state["step"]) if state else 0
        self._executor = GraphExecutor(self.domain, self.truth.graph)

    # ---- the agent's starting point ---------------------------------------------------
    def initial_graph(self) -> WorldGraph:
        """The house as the robot first perceived it (its labels), before any event."""
        return self._initial.copy()

    @property
    def state(self) -> HouseState:
        return HouseState(self.truth.graph, self.domain)

    # ---- changes ------------------------------------------------------------------------
    def next_delivery(self) -> Delivery:
        """Draw the next change, apply it to the truth, and return how the agent learns of it."""
        self.step += 1
        rng = self._rng("delivery")
        config = self.config
        channel = "perception" if rng.random() < config.perception_prob else "nl"
        count = 1
        if rng.random() < config.multi_event_prob:
            count = rng.choice((2, 2, 3))
        events: list[Event] = []
        busy: set[str] = set()
        for index in range(count):
            kinds = EVENT_KINDS
            if channel == "perception" and index == 0 and rng.random() < config.new_item_prob:
                kinds = PERCEPTION_ONLY
            event = draw_event(self.state, self.words, rng, busy=busy, partial_prob=config.partial_prob, kinds=kinds)
            self._apply(event)
            busy |= event.entities()
            events.append(event)
        text = sentence([e.clause for e in events], rng)
        obs = observation(events, f"sim-{self.step}") if channel == "perception" else None
        return Delivery(self.step, text, tuple(events), channel, obs)

    def _apply(self, event: Event) -> None:
        try:
            self.truth.apply(event.delta(), source="user", input=event.clause)
        except DeltaRejected as exc:
            raise SimulationError(f"event {event.kind} ({event.clause!r}) breaks the domain: {exc}") from exc
        for name, spec in event.new_entities.items():
            self.words.add(name, spec.label or name)

    # ---- tasks --------------------------------------------------------------------------
    def next_task(self) -> PosedTask:
        """Pose a task that is not yet done and that the planner solves from the true state (`gold_plan`)."""
        self.step += 1
        rng = self._rng("task")
        failed: list[str] = []
        for _ in range(8):
            task = draw_task(self.state, self.words, rng)
            gold = gold_plan(self.domain, self.truth.graph, task, planner=self.config.planner,
                             timeout_s=self.config.planner_timeout_s)
            outcome = gold.outcome
            if gold.solved:
                full = outcome.seconds if gold.scope == "full" else None
                return PosedTask(self.step, task, PDDLWriter(gold.problem).get_problem(), outcome.plan, full,
                                 gold.scope, gold.entities, outcome.seconds)
            failed.append(f"{task.text} ({'; '.join((*gold.failed, f'full: {outcome.status}: {outcome.message}'))})")
        raise SimulationError("no solvable task found in 8 draws: " + "; ".join(failed))

    def goal_holds(self, task: Task) -> bool:
        """Whether the task's gold goal is true in the current ground truth."""
        return validate_plan(self.domain, self.truth.graph, [], task.goal_pddl).valid

    # ---- the robot acting in the world --------------------------------------------------
    def execute(self, action: str) -> StepOutcome:
        """Run one ground action in the truth: preconditions checked there, effects applied (`Executor`)."""
        return self._executor.execute(action)

    # ---- checkpoints --------------------------------------------------------------------
    def to_json(self) -> dict:
        """What `Simulator(config, state=...)` needs to continue exactly here."""
        return {"step": self.step, "truth": self.truth.graph.to_json(with_since=False), "words": self.words.to_json()}

    def _rng(self, purpose: str) -> random.Random:
        return random.Random(f"{self.config.seed}/{self.step}/{purpose}")
