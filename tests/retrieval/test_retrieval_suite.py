"""The ``retrieval`` benchmark suite: its workload generators and a scaled-down run of each part."""

from __future__ import annotations

import random

from l3mp_sim.house import generate_house

from l3mp.bench import retrieval_suite as suite
from l3mp.bench.runner import SUITES
from l3mp.retrieval import query_graph
from tests.helpers import household


def test_suite_is_registered() -> None:
    assert SUITES["retrieval"] is suite.retrieval_suite


def test_update_sentences_name_real_entities_and_carry_checked_query_graphs() -> None:
    graph = generate_house(seed=suite.SEED).to_graph()
    sentences = suite.update_sentences(graph)
    assert len(sentences) == 20
    for sentence in sentences:
        assert all(graph.has_entity(n) for n in sentence.entities)
        assert [n.id for n in sentence.query.nodes] == list(sentence.entities)
        parsed, notes = query_graph.parse(sentence.query.to_json(), sentence.text, household())
        assert notes == [] and parsed == sentence.query  # every scripted edge quotes the sentence


def test_latency_queries_have_one_to_five_nodes_joined_by_true_relations() -> None:
    graph = generate_house(seed=3, target_entities=300).to_graph()
    places, rng = suite._Places(graph), random.Random(0)
    for size in range(1, 6):
        query = suite._query(places, rng, size)
        assert 1 <= len(query.nodes) <= size
        for edge in query.edges:
            assert any(f.predicate == edge.relation and edge.target in f.args for f in graph.facts_of(edge.source))


def test_prompt_part_beats_the_paper_reduction() -> None:
    metrics = {m.name: m for m in suite._prompt_sizes(household())}
    assert metrics["reduction_search_vs_full"].met
    assert metrics["context_tokens_search"].value < metrics["context_tokens_full"].value
    assert metrics["search_node_accuracy"].value >= 90.0
    assert set(metrics) >= {"context_tokens_full", "context_tokens_entities", "reduction_entities_vs_full",
                            "reduction_search_vs_full_with_rag", "search_recall"}


def test_search_part_runs_on_a_small_house() -> None:
    tiny = suite.Scale(sizes=(300,), queries=5, added=3, singles=2)
    metrics = {m.name: m for m in suite._search_at(household(), 300, tiny)}
    assert set(metrics) == {"index_build_300", "search_300_p50", "search_300_p95", "search_300_cpu_p95",
                            "search_300_embed_p50", "search_300_sync_p50", "search_300_match_p50", "upkeep_add_300",
                            "upkeep_add_one_300", "upkeep_move_300"}
    assert all(m.value is not None and m.value >= 0 for m in metrics.values())
    assert metrics["search_300_p95"].target_value is None  # targets exist only for 2k and 20k


def test_context_tokens_are_counted_in_cl100k_not_estimated() -> None:
    assert suite.count_tokens("hello world") == 2  # the estimate (4 characters a token) would say 3
