"""Offline recognition with pocketsphinx against the grammar of the current graph, each transcript with a confidence.

The decoder keeps one grammar; `Recognizer.refresh(graph)` rebuilds it only when the graph's vocabulary changed
(a new thing was seen) and says what that cost. Confidence: a transcript that is not a whole utterance of the
grammar (the decoder stopped partway, or found nothing) has confidence 0; otherwise it is the acoustic fit of its
words, the mean log-likelihood per 10 ms frame relative to the best-scoring sound of each frame, mapped to 0..1
by a logistic curve (`FIT_MIDPOINT`, `FIT_SLOPE`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from l3mp.domain.pddl_domain import Domain
from l3mp.speech.audio import Audio
from l3mp.speech.grammar import Grammar, GrammarBuilder
from l3mp.world.graph import WorldGraph

FIT_MIDPOINT = -5.0
"""Mean log-likelihood per frame (natural log, relative to the frame's best sound) where the confidence is 0.5.
Chosen in trial runs on espeak-ng speech (house seed 7, 16 requests and 8 other sentences, 4 voices, 3 speeds):
-5.0 heard 41 of 64 requests right and acted on 2 wrong transcripts and 1 of 32 other sentences; -5.5 heard 44
right but acted on 5 wrong and 2 others. `l3mp bench speech` measures it on held-out sentences."""
FIT_SLOPE = 2.0
"""How fast the confidence rises per unit of fit."""
DECODER_OPTIONS = {"bestpath": False, "cmn": "batch"}
"""pocketsphinx settings: cepstral mean normalisation over each whole utterance (``batch``; the default ``live``
carries its estimate from one utterance to the next, so the same audio could be heard differently depending on
what came before), and no lattice pass (``bestpath``), whose posterior was 1.0 for nearly every grammar hypothesis
and which often cut the last word off. Narrower beams than the defaults decoded faster but acted on wrong
transcripts twice as often in trial runs, so the defaults stay."""
_FILLERS = frozenset({"<s>", "</s>", "<sil>", "[NOISE]", "+SPN+", "+NSN+"})
SCORE_SHIFT = 2 ** 10
"""Without the lattice pass pocketsphinx reports a word's acoustic score with its internal 10-bit shift taken off;
times this it is a natural-log likelihood again (checked against the lattice pass's scores of the same audio)."""
_MIN_SCORE = 1e-300


@dataclass(frozen=True)
class Transcript:
    """What was heard: the words, the same in written form for the services, and how sure the recogniser is."""

    text: str
    written: str
    confidence: float
    source: str
    """``grammar`` (pocketsphinx) or ``dictation`` (a transcription endpoint)."""
    complete: bool
    """A whole utterance of the grammar (dictation: always True)."""
    seconds: float
    """Time spent recognising."""
    audio_seconds: float
    reason: str = ""
    """Why nothing usable was heard (``silence``, ``nothing recognised``, ``not a whole request``), else empty."""
    fit: float | None = None
    """The acoustic fit the confidence was computed from (grammar only)."""

    def to_json(self) -> dict:
        return {"text": self.text, "written": self.written, "confidence": round(self.confidence, 4),
                "source": self.source, "complete": self.complete, "reason": self.reason,
                "fit": None if self.fit is None else round(self.fit, 3), "seconds": round(self.seconds, 4),
                "audio_seconds": round(self.audio_seconds, 3)}


@dataclass(frozen=True)
class Refresh:
    """A grammar change: the new vocabulary's signature and what building (text, patterns) and compiling
    (pocketsphinx) it took."""

    signature: str
    build_seconds: float
    compile_seconds: float
    phrases: int
    unsayable: tuple[str, ...] = ()
    """Names left out: the pronunciation dictionary lacks one of their words."""

    @property
    def seconds(self) -> float:
        return self.build_seconds + self.compile_seconds


@dataclass
class Recognizer:
    """pocketsphinx's US English model with the grammar of a graph (see the module doc). One per thread."""

    domain: Domain
    builder: GrammarBuilder | None = None
    _decoder: object = field(init=False, repr=False)
    _grammar: Grammar | None = field(default=None, init=False, repr=False)
    _searches: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        from pocketsphinx import Decoder

        self._decoder = Decoder(lm=None, loglevel="FATAL", **DECODER_OPTIONS)
        if self.builder is None:
            self.builder = GrammarBuilder(self.domain, self.knows)

    def knows(self, word: str) -> bool:
        """Whether the pronunciation dictionary has `word`."""
        return self._decoder.lookup_word(word) is not None

    @property
    def grammar(self) -> Grammar | None:
        return self._grammar

    def refresh(self, graph: WorldGraph) -> Refresh | None:
        """Make the grammar that of `graph`; the cost of the change, or None when its vocabulary is unchanged."""
        assert self.builder is not None
        started = time.perf_counter()
        vocabulary = self.builder.vocabulary(graph)
        if self._grammar is not None and vocabulary.signature == self._grammar.signature:
            return None
        grammar = self.builder.build(graph, vocabulary)
        built = time.perf_counter() - started
        self._searches += 1
        name = f"grammar{self._searches}"
        self._decoder.add_jsgf_string(name, grammar.jsgf)
        self._decoder.activate_search(name)
        if self._searches > 1:
            self._decoder.remove_search(f"grammar{self._searches - 1}")
        self._grammar = grammar
        return Refresh(grammar.signature, built, time.perf_counter() - started - built,
                       sum(len(p) for p in vocabulary.slots.values()), vocabulary.unsayable)

    def recognize(self, audio: Audio) -> Transcript:
        """Decode one utterance against the current grammar (`refresh` first)."""
        if self._grammar is None:
            raise RuntimeError("no grammar: call refresh(graph) before recognize")
        started = time.perf_counter()
        if audio.is_silence():
            return self._nothing("silence", started, audio)
        decoder = self._decoder
        decoder.start_utt()
        decoder.process_raw(audio.padded(), full_utt=True)
        decoder.end_utt()
        hypothesis = decoder.hyp()
        if hypothesis is None or not hypothesis.hypstr.strip():
            return self._nothing("nothing recognised", started, audio)
        words = hypothesis.hypstr.split()
        fit = _fit(decoder.seg())
        complete = bool(self._grammar.matches(words))
        confidence = _confidence(fit) if complete else 0.0
        return Transcript(" ".join(words), self._grammar.written(words), confidence, "grammar", complete,
                          time.perf_counter() - started, audio.seconds, "" if complete else "not a whole request",
                          fit)

    def _nothing(self, reason: str, started: float, audio: Audio) -> Transcript:
        return Transcript("", "", 0.0, "grammar", False, time.perf_counter() - started, audio.seconds, reason)


def _fit(segments: object) -> float:
    """Mean acoustic log-likelihood per frame of the spoken words (fillers and silences left out)."""
    frames, score = 0, 0.0
    for segment in segments:  # type: ignore[attr-defined]
        if segment.word in _FILLERS:
            continue
        frames += segment.end_frame - segment.start_frame + 1
        score += math.log(max(segment.ascore, _MIN_SCORE)) * SCORE_SHIFT
    return score / frames if frames else -math.inf


def _confidence(fit: float) -> float:
    if not math.isfinite(fit):
        return 0.0
    return 1.0 / (1.0 + math.exp(-FIT_SLOPE * (fit - FIT_MIDPOINT)))
