"""Tests of the simulated LLM (sim/simulated_llm.py): oracle answers through the real parsing and verification
path, each documented error kind, token accounting, determinism."""

from __future__ import annotations

import json

import pytest
from l3mp_sim.simulated_llm import ERROR_KINDS, ErrorModel, Oracle, SimulatedLLM
from l3mp_sim.simulator import SimConfig, Simulator, verified_world

from l3mp.domain.triplets import Fact
from l3mp.errors import LLMError, LLMOutputError
from l3mp.llm.client import count_message_tokens
from l3mp.llm.types import TokenLedger
from l3mp.retrieval import EntitySelectionRetriever, FullRetriever
from l3mp.updates import NLUpdater
from l3mp.world.delta import Delta, state_delta
from l3mp.world.model import WorldModel
from tests.helpers import household


def only(kind: str, rate: float = 1.0) -> ErrorModel:
    """An error model that makes exactly one kind of error, at `rate`, whatever the prompt length."""
    values = {k: 0.0 for k in ERROR_KINDS} | {kind: rate, "context_per_1k": 0.0}
    return ErrorModel(**values)


def agent_for(sim: Simulator) -> WorldModel:
    return verified_world(household(), sim.initial_graph())


def told(sim: Simulator, errors: ErrorModel, *, seed: int = 0, verify: bool = True):
    """One spoken change of a fresh episode, answered by the simulated LLM with `errors`."""
    sim_llm = SimulatedLLM(household(), errors, seed=seed)
    world = agent_for(sim)
    delivery = sim.next_delivery()
    sim_llm.set_oracle(Oracle(changes=delivery.delta(), mentions=delivery.mentions()))
    updater = NLUpdater(world, sim_llm, FullRetriever(), verify=verify, max_attempts=1, read_text=False)
    return delivery, updater.update(delivery.text), world, sim_llm


def fresh(seed: int = 1) -> Simulator:
    return Simulator(SimConfig(seed=seed, multi_event_prob=0.0), domain=household())


@pytest.mark.parametrize(("seed", "read_text"), [(2, False), (4, True)])
def test_without_errors_every_change_is_recorded_exactly(seed: int, read_text: bool) -> None:
    """Every answer of the simulated LLM is recorded exactly; with the plain reading on, what it reads without the
    LLM is exactly the truth too."""
    sim = fresh(seed)
    world = agent_for(sim)
    llm = SimulatedLLM(household(), ErrorModel.parse("none"))
    updater = NLUpdater(world, llm, FullRetriever(), verify=True, read_text=read_text)
    read = 0
    for _ in range(15):
        delivery = sim.next_delivery()
        llm.set_oracle(Oracle(changes=delivery.delta(), mentions=delivery.mentions()))
        result = updater.update(delivery.text)
        assert result.accepted, result.reason
        assert world.graph == sim.truth.graph, delivery.text
        read += [a.number for a in result.attempts] == [0]
        for purpose, usage, _ in result.ledger.calls:
            assert purpose == "update" and usage.prompt_tokens > 500 and usage.completion_tokens > 5
    assert sum(llm.injected.values()) == 0
    assert read == 0 if not read_text else read >= 5


def test_the_memory_decides_what_a_change_removes() -> None:
    """When the memory has an item somewhere else than the truth, the answer removes the memory's fact."""
    sim = fresh(3)
    world = agent_for(sim)
    llm = SimulatedLLM(household(), ErrorModel.parse("none"))
    while True:
        delivery = sim.next_delivery()
        moved = [f for f in delivery.delta().remove if f.predicate in ("on", "inside")]
        if moved and delivery.channel == "nl":
            break
        world.apply(state_delta(household(), world.graph, sim.truth.graph, replace=True), source="user")
    old = moved[0]
    item = old.args[0]
    elsewhere = next(f for f in world.graph.facts(predicate="on") if f.args[1] != old.args[1] and f.args[0] != item)
    world.apply(Delta(remove=(old,), add=(Fact("on", (item, elsewhere.args[1])),)), source="user")
    llm.set_oracle(Oracle(changes=delivery.delta(), mentions=delivery.mentions()))
    result = NLUpdater(world, llm, FullRetriever(), read_text=False).update(delivery.text)
    assert result.accepted, result.reason
    assert [f for f in world.graph.facts(entity=item) if f.predicate in ("on", "inside")] == \
           [f for f in sim.truth.graph.facts(entity=item) if f.predicate in ("on", "inside")]


def test_malformed_answers_fail_parsing_like_a_real_model() -> None:
    _, result, _, llm = told(fresh(), only("malformed"))
    assert not result.accepted and "JSON" in result.reason
    assert llm.injected["malformed"] == 1


def test_hallucinated_entities_break_the_schema_and_are_explained() -> None:
    _, result, _, llm = told(fresh(), only("hallucinated_entity"))
    assert llm.injected["hallucinated_entity"] == 1
    assert not result.accepted
    assert any("unknown entity" in p or "not in the graph" in p or "closest" in p for p in result.attempts[0].problems)


def test_wrong_predicates_are_caught_by_verification() -> None:
    sim = fresh(5)
    delivery, result, _, llm = told(sim, only("wrong_predicate"))
    assert llm.injected["wrong_predicate"] == 1
    proposed = {c["predicate"] for c in json.loads(result.attempts[0].answer)["changes"]}
    truth = {f.predicate for f in (*delivery.delta().remove, *delivery.delta().add)}
    assert proposed - truth


