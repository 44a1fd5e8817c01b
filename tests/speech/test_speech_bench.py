"""The speech benchmark: its held-out cases fit the grammar of their house as labelled, WER counts word edits, and
a small run yields every metric."""

from __future__ import annotations

import pytest
from l3mp_sim.house import house_graph

from l3mp.bench import speech_suite
from l3mp.speech.grammar import GrammarBuilder
from tests.helpers import household


def test_every_request_of_the_cases_is_a_phrasing_of_its_kind_and_the_rest_fit_none():
    seed, cases = speech_suite.load_cases()
    grammar = GrammarBuilder(household(), lambda word: True).build(house_graph(seed))
    assert len(cases) >= 60 and {c.kind for c in cases} == {"task", "update", "question", "ask"}
    for case in cases:
        kinds = {p.kind for p in grammar.matches(case.text.split())}
        assert kinds == (set() if case.kind == "ask" else {case.kind}), case.text


@pytest.mark.parametrize(("reference", "hypothesis", "errors"), [
    ("turn on the tv", "turn on the tv", 0),
    ("turn on the tv", "turn on tv", 1),
    ("turn on the tv", "turn off the big tv", 2),
    ("where is the mug", "", 4),
    ("", "hello there", 2),
])
def test_word_errors_are_substitutions_deletions_and_insertions(reference, hypothesis, errors):
    assert speech_suite.word_errors(reference.split(), hypothesis.split()) == errors


def test_a_small_run_measures_accuracy_speed_and_grammar_cost(monkeypatch):
    monkeypatch.setattr(speech_suite, "QUICK_CASES", 4)
    metrics = {m.name: m for m in speech_suite.speech_suite(True)}
    assert metrics["utterances"].value == 5 and not metrics["utterances"].met  # 4 sentences and silence, < 60
    for name in ("all_exact_transcripts", "all_wer", "all_routing_accuracy", "all_ask_back_on_requests",
                 "seconds_per_utterance_p50", "x1_grammar_build_seconds", "x1_new_thing_regeneration_p50"):
        assert metrics[name].value is not None and metrics[name].value >= 0, name
    assert 0 < metrics["seconds_per_utterance_p95"].value < 10
