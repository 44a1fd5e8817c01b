"""The main job: a short household session that shows, step by step, what l3mp does with a home's world state."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from l3mp.domain import Domain, Fact, RuleSet
from l3mp.domain.paths import ROBOT, domain_path
from l3mp.errors import L3mpError
from l3mp.render import render_graph
from l3mp.report import entity_title, format_record, goal_source, iso, story_lines, update_lines
from l3mp.world.delta import Delta, state_delta
from l3mp.world.graph import WorldGraph
from l3mp.world.model import Observation, WorldModel
from l3mp.world.record import ChangeRecord
from l3mp.world.store import make_room_for_store

DEFAULT_SEED = 7
PLAN_NOTE = "(no goal given: a plain request is read without the LLM, any other goes to the LLM; `--goal` skips both)"
RULE = "=" * 100


class DemoFailed(L3mpError):
    """The session met something it did not expect."""


@dataclass(frozen=True)
class Cast:
    """The entities the story is about, picked from the generated house."""

    kitchen: str
    table: str  # the kitchen surface the red mug is seen on
    sink: str  # the kitchen sink
    faucet: str  # the faucet of that sink
    person: str
    person_from: str  # the room the person leaves
    person_to: str  # the room the person walks into (not the kitchen)
    light: str  # a light in person_to that is off at first
    mug: str  # the name the red mug gets


@dataclass
class Session:
    """What the steps share: the domain, the directory, the open world model and the cast."""

    domain: Domain
    rules: RuleSet
    directory: Path
    seed: int
    fsync: bool
    out: TextIO
    model: WorldModel | None = None
    cast: Cast | None = None
    way: Any = None
    """The ROS 2 nodes (l3mp.ros.session.Nodes) while perception, updates and the task go through them."""
    import_seq: int = 0
    step: int = 0

    @property
    def store(self) -> Path:
        return self.directory / "world"

    @property
    def world(self) -> WorldModel:
        if self.model is None:
            raise DemoFailed("the world model is not open")
        return self.model

    @property
    def graph(self) -> WorldGraph:
        return self.world.graph

    @property
    def roles(self) -> Cast:
        if self.cast is None:
            raise DemoFailed("the cast was not picked")
        return self.cast

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def section(self, title: str) -> None:
        self.step += 1
        self.say()
        self.say(RULE)
        self.say(f"{self.step}. {title}")
        self.say(RULE)

    def command(self, line: str) -> None:
        """Show the `l3mp` command that prints the same."""
        self.say(f"$ l3mp --store {self.store} {line}")

    @property
    def via(self) -> Way:
        """Where perception, updates and the task go: the ROS 2 nodes while they run, else this process."""
        return self.way if self.way is not None else InProcess(self)

    def open(self) -> None:
        self.model = WorldModel.open(self.domain, self.store, rules=self.rules, fsync=self.fsync)


Step = Callable[[Session], None]


class Way(Protocol):
    """How the session's perception, NL updates and task are carried out and told: in this process (InProcess), or
    through the ROS 2 nodes (l3mp.ros.session.Nodes)."""

    def through(self, kind: str) -> str: ...
    def graph(self) -> WorldGraph: ...
    def perceive(self, batch: dict) -> ChangeRecord: ...
    def check(self, delta: dict) -> list[str]: ...
    def updates(self, sentences: Sequence[str]) -> Iterator[list[str]]: ...
    def run_task(self, task: str, speaker: str, ref: str) -> str: ...
    def holds(self, fact: Fact) -> bool: ...


class InProcess:
    """The session's requests carried out by the world model in this process, through the Python API; each shown
    as the `l3mp` command that does the same."""

    def __init__(self, session: Session) -> None:
        self.s = session

    def through(self, kind: str) -> str:
        """Nothing to add to a section's title: the requests stay in this process."""
        return ""

    def graph(self) -> WorldGraph:
        return self.s.graph

    def perceive(self, batch: dict) -> ChangeRecord:
        self.s.command(f"perceive -   <<< '{json.dumps(batch)}'")
        record = self.s.world.perceive(Observation.from_json(batch))
        _expect(record is not None, f"the observation {batch.get('observation_id')} changed nothing")
        return record

    def check(self, delta: dict) -> list[str]:
        self.s.say(f"    {json.dumps(delta)}")
        return [v.message for v in self.s.world.verify(Delta.from_json(delta), source="nl").violations]

    def updates(self, sentences: Sequence[str]) -> Iterator[list[str]]:
        """Sentences through the LLM (search-based retrieval, verification with re-prompting: L3M+P)."""
        from l3mp.llm.factory import make_llm
        from l3mp.llm.settings import LLMSettings
        from l3mp.retrieval import make_retriever
        from l3mp.updates import NLUpdater

        s = self.s
        llm = make_llm(LLMSettings.from_sources())
        try:
            updater = NLUpdater(s.world, llm, make_retriever("search", llm=llm, domain=s.domain), verify=True)
            for i, sentence in enumerate(sentences, start=1):
                s.say()
                s.command(f'update "{sentence}"')
                before = s.graph.to_json()
                result = updater.update(sentence, ref=f"utterance-{i}")
                if result.accepted:
                    _expect(not s.world.verifier.check_state(s.graph), "an accepted update broke the domain's rules")
                else:
                    _expect(s.graph.to_json() == before, "a failed update changed the graph")
                yield update_lines(result)
        finally:
            llm.close()

    def run_task(self, task: str, speaker: str, ref: str) -> str:
        """The request's goal (read, or written by the LLM), a plan with LAPKT validated against the full graph,
        executed step by step in a simulated copy of the world, each step's effects written back; the goal."""
        from l3mp.llm.factory import make_llm
        from l3mp.llm.settings import LLMSettings
        from l3mp.planning.execute import GraphExecutor, run_plan
        from l3mp.planning.pipeline import TaskPlanner
        from l3mp.retrieval import FullRetriever

        s = self.s
        s.command(f'plan "{task}" --speaker {speaker} --retrieval full')
        llm = make_llm(LLMSettings.from_sources())
        try:
            result = TaskPlanner(s.world, llm, FullRetriever()).plan(task, speaker=speaker)
        finally:
            llm.close()
        _expect(result.ok and result.goal is not None, f"the task was not planned: {result.outcome}: {result.reason}"
                + (f" ({result.question})" if result.question else ""))
        s.say(f"goal: {result.goal} ({goal_source(result.goal_source)})")
        s.say(f"plan ({len(result.plan)} steps, {result.engine} {result.planner_seconds:.2f} s, "
              f"{result.context_entities} objects); {result.validation.message}")
        world_copy = s.graph.copy()  # the "real" home: here a simulated copy of what the robot believes
        report = run_plan(s.world, GraphExecutor(s.domain, world_copy), result.plan, task_ref=ref)
        for i, step in enumerate(report.steps, start=1):
            s.say(f"step {i}/{len(report.steps)}: {step.message}")
            if step.record_seq is not None:
                s.say(format_record(s.world.store.record(step.record_seq)))
        _expect(report.status == "completed", f"the plan did not run: {report.message}")
        return result.goal

    def holds(self, fact: Fact) -> bool:
        return self.s.graph.has_fact(fact)


