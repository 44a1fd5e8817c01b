"""Retrieval mode ``search`` (the paper's R^S, Algorithm 1): query graph -> similarity -> subgraph matching."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.llm.types import LLM, TokenLedger
from l3mp.retrieval import query_graph
from l3mp.retrieval.base import Retrieved
from l3mp.retrieval.context import DEFAULT_DEPTH, assemble
from l3mp.retrieval.embeddings import (
    MAX_TEXT_FACTS,
    Embedder,
    EntityDescriber,
    EntityIndex,
    functional_positions,
)
from l3mp.retrieval.grounding import Grounder, Mention, unexplained
from l3mp.retrieval.matching import Agrees, Match, MatchSettings, match
from l3mp.retrieval.query_graph import QueryGraph
from l3mp.world.graph import WorldGraph

TYPE_BONUS = 0.1
"""Added to a node's similarity with entities of the type the LLM hinted (or a subtype)."""

ALTERNATIVES = 3
"""How many runner-up candidates of each query node the details list."""

QUERY_SOURCES = ("grounded", "llm")
"""Where the query graph comes from: ``llm``, the paper's (the LLM writes it, embeddings and DFS matching map it
onto the graph); ``grounded``, the text's mentions grounded without an LLM (`l3mp.retrieval.grounding`) select
their candidates directly when they explain every noun phrase of the text; otherwise the ``llm`` way runs too
and its selection is added to the grounded one."""

MAX_GROUNDED = 12
"""A mention with more candidates than this ("every item") selects none of them in ``grounded`` retrieval."""


