"""Entity texts and the incrementally synced embedding index (real all-MiniLM-L6-v2)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from l3mp.domain.triplets import Fact
from l3mp.retrieval.embeddings import EntityDescriber, EntityIndex, MiniLMEmbedder, shared_model, stem, words
from l3mp.world.graph import WorldGraph
from tests.retrieval.support import CountingEmbedder, describer, opaque_house


@pytest.fixture
def counted() -> tuple[EntityIndex, CountingEmbedder, WorldGraph]:
    embedder = CountingEmbedder()
    index = EntityIndex(embedder, describer())
    graph = opaque_house()
    index.sync(graph)
    embedder.texts.clear()
    return index, embedder, graph


def rebuilt(graph: WorldGraph) -> EntityIndex:
    index = EntityIndex(MiniLMEmbedder(), describer())
    index.sync(graph)
    return index


def assert_same_as_rebuild(index: EntityIndex, graph: WorldGraph) -> None:
    fresh = rebuilt(graph)
    assert sorted(index.names) == sorted(fresh.names) == sorted(graph.entities())
    assert index.texts() == fresh.texts()
    ours = dict(zip(index.names, index.vectors(), strict=True))
    theirs = dict(zip(fresh.names, fresh.vectors(), strict=True))
    for name in ours:
        np.testing.assert_allclose(ours[name], theirs[name], atol=1e-5)
    probe = MiniLMEmbedder().encode(["red mug", "kitchen"])
    ranked = [[index.name(int(i)) for i in np.argsort(-row)[:3]] for row in index.similarity(probe)]
    ranked_fresh = [[fresh.name(int(i)) for i in np.argsort(-row)[:3]] for row in fresh.similarity(probe)]
    assert ranked == ranked_fresh


def test_entity_text_has_name_type_label_and_salient_facts() -> None:
    graph = opaque_house()
    text = describer().text
    assert text(graph, "object_17") == "object (dish): red mug; on counter in the kitchen"
    assert text(graph, "object_20") == "object (dish): white bowl; dirty; on kitchen sink"
    assert text(graph, "object_1") == "object (room): kitchen"  # incoming in_room facts are not salient
    graph.add_fact(Fact("has", ("jessica", "object_21")))
    graph.remove_fact(Fact("on", ("object_21", "object_3")))
    assert text(graph, "object_21") == "object (drink): red wine bottle; Jessica has it"  # rule: has is functional
    assert EntityDescriber().text(graph, "object_21") == "object (drink): red wine bottle"  # without rules
    assert text(graph, "the_robot") == "the robot (robot): robot; hand empty; in room living room"
    assert words("red_mug-1") == "red mug 1"
    assert (stem("red_mug_12"), stem("bedroom-2"), stem("tv"), stem("x_2_b")) == ("red mug", "bedroom", "tv", "x 2 b")


def test_entity_text_caps_facts() -> None:
    graph = opaque_house()
    for predicate in ("ringing", "dirty"):
        graph.add_fact(Fact(predicate, ("object_17",)))
    assert EntityDescriber(max_facts=1).text(graph, "object_17") == "object (dish): red mug; dirty"


def test_full_sync_embeds_everything_once(counted) -> None:
    index, embedder, graph = counted
    assert len(index) == graph.entity_count()
    norms = np.linalg.norm(index.vectors(), axis=1)
    np.testing.assert_allclose(norms, 1.0, atol=1e-5)
    stats = index.sync(graph)
    assert (stats.added, stats.changed, stats.removed, stats.embedded) == (0, 0, 0, 0)
    assert embedder.texts == []


def test_adding_an_entity_embeds_only_it(counted) -> None:
    index, embedder, graph = counted
    graph.add_entity("object_30", "dish", label="yellow teapot")
    graph.add_fact(Fact("on", ("object_30", "object_3")))  # the counter's own text does not change
    stats = index.sync(graph)
    assert (stats.added, stats.changed, stats.removed) == (1, 0, 0)
    assert embedder.texts == ["object (dish): yellow teapot; on counter in the kitchen"]
    assert_same_as_rebuild(index, graph)


def test_moving_an_entity_re_embeds_only_it(counted) -> None:
    index, embedder, graph = counted
    graph.remove_fact(Fact("on", ("object_17", "object_3")))
    graph.add_fact(Fact("on", ("object_17", "object_4")))
    stats = index.sync(graph)
    assert (stats.added, stats.changed, stats.embedded) == (0, 1, 1)
    assert embedder.texts == ["object (dish): red mug; on coffee table in the living room"]
    assert_same_as_rebuild(index, graph)


def test_a_fact_that_leaves_every_text_alone_embeds_nothing(counted) -> None:
    index, embedder, graph = counted
    graph.add_fact(Fact("on", ("object_19", "object_3")))  # a second place: an incoming fact of the counter
    graph.remove_fact(Fact("on", ("object_19", "object_4")))
    graph.add_fact(Fact("on", ("object_19", "object_4")))
    graph.remove_fact(Fact("on", ("object_19", "object_3")))
    assert index.sync(graph).embedded == 0
    assert embedder.texts == []


def test_relabelling_re_embeds_it_and_the_entities_that_mention_it(counted) -> None:
    index, embedder, graph = counted
    graph.add_entity("object_3", "counter", label="kitchen island")
    stats = index.sync(graph)
    assert sorted(embedder.texts) == [
        "object (counter): kitchen island; in room kitchen",
        "object (dish): red mug; on kitchen island",
        "object (drink): red wine bottle; on kitchen island",
    ]
    assert stats.changed == 3
    assert_same_as_rebuild(index, graph)


def test_removing_entities_drops_their_rows(counted) -> None:
    index, _, graph = counted
    for name in ("object_17", "object_19"):
        for fact in list(graph.facts_of(name)):
            graph.remove_fact(fact)
        graph.remove_entity(name)
    stats = index.sync(graph)
    assert (stats.removed, stats.embedded) == (2, 0)
    assert "object_17" not in index.names
    assert_same_as_rebuild(index, graph)


def test_mixed_changes_match_a_full_rebuild(counted) -> None:
    index, _, graph = counted
    graph.add_entity("object_31", "food", label="green apple")
    graph.add_fact(Fact("on", ("object_31", "object_4")))
    for fact in list(graph.facts_of("object_18")):
        graph.remove_fact(fact)
    graph.remove_entity("object_18")
    graph.remove_fact(Fact("on", ("object_22", "object_4")))
    graph.add_fact(Fact("on", ("object_22", "object_5")))
    graph.add_entity("object_2", "room", label="den")
    graph.add_fact(Fact("dirty", ("object_17",)))
    index.sync(graph)
    assert_same_as_rebuild(index, graph)


def test_type_mask_and_empty_index() -> None:
    index = EntityIndex(MiniLMEmbedder(), describer())
    assert index.similarity(MiniLMEmbedder().encode(["x"])).shape == (1, 0)
    index.sync(opaque_house())
    probe = MiniLMEmbedder().encode(["red mug", "sink"])
    np.testing.assert_allclose(index.similarity(probe), probe @ index.vectors().T, atol=1e-6)
    mask = index.type_mask({"dish", "drink"})
    assert sorted(n for n, m in zip(index.names, mask, strict=True) if m) == [
        "object_17", "object_18", "object_20", "object_21", "object_22"]
    assert not index.type_mask({"no_such_type"}).any()


def test_model_is_loaded_once_per_process() -> None:
    assert shared_model() is shared_model()
    assert MiniLMEmbedder().encode([]).shape == (0, 384)


class HashEmbedder:
    """Test double standing in for the sentence model: a deterministic unit vector per text (no model)."""

    def encode(self, texts) -> np.ndarray:
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest(), dtype=np.uint8)[:16] for t in texts]
        vectors = np.asarray(rows, dtype=np.float32).reshape(len(texts), 16) + 1.0
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


SURFACES = ("object_3", "object_4", "object_5")
LABELS = ("red mug", "kitchen island", "old book", "")

operations = st.one_of(
    st.tuples(st.just("add"), st.integers(0, 5), st.sampled_from(SURFACES), st.sampled_from(LABELS)),
    st.tuples(st.just("remove"), st.integers(0, 20)),
    st.tuples(st.just("move"), st.integers(0, 20), st.sampled_from(SURFACES)),
    st.tuples(st.just("relabel"), st.integers(0, 20), st.sampled_from(LABELS)),
    st.tuples(st.just("dirty"), st.integers(0, 20)),
    st.tuples(st.just("sync")),
)


def items_of(graph: WorldGraph) -> list[str]:
    return sorted(n for n in graph.entities() if graph.entity_type(n) in ("dish", "book", "drink"))


def apply(graph: WorldGraph, op: tuple, index: EntityIndex, serial: list[int]) -> None:
    kind, *args = op
    items = items_of(graph)
    if kind == "add":
        serial[0] += 1
        name = f"new_{serial[0]}"
        graph.add_entity(name, "dish", label=args[2])
        graph.add_fact(Fact("on", (name, args[1])))
    elif kind == "sync":
        index.sync(graph)
    elif not items:
        return
    elif kind == "remove":
        name = items[args[0] % len(items)]
        for fact in list(graph.facts_of(name)):
            graph.remove_fact(fact)
        graph.remove_entity(name)
    elif kind == "move":
        name = items[args[0] % len(items)]
        for fact in [f for f in graph.facts_of(name) if f.predicate == "on"]:
            graph.remove_fact(fact)
        graph.add_fact(Fact("on", (name, args[1])))
    elif kind == "relabel":
        target = sorted(graph.entities())[args[0] % graph.entity_count()]
        graph.add_entity(target, str(graph.entity_type(target)), label=args[1])
    else:
        fact = Fact("dirty", (items[args[0] % len(items)],))
        (graph.remove_fact if graph.has_fact(fact) else graph.add_fact)(fact)


@settings(max_examples=150, deadline=None)
@given(st.lists(operations, max_size=25))
def test_incremental_sync_equals_a_full_rebuild_after_any_changes(ops: list[tuple]) -> None:
    graph = opaque_house()
    index = EntityIndex(HashEmbedder(), describer())
    index.sync(graph)
    serial = [0]
    for op in ops:
        apply(graph, op, index, serial)
    index.sync(graph)
    fresh = EntityIndex(HashEmbedder(), describer())
    fresh.sync(graph)
    assert index.texts() == fresh.texts()
    ours = dict(zip(index.names, index.vectors(), strict=True))
    assert all(np.array_equal(ours[n], v) for n, v in zip(fresh.names, fresh.vectors(), strict=True))
    assert np.array_equal(index.type_mask({"dish"}), np.array([graph.entity_type(n) == "dish" for n in index.names]))


def test_one_index_moved_to_another_graph_equals_a_rebuild() -> None:
    index = EntityIndex(HashEmbedder(), describer())
    index.sync(opaque_house())
    other = opaque_house()
    other.add_entity("object_3", "counter", label="kitchen island")
    for name in ("object_18", "object_19"):
        for fact in list(other.facts_of(name)):
            other.remove_fact(fact)
        other.remove_entity(name)
    index.sync(other)
    fresh = EntityIndex(HashEmbedder(), describer())
    fresh.sync(other)
    assert index.texts() == fresh.texts()