# ---- 1. the house ---------------------------------------------------------------------------
def import_house(s: Session) -> None:
    s.section("A generated house, imported into a fresh store as one verified record")
    from l3mp_sim.house import house_graph

    aside = make_room_for_store(s.store, force=True, fsync=s.fsync)
    if aside is not None:
        s.say(f"(moved an earlier store aside to {aside})")
    s.command(f"init --house {s.seed}")
    s.open()
    house = house_graph(s.seed)
    record = s.world.apply(state_delta(s.domain, s.graph, house, replace=True), source="import",
                           input=f"generated house seed={s.seed} scale=1.0")
    _expect(record is not None and not s.world.verifier.check_state(s.graph), "the imported house does not verify")
    s.import_seq = record.seq
    s.say(format_record(record, limit=0))
    s.cast = pick_cast(s.graph)
    counts = _type_counts(s.graph, ("room", "person", "item"), s.domain)
    s.say(f"{s.graph.entity_count()} entities (rooms: {counts['room']}, people: {counts['person']}, "
          f"items: {counts['item']}), {s.graph.fact_count()} facts; the whole graph satisfies the domain and "
          f"its {len(s.rules)} rules")
    kitchen = s.roles.kitchen
    s.say(f"a few facts about {kitchen}:")
    for fact in sorted(s.graph.facts(entity=kitchen))[:6]:
        s.say(f"    {fact}")


