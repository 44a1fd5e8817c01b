"""Suite ``speech``: spoken requests on real audio (espeak-ng voices at several speeds, clean and with white noise at
two levels, made by sox), recognised offline against the grammar of a generated house and routed.

Reports, per noise level and overall: the exact-transcript rate and word error rate (WER) on requests, the routing
accuracy (every utterance; speech that is no request must be asked about), the ask-back rate on requests, how often
a wrong transcript was acted on, how much out-of-grammar speech was caught, seconds per utterance (p50/p95) and the
cost of regenerating the grammar (houses of growing size, and one new thing seen).

The cases are ``l3mp/bench/cases/speech.yaml`` (held out from the choice of the recogniser's settings). Run:
``l3mp bench speech --json docs/benchmarks/speech.json`` (or ``python -m l3mp.bench.speech_suite``); a full run
also writes every utterance's outcome to ``docs/benchmarks/speech-cases.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from l3mp.bench.runner import Metric, percentile, register, run
from l3mp.speech.synth import VOICES, silence, speak

SPEEDS = (140, 170, 200)
"""espeak-ng words per minute (a brisk speaker is about 170)."""
NOISE = {"clean": 0.0, "low": 0.01, "high": 0.04}
"""White-noise amplitude (fraction of full scale) mixed into each utterance."""
SCALES = (1.0, 2.0, 4.0)
"""House sizes whose grammar is built from scratch."""
QUICK_CASES = 24
CASES_OUT = Path("docs/benchmarks/speech-cases.json")
"""Where a full run writes every utterance's outcome (under the current directory)."""


@dataclass(frozen=True)
class Case:
    kind: str
    text: str


@dataclass(frozen=True)
class Outcome:
    case: Case
    voice: str
    speed: int
    noise: str
    heard: str
    routed: str
    confidence: float
    seconds: float
    audio_seconds: float

    def to_json(self) -> dict:
        return {"text": self.case.text, "kind": self.case.kind, "voice": self.voice, "words_per_minute": self.speed,
                "noise": self.noise, "heard": self.heard, "routed": self.routed,
                "confidence": round(self.confidence, 3), "seconds": round(self.seconds, 3)}

    @property
    def request(self) -> bool:
        return self.case.kind != "ask"

    @property
    def exact(self) -> bool:
        return self.heard == self.case.text

    @property
    def errors(self) -> int:
        return word_errors(self.case.text.split(), self.heard.split())


def load_cases() -> tuple[int, list[Case]]:
    """The house seed and the cases of ``cases/speech.yaml``."""
    import yaml

    data = yaml.safe_load(resources.files("l3mp.bench").joinpath("cases/speech.yaml").read_text(encoding="utf-8"))
    return int(data["house"]), [Case(str(c["kind"]), str(c["text"])) for c in data["cases"]]


def word_errors(reference: Sequence[str], hypothesis: Sequence[str]) -> int:
    """Substitutions + deletions + insertions that turn `hypothesis` into `reference` (Levenshtein over words)."""
    row = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        previous, row[0] = row[0], i
        for j, hyp in enumerate(hypothesis, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ref != hyp))
    return row[-1]


