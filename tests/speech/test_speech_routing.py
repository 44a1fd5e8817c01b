"""Routing transcripts: grammar phrasings decide the kind; free dictation is read by rules; doubt asks back."""

from __future__ import annotations

import pytest

from l3mp.retrieval.grounding import Grounder
from l3mp.speech.grammar import GrammarBuilder
from l3mp.speech.phrasings import QUESTION, TASK, UPDATE, parse
from l3mp.speech.questions import answer_question
from l3mp.speech.recognizer import Transcript
from l3mp.speech.routing import ASK, route
from tests.helpers import house_graph, household


def heard(text: str, *, confidence: float = 0.9, source: str = "grammar", complete: bool = True,
          reason: str = "") -> Transcript:
    return Transcript(text.lower(), text, confidence, source, complete, 0.1, 2.0, reason)


@pytest.fixture(scope="module")
def grammar():
    return GrammarBuilder(household(), lambda word: True).build(house_graph())


def routed(transcript: Transcript, grammar, **options):
    return route(transcript, grammar, house_graph(), Grounder(household()), **options)


@pytest.mark.parametrize(("text", "kind", "action"), [
    ("please bring the milk to alice", TASK, "give"),
    ("switch the lamp in the bedroom off", TASK, "turn_off_light"),
    ("alice turned off the lamp", UPDATE, None),
    ("the plate is clean", UPDATE, None),
    ("who has the phone", QUESTION, None),
])
def test_a_whole_utterance_of_the_grammar_goes_where_its_phrasing_says(grammar, text, kind, action):
    result = routed(heard(text), grammar)
    assert (result.kind, result.action, result.text, result.basis, result.prompt) == (kind, action, text, "grammar",
                                                                                       "")


def test_low_confidence_asks_back_with_what_was_heard(grammar):
    result = routed(heard("turn on the tv", confidence=0.3), grammar)
    assert result.kind == ASK and result.basis == "confidence 0.30 < 0.50"
    assert result.prompt == 'Did you say "turn on the tv"? I am not sure I heard it right; please say it again.'
    assert routed(heard("turn on the tv", confidence=0.3), grammar, min_confidence=0.2).kind == TASK


def test_a_partial_utterance_and_silence_ask_back(grammar):
    partial = routed(heard("turn on the", confidence=0.0, complete=False, reason="not a whole request"), grammar)
    assert partial.kind == ASK and "I did not catch all of it" in partial.prompt
    quiet = routed(heard("", confidence=0.0, complete=False, reason="silence"), grammar)
    assert quiet.kind == ASK and quiet.prompt.startswith("I heard nothing. Please say it again, for example")


@pytest.mark.parametrize(("text", "kind"), [
    ("Where did Alice put the book?", QUESTION),
    ("Could you fetch the milk from the fridge for me", TASK),
    ("Please wash every dirty plate now", TASK),
    ("Alice has just left the milk on the counter in the kitchen", UPDATE),
])
def test_free_dictation_is_read_by_the_rules(grammar, text, kind):
    result = routed(heard(text, source="dictation"), grammar)
    assert (result.kind, result.basis, result.text) == (kind, "rules", text)


def test_free_text_that_is_no_request_about_known_things_asks_back(grammar):
    result = routed(heard("The stock market fell sharply", source="dictation"), grammar)
    assert result.kind == ASK and "not what to do with it" in result.prompt


def test_an_utterance_that_fits_phrasings_of_two_kinds_asks_which(grammar):
    data = {"task": {"open_container": ["open {container}"]}, "update": ["open {container}"],
            "steps": sorted(set(household().actions) - {"open_container"})}
    builder = GrammarBuilder(household(), lambda word: True, phrasings=parse(data, household()))
    result = routed(heard("open the fridge"), builder.build(house_graph()))
    assert result.kind == ASK and result.basis == "fits phrasings of task and update"
    assert "something to do, something that happened, or a question" in result.prompt


def test_a_spoken_question_is_answered_by_the_question_pipeline():
    graph = house_graph()
    reply = answer_question("where is the book", graph, household())
    assert reply.supported and "table" in reply.answer.lower()
    assert reply.to_json() == {"question": "where is the book", "answer": reply.answer, "supported": True}
    unknown = answer_question("where is the unicorn", graph, household())
    assert not unknown.supported and unknown.answer
