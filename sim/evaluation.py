"""The evaluation of section V-A: the paper's six agent variants on the same seeded episode.

For each variant an agent (its own in-memory `WorldModel`, started from the house as perception first saw it,
an `NLUpdater` and a `TaskPlanner` with the variant's retrieval) faces a `Simulator` of the same seed. Each
step is one change told in natural language (or seen by perception) or, every `tasks_every` changes, a task:
the agent plans it from its own memory, the plan is executed in the ground truth (which only changes if the
preconditions hold there) and its effects are written back to the agent's memory. Nothing ever corrects the
agent's memory from the truth: later steps live with earlier mistakes, as in the paper.

Per step the runner records:

- ``success`` of a state change: every fact the change made true (false) is true (false) in the agent's memory
  afterwards, and every fact the agent changed agrees with the truth (a change is judged on its own, so an
  earlier mistake elsewhere does not fail every later change);
- ``graph_match``: the agent's whole graph equals the truth (entities, types and facts);
- for a task, ``success``: the plan was found, executed in the truth and the gold goal holds there; the
  planning time with retrieval (retrieval + planner) beside the planner time of the ground-truth problem over
  the full true state; the ground-truth problem (PDDL) and plan;
- for every step, how the ground truth changed (``truth_changes``; with ``initial_truth`` in the results, the
  ground-truth graph after every change and every plan execution), tokens, LLM calls, attempts, wall time, and
  the errors the simulated LLM injected.

Results are checkpointed after every step (``<out>/runs/<variant>.json``); a rerun with the same settings
continues where it stopped.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from l3mp_sim.simulated_llm import Oracle, SimulatedLLM
from l3mp_sim.simulator import Delivery, SimConfig, Simulator, verified_world

from l3mp.domain.pddl_domain import Domain
from l3mp.errors import L3mpError, ProblemError
from l3mp.files import write_text_atomic
from l3mp.llm.types import LLM, TokenLedger
from l3mp.planning import run_plan, validate_plan
from l3mp.planning.goal import same_goal
from l3mp.planning.pipeline import TaskPlanner
from l3mp.retrieval import Embedder, make_retriever
from l3mp.updates import VARIANTS, NLUpdater
from l3mp.world.graph import WorldGraph

CHECKPOINT_FORMAT = "l3mp.eval-run/1"


class EvaluationError(L3mpError):
    """An evaluation cannot run or continue (bad settings, a checkpoint of other settings)."""


@dataclass(frozen=True)
class EvalConfig:
    """An episode (simulator settings, number of changes, how often a task comes) and the agents' settings."""

    sim: SimConfig = field(default_factory=SimConfig)
    events: int = 40
    tasks_every: int = 10
    variants: tuple[str, ...] = tuple(VARIANTS)
    max_attempts: int = 4
    depth: int = 1

    def __post_init__(self) -> None:
        unknown = [v for v in self.variants if v not in VARIANTS]
        if unknown or not self.variants:
            raise EvaluationError(f"unknown variant(s) {', '.join(unknown) or '(none given)'}; valid: "
                                  f"{', '.join(VARIANTS)}")
        if self.events < 1:
            raise EvaluationError(f"events must be >= 1, not {self.events}")
        if self.tasks_every < 0:
            raise EvaluationError(f"tasks_every must be >= 0 (0: no tasks), not {self.tasks_every}")

    @property
    def steps(self) -> int:
        """Changes plus tasks."""
        return len(schedule(self))

    def to_json(self) -> dict:
        return {"sim": self.sim.to_json(), "events": self.events, "tasks_every": self.tasks_every,
                "variants": list(self.variants), "max_attempts": self.max_attempts, "depth": self.depth}


def schedule(config: EvalConfig) -> list[str]:
    """The kind of every step in order: ``change`` or ``task``."""
    out = []
    for n in range(1, config.events + 1):
        out.append("change")
        if config.tasks_every and n % config.tasks_every == 0:
            out.append("task")
    return out


