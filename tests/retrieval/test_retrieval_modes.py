"""The three retrieval modes: entity selection (R+) with a scripted LLM, the always-needed context, failures."""

from __future__ import annotations

from collections import deque

import pytest
from l3mp_sim.house import generate_house

from l3mp.domain.triplets import Fact
from l3mp.errors import LLMOutputError, LLMTimeout, LLMUnavailable
from l3mp.llm.types import TokenLedger
from l3mp.retrieval import (
    EntitySelectionRetriever,
    FullRetriever,
    SearchRetriever,
    always_needed,
    expand,
    make_retriever,
)
from l3mp.retrieval.context import DEFAULT_DEPTH
from l3mp.world.graph import WorldGraph
from tests.helpers import ROBOT, F, house_graph, household
from tests.retrieval.support import ScriptedLLM, minilm

ROBOT_FACTS = {F("in_room", ROBOT, "kitchen"), F("hand_empty", ROBOT)}
BOOK_QUERY = {"nodes": [{"id": "b", "description": "book", "type": "book"}], "edges": []}


def generated(seed: int) -> WorldGraph:
    return generate_house(seed=seed).to_graph()


def reference_expand(graph: WorldGraph, seeds: list[str], depth: int) -> tuple[set[str], set[Fact]]:
    """Expansion by its definition: hop distances by BFS over facts, then the facts that qualify."""
    dist = {s: 0 for s in seeds}
    queue = deque(seeds)
    while queue:
        name = queue.popleft()
        for fact in graph.facts(entity=name):
            for other in fact.args:
                if other not in dist:
                    dist[other] = dist[name] + 1
                    queue.append(other)
    near = {n for n, d in dist.items() if d <= depth}
    facts = {f for f in graph.facts() if not f.args or all(a in near for a in f.args)
             or any(dist.get(a, depth) < depth for a in f.args)}
    return near, facts


# ---- entity selection (R+) -----------------------------------------------------------------------
def test_selection_prompts_with_the_entity_list_and_an_enum_schema() -> None:
    graph = house_graph()
    llm = ScriptedLLM({"entities": ["mug1"]})
    retriever = EntitySelectionRetriever(llm, household())
    retriever.retrieve("Alice put the mug away", graph)
    call = llm.calls[0]
    assert call["purpose"] == "retrieval" and call["schema_name"] == "entity_selection"
    items = call["schema"]["properties"]["entities"]["items"]
    assert items["enum"] == sorted(n for n in graph.entities() if n != ROBOT)
    user = call["messages"][-1]["content"]
    assert "mug1 (dish)" in user and user.endswith("Request: Alice put the mug away")
    assert ROBOT not in user


def test_selection_above_the_enum_limit_asks_for_free_strings() -> None:
    llm = ScriptedLLM({"entities": ["mug1"]})
    retrieved = EntitySelectionRetriever(llm, household(), enum_limit=5).retrieve("mug", house_graph())
    assert llm.calls[0]["schema"]["properties"]["entities"]["items"] == {"type": "string"}
    assert retrieved.details["enum"] is False
    assert retrieved.details["selected"] == ["mug1"]


def test_selection_repairs_near_misses_and_drops_hallucinations() -> None:
    answer = {"entities": ["mug1", "Table1", "apple_1", "counter 1", "unicorn_42", 7, "mug1", ROBOT]}
    retrieved = EntitySelectionRetriever(ScriptedLLM(answer), household(), enum_limit=3).retrieve("x", house_graph())
    details = retrieved.details
    assert details["selected"] == ["mug1", "table1", "apple1", "counter1", ROBOT]
    assert details["repaired"] == {"Table1": "table1", "apple_1": "apple1", "counter 1": "counter1"}
    assert details["dropped"] == ["unicorn_42", "7"]
    assert {"mug1", "table1", "apple1", "counter1"} <= retrieved.entities


def test_selection_expands_to_every_fact_touching_the_selected_entities() -> None:
    graph = house_graph()
    retrieved = EntitySelectionRetriever(ScriptedLLM({"entities": ["mug1"]}), household()).retrieve("mug", graph)
    assert retrieved.facts == {F("on", "mug1", "counter1"), F("dirty", "mug1")} | ROBOT_FACTS
    assert retrieved.entities == {"mug1", "counter1", ROBOT, "kitchen"}
    deeper = EntitySelectionRetriever(ScriptedLLM({"entities": ["mug1"]}), household(), depth=2)
    assert F("in_room", "counter1", "kitchen") in deeper.retrieve("mug", graph).facts


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_expansion_matches_its_definition(seed: int, depth: int) -> None:
    graph = generated(seed)
    names = sorted(graph.entities())
    seeds = [names[seed * 7 % len(names)], names[seed * 13 % len(names)]]
    assert expand(graph, seeds, depth) == reference_expand(graph, seeds, depth)
    entities, facts = expand(graph, seeds, depth)
    if depth >= 1:
        assert all(graph.facts_of(s) <= facts for s in seeds)
    assert {a for f in facts for a in f.args} <= entities


