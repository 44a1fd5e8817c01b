"""Suite ``updates``: hand-written natural-language updates with gold deltas (issue 12, "measure it honestly").

The cases are in ``l3mp/bench/cases/updates.yaml`` (package data): sentences written by hand, the way people in
the home say them, on generated houses (``l3mp_sim.house.generate_house``), each with its gold answer: the
complete delta (``change``), nothing may change (``none``), or the update is ambiguous and the right answer is a
question back (``ask``). DEV (two houses) is for tuning; TEST (four other houses) is for reporting. HOLDOUT (two
more houses, in ``l3mp/bench/cases/updates-holdout.yaml`` with its own ``houses:``, loaded with the main file) was
written after TEST's failures had been read, and is only ever reported: nobody tunes on it or reads its results.

Every case runs on a fresh in-memory copy of its house (with the case's perception ``labels`` set) through
`l3mp.updates.NLUpdater` with one LLM and one variant. Scoring, per case:

- ``change``: exact when the applied delta (the change record's effective delta) has exactly the gold removals
  and additions; ``none``: exact when nothing was applied; ``ask``: exact when nothing was applied and the result
  asks a question (``outcome == "asked"``);
- wrong-but-applied: something was applied and it is not the gold delta (for ``none``/``ask``, anything applied);
- declined-or-asked: the updater declined or asked back (nothing applied);
- precision and recall over signed facts (``+fact`` added, ``-fact`` removed), summed over the cases;
- seconds per update (p50, p95) and tokens per update (prompt, completion; retrieval calls included).

The result's ``outcome`` (``applied``, ``no_change``, ``asked``, ``declined``) and ``question`` are used when
`UpdateResult` has them; without them, a result is applied iff it was accepted with a non-empty delta, declined
iff it was not accepted, and never asked.

Reported overall and per category (``cat:<name>``) for each run (LLM x variant x split). Targets (issue 12:
exact >= 90 %, wrong-but-applied <= 3 %, p50 <= 6 s) are set on the rows of a real model only. **Rows of the
simulated LLM** (``simulated_...``) answer from the gold delta through an error model: they test the plumbing,
they are never evidence of accuracy.

Runs: ``--quick`` (CI): the simulated LLM on every case (all three splits). Full: the configured LLM (``L3MP_LLM_*``;
default the embedded model) and the simulated LLM, on the TEST split. Environment variables (the runner has no
suite options):

- ``L3MP_BENCH_UPDATES_SPLIT``: ``test`` (default), ``dev``, ``holdout``, ``holdout2`` ... ``holdout19`` or ``all``; the
  rows are tagged with it (``llm_R^S_V_holdout_exact``; cases chosen by id that include held-out ones: the held-out
  split's name when all are of that split, else ``ids``);
- ``L3MP_BENCH_UPDATES_VARIANTS``: comma-separated variants of `l3mp.updates.VARIANTS` (default ``R^S_V``);
- ``L3MP_BENCH_UPDATES_LLMS``: comma-separated ``configured`` and/or ``simulated`` (default both; quick: simulated);
- ``L3MP_BENCH_UPDATES_IDS``: comma-separated case ids, to run only those (a smoke run);
- ``L3MP_BENCH_UPDATES_READ``: ``on`` (default), ``off`` or ``both``: whether verified variants read plain reports
  without the model (`l3mp.updates.reading`); ``off`` rows are tagged ``_noread`` (the lever, measured);
- ``L3MP_BENCH_UPDATES_CASES``: where to write the TEST split's per-case details (default
  ``docs/benchmarks/updates-cases.json`` under the current directory in a full run; a quick run writes them only
  when this is set). They are kept apart from the metric rows so that nobody tunes on TEST failures by accident;
  DEV per-case details go into the ``..._dev_cases`` row of the results. HOLDOUT per-case details go beside the
  TEST file, ``-holdout`` added to its name (default ``docs/benchmarks/updates-cases-holdout.json``).

Example: ``L3MP_BENCH_UPDATES_SPLIT=dev l3mp bench updates --json /tmp/updates-dev.json``; the held-out report:
``L3MP_BENCH_UPDATES_SPLIT=holdout l3mp bench updates --json docs/benchmarks/updates-holdout.json``. The cases of a
house are easiest to write and check against its dump: ``python -m l3mp.bench.update_suite --dump SEED``.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
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
from l3mp.domain.paths import domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact, fact_to_triplet
from l3mp.errors import FormatError, L3mpError
from l3mp.world.delta import Delta, state_delta
from l3mp.world.graph import WorldGraph
from l3mp.world.model import WorldModel

OUTCOMES = ("change", "none", "ask")
CATEGORIES = (
    # the simulator's event kinds (l3mp_sim.events)
    "move_item", "take_item", "put_down", "person_moves", "switch", "open_close", "phone_rings", "answer_phone",
    "eat_drink", "dirty_dish", "wash", "give", "new_item",
    # what people really say
    "pronoun", "implied_actor", "disambiguation", "multi_event", "partial", "no_change", "question", "injection",
    "labels", "ambiguous",
)
DEFAULT_VARIANT = "R^S_V"
DEFAULT_CASES_OUT = Path("docs/benchmarks/updates-cases.json")
SIMULATED_NOTE = ("SIMULATED LLM (answers from the gold delta with injected errors): a test tool, not evidence of "
                  "accuracy")
TARGETS = {"exact": (90.0, "min"), "wrong_applied": (3.0, "max"), "seconds_p50": (6.0, "max")}
"""Issue 12's targets for the embedded default (set on real-model rows only)."""

