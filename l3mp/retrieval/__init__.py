"""Retrieval of the relevant subgraph for a request: modes ``full`` (R-), ``entities`` (R+), ``search`` (R^S)."""

from __future__ import annotations

from typing import Any

from l3mp.domain.pddl_domain import Domain
from l3mp.llm.types import LLM
from l3mp.retrieval.base import Retrieved, Retriever
from l3mp.retrieval.context import always_needed, expand
from l3mp.retrieval.embeddings import Embedder, EntityIndex, MiniLMEmbedder
from l3mp.retrieval.entity_selection import EntitySelectionRetriever
from l3mp.retrieval.full import FullRetriever
from l3mp.retrieval.matching import MatchSettings, mapping_score, match
from l3mp.retrieval.query_graph import QueryEdge, QueryGraph, QueryNode
from l3mp.retrieval.search import SearchRetriever

MODES = ("full", "entities", "search")
ALIASES = {"R-": "full", "R+": "entities", "R^S": "search"}
"""The paper's names of the modes."""


def make_retriever(
    mode: str,
    *,
    llm: LLM | None,
    domain: Domain,
    embedder: Embedder | None = None,
    depth: int | None = None,
    **options: Any,
) -> Retriever:
    """A retriever of `mode` (or its paper name). `depth` is the fact depth around the retrieved entities (None:
    the retriever's default); the full graph has no such depth, so ``full`` ignores it, and callers can pass their
    configured depth whatever the mode. Other `options` go to the constructor (e.g. ``cutoff``)."""
    mode = ALIASES.get(mode, mode)
    if mode not in MODES:
        raise ValueError(f"unknown retrieval mode {mode!r}; valid: {', '.join(MODES)} (or {', '.join(ALIASES)})")
    if mode == "full":
        if options:
            raise ValueError(f"retrieval mode 'full' takes no options; got {sorted(options)}")
        return FullRetriever()
    if llm is None:
        raise ValueError(f"retrieval mode {mode!r} needs an LLM")
    if depth is not None:
        options["depth"] = depth
    if mode == "entities":
        return EntitySelectionRetriever(llm, domain, **options)
    return SearchRetriever(llm, domain, embedder=embedder, **options)


__all__ = [
    "ALIASES",
    "MODES",
    "Embedder",
    "EntityIndex",
    "EntitySelectionRetriever",
    "FullRetriever",
    "MatchSettings",
    "MiniLMEmbedder",
    "QueryEdge",
    "QueryGraph",
    "QueryNode",
    "Retrieved",
    "Retriever",
    "SearchRetriever",
    "always_needed",
    "expand",
    "make_retriever",
    "mapping_score",
    "match",
]