def pick_cast(graph: WorldGraph) -> Cast:
    """Choose the kitchen, its surfaces, a person, a room to walk into and a light there."""
    room_of = {f.args[0]: f.args[1] for f in graph.facts(predicate="in_room")}
    rooms = sorted(n for n in graph.entities() if graph.entity_type(n) == "room")
    kitchen = _first((r for r in rooms if str(graph.entity_attrs(r).get("label", "")).startswith("kitchen")),
                     "a kitchen")

    def in_room(room: str, *types: str) -> list[str]:
        return sorted(n for n, r in room_of.items() if r == room and graph.entity_type(n) in types)

    table = _first(in_room(kitchen, "table") + in_room(kitchen, "counter"), "a table or counter in the kitchen")
    sink = _first(in_room(kitchen, "sink"), "a sink in the kitchen")
    faucet = _first((f.args[0] for f in graph.facts(predicate="faucet_of") if f.args[1] == sink), "a faucet")
    person = _first(sorted(n for n in graph.entities() if graph.entity_type(n) == "person"), "a person")
    dark = [(r, light) for r in rooms if r not in (kitchen, room_of[person])
            for light in in_room(r, "light") if not graph.has_fact(Fact("light_on", (light,)))]
    person_to, light = _first(dark, "a light that is off in a room other than the kitchen")
    mug = _first((m for m in ("red_mug", *(f"red_mug_{i}" for i in range(2, 100))) if not graph.has_entity(m)),
                 "a free name for the red mug")
    return Cast(kitchen, table, sink, faucet, person, room_of[person], person_to, light, mug)


# ---- 2. perception --------------------------------------------------------------------------
PERCEPTION = "Perception: a new entity, a light switched on, a person who moved"


def perception_batches(c: Cast) -> tuple[tuple[str, dict], ...]:
    """What the camera reports: (in words, the perception batch)."""
    return (
        (f"the camera sees a red mug on {c.table}",
         {"observation_id": "cam-0001", "entities": {c.mug: {"type": "dish", "label": "red mug"}},
          "triplets": [[c.mug, "on", c.table]]}),
        (f"{c.light} is on now, and {c.person} is in {c.person_to}",
         {"observation_id": "cam-0002", "triplets": [[c.light, "light_on", True], [c.person, "in_room", c.person_to]]}),
    )


def perceive(s: Session) -> None:
    c = s.roles
    s.section(PERCEPTION + s.via.through("perception"))
    for what, batch in perception_batches(c):
        s.say(f"observation: {what}")
        record = s.via.perceive(batch)
        s.say(format_record(record))
    _expect(Fact("in_room", (c.person, c.person_from)) in record.delta.remove, "the old room of the person stayed")
    s.say(f"(in_room {c.person} {c.person_from}) was superseded by the observation: a person is in exactly one room")


# ---- 3. natural language --------------------------------------------------------------------
NL_UPDATES = "Natural-language updates through the LLM, verified before they touch the graph"
HALLUCINATION = "a delta as a weak LLM might propose it (wrong predicate, hallucinated entity) meets the verifier:"


def hallucinated_delta(c: Cast) -> dict:
    """A delta with a wrong predicate and an entity that does not exist."""
    return {"remove": [[c.mug, "on", c.table]], "add": [[c.mug, "in", c.sink], ["kitchen_tap", "faucet_on", True]]}


def update_sentences(g: WorldGraph, c: Cast) -> tuple[str, str]:
    """The two things people say that change the home."""
    sink = _label(g, c.sink).split(" in ")[0]
    return (f"{_label(g, c.person)} turned off the {_label(g, c.light)}.",
            f"Someone put the red mug in the {sink} and turned on the tap.")


def say_llm(s: Session) -> None:
    """Say which LLM the updates use (the settings from the environment)."""
    from l3mp.llm.settings import LLMSettings

    settings = LLMSettings.from_sources()
    s.say(f"\nLLM: {settings.name} (set L3MP_LLM_PROVIDER / L3MP_LLM_BASE_URL / L3MP_LLM_MODEL for another one); "
          "starting it can take a minute the first time")


