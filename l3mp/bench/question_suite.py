"""Suite ``questions``: questions about the home with gold answers, generated from recorded simulator episodes
(issue 16; the generator is ``l3mp_sim.questions``).

Every house of the split is run through the simulator into a store (one record per sentence, minutes apart), then
its questions are asked of that memory through `l3mp.questions.QuestionAnswerer`, at the episode's "now". A
checker per gold kind scores each answer:

- ``entities``: answered with exactly the gold set; ``count``: answered with the gold number; ``yes_no``: answered
  with the gold yes or no; ``time``: answered with a time within `TIME_WINDOW_S` of the gold record's time;
- ``decline`` (unanswerable, or a record that names nobody): declined.

Numbers per run: accuracy (right answers and right declines), wrong confident answers (answered and not right,
including an answer to what must be declined), declined-correctly (declines among the questions that must be
declined), declined-wrongly (declines of answerable questions), accuracy per question kind, the share of
questions that went to the LLM loop, seconds per question (p50, p95) and tokens per question. Targets (issue 16:
accuracy >= 85 %, wrong confident <= 3 %) are set on real-model rows only: **simulated rows** answer the LLM
loop's steps from the gold answer through an error model; they test the plumbing, not accuracy.

Runs: ``--quick`` (CI): the simulated LLM on both splits. Full: the configured LLM (``L3MP_LLM_*``; default the
embedded model) and the simulated LLM on TEST. Environment variables (the runner has no suite options):

- ``L3MP_BENCH_QUESTIONS_SPLIT``: ``test`` (default), ``dev`` or ``all``;
- ``L3MP_BENCH_QUESTIONS_LLMS``: ``configured`` and/or ``simulated`` (default both; quick: simulated);
- ``L3MP_BENCH_QUESTIONS_MODE``: ``auto`` (default: symbolic forms, the LLM loop for the rest) or ``llm`` (every
  question through the LLM loop, to measure the loop alone);
- ``L3MP_BENCH_QUESTIONS_CASES``: where to write the TEST split's per-case results (default
  ``docs/benchmarks/questions-cases.json`` in a full run); DEV per-case results go into the ``..._dev_cases`` row.

Example: ``L3MP_BENCH_QUESTIONS_SPLIT=dev l3mp bench questions --json /tmp/questions-dev.json``; the questions
themselves: ``python -m l3mp.bench.question_suite --list SEED``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from l3mp.bench.handwritten import detail_rows, run_llm, write_test_details
from l3mp.bench.runner import Metric, error_metric, percentile, register
from l3mp.errors import L3mpError

ENV_SPLIT, ENV_LLMS, ENV_MODE = "L3MP_BENCH_QUESTIONS_SPLIT", "L3MP_BENCH_QUESTIONS_LLMS", "L3MP_BENCH_QUESTIONS_MODE"
ENV_CASES = "L3MP_BENCH_QUESTIONS_CASES"
DEFAULT_CASES_OUT = Path("docs/benchmarks/questions-cases.json")
TARGETS = {"accuracy": (85.0, "min"), "wrong_confident": (3.0, "max")}
"""Issue 16's targets for the embedded default (set on real-model rows only)."""
SIMULATED_NOTE = ("SIMULATED LLM (loop steps answered from the gold answer with injected errors): not evidence of "
                  "accuracy")


@dataclass(frozen=True)
class Scored:
    """One question's answer and how it scores."""

    case: Any
    answer: Any
    right: bool

    @property
    def wrong_confident(self) -> bool:
        return self.answer.answered and not self.right

    @property
    def must_decline(self) -> bool:
        return self.case.gold.kind == "decline"

    def to_json(self) -> dict:
        a = self.answer
        return {**self.case.to_json(), "right": self.right, "status": a.status, "form": a.kind, "via": a.via,
                "answer": a.text, "entities": list(a.entities), "count": a.count, "yes": a.yes, "time": a.time,
                "records": a.cited_records(), "steps": len(a.steps), "seconds": round(a.seconds, 3),
                "tokens": {"prompt": a.ledger.prompt_tokens, "completion": a.ledger.completion_tokens}}


def check(gold: Any, answer: Any, window_s: float) -> bool:
    """Whether `answer` is right for `gold` (see the module docstring)."""
    if gold.kind == "decline":
        return not answer.answered
    if not answer.answered:
        return False
    if gold.kind == "entities":
        return set(answer.entities) == set(gold.entities)
    if gold.kind == "count":
        return answer.count == gold.count
    if gold.kind == "yes_no":
        return answer.yes is gold.yes
    return answer.time is not None and abs(answer.time - gold.time) <= window_s


