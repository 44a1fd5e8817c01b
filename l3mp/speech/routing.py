"""What a transcript is: a task for the planner, a report for the world model, a question, or unclear (ask back).

A transcript that is a whole utterance of the grammar is routed by the phrasing it is an utterance of. Free
dictation is read with simple rules: a task opens with a polite request ("please", "could you") or a verb of the
domain's task phrasings, a question with a question word, a report names something the robot knows. A low confidence, an
utterance that fits phrasings of two kinds, or text none of these rules place makes the robot ask back.
"""

from __future__ import annotations

from dataclasses import dataclass

from l3mp.retrieval.grounding import Grounder, tokens
from l3mp.speech.grammar import Grammar, spoken_words
from l3mp.speech.phrasings import QUESTION, TASK, UPDATE
from l3mp.speech.recognizer import Transcript
from l3mp.updates.meaning import is_question
from l3mp.world.graph import WorldGraph

ASK = "ask"
"""The route of a transcript the robot asks back about instead of acting (besides the phrasings' kinds)."""
MIN_CONFIDENCE = 0.5
"""Below this confidence the robot asks back instead of acting."""
EXAMPLE = "for example 'turn off the light in the kitchen' or 'where is the mug'"


@dataclass(frozen=True)
class Route:
    """Where a transcript goes: `kind` (task, update, question or ask), the text the service gets, and for `ask`
    what to say."""

    kind: str
    text: str
    action: str | None = None
    """The domain action of the task phrasing it matched (grammar transcripts of tasks)."""
    prompt: str = ""
    """What the robot says back (ask only)."""
    basis: str = ""
    """Why this route: ``grammar`` (a phrasing matched), ``rules`` (free text read by the rules), or the problem."""

    def to_json(self) -> dict:
        return {"kind": self.kind, "text": self.text, "action": self.action, "prompt": self.prompt,
                "basis": self.basis}


def route(transcript: Transcript, grammar: Grammar, graph: WorldGraph, grounder: Grounder, *,
          min_confidence: float = MIN_CONFIDENCE) -> Route:
    """The route of `transcript` (see the module doc); never raises for what was said."""
    text = transcript.written
    if not transcript.text:
        heard = "nothing" if transcript.reason == "silence" else "nothing I understood"
        return _ask(text, f"I heard {heard}. Please say it again, {EXAMPLE}.", transcript.reason or "empty")
    if transcript.confidence < min_confidence:
        why = "I did not catch all of it" if not transcript.complete else "I am not sure I heard it right"
        return _ask(text, f"Did you say \"{text}\"? {why}; please say it again.",
                    f"confidence {transcript.confidence:.2f} < {min_confidence:.2f}")
    matched = grammar.matches(spoken_words(text))
    kinds = sorted({p.kind for p in matched})
    if len(kinds) == 1:
        actions = sorted({p.action for p in matched if p.action})
        return Route(kinds[0], text, actions[0] if len(actions) == 1 else None, basis="grammar")
    if len(kinds) > 1:
        return _ask(text, f"\"{text}\": is that something to do, something that happened, or a question?",
                    "fits phrasings of " + " and ".join(kinds))
    kind = _by_rules(text, grammar, graph, grounder)
    if kind is None:
        return _ask(text, f"I understood \"{text}\" but not what to do with it. Please say it again, {EXAMPLE}.",
                    "no phrasing or rule fits")
    return Route(kind, text, basis="rules")


def _by_rules(text: str, grammar: Grammar, graph: WorldGraph, grounder: Grounder) -> str | None:
    words = tokens(text)
    if any(words[:len(prefix)] == list(prefix) for prefix in grammar.task_prefixes):
        return TASK  # "could you ...", "please ...": a request, also when it ends with a question mark
    if is_question(text):
        return QUESTION
    if words and words[0] in grammar.task_verbs:
        return TASK
    if grounder.ground(text, graph):
        return UPDATE
    return None


def _ask(text: str, prompt: str, basis: str) -> Route:
    return Route(ASK, text, prompt=prompt, basis=basis)