@register("speech")
def speech_suite(quick: bool) -> Iterator[Metric]:
    from l3mp_sim.house import house_graph

    from l3mp.domain.paths import domain_path
    from l3mp.domain.pddl_domain import Domain
    from l3mp.speech.listener import Listener

    seed, cases = load_cases()
    if quick:
        cases = cases[::max(1, len(cases) // QUICK_CASES)]
    domain = Domain.from_file(domain_path("household"))
    graph = house_graph(seed)
    listener = Listener(domain)
    first = listener.recognizer.refresh(graph)
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="l3mp-bench-speech-") as tmp:
        for index, case in enumerate(cases):
            voice, speed = VOICES[index % len(VOICES)], SPEEDS[index % len(SPEEDS)]
            for noise, level in (list(NOISE.items())[index % len(NOISE):][:1] if quick else NOISE.items()):
                wav = speak(case.text, Path(tmp) / f"{index}-{noise}.wav", voice=voice, words_per_minute=speed,
                            noise=level)
                outcomes.append(_hear(listener, graph, case, (voice, speed, noise), wav))
        quiet = Case("ask", "")
        outcomes.append(_hear(listener, graph, quiet, ("", 0, "clean"), silence(Path(tmp) / "silence.wav")))
    if not quick:
        from l3mp.files import write_text_atomic

        write_text_atomic(CASES_OUT, json.dumps([o.to_json() for o in outcomes], indent=1) + "\n")
    about = (f"house seed {seed} ({graph.entity_count()} entities), {len(cases)} sentences x "
             f"{1 if quick else len(NOISE)} noise level(s), voices {', '.join(VOICES)}, {', '.join(map(str, SPEEDS))} "
             "words/min")
    yield Metric("utterances", len(outcomes), "", 60, "min", notes=about)
    yield from _accuracy(outcomes)
    seconds = [o.seconds for o in outcomes]
    length = statistics.mean(o.audio_seconds for o in outcomes)
    yield Metric("seconds_per_utterance_p50", percentile(seconds, 0.5), "s",
                 notes=f"recognition and routing; utterances last {length:.1f} s on average")
    yield Metric("seconds_per_utterance_p95", percentile(seconds, 0.95), "s", 1.0, "max")
    yield Metric("real_time_factor_mean", sum(seconds) / sum(o.audio_seconds for o in outcomes), "x",
                 notes="seconds of recognition per second of audio")
    yield Metric("grammar_build_seconds", first.seconds if first else float("nan"), "s",
                 notes=f"house seed {seed}: {first.phrases if first else 0} names (vocabulary, JSGF, patterns, "
                       "pocketsphinx compile)")
    yield from _regeneration(domain, seed, quick)


def _hear(listener, graph, case: Case, condition: tuple[str, int, str], wav: Path) -> Outcome:
    from l3mp.speech.audio import read_wav

    audio = read_wav(wav)
    started = time.perf_counter()
    heard = listener.hear(audio, graph)
    return Outcome(case, *condition, heard.transcript.text, heard.route.kind, heard.transcript.confidence,
                   time.perf_counter() - started, audio.seconds)


def _accuracy(outcomes: list[Outcome]) -> Iterator[Metric]:
    groups = {"all": outcomes, **{n: [o for o in outcomes if o.noise == n] for n in NOISE}}
    for name, group in groups.items():
        requests = [o for o in group if o.request]
        if not requests:
            continue
        words = sum(len(o.case.text.split()) for o in requests)
        yield Metric(f"{name}_exact_transcripts", 100 * sum(o.exact for o in requests) / len(requests), "%",
                     notes=f"{len(requests)} requests")
        yield Metric(f"{name}_wer", 100 * sum(o.errors for o in requests) / words, "%",
                     notes=f"{words} words; nothing heard counts every word")
        yield Metric(f"{name}_routing_accuracy", 100 * sum(o.routed == o.case.kind for o in group) / len(group), "%",
                     notes=f"{len(group)} utterances (speech that is no request: right when asked about)")
        yield Metric(f"{name}_ask_back_on_requests", 100 * sum(o.routed == "ask" for o in requests) / len(requests),
                     "%")
        yield Metric(f"{name}_acted_on_wrong_transcript",
                     100 * sum(o.routed != "ask" and not o.exact for o in requests) / len(requests), "%",
                     notes="a request routed (not asked about) although its transcript is wrong")
    others = [o for o in outcomes if not o.request]
    if others:
        caught = sum(o.routed == "ask" for o in others)
        yield Metric("out_of_grammar_asked_about", 100 * caught / len(others), "%",
                     notes=f"{len(others)} utterances of speech that is no request (and silence)")
    right = [o.confidence for o in outcomes if o.request and o.exact]
    wrong = [o.confidence for o in outcomes if o.heard and not (o.request and o.exact)]
    if right and wrong:
        yield Metric("confidence_mean_right_vs_wrong", statistics.mean(right) - statistics.mean(wrong), "",
                     notes=f"right transcripts {statistics.mean(right):.2f}, wrong or unwanted ones "
                           f"{statistics.mean(wrong):.2f}")


def _regeneration(domain, seed: int, quick: bool) -> Iterator[Metric]:
    """The grammar built from scratch for houses of growing size, and rebuilt after one new thing is seen."""
    from l3mp_sim.house import house_graph

    from l3mp.speech.recognizer import Recognizer

    for scale in SCALES[:1] if quick else SCALES:
        graph = house_graph(seed, scale)
        recognizer = Recognizer(domain)
        built = recognizer.refresh(graph)
        assert built is not None
        yield Metric(f"x{scale:g}_grammar_build_seconds", built.seconds, "s",
                     notes=f"{graph.entity_count()} entities, {built.phrases} names: vocabulary and JSGF "
                           f"{built.build_seconds:.3f} s, pocketsphinx {built.compile_seconds:.3f} s")
        started = time.perf_counter()
        unchanged = recognizer.refresh(graph)
        yield Metric(f"x{scale:g}_vocabulary_check_seconds", time.perf_counter() - started, "s",
                     notes="per utterance: nothing new, nothing rebuilt" if unchanged is None else "rebuilt!")
        costs = []
        for number in range(3 if quick else 10):
            graph.add_entity(f"speech_bench_thing_{number}", "dish", label=f"green teapot {number + 1}")
            again = recognizer.refresh(graph)
            assert again is not None
            costs.append(again.seconds)
        yield Metric(f"x{scale:g}_new_thing_regeneration_p50", statistics.median(costs), "s",
                     notes=f"one new entity seen, grammar rebuilt and recompiled ({len(costs)} times)")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m l3mp.bench.speech_suite [--quick] [--json PATH]``: this suite alone."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", default="docs/benchmarks/speech.json")
    args = parser.parse_args(argv)
    return run(["speech"], quick=args.quick, json_path=args.json)


if __name__ == "__main__":
    raise SystemExit(main())