ENV_SPLIT, ENV_VARIANTS, ENV_LLMS = "L3MP_BENCH_UPDATES_SPLIT", "L3MP_BENCH_UPDATES_VARIANTS", "L3MP_BENCH_UPDATES_LLMS"
ENV_IDS, ENV_CASES = "L3MP_BENCH_UPDATES_IDS", "L3MP_BENCH_UPDATES_CASES"
ENV_READ = "L3MP_BENCH_UPDATES_READ"


# ---- the cases --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    """One hand-written update and its gold answer."""

    id: str
    split: str
    house: str
    seed: int
    categories: tuple[str, ...]
    text: str
    outcome: str
    remove: tuple[Fact, ...] = ()
    add: tuple[Fact, ...] = ()
    labels: dict[str, str] = field(default_factory=dict)

    def gold_delta(self) -> Delta:
        return Delta(remove=self.remove, add=self.add)

    def gold_signed(self) -> set[tuple[str, Fact]]:
        return signed(self.remove, self.add)

    def gold_json(self) -> dict:
        out: dict[str, Any] = {"outcome": self.outcome}
        if self.outcome == "change":
            out.update(remove=[str(f) for f in self.remove], add=[str(f) for f in self.add])
        return out


def cases_resource() -> Any:
    """The packaged cases file (a Traversable: works from a checkout, an editable and a normal install)."""
    return cases_file("updates.yaml")


def load_benchmark(path: str | Path | None = None) -> Benchmark[Case]:
    """Parse the cases file (the packaged one by default); FormatError names a malformed case."""
    return load_cases("updates.yaml", "update", _case, path)


def _case(raw: Any, houses: dict[str, int]) -> Case:
    where = check_header(raw, houses, what="update", keys={"labels", "gold"}, categories=CATEGORIES)
    categories = raw["categories"]
    labels = raw.get("labels") or {}
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        raise FormatError(f"{where}: labels must map entity names to label strings")
    gold = raw.get("gold")
    if not isinstance(gold, dict) or gold.get("outcome") not in OUTCOMES:
        raise FormatError(f"{where}: gold needs an outcome of {OUTCOMES}")
    if gold["outcome"] == "change":
        if set(gold) != {"outcome", "remove", "add"}:
            raise FormatError(f"{where}: a change needs exactly 'remove' and 'add' (lists, maybe empty)")
        try:
            delta = Delta.from_json({"remove": gold["remove"] or [], "add": gold["add"] or []})
        except FormatError as exc:
            raise FormatError(f"{where}: {exc}") from None
        remove, add = delta.remove, delta.add
    else:
        if set(gold) != {"outcome"}:
            raise FormatError(f"{where}: outcome {gold['outcome']} takes no delta")
        remove, add = (), ()
    return Case(raw["id"], raw["split"], raw["house"], houses[raw["house"]], tuple(categories), raw["text"].strip(),
                gold["outcome"], remove, add, {str(k).lower(): v for k, v in labels.items()})