def pct(part: int, whole: int) -> float | None:
    return 100.0 * part / whole if whole else None


def summary(scored: Sequence[Scored]) -> dict[str, Any]:
    n = len(scored)
    must = [s for s in scored if s.must_decline]
    can = [s for s in scored if not s.must_decline]
    seconds = [s.answer.seconds for s in scored]
    return {
        "questions": n,
        "accuracy": pct(sum(s.right for s in scored), n),
        "wrong_confident": pct(sum(s.wrong_confident for s in scored), n),
        "declined_correctly": pct(sum(not s.answer.answered for s in must), len(must)),
        "declined_wrongly": pct(sum(not s.answer.answered for s in can), len(can)),
        "llm_share": pct(sum(s.answer.via == "llm" for s in scored), n),
        "seconds_p50": percentile(seconds, 0.5) if seconds else None,
        "seconds_p95": percentile(seconds, 0.95) if seconds else None,
        "prompt_tokens": statistics.fmean(s.answer.ledger.prompt_tokens for s in scored) if scored else None,
        "completion_tokens": statistics.fmean(s.answer.ledger.completion_tokens for s in scored) if scored else None,
    }


_UNITS = {"accuracy": "%", "wrong_confident": "%", "declined_correctly": "%", "declined_wrongly": "%",
          "llm_share": "%", "seconds_p50": "s", "seconds_p95": "s", "prompt_tokens": "tokens",
          "completion_tokens": "tokens"}
_ABOUT = {
    "accuracy": "questions answered right or declined when they must be",
    "wrong_confident": "questions answered (not declined) with a wrong answer, or answered when they must be declined",
    "declined_correctly": "questions that must be declined which were declined",
    "declined_wrongly": "answerable questions that were declined",
    "llm_share": "questions that went to the LLM loop (the rest were answered by the symbolic forms)",
    "seconds_p50": "seconds per question, median",
    "seconds_p95": "seconds per question, 95th percentile",
    "prompt_tokens": "prompt tokens per question",
    "completion_tokens": "completion tokens per question",
}


def metrics(tag: str, scored: Sequence[Scored], *, simulated: bool, about: str) -> Iterator[Metric]:
    """Rows of one run: every number overall, then the accuracy per question kind."""
    from l3mp_sim.questions import KINDS

    overall = summary(scored)
    base = f"{SIMULATED_NOTE}; {about}" if simulated else about
    for key, unit in _UNITS.items():
        value = overall[key]
        if value is None:
            continue
        target = None if simulated else TARGETS.get(key)
        notes = f"{_ABOUT[key]}; {overall['questions']} question(s); {base}" if key == "accuracy" else _ABOUT[key]
        yield Metric(f"{tag}_{key}", value, unit, *(target or (None, None)), notes=notes)
    for kind in KINDS:
        group = [s for s in scored if s.case.kind == kind]
        if group:
            numbers = summary(group)
            yield Metric(f"{tag}_kind:{kind}_accuracy", numbers["accuracy"], "%",
                         notes=f"{numbers['questions']} question(s); wrong confident {numbers['wrong_confident']:.1f} "
                               f"%; LLM share {numbers['llm_share']:.0f} %; p50 {numbers['seconds_p50']:.2f} s")


# ---- running ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Options:
    split: str
    llms: tuple[str, ...]
    mode: str
    cases_out: Path | None


def options(quick: bool, env: dict[str, str] | None = None) -> Options:
    """The run's options from the environment (see the module docstring); L3mpError on a bad value."""
    env = dict(os.environ) if env is None else env
    split = env.get(ENV_SPLIT, "").strip() or ("all" if quick else "test")
    if split not in ("dev", "test", "all"):
        raise L3mpError(f"{ENV_SPLIT}={split!r}: use dev, test or all")
    llms = tuple(x.strip() for x in env.get(ENV_LLMS, "simulated" if quick else "configured,simulated").split(",")
                 if x.strip())
    if not llms or not set(llms) <= {"configured", "simulated"}:
        raise L3mpError(f"{ENV_LLMS}={env.get(ENV_LLMS)!r}: use configured and/or simulated")
    mode = env.get(ENV_MODE, "auto").strip() or "auto"
    if mode not in ("auto", "llm"):
        raise L3mpError(f"{ENV_MODE}={mode!r}: use auto or llm")
    out = env.get(ENV_CASES, "").strip()
    return Options(split, llms, mode, Path(out) if out else (None if quick else DEFAULT_CASES_OUT))


