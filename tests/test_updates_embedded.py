"""A real natural-language update through the embedded local model, end to end.

Asserts the pipeline's guarantees (verified, atomic, accounted, never an invalid graph), not the
model's wording: a 1.5B model may get the update wrong, and then the graph must be unchanged.
"""

from __future__ import annotations

import pytest

from l3mp.llm.factory import make_llm
from l3mp.llm.settings import LLMSettings
from l3mp.retrieval import make_retriever
from l3mp.updates import NLUpdater
from tests.helpers import F, house_model, snapshot, verifier

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("mode", ["entities", "search"])
def test_a_real_update_through_the_embedded_model(mode):
    world = house_model()
    before = snapshot(world.graph)
    llm = make_llm(LLMSettings(timeout_s=600, max_tokens=400))
    try:
        retriever = make_retriever(mode, llm=llm, domain=world.domain)
        result = NLUpdater(world, llm, retriever, max_attempts=2, read_text=False).update(
            "Alice switched off the lamp in the living room.", ref="utt-1"
        )
    finally:
        llm.close()
    assert result.llm == "embedded:qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert 1 <= len(result.attempts) <= 2
    assert result.ledger.prompt_tokens > 0 and result.ledger.completion_tokens > 0
    # R+ asks the LLM to select entities; R^S grounds "the lamp in the living room" without an LLM call
    expected = {"retrieval", "update"} if mode == "entities" else {"update"}
    assert set(result.ledger.by_purpose()) == expected
    if mode == "search":
        assert result.retrieved.details["query_source"] == "grounded"
    assert "lamp1" in result.retrieved.entities | {a for f in result.retrieved.facts for a in f.args}
    if result.accepted:
        assert result.record is None or (result.record.source == "nl" and result.record.ref == "utt-1")
        assert verifier().check_state(world.graph) == []
        # whatever the model chose, the graph holds exactly the journaled delta on top of the house
        if result.record is not None:
            assert all(world.graph.has_fact(f) for f in result.record.delta.add)
            assert not any(world.graph.has_fact(f) for f in result.record.delta.remove)
        print("applied:", result.record.delta.to_json() if result.record else "nothing", "| correct:",
              not world.graph.has_fact(F("light_on", "lamp1")))
    else:
        assert snapshot(world.graph) == before and result.reason
        print("not applied:", result.reason)
