"""Hearing one utterance: the grammar of the current graph, recognition, dictation when the grammar fails, the route."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.retrieval.grounding import Grounder
from l3mp.speech.audio import Audio
from l3mp.speech.dictation import Dictation, DictationError
from l3mp.speech.recognizer import Recognizer, Refresh, Transcript
from l3mp.speech.routing import MIN_CONFIDENCE, Route, route
from l3mp.world.graph import WorldGraph

log = logging.getLogger(__name__)
HINT_PHRASES = 60
"""Names of known things sent to a dictation endpoint as its prompt."""


@dataclass(frozen=True)
class Heard:
    """One utterance heard: the transcript used, its route, the grammar change it took, what else was tried."""

    transcript: Transcript
    route: Route
    refresh: Refresh | None = None
    others: tuple[Transcript, ...] = ()
    """Transcripts not used (the grammar's, when dictation did better)."""
    note: str = ""
    """What went wrong on the way without stopping it (dictation failing)."""

    def to_json(self) -> dict:
        return {"transcript": self.transcript.to_json(), "route": self.route.to_json(),
                "grammar": None if self.refresh is None else {
                    "signature": self.refresh.signature, "phrases": self.refresh.phrases,
                    "build_seconds": round(self.refresh.build_seconds, 4),
                    "compile_seconds": round(self.refresh.compile_seconds, 4),
                    "unsayable": list(self.refresh.unsayable)},
                "others": [t.to_json() for t in self.others], "note": self.note}


class Listener:
    """Turns utterances into routed transcripts against the graph it is given each time (see the module doc).
    With `dictation`, an utterance the grammar does not hear confidently is also sent to the endpoint, and the
    more confident transcript is used. One per thread (it owns a decoder)."""

    def __init__(self, domain: Domain, rules: RuleSet | None = None, *, dictation: Dictation | None = None,
                 min_confidence: float = MIN_CONFIDENCE, recognizer: Recognizer | None = None) -> None:
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"min_confidence must be within 0..1, not {min_confidence}")
        self.recognizer = recognizer if recognizer is not None else Recognizer(domain)
        self.grounder = Grounder(domain, rules)
        self.dictation = dictation
        self.min_confidence = min_confidence

    def hear(self, audio: Audio, graph: WorldGraph) -> Heard:
        """Recognise `audio` against `graph`'s grammar (rebuilt if its vocabulary changed) and route it."""
        refresh = self.recognizer.refresh(graph)
        grammar = self.recognizer.grammar
        assert grammar is not None
        transcript = self.recognizer.recognize(audio)
        others: tuple[Transcript, ...] = ()
        note = ""
        if self.dictation is not None and transcript.confidence < self.min_confidence and \
                transcript.reason != "silence":
            hint = ", ".join(sorted({p for phrases in grammar.vocabulary.slots.values() for p in phrases})[
                :HINT_PHRASES])
            try:
                dictated = self.dictation.transcribe(audio, hint=hint)
            except DictationError as exc:
                note = str(exc)
                log.warning("dictation failed, keeping the grammar's transcript: %s", exc)
            else:
                if dictated.confidence > transcript.confidence:
                    transcript, others = dictated, (transcript,)
                else:
                    others = (dictated,)
        routed = route(transcript, grammar, graph, self.grounder, min_confidence=self.min_confidence)
        return Heard(transcript, routed, refresh, others, note)