class Progress:
    """A one-line progress bar on a terminal stream (plain lines when it is not a terminal)."""

    def __init__(self, total: int, *, stream: TextIO | None = None, width: int = 28) -> None:
        self.total = max(1, total)
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self._tty = self.stream.isatty()
        self._started = time.monotonic()

    def advance(self, label: str, steps: int = 1) -> None:
        self.done += steps
        filled = round(self.width * self.done / self.total)
        elapsed = time.monotonic() - self._started
        line = (f"[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} "
                f"{elapsed:5.0f}s {label}")
        if self._tty:
            self.stream.write("\r" + line[:150].ljust(150))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self._tty:
            self.stream.write("\n")
            self.stream.flush()


class Agent:
    """One variant's agent: its memory, its updater and its planner."""

    def __init__(self, variant: str, domain: Domain, start: WorldGraph, llm: LLM, *, config: EvalConfig,
                 embedder: Embedder | None) -> None:
        mode, verify = VARIANTS[variant]
        self.variant = variant
        self.world = verified_world(domain, start)
        retriever = make_retriever(mode, llm=llm, domain=domain, embedder=embedder, depth=config.depth)
        self.updater = NLUpdater(self.world, llm, retriever, verify=verify, max_attempts=config.max_attempts,
                                 variant=variant)
        self.planner = TaskPlanner(self.world, llm, retriever, planner=config.sim.planner,
                                   timeout_s=config.sim.planner_timeout_s)


def run_variant(
    variant: str,
    config: EvalConfig,
    llm: LLM,
    llm_info: dict,
    out_dir: Path,
    *,
    embedder: Embedder | None = None,
    on_step: Callable[[dict], None] | None = None,
) -> list[dict]:
    """Run (or continue) one variant's episode; returns its step records."""
    path = checkpoint_path(out_dir, variant)
    saved = _load_checkpoint(path, config, llm_info)
    sim = Simulator(config.sim, state=saved["sim"] if saved else None)
    start = WorldGraph.from_json(saved["agent"]) if saved else sim.initial_graph()
    agent = Agent(variant, sim.domain, start, llm, config=config, embedder=embedder)
    records: list[dict] = list(saved["records"]) if saved else []
    for kind in schedule(config)[len(records):]:
        record = _change(sim, agent, llm) if kind == "change" else _task(sim, agent, llm)
        record["index"] = len(records) + 1
        records.append(record)
        _save_checkpoint(path, config, llm_info, sim, agent, records)
        if on_step is not None:
            on_step(record)
    return records


def checkpoint_path(out_dir: Path, variant: str) -> Path:
    return out_dir / "runs" / (re.sub(r"[^A-Za-z0-9_+-]", "", variant.replace("^", "")) + ".json")


# ---- one change ------------------------------------------------------------------------------
def _change(sim: Simulator, agent: Agent, llm: LLM) -> dict:
    started = time.perf_counter()
    truth_before = set(sim.truth.graph.facts())
    delivery = sim.next_delivery()
    before = set(agent.world.graph.facts())
    injected = _injected(llm)
    record: dict[str, Any] = {"kind": "change", **delivery.to_json()}
    if delivery.channel == "nl":
        _oracle(llm, sim, truth_before, delivery=delivery)
        result = agent.updater.update(delivery.text, ref=f"step-{delivery.step}")
        record.update(accepted=result.accepted, reason=result.reason, attempts=len(result.attempts),
                      tokens=_tokens(result.ledger), retrieval=result.to_json()["retrieval"])
    else:
        assert delivery.observation is not None
        outcome = agent.world.apply_many([delivery.observation])[0]
        record.update(accepted=outcome.accepted, reason="; ".join(v.message for v in outcome.violations) or None,
                      attempts=0, tokens=_tokens(TokenLedger()))
    after = set(agent.world.graph.facts())
    truth_after = set(sim.truth.graph.facts())
    record.update(_judge(truth_before, truth_after, before, after), truth_changes=_diff(truth_before, truth_after),
                  graph_match=agent.world.graph == sim.truth.graph, injected=_injected(llm, since=injected),
                  seconds=round(time.perf_counter() - started, 3))
    return record


def _judge(truth_before: set, truth_after: set, before: set, after: set) -> dict:
    """Whether the agent got this change right, judged on its own (see the module docstring)."""
    made_true, made_false = truth_after - truth_before, truth_before - truth_after
    missing = sorted(str(f) for f in made_true if f not in after) + sorted(
        f"(not {f})" for f in made_false if f in after)
    wrong = sorted(str(f) for f in after - before if f not in truth_after) + sorted(
        f"(not {f})" for f in before - after if f in truth_after)
    return {"success": not missing and not wrong, "missing": missing, "wrong": wrong}