def signed(remove: Sequence[Fact], add: Sequence[Fact]) -> set[tuple[str, Fact]]:
    """A delta as signed facts: ``("-", fact)`` removed, ``("+", fact)`` added."""
    return {("-", f) for f in remove} | {("+", f) for f in add}


# ---- the houses -------------------------------------------------------------------------------
@cache
def household() -> Domain:
    return Domain.from_file(domain_path("household"))


@cache
def _house(seed: int) -> WorldGraph:
    try:
        from l3mp_sim.house import generate_house
    except ImportError:
        raise L3mpError("the household generator (module l3mp_sim) is not installed; reinstall l3mp") from None
    return generate_house(seed=seed).to_graph()


def case_graph(case: Case) -> WorldGraph:
    """A fresh copy of the case's house, with its labels set."""
    graph = _house(case.seed).copy()
    for name, label in case.labels.items():
        if not graph.has_entity(name):
            raise FormatError(f"update case {case.id}: label for {name}, which is not in house {case.house}")
        graph.add_entity(name, graph.entity_type(name) or "", label=label)
    return graph


def case_world(case: Case) -> WorldModel:
    """An in-memory, verified world model holding the case's house (labels set)."""
    domain = household()
    world = WorldModel(domain)
    graph = case_graph(case)
    world.apply(state_delta(domain, world.graph, graph, replace=True), source="import")
    return world


def house_words(case: Case) -> dict[str, str]:
    """The true words for the entities of the case's house (what people say, never the perceived labels)."""
    graph = _house(case.seed)
    return {n: str(graph.entity_attrs(n).get("label") or n.replace("_", " ")) for n in graph.entities()}


# ---- one case ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Scored:
    """One case's result and how it scores."""

    case: Case
    outcome: str
    applied: bool
    applied_remove: tuple[Fact, ...]
    applied_add: tuple[Fact, ...]
    exact: bool
    wrong_applied: bool
    declined_or_asked: bool
    seconds: float
    prompt_tokens: int
    completion_tokens: int
    reason: str | None = None
    question: str | None = None
    attempts: int = 0
    model_calls: int = 0
    """Answers asked of the model (0: read from the text alone, or settled before any model answer)."""

    def hits(self) -> tuple[int, int, int]:
        """Signed facts: (right among the applied, applied, gold)."""
        got = signed(self.applied_remove, self.applied_add) if self.applied else set()
        gold = self.case.gold_signed()
        return len(got & gold), len(got), len(gold)

    def to_json(self) -> dict:
        case = self.case
        out: dict[str, Any] = {
            "id": case.id, "split": case.split, "house": case.house, "categories": list(case.categories),
            "text": case.text, "gold": case.gold_json(), "outcome": self.outcome, "exact": self.exact,
            "wrong_applied": self.wrong_applied, "declined_or_asked": self.declined_or_asked,
            "applied": {"remove": [str(f) for f in self.applied_remove], "add": [str(f) for f in self.applied_add]},
            "reason": self.reason, "question": self.question, "attempts": self.attempts,
            "model_calls": self.model_calls,
            "seconds": round(self.seconds, 3),
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens},
        }
        if case.labels:
            out["labels"] = case.labels
        return out


def result_outcome(result: Any) -> str:
    """``applied``, ``no_change``, ``asked`` or ``declined`` (from `result.outcome`, else from accepted + delta)."""
    outcome = getattr(result, "outcome", None)
    if outcome in ("applied", "no_change", "asked", "declined"):
        return outcome
    if not result.accepted:
        return "declined"
    record = result.record
    return "applied" if record is not None and not record.delta.is_empty() else "no_change"


