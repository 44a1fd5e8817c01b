"""Algorithm 2 (DFS subgraph matching): optimal against brute force, the cutoff rule, and what the caps change."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from l3mp.retrieval.matching import MatchSettings, candidates, mapping_score, match

EXACT = dict(top_k=None, max_steps=None)


def agreement(relations: set[tuple[int, str, int]]):
    """`agrees` over a set of graph facts (entity, relation, entity); either order agrees."""
    def agrees(a: int, b: int, relation: str | None) -> bool:
        return any((x, y) in ((a, b), (b, a)) and relation in (None, r) for x, r, y in relations)
    return agrees


def brute_force(similarity, edges, agrees, cfg: MatchSettings, pools) -> float:
    return max(mapping_score(m, similarity, edges, agrees, cfg) for m in itertools.product(*pools))


@st.composite
def problems(draw, low: float = 0.0):
    queries = draw(st.integers(1, 4))
    entities = draw(st.integers(1, 5))
    values = st.floats(low, 1.0, allow_nan=False, width=32)
    similarity = np.array(draw(st.lists(st.lists(values, min_size=entities, max_size=entities),
                                        min_size=queries, max_size=queries)), dtype=np.float32)
    node = st.integers(0, queries - 1)
    relation = st.sampled_from([None, "on", "in_room"])
    edges = draw(st.lists(st.tuples(node, relation, node), max_size=5))
    entity = st.integers(0, entities - 1)
    facts = draw(st.sets(st.tuples(entity, st.sampled_from(["on", "in_room"]), entity), max_size=8))
    cfg = MatchSettings(cutoff=0.0, edge_weight=draw(st.sampled_from([0.0, 0.2, 0.7])),
                        duplicate_penalty=draw(st.sampled_from([0.0, 0.3, 5.0])), **EXACT)
    return similarity, edges, agreement(facts), cfg


@settings(max_examples=300, deadline=None)
@given(problems())
def test_dfs_equals_brute_force_over_all_assignments(problem) -> None:
    similarity, edges, agrees, cfg = problem
    found = match(similarity, edges, agrees, cfg)
    pools = [range(similarity.shape[1])] * similarity.shape[0]
    assert found.complete
    assert found.score == pytest.approx(brute_force(similarity, edges, agrees, cfg, pools), abs=1e-9)
    assert found.score == pytest.approx(mapping_score(found.assignment, similarity, edges, agrees, cfg), abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(problems(low=-1.0), st.sampled_from([0.5, 0.8, 0.95, 1.0]))
def test_dfs_with_cutoff_equals_brute_force_over_the_cutoff_candidates(problem, cutoff: float) -> None:
    similarity, edges, agrees, base = problem
    cfg = MatchSettings(cutoff, None, base.edge_weight, base.duplicate_penalty, None)
    found = match(similarity, edges, agrees, cfg)
    pools = [candidates(row, cutoff) for row in similarity]
    assert all(found.assignment[q] in pools[q] for q in range(len(pools)))
    assert found.score == pytest.approx(brute_force(similarity, edges, agrees, cfg, pools), abs=1e-9)


def test_cutoff_keeps_entities_within_the_fraction_of_the_best() -> None:
    row = np.array([0.9, 0.75, 0.7, 0.2, 0.73])
    assert candidates(row, 0.8).tolist() == [0, 1, 4]  # threshold 0.8 * 0.9 = 0.72
    assert candidates(row, 0.83).tolist() == [0, 1]  # threshold 0.747
    assert candidates(row, 1.0).tolist() == [0]
    assert candidates(row, 0.0).tolist() == [0, 1, 4, 2, 3]  # everything, most similar first
    assert candidates(row, 0.0, top_k=2).tolist() == [0, 1]


def test_cutoff_ties_and_non_positive_best() -> None:
    assert candidates(np.array([0.5, 0.8, 0.8]), 1.0).tolist() == [1, 2]  # ties: lower column first
    # the best always qualifies, also when it is negative (the paper's S > cutoff * max would drop it)
    assert candidates(np.array([-0.1, -0.3, -0.11]), 0.8).tolist() == [0, 2]
    assert candidates(np.array([0.0, -0.2]), 0.8).tolist() == [0]


def test_edges_choose_between_similar_candidates() -> None:
    # query: mug (node 0) on counter (node 1); entities 0, 1 are mugs, 2 is the counter; mug 1 is on it
    similarity = np.array([[0.80, 0.78, 0.1], [0.1, 0.1, 0.9]])
    agrees = agreement({(1, "on", 2)})
    found = match(similarity, [(0, "on", 1)], agrees, MatchSettings())
    assert found.assignment == (1, 2)
    assert found.agreeing == (0,)
    assert match(similarity, [(0, "in_room", 1)], agrees, MatchSettings()).assignment == (0, 2)  # other relation
    assert match(similarity, [(0, None, 1)], agrees, MatchSettings()).assignment == (1, 2)  # unknown: any fact


def test_duplicate_penalty_prefers_a_close_second_entity() -> None:
    similarity = np.array([[0.9, 0.8], [0.9, 0.5]])
    nothing = agreement(set())
    assert match(similarity, [], nothing, MatchSettings(duplicate_penalty=0.3)).assignment == (1, 0)
    assert match(similarity, [], nothing, MatchSettings(duplicate_penalty=0.0)).assignment == (0, 0)
    # 0.9 + 0.5 beats 0.9 + 0.9 - 0.5, but a shared entity stays allowed when it is far better
    assert match(np.array([[0.9, 0.1], [0.9, 0.1]]), [], nothing, MatchSettings()).assignment == (0, 0)


def test_top_k_cap_can_change_the_optimum() -> None:
    """Documented: with `top_k` the best mapping may need a candidate the cap removed."""
    similarity = np.array([[0.90, 0.89, 0.88, 0.0], [0.0, 0.0, 0.0, 0.9]])
    agrees = agreement({(2, "on", 3)})
    exact = match(similarity, [(0, "on", 1)], agrees, MatchSettings(top_k=None))
    capped = match(similarity, [(0, "on", 1)], agrees, MatchSettings(top_k=2))
    assert exact.assignment == (2, 3) and capped.assignment == (0, 3)
    assert capped.score < exact.score


def test_max_steps_stops_with_the_greedy_mapping_and_says_so() -> None:
    rng = np.random.default_rng(1)
    similarity = rng.uniform(0.6, 0.7, size=(6, 40))
    edges = [(i, None, i + 1) for i in range(5)]
    agrees = agreement({(a, "on", a + 1) for a in range(0, 39, 3)})
    capped = match(similarity, edges, agrees, MatchSettings(cutoff=0.0, top_k=None, max_steps=10))
    assert not capped.complete
    assert capped.steps == 10
    assert capped.assignment == tuple(int(np.argmax(row)) for row in similarity)  # greedy: first leaf
    assert match(similarity, edges, agrees, MatchSettings(top_k=5, max_steps=None)).complete


def test_branch_and_bound_prunes() -> None:
    rng = np.random.default_rng(2)
    similarity = rng.uniform(0.0, 1.0, size=(5, 30))
    found = match(similarity, [(0, None, 1)], agreement(set()), MatchSettings(cutoff=0.0, **EXACT))
    assert found.complete
    assert found.steps < 30**5 / 1000


def test_settings_are_checked() -> None:
    for bad in (dict(cutoff=1.5), dict(top_k=0), dict(edge_weight=-1.0), dict(max_steps=0)):
        with pytest.raises(ValueError):
            MatchSettings(**bad)
    with pytest.raises(ValueError, match="without entities"):
        match(np.zeros((1, 0)), [], agreement(set()))
