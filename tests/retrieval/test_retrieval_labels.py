"""Uninformative names and wrong labels: search-based retrieval (R^S) finds entities that selection by name (R+)
cannot; and what the search reports about itself."""

from __future__ import annotations

from l3mp.retrieval import EntitySelectionRetriever, SearchRetriever
from tests.helpers import F, household
from tests.retrieval.support import ScriptedLLM, minilm, name_matcher, opaque_house

REQUEST = "Jessica took the red mug from the kitchen counter."
# what the LLM writes for REQUEST (scripted): descriptions in the request's words, no entity names
QUERY = {
    "nodes": [{"id": "jessica", "description": "Jessica", "type": "person"},
              {"id": "mug", "description": "red mug", "type": "dish"},
              {"id": "counter", "description": "kitchen counter", "type": "counter"}],
    "edges": [{"source": "mug", "relation": "on", "target": "counter", "evidence": "from the kitchen counter"}],
}


def search(*answers: dict, **options) -> SearchRetriever:
    return SearchRetriever(ScriptedLLM(*answers), household(), embedder=minilm(), query_graph="llm", **options)


def test_search_finds_the_red_mug_named_object_17() -> None:
    retrieved = search(QUERY).retrieve(REQUEST, opaque_house())
    mapping = {m["node"]: m["entity"] for m in retrieved.details["mapping"]}
    assert mapping == {"jessica": "jessica", "mug": "object_17", "counter": "object_3"}
    assert retrieved.details["agreeing_edges"] == [{"source": "mug", "relation": "on", "target": "counter"}]
    assert {"object_17", "object_3"} <= retrieved.entities


def test_selection_by_name_cannot_find_it() -> None:
    """An LLM choosing by name (scripted: names sharing a word with the request) misses object_17, and a
    guessed name ("red_mug") has no real name close enough to be repaired to."""
    graph = opaque_house()
    by_name = EntitySelectionRetriever(ScriptedLLM(name_matcher(REQUEST)), household()).retrieve(REQUEST, graph)
    assert by_name.details["selected"] == ["jessica"]
    assert "object_17" not in by_name.entities
    guessed = EntitySelectionRetriever(ScriptedLLM({"entities": ["red_mug", "kitchen_counter"]}), household())
    result = guessed.retrieve(REQUEST, graph)
    assert result.details["dropped"] == ["red_mug", "kitchen_counter"]
    assert "object_17" not in result.entities


def test_search_tolerates_a_wrong_label() -> None:
    """Recognition labelled a green mug "green cup"; the user says mug."""
    answer = {"nodes": [{"id": "m", "description": "green mug", "type": "unknown"}], "edges": []}
    retrieved = search(answer).retrieve("Put the green mug in the sink.", opaque_house())
    assert retrieved.details["selected"] == ["object_22"]


def test_search_details_report_the_query_mapping_and_timings() -> None:
    retrieved = search(QUERY).retrieve(REQUEST, opaque_house())
    details = retrieved.details
    assert details["query_graph"] == QUERY
    assert details["query_notes"] == []
    mug = next(m for m in details["mapping"] if m["node"] == "mug")
    assert mug["type_bonus"] == 0.1 and 0.4 < mug["similarity"] <= 1.0
    assert mug["candidates"] >= 1 and len(mug["alternatives"]) <= 3
    assert details["complete"] and details["steps"] >= 3
    assert details["sync"]["added"] == len(list(opaque_house().entities()))
    for key in ("seconds_llm", "seconds_embed", "seconds_match", "seconds_search"):
        assert details[key] >= 0.0
    assert details["selected"] == ["jessica", "object_17", "object_3"]


def test_the_index_is_synced_on_every_retrieval() -> None:
    retriever = search(QUERY, QUERY)
    graph = opaque_house()
    retriever.retrieve(REQUEST, graph)
    graph.add_entity("object_40", "dish", label="red mug")
    graph.add_fact(F("on", "object_40", "object_4"))
    second = retriever.retrieve(REQUEST, graph)
    assert second.details["sync"]["added"] == 1
    assert {m["node"]: m["entity"] for m in second.details["mapping"]}["mug"] == "object_17"  # still on the counter


def test_cutoff_bounds_the_candidates() -> None:
    graph = opaque_house()
    strict = search(QUERY, cutoff=1.0).retrieve(REQUEST, graph)
    loose = search(QUERY, cutoff=0.0, top_k=None).retrieve(REQUEST, graph)
    assert all(m["candidates"] == 1 for m in strict.details["mapping"])
    assert all(m["candidates"] == graph.entity_count() for m in loose.details["mapping"])
    assert strict.details["selected"] == loose.details["selected"]