# ---- one task --------------------------------------------------------------------------------
def _task(sim: Simulator, agent: Agent, llm: LLM) -> dict:
    started = time.perf_counter()
    posed = sim.next_task()
    truth_before = set(sim.truth.graph.facts())
    task = posed.task
    injected = _injected(llm)
    _oracle(llm, sim, truth_before, task=task)
    result = agent.planner.plan(task.text)
    record: dict[str, Any] = {"kind": "task", **posed.to_json(), "status": result.status, "agent_goal": result.goal,
                              "plan": result.plan, "valid_in_memory": result.ok, "reason": result.reason,
                              "retrieval_seconds": round(result.retrieval_seconds, 4),
                              "planner_seconds": round(result.planner_seconds, 4),
                              "expansions": result.expansions, "tokens": _tokens(result.ledger)}
    record["valid_in_truth"] = bool(result.plan) and validate_plan(
        sim.domain, sim.truth.graph, result.plan, task.goal_pddl).valid
    record["goal_correct"] = _same_goal(sim, result.goal, task.goal_pddl)
    execution = None
    if result.ok:
        report = run_plan(agent.world, sim, result.plan, task_ref=f"task-{posed.step}")
        execution = {"status": report.status, "steps_done": report.steps_done, "message": report.message}
    record.update(execution=execution, success=execution is not None and execution["status"] == "completed"
                  and sim.goal_holds(task), graph_match=agent.world.graph == sim.truth.graph,
                  truth_changes=_diff(truth_before, set(sim.truth.graph.facts())), gold_problem=posed.gold_problem,
                  injected=_injected(llm, since=injected), seconds=round(time.perf_counter() - started, 3))
    return record


# ---- helpers ---------------------------------------------------------------------------------
def _same_goal(sim: Simulator, goal: str | None, gold: str) -> bool:
    """Whether the agent's goal is the gold goal (`same_goal`: conjunct order and variable names aside)."""
    if goal is None:
        return False
    try:
        return same_goal(sim.domain, sim.truth.graph, goal, gold)
    except ProblemError:
        return False


def _diff(before: set, after: set) -> dict:
    """How the ground truth changed in a step (with the initial truth, the truth after every step)."""
    return {"remove": sorted(str(f) for f in before - after), "add": sorted(str(f) for f in after - before)}


def _oracle(llm: LLM, sim: Simulator, truth_before: set, *, delivery: Delivery | None = None,
            task: Any = None) -> None:
    """Tell the simulated LLM what the request is about (a real LLM is told nothing)."""
    if not isinstance(llm, SimulatedLLM):
        return
    mentions = delivery.mentions() if delivery is not None else dict(task.mentions)
    types = {n: sim.truth.graph.entity_type(n) or "" for n in mentions}
    relations = tuple(sorted(f for f in truth_before if len(f.args) == 2 and all(a in mentions for a in f.args)))
    if delivery is not None:
        llm.set_oracle(Oracle(changes=delivery.delta(), mentions=mentions, types=types, relations=relations))
    else:
        llm.set_oracle(Oracle(goal=task.literals, mentions=mentions, types=types, relations=relations))


def _injected(llm: LLM, since: dict | None = None) -> dict:
    if not isinstance(llm, SimulatedLLM):
        return {}
    now = dict(llm.injected)
    if since is None:
        return now
    return {k: v - since.get(k, 0) for k, v in now.items() if v - since.get(k, 0)}


def _tokens(ledger: TokenLedger) -> dict:
    return {"prompt": ledger.prompt_tokens, "completion": ledger.completion_tokens, "total": ledger.total_tokens,
            "calls": len(ledger.calls)}


def _read_checkpoint(path: Path) -> dict:
    """A checkpoint's content; EvaluationError when it cannot be read or is not a checkpoint."""
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EvaluationError(f"cannot read checkpoint {path}: {exc}; move it away to start that variant again") \
            from exc
    if not isinstance(saved, dict) or saved.get("format") != CHECKPOINT_FORMAT:
        raise EvaluationError(f"{path} is not an evaluation checkpoint ({CHECKPOINT_FORMAT})")
    return saved