def test_expansion_ignores_unknown_seeds_and_rejects_negative_depth() -> None:
    assert expand(house_graph(), ["ghost"], 1) == (set(), set())
    with pytest.raises(ValueError, match="depth"):
        expand(house_graph(), ["mug1"], -1)
    with pytest.raises(ValueError, match="depth"):
        EntitySelectionRetriever(ScriptedLLM(), household(), depth=-1)


# ---- always-needed context in every mode ---------------------------------------------------------
def test_always_needed_is_the_constants_with_their_facts() -> None:
    entities, facts = always_needed(house_graph(), household())
    assert facts == ROBOT_FACTS
    assert entities == {ROBOT, "kitchen"}
    assert always_needed(house_graph(with_robot=False), household()) == (set(), set())


@pytest.mark.parametrize("mode", ["full", "entities", "search"])
def test_every_mode_adds_the_always_needed_context(mode: str) -> None:
    answers = {"full": None, "entities": {"entities": ["book1"]}, "search": BOOK_QUERY}
    retriever = make_retriever(mode, llm=ScriptedLLM(answers[mode]), domain=household(), embedder=minilm())
    retrieved = retriever.retrieve("Alice is reading the book", house_graph())
    assert retrieved.mode == mode
    assert retrieved.facts >= ROBOT_FACTS
    assert {ROBOT, "kitchen"} <= retrieved.entities
    assert F("on", "book1", "table1") in retrieved.facts


@pytest.mark.parametrize("mode,answer", [("entities", {"entities": []}), ("search", {"nodes": [], "edges": []})])
def test_an_empty_answer_still_gives_the_always_needed_context(mode: str, answer: dict) -> None:
    retriever = make_retriever(mode, llm=ScriptedLLM(answer), domain=household(), embedder=minilm())
    retrieved = retriever.retrieve("Good morning", house_graph())
    assert retrieved.facts == ROBOT_FACTS
    assert retrieved.details["selected"] == []


def test_full_mode_is_the_whole_graph() -> None:
    graph = house_graph()
    retrieved = FullRetriever().retrieve("anything", graph)
    assert retrieved.entities == set(graph.entities()) and retrieved.facts == set(graph.facts())


# ---- failures and construction -------------------------------------------------------------------
@pytest.mark.parametrize("error", [LLMUnavailable("server down"), LLMTimeout("no answer in 60 s"),
                                   LLMOutputError("not JSON")])
def test_llm_failure_in_the_query_graph_step_propagates(error: Exception) -> None:
    retriever = SearchRetriever(ScriptedLLM(error), household(), embedder=minilm(), query_graph="llm")
    with pytest.raises(type(error), match=str(error)):
        retriever.retrieve("Where is the mug?", house_graph())


def test_a_malformed_query_graph_is_an_llm_output_error() -> None:
    retriever = SearchRetriever(ScriptedLLM({"nodes": "mug"}), household(), embedder=minilm(), query_graph="llm")
    with pytest.raises(LLMOutputError, match="query graph must be a JSON object"):
        retriever.retrieve("Where is the mug?", house_graph())


def test_llm_failure_in_entity_selection_propagates() -> None:
    with pytest.raises(LLMUnavailable):
        EntitySelectionRetriever(ScriptedLLM(LLMUnavailable("down")), household()).retrieve("mug", house_graph())
    with pytest.raises(LLMOutputError, match="entity selection must be"):
        EntitySelectionRetriever(ScriptedLLM(["mug1"]), household()).retrieve("mug", house_graph())


def test_retrieval_calls_are_recorded_in_the_ledger() -> None:
    ledger = TokenLedger()
    retriever = SearchRetriever(ScriptedLLM(BOOK_QUERY), household(), embedder=minilm(), query_graph="llm")
    retriever.retrieve("the book", house_graph(), ledger=ledger)
    assert set(ledger.by_purpose()) == {"retrieval"} and ledger.prompt_tokens > 0


def test_make_retriever_modes_aliases_and_options() -> None:
    llm = ScriptedLLM()
    assert isinstance(make_retriever("R-", llm=None, domain=household()), FullRetriever)
    assert make_retriever("R+", llm=llm, domain=household(), depth=2).mode == "entities"
    search = make_retriever("R^S", llm=llm, domain=household(), embedder=minilm(), cutoff=0.9, top_k=None)
    assert isinstance(search, SearchRetriever) and search.settings.cutoff == 0.9 and search.settings.top_k is None
    with pytest.raises(ValueError, match="unknown retrieval mode 'vector'"):
        make_retriever("vector", llm=llm, domain=household())
    with pytest.raises(ValueError, match="needs an LLM"):
        make_retriever("search", llm=None, domain=household())
    assert isinstance(make_retriever("R-", llm=None, domain=household(), depth=2), FullRetriever)  # no depth there
    assert make_retriever("R+", llm=llm, domain=household(), depth=None)._depth == DEFAULT_DEPTH  # its default
    assert make_retriever("R+", llm=llm, domain=household(), depth=3)._depth == 3
    with pytest.raises(ValueError, match="takes no options"):
        make_retriever("full", llm=None, domain=household(), cutoff=0.9)
    with pytest.raises(TypeError):
        make_retriever("entities", llm=llm, domain=household(), cutof=0.5)