def houses(split: str) -> tuple[int, ...]:
    from l3mp_sim.questions import DEV_HOUSES, TEST_HOUSES

    return {"dev": DEV_HOUSES, "test": TEST_HOUSES, "all": DEV_HOUSES + TEST_HOUSES}[split]


def run_house(seed: int, llm: Any, *, mode: str, directory: Path) -> list[Scored]:
    """Record house `seed`'s episode under `directory` and ask all its questions (a simulated LLM is told each
    question's gold answer)."""
    from l3mp_sim.questions import TIME_WINDOW_S, cases_of, record_episode
    from l3mp_sim.simulated_questions import SimulatedQuestionLLM

    from l3mp.questions import QuestionAnswerer

    episode = record_episode(seed, directory / f"house-{seed}")
    try:
        answerer = QuestionAnswerer(episode.world.domain, llm=llm, symbolic=mode == "auto")
        scored = []
        for case in cases_of(episode):
            if isinstance(llm, SimulatedQuestionLLM):
                llm.set_question(case.oracle)
            started = time.perf_counter()
            answer = answerer.ask_world(episode.world, case.text, now=episode.now)
            scored.append(Scored(case, answer, check(case.gold, answer, TIME_WINDOW_S)))
            print(f"    {case.id} {case.kind}: {'right' if scored[-1].right else 'WRONG'} "
                  f"({answer.via}, {time.perf_counter() - started:.1f} s)", file=sys.stderr, flush=True)
        return scored
    finally:
        episode.world.close()


@register("questions")
def question_suite(quick: bool) -> Iterator[Metric]:
    """Every question of the split's houses, for every LLM (see the module docstring)."""
    opts = options(quick)
    test_details: dict[str, list[dict]] = {}
    for which in opts.llms:
        try:
            llm, name = _make_llm(which)
        except L3mpError as exc:
            yield error_metric(f"{which}_error", exc)
            continue
        tag = f"{'simulated' if which == 'simulated' else 'llm'}_{opts.mode}_{opts.split}"
        try:
            with tempfile.TemporaryDirectory(prefix="l3mp-questions-") as directory:
                scored = [s for seed in houses(opts.split) for s in run_house(seed, llm, mode=opts.mode,
                                                                               directory=Path(directory))]
        finally:
            llm.close()
        yield from metrics(tag, scored, simulated=which == "simulated",
                           about=f"{name}, mode {opts.mode}, split {opts.split}")
        yield from detail_rows(tag, scored, unit="questions", cases_out=opts.cases_out, env_key=ENV_CASES,
                               test_details=test_details)
    write_test_details(opts.cases_out, suite="questions", quick=quick, details=test_details)


def _make_llm(which: str) -> tuple[Any, str]:
    return run_llm(which, _simulated_llm)


def _simulated_llm() -> Any:
    from l3mp_sim.simulated_llm import ErrorModel
    from l3mp_sim.simulated_questions import SimulatedQuestionLLM

    from l3mp.domain.paths import domain_path
    from l3mp.domain.pddl_domain import Domain

    return SimulatedQuestionLLM(Domain.from_file(domain_path("household")), ErrorModel(), seed=0)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m l3mp.bench.question_suite --list SEED...`` prints a house's questions with their gold answers;
    ``... --run [--quick] --json PATH`` runs the suite through the benchmark runner (before the runner lists it)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--list"] and len(args) > 1:
        from l3mp_sim.questions import cases_of, record_episode

        with tempfile.TemporaryDirectory() as directory:
            for seed in args[1:]:
                episode = record_episode(int(seed), Path(directory) / seed)
                for case in cases_of(episode):
                    print(json.dumps(case.to_json()))
                episode.world.close()
        return 0
    if args[:1] == ["--run"] and "--json" in args:
        from l3mp.bench.runner import run

        return run(["questions"], quick="--quick" in args, json_path=args[args.index("--json") + 1])
    print("usage: python -m l3mp.bench.question_suite --list SEED [SEED ...] | --run [--quick] --json PATH",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