def _load_checkpoint(path: Path, config: EvalConfig, llm_info: dict) -> dict | None:
    """The checkpoint to continue from (None if there is none); EvaluationError if it has other settings."""
    if not path.is_file():
        return None
    saved = _read_checkpoint(path)
    mine = {k: v for k, v in config.to_json().items() if k != "variants"}
    theirs = {k: v for k, v in saved.get("config", {}).items() if k != "variants"}
    if mine != theirs or saved.get("llm", {}).get("name") != llm_info.get("name"):
        raise EvaluationError(f"{path} was made with other settings or another LLM "
                              f"({saved.get('llm', {}).get('name')}); use another --out directory, or the same "
                              "settings to continue it")
    return saved


def _save_checkpoint(path: Path, config: EvalConfig, llm_info: dict, sim: Simulator, agent: Agent,
                     records: list[dict]) -> None:
    data = {"format": CHECKPOINT_FORMAT, "config": config.to_json(), "llm": llm_info, "variant": agent.variant,
            "sim": sim.to_json(), "agent": agent.world.graph.to_json(with_since=False), "records": records}
    write_text_atomic(path, json.dumps(data) + "\n")


def evaluate(
    config: EvalConfig,
    llm: LLM,
    llm_info: dict,
    out_dir: Path,
    *,
    progress: bool = True,
    embedder: Embedder | None = None,
) -> dict:
    """Run (or continue) every variant of `config` and write the outputs (`l3mp_sim.report.write_outputs`)."""
    from l3mp_sim.report import write_outputs

    out_dir.mkdir(parents=True, exist_ok=True)
    total = config.steps * len(config.variants)
    bar = Progress(total) if progress else None
    runs: dict[str, list[dict]] = {}
    started = time.time()
    try:
        for variant in config.variants:
            done = _done_steps(checkpoint_path(out_dir, variant))
            if bar is not None and done:
                bar.advance(f"{variant}: {done} step(s) from the checkpoint", done)

            def step(record: dict, variant: str = variant) -> None:
                if bar is not None:
                    mark = "ok" if record["success"] else "FAILED"
                    bar.advance(f"{variant} {record['kind']} {record['step']} {mark}")

            runs[variant] = run_variant(variant, config, llm, llm_info, out_dir, embedder=embedder, on_step=step)
    finally:
        if bar is not None:
            bar.close()
    meta = {"config": config.to_json(), "llm": llm_info, "seconds_this_session": round(time.time() - started, 1),
            "initial_truth": _initial_truth(config)}
    return write_outputs(out_dir, meta, runs)


def report_checkpoints(config: EvalConfig, out_dir: Path) -> dict:
    """Write the outputs from whatever the checkpoints in `out_dir` hold (no LLM is needed): a run that is
    still going, or was stopped, is reported as far as it got (each variant's summary counts its steps)."""
    from l3mp_sim.report import write_outputs

    runs: dict[str, list[dict]] = {}
    llm_info: dict = {}
    for variant in config.variants:
        path = checkpoint_path(out_dir, variant)
        if not path.is_file():
            continue
        saved = _read_checkpoint(path)
        if llm_info and saved["llm"].get("name") != llm_info.get("name"):
            raise EvaluationError(f"{path} was made with another LLM ({saved['llm'].get('name')})")
        llm_info = saved["llm"]
        runs[variant] = saved["records"]
    if not runs:
        raise EvaluationError(f"no checkpoints of the variants {', '.join(config.variants)} in {out_dir / 'runs'}")
    steps = {v: f"{len(r)} of {config.steps}" for v, r in runs.items()} if any(
        len(r) < config.steps for r in runs.values()) else {}
    meta = {"config": config.to_json(), "llm": llm_info, "steps_done": steps, "initial_truth": _initial_truth(config)}
    return write_outputs(out_dir, meta, runs)


def _initial_truth(config: EvalConfig) -> dict:
    """The episode's ground truth before its first change (graph JSON), for the results."""
    return Simulator(config.sim).initial_graph().to_json(with_since=False)


def _done_steps(path: Path) -> int:
    return len(_read_checkpoint(path).get("records", [])) if path.is_file() else 0
