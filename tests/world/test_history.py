"""History over a store: changes in a window, the graph at a past time, explanations, fast replay."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from l3mp.domain.triplets import Fact
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.graph import WorldGraph
from l3mp.world.history import FactStory, History, apply_record, rebuild, replay
from l3mp.world.record import ChangeRecord
from l3mp.world.store import Store

CUP_ON_SHELF = "I put the red cup on the shelf"
TIMELINE = [
    ChangeRecord(
        1,
        10.0,
        "import",
        Delta(
            add=(Fact("in_room", ("table_1", "kitchen")), Fact("on", ("cup_1", "table_1"))),
            entities={
                "kitchen": EntitySpec("room"),
                "table_1": EntitySpec("table"),
                "shelf_1": EntitySpec("shelf"),
                "cup_1": EntitySpec("cup", label="red cup"),
                "light_1": EntitySpec("light"),
            },
        ),
    ),
    ChangeRecord(2, 20.0, "perception", Delta(add=(Fact("light_on", ("light_1",)),)), ref="obs-2"),
    ChangeRecord(
        3,
        30.0,
        "nl",
        Delta(remove=(Fact("on", ("cup_1", "table_1")),), add=(Fact("on", ("cup_1", "shelf_1")),)),
        input=CUP_ON_SHELF,
    ),
    ChangeRecord(
        4,
        30.0,
        "perception",
        Delta(add=(Fact("on", ("cup_2", "table_1")),), entities={"cup_2": EntitySpec("cup")}),
        ref="obs-4",
    ),
    ChangeRecord(
        5,
        45.0,
        "plan",
        Delta(remove=(Fact("light_on", ("light_1",)),)),
        input="(switch_off the_robot light_1)",
        ref="task-7",
    ),
    ChangeRecord(
        6, 50.0, "user", Delta(remove=(Fact("on", ("cup_2", "table_1")),), remove_entities=("cup_2",))
    ),
    ChangeRecord(7, 60.0, "perception", Delta(add=(Fact("raining", ()),)), ref="obs-7"),
]


def graph_after(records: list[ChangeRecord]) -> WorldGraph:
    graph = WorldGraph()
    for record in records:
        apply_record(graph, record)
    return graph


def make_store(path: Path, snapshots: tuple[int, ...]) -> Store:
    """An open store holding TIMELINE, snapshotted after the given records."""
    store = Store(path, fsync=False)
    store.open()
    for record in TIMELINE:
        store.append([record])
        if record.seq in snapshots:
            store.snapshot(graph_after(TIMELINE[: record.seq]).to_json(), record.seq, record.time)
    return store


SNAPSHOT_PLANS = [(), (3,), (2, 5), (1, 4, 7)]


@pytest.fixture(params=SNAPSHOT_PLANS, ids=lambda plan: "snapshots" + "-".join(map(str, plan)))
def store(request: pytest.FixtureRequest, tmp_path: Path):
    store = make_store(tmp_path, request.param)
    yield store
    store.close()


# ---- replaying records ------------------------------------------------------------------
def test_apply_record_removes_then_adds_and_cascades_entity_removal() -> None:
    graph = graph_after(TIMELINE[:4])
    assert graph.fact_since(Fact("on", ("cup_1", "shelf_1"))) == 3
    assert graph.entity_attrs("cup_1") == {"type": "cup", "label": "red cup", "since": 1}
    record = ChangeRecord(8, 70.0, "user", Delta(remove_entities=("cup_2", "nothing")))
    apply_record(graph, record)  # (on cup_2 table_1) is not spelled out: removed with its entity
    assert not graph.has_entity("cup_2") and not graph.has_fact(Fact("on", ("cup_2", "table_1")))
    apply_record(graph, ChangeRecord(9, 71.0, "user", Delta(entities={"cup_1": EntitySpec("mug")})))
    assert graph.entity_attrs("cup_1") == {"type": "mug", "label": "red cup", "since": 1}


def test_rebuild_gives_the_final_graph(store: Store, tmp_path: Path) -> None:
    store.close()
    with Store(tmp_path, read_only=True) as reader:
        assert rebuild(reader.open()).to_json() == graph_after(TIMELINE).to_json()


@st.composite
def timelines(draw) -> tuple[WorldGraph, list[ChangeRecord], WorldGraph]:
    """A random base graph, valid records after it, and the graph they lead to one by one."""
    names = ["a", "b", "c", "d", "e"]
    graph = WorldGraph()
    for name in draw(st.lists(st.sampled_from(names), unique=True)):
        graph.add_entity(name, draw(st.sampled_from(["cup", "box"])), since=draw(st.integers(0, 3)))
    base = graph.copy()
    records = []
    for seq in range(10, 10 + draw(st.integers(0, 12))):
        delta = draw(deltas(graph, names))
        records.append(ChangeRecord(seq, float(seq), "user", delta))
        apply_record(graph, records[-1])
    return base, records, graph


@st.composite
def deltas(draw, graph: WorldGraph, names: list[str]) -> Delta:
    existing = sorted(graph.entities())
    remove = (
        draw(st.lists(st.sampled_from(sorted(graph.facts(), key=str)), unique=True)) if len(graph) else []
    )
    gone = draw(st.lists(st.sampled_from(names), unique=True, max_size=2))
    specs = st.builds(EntitySpec, st.sampled_from(["cup", "box"]), st.sampled_from([None, "red", "blue"]))
    entities = draw(st.dictionaries(st.sampled_from(names), specs, max_size=2))
    alive = sorted((set(existing) - set(gone)) | set(entities))
    add = []
    if alive:
        arg = st.sampled_from(alive)
        fact = st.one_of(
            st.builds(lambda a: Fact("p", (a,)), arg),
            st.builds(lambda a, b: Fact("r", (a, b)), arg, arg),
            st.builds(lambda a, b, c: Fact("t", (a, b, c)), arg, arg, arg),
            st.just(Fact("z", ())),
        )
        add = draw(st.lists(fact, unique=True, max_size=4))
    return Delta(remove=tuple(remove), add=tuple(add), entities=entities, remove_entities=tuple(gone))


@settings(max_examples=100, deadline=None)
@given(timeline=timelines(), split=st.integers(0, 12))
def test_fast_replay_equals_applying_records_one_by_one(timeline, split: int) -> None:
    base, records, expected = timeline
    graph = base.copy()
    replay(graph, (r.to_json() for r in records[:split]))
    replay(graph, (r.to_json() for r in records[split:]))
    assert graph.to_json() == expected.to_json()
    assert all(isinstance(fact, Fact) for fact in graph.facts())


# ---- changes ----------------------------------------------------------------------------
def seqs(records: list[ChangeRecord]) -> list[int]:
    return [r.seq for r in records]


def test_changes_in_a_time_window(store: Store) -> None:
    history = History(store)
    assert history.changes() == TIMELINE
    assert seqs(history.changes(start_time=30.0, end_time=50.0)) == [3, 4, 5, 6]
    assert seqs(history.changes(start_time=30.5)) == [5, 6, 7]
    assert seqs(history.changes(end_time=29.9)) == [1, 2]
    assert history.changes(start_time=61.0) == [] and history.changes(end_time=9.0) == []


def test_changes_of_an_entity_or_a_source(store: Store) -> None:
    history = History(store)
    assert seqs(history.changes(entity="cup_2")) == [4, 6]
    assert seqs(history.changes(entity="TABLE_1")) == [1, 3, 4, 6]
    assert seqs(history.changes(entity="light_1", start_time=15.0)) == [2, 5]
    assert seqs(history.changes(source="perception")) == [2, 4, 7]
    assert seqs(history.changes(source="perception", entity="cup_2", end_time=40.0)) == [4]
    assert history.changes(entity="nobody") == []


# ---- the graph in the past --------------------------------------------------------------
@pytest.mark.parametrize("time", [0.0, 10.0, 15.0, 20.0, 29.99, 30.0, 44.9, 45.0, 50.0, 60.0, 1e9])
def test_graph_at_replays_every_record_up_to_the_time(store: Store, time: float) -> None:
    expected = graph_after([r for r in TIMELINE if r.time <= time])
    assert History(store).graph_at(time).to_json() == expected.to_json()


def test_graph_at_skips_an_unreadable_snapshot(tmp_path: Path) -> None:
    store = make_store(tmp_path, (2, 5))
    snapshot = tmp_path / "snapshot-000000000005.json"
    snapshot.write_bytes(snapshot.read_bytes()[:-5] + b"oops\n")
    assert History(store).graph_at(55.0).to_json() == graph_after(TIMELINE[:6]).to_json()
    store.close()


# ---- explanations -----------------------------------------------------------------------
def test_explain_says_when_and_why_each_fact_became_true(store: Store) -> None:
    history = History(store)
    graph = history.graph_at(1e9)
    assert history.explain(graph, "cup_1") == [
        FactStory(Fact("on", ("cup_1", "shelf_1")), 3, 30.0, "nl", CUP_ON_SHELF, None)
    ]
    assert history.explain(graph, "Table_1") == [
        FactStory(Fact("in_room", ("table_1", "kitchen")), 1, 10.0, "import", None, None)
    ]
    assert history.explain(graph_after(TIMELINE[:2]), "light_1") == [
        FactStory(Fact("light_on", ("light_1",)), 2, 20.0, "perception", None, "obs-2")
    ]
    assert history.explain(graph, "cup_2") == []


def test_explain_facts_without_a_record(store: Store) -> None:
    graph = WorldGraph.from_json(graph_after(TIMELINE).to_json(with_since=False))
    graph.add_entity("box_9", "box")
    graph.add_fact(Fact("on", ("box_9", "shelf_1")), since=99)
    stories = History(store).explain(graph, "shelf_1")
    assert stories == [
        FactStory(Fact("on", ("cup_1", "shelf_1")), 0),
        FactStory(Fact("on", ("box_9", "shelf_1")), 99),
    ]
