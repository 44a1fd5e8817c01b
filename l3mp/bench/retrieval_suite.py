"""Suite ``retrieval``: search-based retrieval latency, embedding upkeep, and context size per retrieval mode."""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from l3mp_sim.house import generate_house

from l3mp.bench.runner import Metric, error_metric, percentile, register
from l3mp.domain.paths import domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.llm.client import count_tokens
from l3mp.llm.contract import fact_lines
from l3mp.llm.types import LLMReply, Message, TokenLedger, Usage
from l3mp.retrieval import EntitySelectionRetriever, FullRetriever, SearchRetriever
from l3mp.retrieval.base import Retrieved, Retriever
from l3mp.retrieval.context import describe_entities
from l3mp.retrieval.query_graph import QueryEdge, QueryGraph, QueryNode
from l3mp.world.graph import WorldGraph

SEED = 11
PAPER_REDUCTION = 67.6
"""Percent fewer tokens of R^S than R- in the paper (section V-A, finding 7)."""

CONTAINERS = frozenset({"fridge", "cupboard", "dishwasher"})
SURFACES = frozenset({"table", "counter", "shelf", "sink"})


@dataclass(frozen=True)
class Scale:
    """How big each measurement is (full run or --quick)."""

    sizes: tuple[int, ...]
    queries: int
    added: int
    singles: int


FULL = Scale(sizes=(2_000, 20_000), queries=200, added=200, singles=20)
QUICK = Scale(sizes=(2_000,), queries=50, added=50, singles=5)
TARGET_P95_MS = {2_000: 50.0, 20_000: 250.0}
"""Search latency targets (p95, without the LLM) by house size."""


@register("retrieval")
def retrieval_suite(quick: bool) -> Iterator[Metric]:
    """Every part runs even if an earlier one fails (its failure becomes an error metric)."""
    scale = QUICK if quick else FULL
    domain = Domain.from_file(domain_path("household"))
    parts: list[tuple[str, Callable[[], Iterator[Metric]]]] = [
        (f"search_{_k(n)}", lambda n=n: _search_at(domain, n, scale)) for n in scale.sizes]
    parts.append(("prompt", lambda: _prompt_sizes(domain)))
    for name, part in parts:
        try:
            yield from part()
        except Exception as exc:  # the other parts still measure
            yield error_metric(f"{name}.error", exc)


