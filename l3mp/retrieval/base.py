"""The retrieval interface: from a request and the graph to the relevant subgraph."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from l3mp.domain.triplets import Fact
from l3mp.llm.types import TokenLedger
from l3mp.world.graph import WorldGraph


@dataclass(frozen=True)
class Retrieved:
    """The entities and facts handed to the LLM as context, and how they were found.

    `details` is JSON-serialisable: the selected entities, the query graph and its
    matching with scores, the timings (``seconds_llm``, ``seconds_search``), ...
    """

    mode: str
    entities: frozenset[str]
    facts: frozenset[Fact]
    details: dict[str, Any] = field(default_factory=dict)


class Retriever(Protocol):
    """One retrieval mode (``full``, ``entities``, ``search``)."""

    mode: str

    def retrieve(self, request: str, graph: WorldGraph, *, ledger: TokenLedger | None = None) -> Retrieved:
        ...