class SearchRetriever:
    """Search-based retrieval: the LLM writes a query graph; it is matched onto the graph by embeddings
    (all-MiniLM-L6-v2 over entity texts, kept in an incrementally synced `EntityIndex`) and DFS.

    Details: ``query_graph`` (as kept), ``query_notes`` (what was dropped and why), ``mapping`` (per
    node: entity, cosine ``similarity``, ``type_bonus``, ``candidates`` count, ``alternatives``),
    ``selected``, ``score`` (`mapping_score`), ``agreeing_edges``, ``steps``, ``complete``, ``sync``
    (what the index upkeep did), ``depth`` and the timings ``seconds_llm``, ``seconds_embed`` (index
    sync + query embedding + similarity), ``seconds_match`` and ``seconds_search`` (all but the LLM).
    Thread-safe (retrievals share the index one at a time).
    """

    mode = "search"

    def __init__(
        self,
        llm: LLM,
        domain: Domain,
        *,
        embedder: Embedder | None = None,
        depth: int = DEFAULT_DEPTH,
        cutoff: float = 0.8,
        top_k: int | None = 8,
        edge_weight: float = 0.2,
        duplicate_penalty: float = 0.3,
        max_steps: int | None = 50_000,
        type_bonus: float = TYPE_BONUS,
        rules: RuleSet | None = None,
        max_text_facts: int = MAX_TEXT_FACTS,
        query_graph: str = "grounded",
    ) -> None:
        if depth < 0:
            raise ValueError(f"depth must be >= 0, not {depth}")
        if query_graph not in QUERY_SOURCES:
            raise ValueError(f"query_graph must be one of {', '.join(QUERY_SOURCES)}, not {query_graph!r}")
        self._query_graph = query_graph
        self._llm = llm
        self._domain = domain
        self._depth = depth
        self._type_bonus = type_bonus
        self.settings = MatchSettings(cutoff, top_k, edge_weight, duplicate_penalty, max_steps)
        rules = rules if rules is not None else RuleSet.for_domain(domain)
        self._grounder = Grounder(domain, rules)
        describer = EntityDescriber(functional_positions(rules), max_facts=max_text_facts)
        self.index = EntityIndex(embedder, describer)
        self._lock = threading.Lock()

    def retrieve(self, request: str, graph: WorldGraph, *, ledger: TokenLedger | None = None) -> Retrieved:
        """Algorithm 1; LLMError from the query-graph step propagates (the caller decides). With the ``grounded``
        query graph, the text's grounded mentions are the selection when there are any (no LLM call)."""
        start = time.perf_counter()
        seeds: list[str] = []
        if self._query_graph == "grounded":
            mentions = self._grounder.ground(request, graph)
            seeds = sorted({n for m in mentions for group in (m.candidates, m.alternatives, m.broader)
                            if len(group) <= MAX_GROUNDED for n in group})
            if seeds and not unexplained(request, mentions):
                return self._grounded(mentions, seeds, graph, start)
        query, notes = query_graph.ask(self._llm, request, self._domain, ledger=ledger)
        seconds_llm = time.perf_counter() - start
        return self.search(query, graph, extra={"seconds_llm": round(seconds_llm, 6), "query_notes": notes,
                                                "query_source": "llm+grounded" if seeds else "llm"}, seeds=seeds)

    def _grounded(self, mentions: tuple[Mention, ...], seeds: list[str], graph: WorldGraph,
                  start: float) -> Retrieved:
        details: dict[str, Any] = {
            "query_source": "grounded",
            "mentions": [{"words": m.words, "candidates": list(m.candidates)} for m in mentions],
            "selected": seeds,
            "depth": self._depth,
            "seconds_llm": 0.0,
        }
        retrieved = assemble(self.mode, graph, self._domain, seeds, self._depth, details)
        details["seconds_search"] = round(time.perf_counter() - start, 6)
        return retrieved

    def search(self, query: QueryGraph, graph: WorldGraph, *, extra: dict[str, Any] | None = None,
               seeds: list[str] | None = None) -> Retrieved:
        """Everything after the LLM: sync the index, embed the query nodes, match, expand to `depth` (together with
        `seeds`, entities already selected otherwise)."""
        start = time.perf_counter()
        with self._lock:
            sync = self.index.sync(graph)
            cosine, bonus = self._similarity(query)
            seconds_embed = time.perf_counter() - start
            found = self._match(query, graph, cosine + bonus)
            seconds_match = time.perf_counter() - start - seconds_embed
            mapping = self._mapping(query, found, cosine, bonus)
        details: dict[str, Any] = {
            **(extra or {}),
            "query_graph": query.to_json(),
            "mapping": mapping,
            "selected": sorted({m["entity"] for m in mapping} | set(seeds or ())),
            "score": None if found is None else round(found.score, 6),
            "agreeing_edges": [] if found is None else [_edge_json(query.edges[i]) for i in found.agreeing],
            "steps": 0 if found is None else found.steps,
            "complete": True if found is None else found.complete,
            "sync": sync.to_json(),
            "depth": self._depth,
            "seconds_embed": round(seconds_embed, 6),
            "seconds_match": round(seconds_match, 6),
        }
        retrieved = assemble(self.mode, graph, self._domain, details["selected"], self._depth, details)
        details["seconds_search"] = round(time.perf_counter() - start, 6)
        return retrieved

    def _similarity(self, query: QueryGraph) -> tuple[np.ndarray, np.ndarray]:
        """Cosine similarity (query nodes x entities) and the type bonus to add to it."""
        if not query.nodes:
            empty = np.zeros((0, len(self.index)), dtype=np.float32)
            return empty, empty
        cosine = self.index.similarity(self.index.embedder.encode([n.description for n in query.nodes]))
        bonus = np.zeros_like(cosine)
        for row, node in enumerate(query.nodes):
            if node.type is not None:
                bonus[row, self.index.type_mask(self._domain.subtypes(node.type))] = self._type_bonus
        return cosine, bonus

    def _match(self, query: QueryGraph, graph: WorldGraph, similarity: np.ndarray) -> Match | None:
        if not query.nodes or len(self.index) == 0:
            return None
        position = {n.id: i for i, n in enumerate(query.nodes)}
        edges = [(position[e.source], e.relation, position[e.target]) for e in query.edges]
        return match(similarity, edges, _agrees(graph, self.index), self.settings)

    def _mapping(self, query: QueryGraph, found: Match | None, cosine: np.ndarray,
                 bonus: np.ndarray) -> list[dict[str, Any]]:
        """Per query node: the entity it maps to, its cosine and type bonus, and the runner-up candidates."""
        if found is None:
            return []
        out = []
        for q, (node, col) in enumerate(zip(query.nodes, found.assignment, strict=True)):
            others = [c for c in found.candidates[q] if c != col][:ALTERNATIVES]
            out.append({
                "node": node.id,
                "description": node.description,
                "entity": self.index.name(col),
                "similarity": round(float(cosine[q, col]), 4),
                "type_bonus": round(float(bonus[q, col]), 4),
                "candidates": len(found.candidates[q]),
                "alternatives": [[self.index.name(c), round(float(cosine[q, c] + bonus[q, c]), 4)] for c in others],
            })
        return out


def _agrees(graph: WorldGraph, index: EntityIndex) -> Agrees:
    """Is there a fact of `relation` (any if None) between the two entities, in either argument order."""
    def agrees(a: int, b: int, relation: str | None) -> bool:
        x, y = index.name(a), index.name(b)
        for fact in graph.facts(entity=x, predicate=relation):
            if y in fact.args and (x != y or fact.args.count(x) > 1):
                return True
        return False

    return agrees


def _edge_json(edge: query_graph.QueryEdge) -> dict[str, str]:
    return {"source": edge.source, "relation": edge.relation or query_graph.ANY_RELATION, "target": edge.target}