# ---- shared helpers -------------------------------------------------------------------------
def _k(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


class _Places:
    """Where everything is in a graph: items on receptacles, fixtures and people in rooms."""

    def __init__(self, graph: WorldGraph) -> None:
        self.graph = graph
        self.place = {f.args[0]: f for p in ("on", "inside") for f in graph.facts(predicate=p)}
        self.room = {f.args[0]: f.args[1] for f in graph.facts(predicate="in_room")}
        self.items = sorted(self.place)
        self.people = sorted(n for n in graph.entities() if graph.entity_type(n) == "person")
        self.receptacles = sorted(n for n in graph.entities() if graph.entity_type(n) in SURFACES | CONTAINERS)

    def label(self, name: str) -> str:
        return str(self.graph.entity_attrs(name).get("label") or name)

    def node(self, name: str) -> QueryNode:
        return QueryNode(name, self.label(name), self.graph.entity_type(name))


# ---- 1. search latency (no LLM) and embedding upkeep -------------------------------------------
def _query(places: _Places, rng: random.Random, size: int) -> QueryGraph:
    """A query graph of `size` (1-5) nodes from the house's labels: an item, its receptacle, the
    receptacle's room, a person in that room (or anywhere) and another item on the same receptacle."""
    item = rng.choice(places.items)
    place = places.place[item]
    receptacle = place.args[1]
    room = places.room[receptacle]
    people = [p for p in places.people if places.room.get(p) == room] or places.people
    others = [i for i in places.items if places.place[i].args[1] == receptacle and i != item]
    chain: list[tuple[str, QueryEdge | None]] = [
        (item, None),
        (receptacle, QueryEdge(item, place.predicate, receptacle)),
        (room, QueryEdge(receptacle, "in_room", room)),
        (rng.choice(people), None),
    ]
    if others:
        other = rng.choice(others)
        chain.append((other, QueryEdge(other, place.predicate, receptacle)))
    chosen = chain[:size]
    ids = {name for name, _ in chosen}
    nodes = tuple(places.node(name) for name, _ in chosen)
    edges = tuple(e for _, e in chosen if e is not None and e.source in ids and e.target in ids)
    return QueryGraph(nodes, edges)


def _search_at(domain: Domain, size: int, scale: Scale) -> Iterator[Metric]:
    graph = generate_house(seed=SEED, target_entities=size).to_graph()
    retriever = SearchRetriever(_Scripted([]), domain, query_graph="llm")
    tag = _k(size)
    start = time.perf_counter()
    retriever.index.sync(graph)
    yield Metric(f"index_build_{tag}", time.perf_counter() - start, "s",
                 notes=f"embed all {graph.entity_count():,} entity texts once (all-MiniLM-L6-v2, CPU)")
    yield from _latency(retriever, graph, TARGET_P95_MS.get(size), tag, scale)
    yield from _upkeep(retriever, graph, tag, scale)


def _latency(retriever: SearchRetriever, graph: WorldGraph, target: float | None, tag: str,
             scale: Scale) -> Iterator[Metric]:
    places = _Places(graph)
    rng = random.Random(SEED)
    queries = [_query(places, rng, 1 + i % 5) for i in range(scale.queries)]
    retriever.search(queries[0], graph)  # warm-up
    totals, cpus, embeds, matches, syncs = [], [], [], [], []
    for query in queries:
        start, cpu = time.perf_counter(), time.process_time()
        details = retriever.search(query, graph).details
        totals.append((time.perf_counter() - start) * 1e3)
        cpus.append((time.process_time() - cpu) * 1e3)
        embeds.append(details["seconds_embed"] * 1e3)
        matches.append(details["seconds_match"] * 1e3)
        syncs.append(details["sync"]["seconds"] * 1e3)
    what = (f"R^S without the LLM: sync + embed 1-5 query nodes + similarity + DFS + expansion; "
            f"{len(queries)} query graphs on a {graph.entity_count():,}-entity house")
    yield Metric(f"search_{tag}_p50", percentile(totals, 0.5), "ms", notes=what)
    yield Metric(f"search_{tag}_p95", percentile(totals, 0.95), "ms", target, "max" if target else None, notes=what)
    yield Metric(f"search_{tag}_cpu_p95", percentile(cpus, 0.95), "ms",
                 notes="CPU time of this process per search (what the search needs when it has a core to itself)")
    yield Metric(f"search_{tag}_embed_p50", percentile(embeds, 0.5), "ms",
                 notes="of which: index sync (a no-op here) + embedding the query nodes + similarity")
    yield Metric(f"search_{tag}_sync_p50", percentile(syncs, 0.5), "ms",
                 notes="of which: the sync scan that finds nothing changed")
    yield Metric(f"search_{tag}_match_p50", percentile(matches, 0.5), "ms", notes="of which: Algorithm 2 (DFS)")


def _add_items(graph: WorldGraph, places: _Places, rng: random.Random, count: int, tag: str) -> None:
    for i in range(count):
        name = f"bench_{tag}_{i}"
        receptacle = rng.choice(places.receptacles)
        graph.add_entity(name, "dish", label=f"{rng.choice(['red', 'blue', 'green'])} bench mug {i}")
        predicate = "inside" if graph.entity_type(receptacle) in CONTAINERS else "on"
        graph.add_fact(Fact(predicate, (name, receptacle)))


def _move_items(graph: WorldGraph, places: _Places, rng: random.Random, count: int) -> None:
    for item in rng.sample(places.items, count):
        old = next(f for f in graph.facts_of(item) if f.predicate in ("on", "inside") and f.args[0] == item)
        receptacle = rng.choice([r for r in places.receptacles if r != old.args[1]])
        graph.remove_fact(old)
        predicate = "inside" if graph.entity_type(receptacle) in CONTAINERS else "on"
        graph.add_fact(Fact(predicate, (item, receptacle)))


def _upkeep(retriever: SearchRetriever, graph: WorldGraph, tag: str, scale: Scale) -> Iterator[Metric]:
    index, places, rng = retriever.index, _Places(graph), random.Random(SEED)
    _add_items(graph, places, rng, scale.added, f"batch_{tag}")
    stats = index.sync(graph)
    yield Metric(f"upkeep_add_{tag}", stats.seconds * 1e3 / scale.added, "ms/entity",
                 notes=f"{scale.added} entities added through the graph, then one incremental sync "
                       f"({stats.embedded} texts embedded)")
    singles = []
    for i in range(scale.singles):
        _add_items(graph, places, rng, 1, f"one_{tag}_{i}")
        singles.append(index.sync(graph).seconds * 1e3)
    yield Metric(f"upkeep_add_one_{tag}", statistics.median(singles), "ms",
                 notes=f"median of {scale.singles}: add one entity, sync (scan + one embedding)")
    _move_items(graph, places, rng, scale.added)
    stats = index.sync(graph)
    yield Metric(f"upkeep_move_{tag}", stats.seconds * 1e3 / scale.added, "ms/entity",
                 notes=f"{scale.added} items moved, one sync ({stats.embedded} texts re-embedded)")


# ---- 2. context size per mode on 20 update sentences ---------------------------------------------
@dataclass(frozen=True)
class Sentence:
    """An update sentence, the entities it is about, and the query graph an LLM would write for it
    (relations only as they hold before the update, as the query-graph prompt asks)."""

    text: str
    entities: tuple[str, ...]
    query: QueryGraph


class _Scripted:
    """Test double standing in for the LLM: answers each call with the next scripted JSON value and
    counts tokens (tiktoken cl100k_base) in the ledger."""

    name = "scripted:bench"

    def __init__(self, answers: list[Any]) -> None:
        self._answers = list(answers)

    def complete_json(self, messages: Sequence[Message], *, schema: dict, schema_name: str, purpose: str,
                      ledger: TokenLedger | None = None) -> LLMReply:
        data = self._answers.pop(0)
        text = json.dumps(data)
        usage = Usage(sum(count_tokens(m["content"]) for m in messages), count_tokens(text))
        if ledger is not None:
            ledger.add(purpose, usage)
        return LLMReply(data, text, usage, self.name)


def context_tokens(graph: WorldGraph, retrieved: Retrieved) -> int:
    """Tokens of the retrieved context as the update prompt shows it (entity lines + fact triplets)."""
    names = set(retrieved.entities) | {a for f in retrieved.facts for a in f.args}
    return count_tokens(describe_entities(graph, names) + "\n" + fact_lines(retrieved.facts))


def update_sentences(graph: WorldGraph, count: int = 20, seed: int = SEED) -> list[Sentence]:
    """`count` update sentences about the house, each with its entities and its query graph."""
    places, rng = _Places(graph), random.Random(seed)
    makers = [_move, _light, _into, _dirty, _walk, _switch_tv, _open, _answer, _faucet, _give]
    out: list[Sentence] = []
    while len(out) < count:
        if not makers:
            raise ValueError("the house has nothing to write update sentences about")
        maker = makers[len(out) % len(makers)]
        sentence = maker(places, rng)
        if sentence is None:
            makers.remove(maker)
        else:
            out.append(sentence)
    return out


def _sentence(places: _Places, text: str, names: Sequence[str], edges: Sequence[tuple[str, str, str, str]]) -> Sentence:
    nodes = tuple(places.node(n) for n in names)
    return Sentence(text, tuple(names), QueryGraph(nodes, tuple(QueryEdge(*e) for e in edges)))


def _of_type(places: _Places, *types: str) -> list[str]:
    return sorted(n for n in places.graph.entities() if places.graph.entity_type(n) in types)


def _move(places: _Places, rng: random.Random) -> Sentence | None:
    item = rng.choice([i for i in places.items if places.place[i].predicate == "on"])
    src = places.place[item].args[1]
    dst = rng.choice([s for s in _of_type(places, *SURFACES) if s != src])
    person = rng.choice(places.people)
    lab = places.label
    text = f"{lab(person)} moved the {lab(item)} from the {lab(src)} to the {lab(dst)}."
    return _sentence(places, text, [person, item, src, dst], [(item, "on", src, f"from the {lab(src)}")])


def _into(places: _Places, rng: random.Random) -> Sentence | None:
    item = rng.choice([i for i in places.items if places.place[i].predicate == "on"])
    src = places.place[item].args[1]
    container = rng.choice(_of_type(places, *CONTAINERS))
    lab = places.label
    text = f"Someone put the {lab(item)} from the {lab(src)} into the {lab(container)}."
    return _sentence(places, text, [item, src, container], [(item, "on", src, f"from the {lab(src)}")])


def _light(places: _Places, rng: random.Random) -> Sentence | None:
    light, person = rng.choice(_of_type(places, "light")), rng.choice(places.people)
    state = "off" if places.graph.has_fact(Fact("light_on", (light,))) else "on"
    return _sentence(places, f"{places.label(person)} turned {state} the {places.label(light)}.", [person, light], [])


def _switch_tv(places: _Places, rng: random.Random) -> Sentence | None:
    tvs = _of_type(places, "tv")
    if not tvs:
        return None
    tv = rng.choice(tvs)
    state = "off" if places.graph.has_fact(Fact("tv_on", (tv,))) else "on"
    return _sentence(places, f"The {places.label(tv)} was switched {state}.", [tv], [])


def _dirty(places: _Places, rng: random.Random) -> Sentence | None:
    dishes = [i for i in places.items if places.graph.entity_type(i) == "dish" and places.place[i].predicate == "on"]
    if not dishes:
        return None
    dish = rng.choice(dishes)
    surface = places.place[dish].args[1]
    text = f"The {places.label(dish)} on the {places.label(surface)} got dirty."
    return _sentence(places, text, [dish, surface], [(dish, "on", surface, f"on the {places.label(surface)}")])


def _walk(places: _Places, rng: random.Random) -> Sentence | None:
    person = rng.choice(places.people)
    room = rng.choice([r for r in _of_type(places, "room") if r != places.room.get(person)])
    text = f"{places.label(person)} walked into the {places.label(room)}."
    return _sentence(places, text, [person, room], [])


def _open(places: _Places, rng: random.Random) -> Sentence | None:
    container, person = rng.choice(_of_type(places, *CONTAINERS)), rng.choice(places.people)
    state = "closed" if places.graph.has_fact(Fact("is_open", (container,))) else "opened"
    return _sentence(places, f"{places.label(person)} {state} the {places.label(container)}.", [person, container], [])


def _answer(places: _Places, rng: random.Random) -> Sentence | None:
    phones = [i for i in places.items if places.graph.entity_type(i) == "phone"]
    if not phones:
        return None
    phone, person = rng.choice(phones), rng.choice(places.people)
    where = places.place[phone].args[1]
    text = f"{places.label(person)} answered the {places.label(phone)} lying on the {places.label(where)}."
    return _sentence(places, text, [person, phone, where], [(phone, "on", where, f"on the {places.label(where)}")])


def _faucet(places: _Places, rng: random.Random) -> Sentence | None:
    faucet = rng.choice(_of_type(places, "faucet"))
    return _sentence(places, f"Someone turned on the {places.label(faucet)}.", [faucet], [])


def _give(places: _Places, rng: random.Random) -> Sentence | None:
    held = sorted(places.graph.facts(predicate="has"))
    if not held or len(places.people) < 2:
        return None
    giver, item = rng.choice(held).args
    taker = rng.choice([p for p in places.people if p != giver])
    lab = places.label
    text = f"{lab(giver)} gave the {lab(item)} to {lab(taker)}."
    return _sentence(places, text, [giver, item, taker], [(giver, "has", item, f"{lab(giver)} gave the {lab(item)}")])


def _retrievers(domain: Domain, sentences: list[Sentence]) -> dict[str, Retriever]:
    """The three modes, the LLM of R+ and R^S scripted to name the right entities / write the query graph."""
    selections = [{"entities": list(s.entities)} for s in sentences]
    queries = [s.query.to_json() for s in sentences]
    return {"full": FullRetriever(), "entities": EntitySelectionRetriever(_Scripted(selections), domain),
            "search": SearchRetriever(_Scripted(queries), domain, query_graph="llm")}


def _prompt_sizes(domain: Domain) -> Iterator[Metric]:
    house = generate_house(seed=SEED)
    graph = house.to_graph()
    sentences = update_sentences(graph)
    context: dict[str, list[int]] = {}
    overhead: dict[str, list[int]] = {}
    hits = found = 0
    for mode, retriever in _retrievers(domain, sentences).items():
        for sentence in sentences:
            ledger = TokenLedger()
            retrieved = retriever.retrieve(sentence.text, graph, ledger=ledger)
            context.setdefault(mode, []).append(context_tokens(graph, retrieved))
            overhead.setdefault(mode, []).append(ledger.total_tokens)
            if mode == "search":
                mapped = {m["node"]: m["entity"] for m in retrieved.details["mapping"]}
                hits += sum(mapped.get(n) == n for n in sentence.entities)
                found += set(sentence.entities) <= retrieved.entities
    where = (f"mean over {len(sentences)} update sentences on a {graph.entity_count()}-entity, "
             f"{graph.fact_count()}-fact house; context rendered as in the update prompt; tiktoken cl100k_base")
    means = {mode: statistics.fmean(values) for mode, values in context.items()}
    for mode, mean in means.items():
        yield Metric(f"context_tokens_{mode}", mean, "tokens", notes=where)
    yield Metric("reduction_search_vs_full", 100 * (1 - means["search"] / means["full"]), "%", PAPER_REDUCTION, "min",
                 notes=f"R^S context vs R- context (paper: {PAPER_REDUCTION}% fewer total tokens)")
    yield Metric("reduction_entities_vs_full", 100 * (1 - means["entities"] / means["full"]), "%",
                 notes="R+ context vs R- context")
    totals = {mode: statistics.fmean(c + o for c, o in zip(context[mode], overhead[mode], strict=True))
              for mode in context}
    yield Metric("reduction_search_vs_full_with_rag", 100 * (1 - totals["search"] / totals["full"]), "%",
                 notes=f"counting R^S's query-graph call (prompt + answer, mean "
                       f"{statistics.fmean(overhead['search']):.0f} tokens) with its context")
    yield Metric("reduction_entities_vs_full_with_rag", 100 * (1 - totals["entities"] / totals["full"]), "%",
                 notes=f"counting R+'s selection call (mean {statistics.fmean(overhead['entities']):.0f} tokens: it "
                       "lists every entity) with its context")
    nodes = sum(len(s.entities) for s in sentences)
    yield Metric("search_node_accuracy", 100 * hits / nodes, "%",
                 notes=f"{hits}/{nodes} scripted query nodes mapped to the entity the sentence means")
    yield Metric("search_recall", 100 * found / len(sentences), "%",
                 notes="sentences whose every meant entity is in the R^S context")
