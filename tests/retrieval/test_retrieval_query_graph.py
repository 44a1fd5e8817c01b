"""The LLM's query graph: prompt, strict schema, and the program-side checks of its answer."""

from __future__ import annotations

import json

import pytest

from l3mp.domain.pddl_domain import Domain
from l3mp.errors import LLMOutputError
from l3mp.retrieval import query_graph
from l3mp.retrieval.query_graph import QueryEdge, QueryNode
from tests.helpers import household

REQUEST = "Jessica moved the red mug from the kitchen counter to the coffee table."


def node(ident: str, description: str, type_: str = "unknown") -> dict:
    return {"id": ident, "description": description, "type": type_}


def edge(source: str, relation: str, target: str, evidence: str) -> dict:
    return {"source": source, "relation": relation, "target": target, "evidence": evidence}


NODES = [node("jessica", "Jessica", "person"), node("mug", "red mug", "dish"),
         node("counter", "kitchen counter", "counter"), node("table", "coffee table", "table")]


def test_schema_is_strict_with_type_and_relation_enums() -> None:
    schema = query_graph.schema(household())
    item = schema["properties"]["nodes"]["items"]
    assert item["additionalProperties"] is False and item["required"] == ["id", "description", "type"]
    types = item["properties"]["type"]["enum"]
    assert "dish" in types and "unknown" in types and "object" not in types
    relations = schema["properties"]["edges"]["items"]["properties"]["relation"]["enum"]
    assert relations == ["faucet_of", "has", "holding", "in_room", "inside", "on", "related"]
    assert schema["properties"]["edges"]["items"]["required"] == ["source", "relation", "target", "evidence"]


def test_prompt_puts_the_fixed_part_first_with_one_worked_example() -> None:
    messages = query_graph.messages(REQUEST, household())
    assert [m["role"] for m in messages] == ["system", "user"]
    assert REQUEST not in messages[0]["content"] and messages[1]["content"] == f"Request: {REQUEST}"
    assert "(on ?i - item ?s - surface)" in messages[0]["content"]
    assert messages[0]["content"].count("Example request:") == 1
    assert json.dumps(query_graph.example(household())) in messages[0]["content"]


def test_worked_example_falls_back_to_unknown_and_related_in_another_domain() -> None:
    other = Domain.from_string("(define (domain tiny) (:requirements :typing) (:types box person) "
                               "(:predicates (near ?a - box ?b - box)))")
    example = query_graph.example(other)
    assert {n["type"] for n in example["nodes"]} == {"person", "unknown"}
    assert {e["relation"] for e in example["edges"]} == {"related"}
    assert query_graph.relations(other) == ["near"]


def test_parse_keeps_nodes_and_edges_with_evidence() -> None:
    data = {"nodes": NODES, "edges": [edge("mug", "on", "counter", "from the kitchen counter"),
                                      edge("mug", "on", "table", "to the Coffee Table!")]}
    graph, notes = query_graph.parse(data, REQUEST, household())
    assert graph.nodes[1] == QueryNode("mug", "red mug", "dish")
    assert graph.edges == (QueryEdge("mug", "on", "counter", "from the kitchen counter"),
                           QueryEdge("mug", "on", "table", "to the Coffee Table!"))
    assert notes == []


def test_parse_drops_edges_without_evidence_in_the_request() -> None:
    data = {"nodes": NODES, "edges": [
        edge("mug", "inside", "counter", "in the cupboard"),  # invented evidence
        edge("mug", "on", "table", ""),  # no evidence
        edge("mug", "on", "table", "he"),  # only part of a word ("the")
        edge("mug", "on", "nowhere", "the coffee table"),  # unknown node
        edge("mug", "on", "mug", "the red mug"),  # self-loop
        edge("jessica", "has", "mug", "Jessica moved the red mug"),
    ]}
    graph, notes = query_graph.parse(data, REQUEST, household())
    assert graph.edges == (QueryEdge("jessica", "has", "mug", "Jessica moved the red mug"),)
    assert len(notes) == 5


def test_parse_treats_unknown_types_and_relations_as_hints_absent() -> None:
    data = {"nodes": [node("a", "red mug", "unknown"), node("b", "coffee table", "furniture"),
                      node("c", "thing", "object")],
            "edges": [edge("a", "related", "b", "coffee table"), edge("a", "stands_on", "b", "the coffee table")]}
    graph, _ = query_graph.parse(data, REQUEST, household())
    assert [n.type for n in graph.nodes] == [None, None, None]
    assert graph.edges == (QueryEdge("a", None, "b", "coffee table"),)  # the same hint once


def test_parse_skips_malformed_and_duplicate_nodes() -> None:
    data = {"nodes": [node("a", "red mug"), {"id": "b"}, "mug", node("a", "other"), node(" c ", " table ")],
            "edges": []}
    graph, notes = query_graph.parse(data, REQUEST, household())
    assert [(n.id, n.description) for n in graph.nodes] == [("a", "red mug"), ("c", "table")]
    assert len(notes) == 3


@pytest.mark.parametrize("data", [None, [], {"edges": []}, {"nodes": "mug", "edges": []}, {"nodes": [], "edges": 3}])
def test_parse_rejects_answers_of_the_wrong_shape(data) -> None:
    with pytest.raises(LLMOutputError, match="query graph must be a JSON object"):
        query_graph.parse(data, REQUEST, household())


def test_to_json_round_trips_the_hints() -> None:
    graph, _ = query_graph.parse({"nodes": NODES[:2], "edges": [edge("jessica", "related", "mug", "Jessica")]},
                                 REQUEST, household())
    assert graph.to_json() == {"nodes": NODES[:2], "edges": [edge("jessica", "related", "mug", "Jessica")]}