def score(case: Case, result: Any, seconds: float) -> Scored:
    """Score an `UpdateResult` against the case's gold answer (see the module docstring)."""
    outcome = result_outcome(result)
    record = getattr(result, "record", None)
    applied = outcome == "applied" and record is not None and not record.delta.is_empty()
    remove = tuple(sorted(record.delta.remove)) if applied else ()
    add = tuple(sorted(record.delta.add)) if applied else ()
    if case.outcome == "change":
        exact = applied and set(remove) == set(case.remove) and set(add) == set(case.add)
    elif case.outcome == "none":
        exact = not applied
    else:
        exact = not applied and outcome == "asked"
    ledger = result.ledger
    return Scored(case, outcome, applied, remove, add, exact, applied and not exact,
                  outcome in ("asked", "declined"), seconds, ledger.prompt_tokens, ledger.completion_tokens,
                  result.reason, getattr(result, "question", None), len(result.attempts),
                  sum(1 for a in result.attempts if getattr(a, "number", 1) > 0))


def simulated_llm_module() -> Any:
    """The simulated LLM's module (``l3mp_sim.simulated_llm``; ``l3mp.llm.simulated`` before it moved there)."""
    try:
        import l3mp_sim.simulated_llm as module
    except ImportError:
        import l3mp.llm.simulated as module  # type: ignore[no-redef]
    return module


def oracle_for(case: Case, world: WorldModel, delta: Delta | None = None) -> Any:
    """What the simulated LLM is told about a case: the gold delta (or `delta`), the entities it names with the
    true words for them, their types and the relations among them (as the simulator's evaluation does)."""
    delta = case.gold_delta() if delta is None else delta
    words = house_words(case)
    names = dict.fromkeys(a for f in (*delta.remove, *delta.add) for a in f.args)
    mentions = {n: words.get(n, n) for n in names}
    graph = world.graph
    types = {n: graph.entity_type(n) or "" for n in mentions}
    relations = tuple(sorted(f for f in graph.facts() if len(f.args) == 2 and all(a in mentions for a in f.args)))
    return simulated_llm_module().Oracle(changes=delta, mentions=mentions, types=types, relations=relations)


def run_case(case: Case, llm: Any, variant: str = DEFAULT_VARIANT, *, embedder: Any = None,
             oracle_delta: Delta | None = None, read_text: bool = True) -> Scored:
    """Run one case on a fresh copy of its house through `NLUpdater` (its default number of attempts; `read_text`:
    plain reports read without the model); a simulated LLM is told the gold delta (or `oracle_delta`, for tests of
    the scoring)."""
    from l3mp.retrieval import make_retriever
    from l3mp.updates import VARIANTS, NLUpdater

    mode, verify = VARIANTS[variant]
    world = case_world(case)
    if isinstance(llm, simulated_llm_module().SimulatedLLM):
        llm.set_oracle(oracle_for(case, world, oracle_delta))
    retriever = make_retriever(mode, llm=llm, domain=world.domain, embedder=embedder)
    updater = NLUpdater(world, llm, retriever, verify=verify, variant=variant, read_text=read_text)
    started = time.perf_counter()
    result = updater.update(case.text, ref=case.id)
    return score(case, result, time.perf_counter() - started)


# ---- metrics ----------------------------------------------------------------------------------
def pct(part: int, whole: int) -> float | None:
    return 100.0 * part / whole if whole else None


def summary(scored: Sequence[Scored]) -> dict[str, Any]:
    """The numbers of a set of scored cases (None where undefined, e.g. precision with nothing applied)."""
    n = len(scored)
    right = applied = gold = 0
    for s in scored:
        r, a, g = s.hits()
        right, applied, gold = right + r, applied + a, gold + g
    seconds = [s.seconds for s in scored]
    return {
        "cases": n,
        "exact": pct(sum(s.exact for s in scored), n),
        "precision": pct(right, applied),
        "recall": pct(right, gold),
        "wrong_applied": pct(sum(s.wrong_applied for s in scored), n),
        "declined_or_asked": pct(sum(s.declined_or_asked for s in scored), n),
        "seconds_p50": percentile(seconds, 0.5) if seconds else None,
        "seconds_p95": percentile(seconds, 0.95) if seconds else None,
        "prompt_tokens": statistics.fmean(s.prompt_tokens for s in scored) if scored else None,
        "completion_tokens": statistics.fmean(s.completion_tokens for s in scored) if scored else None,
        "without_model": pct(sum(s.model_calls == 0 for s in scored), n),
    }