def nl_updates(s: Session) -> None:
    """A hallucinated delta meets the verifier; then the sentences through the LLM."""
    c = s.roles
    s.section(NL_UPDATES + s.via.through("nl_update"))
    s.say(HALLUCINATION)
    problems = s.via.check(hallucinated_delta(c))
    _expect(bool(problems), "the hallucinated delta passed verification")
    for problem in problems:
        s.say(f"    - {problem}")
    s.say("these messages are what the update loop sends back to the LLM when it errs.")
    say_llm(s)
    for lines in s.via.updates(update_sentences(s.via.graph(), c)):
        for line in lines:
            s.say(line)


# ---- 4. a task ------------------------------------------------------------------------------
TASK = "A task: planned (LAPKT), validated against the full graph, executed and written back"


def task_and_goal(g: WorldGraph, c: Cast) -> tuple[str, str, str]:
    """What the person asks, who asks, and the goal that request means. In a house that has another red mug the
    person says where theirs is, as a person would (else the pipeline rightly asks which one)."""
    label = _label(g, c.mug)
    alike = any(n != c.mug and _label(g, n) == label for n in g.entities())
    places = [f.args[1] for f in g.facts(entity=c.mug) if f.predicate in ("on", "inside") and f.args[0] == c.mug]
    where = f" from the {_label(g, places[0])}" if alike and places else ""
    return f"Bring me the {label}{where}, please.", c.person, f"(has {c.person} {c.mug})"


def run_task(s: Session) -> None:
    """A spoken-style request with its speaker ("me"): its goal, checked against what the request means, planned
    with LAPKT, validated against the full graph, executed, each step's effects written back; the person then has
    the red mug."""
    from l3mp.planning.goal import same_goal

    c = s.roles
    s.section(TASK + s.via.through("task"))
    task, speaker, meant = task_and_goal(s.via.graph(), c)
    s.say(f'{_label(s.via.graph(), speaker)} says: "{task}"  {PLAN_NOTE}')
    goal = s.via.run_task(task, speaker, "task-1")
    right = same_goal(s.domain, s.via.graph(), goal, meant)
    s.say(f"the goal is what the request means: {meant}" if right else
          f"the goal is NOT what the request means: {goal} instead of {meant}")
    _expect(right, f"the request was planned as {goal}, not {meant}")
    _expect(s.via.holds(Fact("has", (c.person, c.mug))), "the person did not get the red mug")


# ---- 5. history -----------------------------------------------------------------------------
def show_changes(s: Session) -> None:
    from l3mp.world.pddl_io import problem_to_pddl

    c, g = s.roles, s.graph
    s.section("What changed, and why")
    history = s.world.history
    imported = s.world.store.record(s.import_seq)
    s.command(f"history changes --since {iso(imported.time)}")
    s.say(f"(the import record #{s.import_seq} is shown in step 1)")
    for record in history.changes(start_time=imported.time):
        if record.seq != s.import_seq:
            s.say(format_record(record))
    s.say()
    s.command(f"history entity {c.mug}")
    attrs = g.entity_attrs(c.mug)
    s.say(f"{entity_title(c.mug, attrs)}, known since record #{attrs.get('since')}")
    for line in story_lines(history.explain(g, c.mug)):
        s.say(line)
    s.say()
    s.command(f"export --entity {ROBOT} --depth 2")
    around = g.neighborhood([ROBOT], 2)
    s.say(problem_to_pddl(s.domain, g, entities=around, facts=g.facts_within(around), problem_name="around_robot")
          .rstrip("\n"))


# ---- 6. restart -----------------------------------------------------------------------------
def restart(s: Session) -> None:
    s.section("Restart: close the store, open it again, get the same graph back")
    before, last = s.graph.to_json(), s.world.last_seq
    s.world.close()
    started = time.perf_counter()
    s.open()
    took = time.perf_counter() - started
    _expect(not s.world.warnings, f"recovery warned: {s.world.warnings}")
    _expect(s.world.last_seq == last and s.graph.to_json() == before,
            "the recovered graph differs from the graph before the restart")
    s.say(f"recovered {s.graph.entity_count()} entities, {s.graph.fact_count()} facts and {last} records from "
          f"{s.store} in {took * 1000:.0f} ms: identical to the graph before the restart, down to the record "
          "that made each fact true")


