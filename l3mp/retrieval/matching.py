"""Query-graph to world-graph matching: the paper's Algorithm 2 (DFS) with candidate caps and branch and bound.

Given a similarity matrix ``S`` (query nodes x graph entities), the query edges and a test of
whether two entities are related, find the mapping M of every query node to an entity with the
highest

    mapping_score(M) = sum_q S[q, M(q)]
                       + edge_weight * #{query edges (a, r, b) whose (M(a), M(b)) agree with the graph}
                       - duplicate_penalty * (#query nodes - #distinct entities in M)

An edge agrees when the graph has a fact of predicate r between M(a) and M(b) (either argument
order: the LLM's direction is a soft hint too), or any fact between them when r is unknown
(None). Mapping two query nodes to one entity is allowed but costs `duplicate_penalty` per extra
node: an LLM sometimes writes one thing twice ("the mug" ... "it"), but two nodes usually mean
two things, so a close second candidate wins over a shared one.

Search: query nodes in order of their best similarity (highest first); each node's candidates are
the entities with ``S >= best - (1 - cutoff) * |best|`` (the paper's ``S > cutoff * max`` for a
positive best, made inclusive so the best always qualifies), highest first. Branch and bound
prunes a branch when ``score so far + sum of the remaining nodes' best candidate similarity +
edge_weight * #edges not yet decided`` cannot beat the best mapping found: exact, it never changes
the optimum. Two caps can: `top_k` keeps only the k most similar candidates of each node, and
`max_steps` stops the search after that many tentative assignments (the result then says
``complete=False``; the first mapping tried is the greedy one, so there always is one).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

Agrees = Callable[[int, int, str | None], bool]
"""``agrees(entity_a, entity_b, relation)``: is there a fact of `relation` (any, if None) between them."""

QueryEdge = tuple[int, str | None, int]
"""A query edge as (source node, relation or None, target node), node indices into the similarity rows."""


@dataclass(frozen=True)
class MatchSettings:
    """Knobs of the matching; see the module docstring for what each does to the result."""

    cutoff: float = 0.8
    top_k: int | None = 8
    edge_weight: float = 0.2
    duplicate_penalty: float = 0.3
    max_steps: int | None = 50_000

    def __post_init__(self) -> None:
        if not 0.0 <= self.cutoff <= 1.0:
            raise ValueError(f"cutoff must be within [0, 1], not {self.cutoff}")
        if self.top_k is not None and self.top_k < 1:
            raise ValueError(f"top_k must be at least 1 (or None for no cap), not {self.top_k}")
        if self.edge_weight < 0 or self.duplicate_penalty < 0:
            raise ValueError("edge_weight and duplicate_penalty must not be negative")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1 (or None for no cap), not {self.max_steps}")


@dataclass(frozen=True)
class Match:
    """The best mapping found: entity column per query node (in query order) and how it scored."""

    assignment: tuple[int, ...]
    score: float
    agreeing: tuple[int, ...]
    candidates: tuple[tuple[int, ...], ...]
    steps: int
    complete: bool


def candidates(row: np.ndarray, cutoff: float, top_k: int | None = None) -> np.ndarray:
    """Entity columns of one query node that pass the cutoff, most similar first (ties: lower column)."""
    if row.size == 0:
        return np.zeros(0, dtype=np.int64)
    best = float(row.max())
    cols = np.flatnonzero(row >= best - (1.0 - cutoff) * abs(best))
    cols = cols[np.lexsort((cols, -row[cols]))]
    return cols if top_k is None else cols[:top_k]


def mapping_score(
    assignment: Sequence[int],
    similarity: np.ndarray,
    edges: Sequence[QueryEdge],
    agrees: Agrees,
    settings: MatchSettings,
) -> float:
    """The documented score of a complete mapping (module docstring)."""
    nodes = sum(float(similarity[q, c]) for q, c in enumerate(assignment))
    agreeing = len(_agreeing(assignment, edges, agrees))
    duplicates = len(assignment) - len(set(assignment))
    return nodes + settings.edge_weight * agreeing - settings.duplicate_penalty * duplicates


def match(
    similarity: np.ndarray,
    edges: Sequence[QueryEdge],
    agrees: Agrees,
    settings: MatchSettings | None = None,
) -> Match:
    """The mapping with the highest `mapping_score` among the candidates (module docstring)."""
    settings = settings or MatchSettings()
    queries, entities = similarity.shape
    if entities == 0:
        raise ValueError("cannot match a query graph onto a graph without entities")
    per_node = [candidates(similarity[q], settings.cutoff, settings.top_k) for q in range(queries)]
    search = _Search(similarity, edges, _cached(agrees), settings, per_node)
    assignment = search.run()
    return Match(
        assignment=assignment,
        score=mapping_score(assignment, similarity, edges, agrees, settings),
        agreeing=_agreeing(assignment, edges, agrees),
        candidates=tuple(tuple(int(c) for c in cols) for cols in per_node),
        steps=search.steps,
        complete=not search.stopped,
    )


def _agreeing(assignment: Sequence[int], edges: Sequence[QueryEdge], agrees: Agrees) -> tuple[int, ...]:
    return tuple(i for i, (a, rel, b) in enumerate(edges) if agrees(assignment[a], assignment[b], rel))


def _cached(agrees: Agrees) -> Agrees:
    memo: dict[tuple[int, int, str | None], bool] = {}

    def lookup(a: int, b: int, relation: str | None) -> bool:
        key = (a, b, relation)
        if key not in memo:
            memo[key] = agrees(a, b, relation)
        return memo[key]

    return lookup


class _Search:
    """One depth-first branch-and-bound search; nodes are visited in order of best similarity."""

    def __init__(
        self,
        similarity: np.ndarray,
        edges: Sequence[QueryEdge],
        agrees: Agrees,
        settings: MatchSettings,
        per_node: list[np.ndarray],
    ) -> None:
        queries = similarity.shape[0]
        best_of = [float(similarity[q, cols[0]]) for q, cols in enumerate(per_node)]
        self.order = sorted(range(queries), key=lambda q: -best_of[q])
        depth = {q: i for i, q in enumerate(self.order)}
        self.cands = [[int(c) for c in per_node[q]] for q in self.order]
        self.sims = [[float(similarity[q, c]) for c in per_node[q]] for q in self.order]
        self.edges_at: list[list[tuple[int, int, str | None]]] = [[] for _ in range(queries)]
        for a, relation, b in edges:
            self.edges_at[max(depth[a], depth[b])].append((depth[a], depth[b], relation))
        self.node_rest = _suffix_sums([best_of[q] for q in self.order])
        self.edge_rest = _suffix_sums([settings.edge_weight * len(e) for e in self.edges_at])
        self.agrees = agrees
        self.settings = settings
        self.assign = [0] * queries
        self.used: dict[int, int] = {}
        self.best = -math.inf
        self.best_assign: list[int] | None = None
        self.steps = 0
        self.stopped = False

    def run(self) -> tuple[int, ...]:
        self._dfs(0, 0.0)
        assert self.best_assign is not None
        out = [0] * len(self.order)
        for i, q in enumerate(self.order):
            out[q] = self.best_assign[i]
        return tuple(out)

    def _dfs(self, i: int, score: float) -> None:
        if i == len(self.order):
            if score > self.best:
                self.best, self.best_assign = score, list(self.assign)
            return
        for entity, sim in zip(self.cands[i], self.sims[i], strict=True):
            if score + sim + self.node_rest[i + 1] + self.edge_rest[i] <= self.best:
                return  # candidates are sorted: no later one can do better either
            if self._out_of_steps():
                return
            self.steps += 1
            self.assign[i] = entity
            gain = sim - (self.settings.duplicate_penalty if self.used.get(entity) else 0.0)
            gain += self.settings.edge_weight * sum(
                1 for a, b, rel in self.edges_at[i] if self.agrees(self.assign[a], self.assign[b], rel))
            self.used[entity] = self.used.get(entity, 0) + 1
            self._dfs(i + 1, score + gain)
            self.used[entity] -= 1

    def _out_of_steps(self) -> bool:
        limit = self.settings.max_steps
        if limit is not None and self.steps >= limit and self.best_assign is not None:
            self.stopped = True
        return self.stopped


def _suffix_sums(values: list[float]) -> list[float]:
    out = [0.0] * (len(values) + 1)
    for i in range(len(values) - 1, -1, -1):
        out[i] = out[i + 1] + values[i]
    return out