_UNITS = {"exact": "%", "precision": "%", "recall": "%", "wrong_applied": "%", "declined_or_asked": "%",
          "seconds_p50": "s", "seconds_p95": "s", "prompt_tokens": "tokens", "completion_tokens": "tokens",
          "without_model": "%"}
_ABOUT = {
    "exact": "cases whose applied delta is exactly the gold one (none: nothing applied; ask: nothing applied and "
             "asked back)",
    "precision": "signed facts (+added, -removed) applied that are in the gold deltas",
    "recall": "signed facts of the gold deltas that were applied",
    "wrong_applied": "cases where something was applied and it is not the gold delta",
    "declined_or_asked": "cases declined or asked back (nothing applied)",
    "seconds_p50": "seconds per update (retrieval and every attempt), median",
    "seconds_p95": "seconds per update, 95th percentile",
    "prompt_tokens": "prompt tokens per update (all calls)",
    "completion_tokens": "completion tokens per update (all calls)",
    "without_model": "cases settled without any model answer (read from the text, or declined before asking)",
}
_PER_CATEGORY = ("exact", "precision", "recall", "wrong_applied", "declined_or_asked")


def metrics(tag: str, scored: Sequence[Scored], *, simulated: bool, about: str) -> Iterator[Metric]:
    """Metric rows of one run: overall (every number), then per category (the accuracy numbers; the exact row's
    notes give the count, times and tokens)."""
    base = f"{SIMULATED_NOTE}; {about}" if simulated else about
    overall = summary(scored)
    for key, unit in _UNITS.items():
        value = overall[key]
        target = TARGETS.get(key) if not simulated else None
        notes = f"{_ABOUT[key]}; {overall['cases']} case(s); {base}" if key == "exact" else (
            _ABOUT[key] + ("; simulated LLM: not evidence of accuracy" if simulated else ""))
        if value is None:  # e.g. precision when nothing was applied: no row rather than a made-up number
            continue
        yield Metric(f"{tag}_{key}", value, unit, *(target or (None, None)), notes=notes)
    for category in CATEGORIES:
        group = [s for s in scored if category in s.case.categories]
        if not group:
            continue
        numbers = summary(group)
        extra = (f"{numbers['cases']} case(s); p50 {numbers['seconds_p50']:.2f} s, p95 {numbers['seconds_p95']:.2f} s; "
                 f"tokens/update {numbers['prompt_tokens']:.0f} prompt + {numbers['completion_tokens']:.0f} "
                 "completion" + ("; simulated LLM" if simulated else ""))
        for key in _PER_CATEGORY:
            value = numbers[key]
            if value is None:
                continue
            yield Metric(f"{tag}_cat:{category}_{key}", value, "%", notes=extra if key == "exact" else "")


# ---- the suite --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Options:
    split: str
    variants: tuple[str, ...]
    llms: tuple[str, ...]
    ids: tuple[str, ...]
    cases_out: Path | None
    read: tuple[bool, ...] = (True,)


def options(quick: bool, env: dict[str, str] | None = None) -> Options:
    """The run's options from the environment (see the module docstring); L3mpError on a bad value."""
    from l3mp.updates import VARIANTS

    env = dict(os.environ) if env is None else env
    split = split_option(env, ENV_SPLIT, quick)
    variants = tuple(v.strip() for v in env.get(ENV_VARIANTS, DEFAULT_VARIANT).split(",") if v.strip())
    bad = [v for v in variants if v not in VARIANTS]
    if bad or not variants:
        raise L3mpError(f"{ENV_VARIANTS}: unknown variant(s) {bad or '(none)'}; valid: {', '.join(VARIANTS)}")
    llms = listed_option(env, ENV_LLMS, "simulated" if quick else ",".join(LLMS), LLMS)
    return Options(split, variants, llms, ids_option(env, ENV_IDS),
                   cases_out_option(env, ENV_CASES, quick, DEFAULT_CASES_OUT), read_option(env, ENV_READ))


