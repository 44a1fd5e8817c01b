"""A question in an unusual wording through the embedded local model, end to end.

Asserts the pipeline's guarantees (the model is asked to rephrase first, its tokens are counted, an answer rests on
records of the memory and names only its entities), not the model's wording: a 1.5B model may fail to rephrase,
and then the loop must decline rather than guess.
"""

from __future__ import annotations

import pytest

from l3mp.llm.factory import make_llm
from l3mp.llm.settings import LLMSettings
from l3mp.questions import Caps, QuestionAnswerer
from tests.helpers import household, household_rules
from tests.questions.support import NOW, episode

pytestmark = pytest.mark.slow


def test_an_unusual_question_through_the_embedded_model(tmp_path):
    world = episode(tmp_path / "store")
    llm = make_llm(LLMSettings(timeout_s=600, max_tokens=200))
    try:
        answerer = QuestionAnswerer(household(), household_rules(), llm=llm, caps=Caps(max_steps=3))
        answer = answerer.ask_world(world, "Which person got the fridge open?", now=NOW)
    finally:
        llm.close()
        world.close()
    assert answer.via == "llm" and answer.llm == "embedded:qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert answer.steps[0].op == "rephrase"
    assert 1 <= sum(s.prompt_tokens > 0 for s in answer.steps) <= 3  # LLM calls within the step cap
    assert answer.ledger.by_purpose()["question"].prompt_tokens > 0
    if answer.answered:
        assert set(answer.entities) <= {"jessica", "michael", "sarah"}
        assert answer.cited_records() and all(1 <= seq <= 5 for seq in answer.cited_records())
    else:
        assert answer.text
