"""Retrieval mode ``full`` (the paper's R-): the whole graph is the context."""

from __future__ import annotations

from l3mp.llm.types import TokenLedger
from l3mp.retrieval.base import Retrieved
from l3mp.world.graph import WorldGraph


class FullRetriever:
    """Every entity and every fact, so also the always-needed context (no LLM call)."""

    mode = "full"

    def retrieve(self, request: str, graph: WorldGraph, *, ledger: TokenLedger | None = None) -> Retrieved:
        entities = frozenset(graph.entities())
        facts = frozenset(graph.facts())
        return Retrieved(self.mode, entities, facts, {"entities": len(entities), "facts": len(facts)})