@register("updates")
def update_suite(quick: bool) -> Iterator[Metric]:
    """Every selected case, for every LLM and variant (see the module docstring)."""
    opts = options(quick)
    cases = select(load_benchmark().cases, opts.split, opts.ids, ENV_IDS)
    split = run_split(opts.split, cases, opts.ids)
    test_details: dict[str, list[dict]] = {}
    holdout_details: dict[str, dict[str, list[dict]]] = {}  # held-out split -> tag -> results
    for which in opts.llms:
        try:
            llm, name = _make_llm(which)
        except L3mpError as exc:
            yield error_metric(f"{which}_error", exc)
            continue
        try:
            for variant, read in ((v, r) for v in opts.variants for r in opts.read):
                tag = f"{'simulated' if which == 'simulated' else 'llm'}_{variant}{'' if read else '_noread'}_" \
                      f"{split}"
                scored = []
                for case in cases:
                    scored.append(run_case(case, llm, variant, read_text=read))
                    print(f"    {case.id}: {'exact' if scored[-1].exact else scored[-1].outcome}", file=sys.stderr,
                          flush=True)
                about = (f"{name}, variant {variant}{'' if read else ' without the plain reading'}, "
                         f"{split_about(split)}")
                yield from metrics(tag, scored, simulated=which == "simulated", about=about)
                yield from detail_rows(tag, scored, unit="cases", cases_out=opts.cases_out, env_key=ENV_CASES,
                                       test_details=test_details, holdout_details=holdout_details)
        finally:
            llm.close()
    write_test_details(opts.cases_out, suite="updates", quick=quick, details=test_details)
    write_held_out_details(opts.cases_out, suite="updates", quick=quick, details=holdout_details)


def _make_llm(which: str) -> tuple[Any, str]:
    return run_llm(which, lambda: simulated_llm_module().SimulatedLLM(household(), simulated_llm_module().ErrorModel(),
                                                                     seed=0))


# ---- the house dump (for writing cases) -------------------------------------------------------
def dump_house(seed: int) -> str:
    """A house as text for people writing cases: per room its fixtures, what lies on or in them, who holds what,
    and the state facts (light_on, is_open, dirty, ringing, ...)."""
    graph = _house(seed)
    where: dict[str, Fact] = {}
    states: dict[str, list[str]] = {}
    for fact in graph.facts():
        if fact.predicate in ("on", "inside", "in_room"):
            where[fact.args[0]] = fact
        elif fact.predicate in ("has", "holding"):
            where[fact.args[1]] = fact
        elif len(fact.args) == 1:
            states.setdefault(fact.args[0], []).append(fact.predicate)
        else:
            states.setdefault(fact.args[0], []).append(" ".join(fact_to_triplet(fact)[1:]))

    def line(name: str, indent: str) -> str:
        attrs = graph.entity_attrs(name)
        return f"{indent}{name} ({attrs['type']}) '{attrs.get('label', '')}' {' '.join(sorted(states.get(name, [])))}"

    def contents(holder: str) -> list[str]:
        return sorted(n for n, f in where.items() if f.predicate != "in_room" and holder in f.args and n != holder)

    out = [f"# house seed {seed}: {graph.entity_count()} entities, {graph.fact_count()} facts"]
    for room in sorted(n for n in graph.entities() if graph.entity_type(n) == "room"):
        out.append(f"\n== {room} '{graph.entity_attrs(room).get('label', '')}'")
        for thing in sorted(n for n, f in where.items() if f.predicate == "in_room" and f.args[1] == room):
            out.append(line(thing, "  "))
            out += [line(item, f"      {where[item].predicate}: ") for item in contents(thing)]
    return "\n".join(out)


if __name__ == "__main__":  # python -m l3mp.bench.update_suite --dump SEED [SEED ...]
    if len(sys.argv) < 3 or sys.argv[1] != "--dump":
        sys.exit("usage: python -m l3mp.bench.update_suite --dump SEED [SEED ...]")
    for seed_arg in sys.argv[2:]:
        print(dump_house(int(seed_arg)))