# ---- 7. picture -----------------------------------------------------------------------------
def render_kitchen(s: Session) -> None:
    kitchen = s.roles.kitchen
    s.section(f"A picture of the part of the graph around {kitchen}")
    out = s.directory / "kitchen.png"
    s.command(f"render {out} --entity {kitchen} --depth 2")
    around = s.graph.neighborhood([kitchen], 2)
    render_graph(s.graph, s.domain, out, entities=around, title=f"around {kitchen} (depth 2)")
    s.say(f"wrote {out} ({len(around)} entities)")


STEPS: tuple[Step, ...] = (import_house, perceive, nl_updates, run_task, show_changes, restart, render_kitchen)
"""The session in this process, through the Python API."""


def start_nodes(s: Session) -> None:
    """From here on, perception, NL updates and the task go through the ROS 2 nodes, on this store."""
    from l3mp.ros.session import Nodes

    s.section("The ROS 2 nodes: world model, planner and executor on this store, talking over DDS on loopback")
    s.world.close()
    s.model = None
    s.way = Nodes.start(s.directory, s.store, fsync=s.fsync, say=s.say)


def stop_nodes(s: Session) -> None:
    """Stop the nodes and open the store they wrote in this process again."""
    nodes, s.way = s.way, None
    nodes.stop()
    s.open()
    s.say(f"stopped cleanly; the store holds {s.world.last_seq} records, the last one from the executor's last step")


def ros_steps() -> tuple[Step, ...]:
    """The session through the ROS 2 nodes: perception, NL updates and the task go over their topics to the
    world-model, planner and executor nodes (started as one process on loopback); the rest reads the store."""
    return (import_house, start_nodes, perceive, nl_updates, run_task, stop_nodes, show_changes, restart,
            render_kitchen)


def main_job(
    directory: str | Path | None = None,
    *,
    seed: int = DEFAULT_SEED,
    keep: bool = False,
    fsync: bool = True,
    steps: Sequence[Step] | None = None,
    out: TextIO | None = None,
) -> int:
    """Run the household session in `directory` (default: a temporary one, removed unless `keep`), through the
    ROS 2 nodes (default) or as the given `steps` (e.g. STEPS: all in this process).

    Returns 0, or 1 (with the reason on stderr) if anything unexpected happened.
    """
    started = time.perf_counter()
    temporary = directory is None
    root = Path(tempfile.mkdtemp(prefix="l3mp-demo-")) if directory is None else Path(directory)
    domain = Domain.from_file(domain_path("household"))
    session = Session(domain, RuleSet.for_domain(domain), root, seed, fsync, out or sys.stdout)
    session.say(f"l3mp main job: a household session (house seed {seed}) in {root}")
    try:
        root.mkdir(parents=True, exist_ok=True)
        for step in ros_steps() if steps is None else steps:
            step(session)
    except L3mpError as exc:
        print(f"l3mp demo: failed at step {session.step}: {exc}", file=sys.stderr)
        return 1
    finally:
        if session.way is not None:
            session.way.close()
        if session.model is not None:
            session.model.close()
        if temporary and not keep:
            shutil.rmtree(root, ignore_errors=True)
    kept = f"the store and the picture are in {root}" if keep or not temporary else \
        "the temporary directory is removed (--keep keeps it)"
    session.say()
    session.say(f"done in {time.perf_counter() - started:.1f} s; {kept}")
    return 0


# ---- helpers --------------------------------------------------------------------------------
def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise DemoFailed(what)


def _first(items: Iterable, what: str):
    for item in items:
        return item
    raise DemoFailed(f"the generated house has no {what}; try another --seed")


def _label(graph: WorldGraph, name: str) -> str:
    return str(graph.entity_attrs(name).get("label") or name)


def _type_counts(graph: WorldGraph, roots: tuple[str, ...], domain: Domain) -> dict[str, int]:
    counts = dict.fromkeys(roots, 0)
    for name in graph.entities():
        for root in roots:
            if domain.is_subtype(graph.entity_type(name) or "", root):
                counts[root] += 1
    return counts