def test_missed_facts_and_wrong_entities_pass_the_schema_but_change_the_answer() -> None:
    _, complete, _, _ = told(fresh(6), ErrorModel.parse("none"), verify=False)
    _, result, _, _ = told(fresh(6), only("missed_fact"), verify=False)
    stated = (result.attempts[0].delta or {}).get("stated", [])
    assert len(stated) == len(complete.attempts[0].delta["stated"]) - 1
    sim = fresh(7)
    delivery, result, _, _ = told(sim, only("wrong_entity"), verify=False)
    names = {a for s in result.attempts[0].delta["stated"] for a in s.removeprefix("(not ").strip("()").split()[1:]}
    assert names - {a for f in (*delivery.delta().remove, *delivery.delta().add) for a in f.args}


def test_longer_prompts_raise_error_rates() -> None:
    model = ErrorModel(wrong_entity=0.1, context_per_1k=0.5)
    assert model.rate("wrong_entity", 0) == pytest.approx(0.1)
    assert model.rate("wrong_entity", 2000) == pytest.approx(0.2)
    assert ErrorModel(missed_fact=0.9, context_per_1k=1.0).rate("missed_fact", 5000) == 1.0


def test_error_model_specs() -> None:
    assert ErrorModel.parse("none").to_json() == {k: 0.0 for k in (*ERROR_KINDS, "context_per_1k")}
    assert ErrorModel.parse("default") == ErrorModel()
    custom = ErrorModel.parse("wrong_entity=0.5, malformed=0")
    assert (custom.wrong_entity, custom.malformed, custom.missed_fact) == (0.5, 0.0, ErrorModel().missed_fact)
    assert ErrorModel.parse(custom.spec()) == custom
    for bad in ("typo=0.1", "wrong_entity=lots", "malformed=2"):
        with pytest.raises(ValueError):
            ErrorModel.parse(bad)


def test_needs_an_oracle_and_a_known_prompt_kind() -> None:
    llm = SimulatedLLM(household())
    with pytest.raises(LLMError, match="oracle"):
        llm.complete_json([{"role": "user", "content": "x"}], schema={}, schema_name="kg_update", purpose="update")
    llm.set_oracle(Oracle())
    with pytest.raises(LLMError, match="cannot answer"):
        llm.complete_json([{"role": "user", "content": "x"}], schema={}, schema_name="poem", purpose="x")
    with pytest.raises(LLMError, match="cannot read"):
        llm.complete_json([{"role": "user", "content": "x"}], schema={"type": "object"}, schema_name="kg_update",
                          purpose="update")


def test_answers_are_reproducible_per_seed_and_prompt() -> None:
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "Entities:\nbook_1 (book): novel"
                                                                                 "\n\nRequest: the novel"}]
    schema = {"type": "object", "properties": {"entities": {"type": "array", "items": {"type": "string"}}},
              "required": ["entities"], "additionalProperties": False}

    def answer(seed: int) -> list[str]:
        llm = SimulatedLLM(household(), ErrorModel(missed_fact=0.5, hallucinated_entity=0.5), seed=seed)
        llm.set_oracle(Oracle(mentions={"book_1": "novel"}))
        out = []
        for n in range(12):
            ledger = TokenLedger()
            try:
                reply = llm.complete_json([*messages, {"role": "user", "content": str(n)}], schema=schema,
                                          schema_name="entity_selection", purpose="retrieval", ledger=ledger)
                out.append(",".join(reply.data["entities"]))
            except LLMOutputError:
                out.append("malformed")
            assert ledger.calls[0][1].prompt_tokens == count_message_tokens([*messages,
                                                                             {"role": "user", "content": str(n)}])
        return out

    assert answer(1) == answer(1)
    assert answer(1) != answer(2)


def test_entity_selection_finds_entities_only_by_their_words() -> None:
    """Uninformative perception labels hide an item from R+ (the case search-based retrieval exists for)."""
    for labels, found in (("true", True), ("uninformative", False)):
        sim = Simulator(SimConfig(seed=4, labels=labels, label_fraction=1.0), domain=household())
        item = sorted(sim.relabelled)[0] if sim.relabelled else sorted(sim.state.of_type("book"))[0]
        words = sim.words.bare(item)
        llm = SimulatedLLM(household(), ErrorModel.parse("none"))
        llm.set_oracle(Oracle(mentions={item: words}))
        retrieved = EntitySelectionRetriever(llm, household()).retrieve(f"Where is the {words}?", sim.truth.graph)
        assert (item in retrieved.details["selected"]) is found


def test_query_graphs_state_the_relations_the_request_quotes() -> None:
    from l3mp.retrieval import query_graph

    request = "Michael took the red mug from the desk in the office."
    llm = SimulatedLLM(household(), ErrorModel.parse("none"))
    llm.set_oracle(Oracle(mentions={"michael": "Michael", "mug_1": "red mug", "desk_1": "desk in the office"},
                          types={"michael": "person", "mug_1": "dish", "desk_1": "table"},
                          relations=(Fact("on", ("mug_1", "desk_1")), Fact("in_room", ("michael", "office_1")))))
    graph, notes = query_graph.ask(llm, request, household())
    assert not notes
    assert [(n.description, n.type) for n in graph.nodes] == [("Michael", "person"), ("red mug", "dish"),
                                                            ("desk in the office", "table")]
    (edge,) = graph.edges
    assert (edge.relation, edge.evidence) == ("on", "red mug from the desk in the office")
