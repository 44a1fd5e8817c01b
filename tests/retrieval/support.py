"""Shared pieces of the retrieval tests: a scripted LLM test double, small labelled graphs, the embedder."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from l3mp.domain.triplets import Fact
from l3mp.llm.types import LLMReply, Message, TokenLedger, Usage
from l3mp.retrieval.embeddings import EntityDescriber, MiniLMEmbedder, functional_positions
from l3mp.world.graph import WorldGraph
from tests.helpers import household_rules

Answer = Any
"""A scripted answer: JSON data, an exception to raise, or a function (messages, schema) -> data."""


class ScriptedLLM:
    """Test double standing in for the LLM (implements the `LLM` protocol): replays scripted answers in
    order and records every call; usage is counted as one token per word of the prompt."""

    name = "scripted:test-double"

    def __init__(self, *answers: Answer) -> None:
        self._answers = list(answers)
        self.calls: list[dict[str, Any]] = []

    def complete_json(
        self,
        messages: Sequence[Message],
        *,
        schema: dict,
        schema_name: str,
        purpose: str,
        ledger: TokenLedger | None = None,
    ) -> LLMReply:
        self.calls.append({"messages": list(messages), "schema": schema, "schema_name": schema_name,
                           "purpose": purpose})
        answer = self._answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        data = answer(messages, schema) if callable(answer) else answer
        usage = Usage(sum(len(m["content"].split()) for m in messages), len(json.dumps(data).split()))
        if ledger is not None:
            ledger.add(purpose, usage)
        return LLMReply(data, json.dumps(data), usage, self.name)


def name_matcher(request: str) -> Callable[[Sequence[Message], dict], dict]:
    """An answer that selects, as an LLM choosing *by name* would, the offered names sharing a word with
    the request (the offered names are the schema's enum)."""
    wanted = {w.strip(".,!?").lower() for w in request.split()}

    def answer(messages: Sequence[Message], schema: dict) -> dict:
        offered = schema["properties"]["entities"]["items"]["enum"]
        return {"entities": [n for n in offered if wanted & set(n.split("_"))]}

    return answer


class CountingEmbedder:
    """Wraps the real embedder and records every text it was asked to embed."""

    def __init__(self) -> None:
        self.inner = minilm()
        self.texts: list[str] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.encode(texts)


@cache
def minilm() -> MiniLMEmbedder:
    """The real all-MiniLM-L6-v2 embedder (the model is loaded once per test session)."""
    return MiniLMEmbedder()


def describer() -> EntityDescriber:
    return EntityDescriber(functional_positions(household_rules()))


def graph_of(entities: dict[str, tuple[str, str]], facts: Sequence[tuple[str, ...]]) -> WorldGraph:
    """A graph from ``{name: (type, label)}`` and facts written ``(predicate, *args)``."""
    graph = WorldGraph()
    for name, (type_, label) in entities.items():
        graph.add_entity(name, type_, label=label)
    for predicate, *args in facts:
        graph.add_fact(Fact(predicate, tuple(args)))
    return graph


# A house whose recognition system named everything object_N; the labels are what it saw.
OPAQUE_ENTITIES: dict[str, tuple[str, str]] = {
    "the_robot": ("robot", "robot"),
    "jessica": ("person", "Jessica"),
    "object_1": ("room", "kitchen"),
    "object_2": ("room", "living room"),
    "object_3": ("counter", "counter in the kitchen"),
    "object_4": ("table", "coffee table in the living room"),
    "object_5": ("sink", "kitchen sink"),
    "object_6": ("faucet", "faucet of the kitchen sink"),
    "object_17": ("dish", "red mug"),
    "object_18": ("dish", "blue plate"),
    "object_19": ("book", "red novel"),
    "object_20": ("dish", "white bowl"),
    "object_21": ("drink", "red wine bottle"),
    "object_22": ("dish", "green cup"),
}
OPAQUE_FACTS: tuple[tuple[str, ...], ...] = (
    ("in_room", "the_robot", "object_2"),
    ("hand_empty", "the_robot"),
    ("in_room", "jessica", "object_1"),
    ("in_room", "object_3", "object_1"),
    ("in_room", "object_4", "object_2"),
    ("in_room", "object_5", "object_1"),
    ("in_room", "object_6", "object_1"),
    ("faucet_of", "object_6", "object_5"),
    ("on", "object_17", "object_3"),
    ("on", "object_18", "object_4"),
    ("on", "object_19", "object_4"),
    ("on", "object_20", "object_5"),
    ("on", "object_21", "object_3"),
    ("on", "object_22", "object_4"),
    ("dirty", "object_20"),
)


def opaque_house() -> WorldGraph:
    return graph_of(OPAQUE_ENTITIES, OPAQUE_FACTS)
