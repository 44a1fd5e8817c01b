"""Tests of WorldGraph: entities, facts, indexes, neighbourhoods, networkx view, JSON, copy and equality."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from l3mp.domain import Fact
from l3mp.errors import FormatError
from l3mp.world.graph import GRAPH_FORMAT, WorldGraph
from tests.helpers import HOUSE_FACTS, ROBOT, F, house_graph, snapshot


def small_graph() -> WorldGraph:
    g = WorldGraph()
    for name, type_ in [("a", "loc"), ("b", "loc"), ("c", "loc"), ("d", "loc")]:
        g.add_entity(name, type_)
    return g


# ---- entities ---------------------------------------------------------------------------
def test_entities_types_and_attributes():
    g = WorldGraph()
    g.add_entity("mug9", "dish", since=7, label="red mug", description="chipped")
    assert g.has_entity("mug9") and not g.has_entity("mug8")
    assert g.entity_type("mug9") == "dish" and g.entity_type("mug8") is None
    assert g.entity_attrs("mug9") == {
        "type": "dish",
        "since": 7,
        "label": "red mug",
        "description": "chipped",
    }
    assert list(g.entities()) == ["mug9"] and g.entity_count() == 1


def test_add_entity_again_updates_attributes_and_keeps_facts():
    g = house_graph()
    g.add_entity("book1", "book", label="blue book")
    assert g.entity_attrs("book1")["label"] == "blue book"
    assert g.has_fact(F("on", "book1", "table1"))
    assert g.entity_count() == len(list(house_graph().entities()))


def test_add_missing_entities_adds_only_the_absent_ones():
    g = WorldGraph()
    g.add_entity("the_robot", "robot", label="R2")
    g.add_missing_entities({"the_robot": "agent", "sun": "star"})
    assert (g.entity_type("the_robot"), g.entity_attrs("the_robot")["label"]) == ("robot", "R2")
    assert (g.entity_type("sun"), g.entity_attrs("sun")["since"]) == ("star", 0)
    assert sorted(g.entities()) == ["sun", "the_robot"]


def test_remove_entity_with_facts_is_refused_and_changes_nothing():
    g = house_graph()
    before = snapshot(g)
    with pytest.raises(ValueError, match="book1 still has facts"):
        g.remove_entity("book1")
    assert snapshot(g) == before
    # also refused when the entity is only the object of a fact
    with pytest.raises(ValueError):
        g.remove_entity("table1")
    g.remove_fact(F("on", "book1", "table1"))
    g.remove_entity("book1")
    assert not g.has_entity("book1") and "book1" not in g.nx
    assert g.facts_of("book1") == frozenset()


def test_add_fact_with_unknown_entity_raises_and_adds_nothing():
    g = house_graph()
    before = snapshot(g)
    with pytest.raises(KeyError, match="ghost"):
        g.add_fact(F("on", "book1", "ghost"))
    assert snapshot(g) == before
    assert "ghost" not in g.nx


# ---- facts and indexes ----------------------------------------------------------------
def test_add_and_remove_fact_are_idempotent_and_keep_since():
    g = house_graph()
    fact = F("on", "mug1", "table1")
    g.add_fact(fact, since=3)
    g.add_fact(fact, since=9)  # already true: no change, not even of `since`
    assert g.fact_since(fact) == 3
    assert g.fact_count() == len(HOUSE_FACTS) + 1 == len(g)
    g.remove_fact(fact)
    g.remove_fact(fact)
    assert fact not in g and g.fact_since(fact) is None
    assert g.fact_count() == len(HOUSE_FACTS)


def test_fact_queries_by_predicate_and_entity():
    g = house_graph()
    assert set(g.facts()) == set(HOUSE_FACTS)
    assert set(g.facts(predicate="inside")) == {
        F("inside", "apple1", "fridge1"),
        F("inside", "milk1", "fridge1"),
    }
    assert set(g.facts(entity="fridge1")) == {
        F("inside", "apple1", "fridge1"),
        F("inside", "milk1", "fridge1"),
        F("in_room", "fridge1", "kitchen"),
    }
    assert set(g.facts(entity="fridge1", predicate="in_room")) == {F("in_room", "fridge1", "kitchen")}
    assert set(g.facts(predicate="tv_on")) == set()
    assert set(g.facts(entity="nobody")) == set()
    assert g.facts_of("mug1") == frozenset({F("on", "mug1", "counter1"), F("dirty", "mug1")})
    assert F("light_on", "lamp1") in g and F("light_on", "lamp2") not in g


def test_fact_with_a_repeated_argument_is_indexed_once():
    g = small_graph()
    loop = F("next", "a", "a")
    g.add_fact(loop)
    assert g.facts_of("a") == frozenset({loop})
    assert g.nx.has_edge("a", "a", key="next")
    g.remove_fact(loop)
    assert g.facts_of("a") == frozenset() and not g.nx.has_edge("a", "a")
    g.remove_entity("a")


# ---- structure ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("depth", "expected"),
    [
        (0, {"book1"}),
        (1, {"book1", "table1"}),
        (2, {"book1", "table1", "living_room"}),
        (3, {"book1", "table1", "living_room", "lamp1", "tv1", "alice"}),
        (4, {"book1", "table1", "living_room", "lamp1", "tv1", "alice", "phone1"}),
        (9, {"book1", "table1", "living_room", "lamp1", "tv1", "alice", "phone1"}),
    ],
)
def test_neighborhood_follows_facts_in_both_directions_to_the_given_depth(depth, expected):
    assert house_graph().neighborhood(["book1"], depth) == expected


def test_neighborhood_of_several_seeds_ignores_unknown_ones():
    g = house_graph()
    assert g.neighborhood(["ghost"], 3) == set()
    assert g.neighborhood(["lamp2", "ghost", "faucet1"], 1) == {
        "lamp2",
        "bedroom",
        "faucet1",
        "kitchen",
        "sink1",
    }
    # incoming facts count: the room reaches what is in it
    assert g.neighborhood(["bedroom"], 1) == {"bedroom", "lamp2", "shelf1"}


def test_facts_within_keeps_facts_whose_arguments_are_all_inside():
    g = house_graph()
    assert g.facts_within({"book1", "table1", "living_room"}) == {
        F("on", "book1", "table1"),
        F("in_room", "table1", "living_room"),
    }
    assert g.facts_within({"book1"}) == set()
    assert g.facts_within({"lamp1"}) == {F("light_on", "lamp1")}
    assert g.facts_within(g.neighborhood(["mug1"], 2)) == {
        F("on", "mug1", "counter1"),
        F("dirty", "mug1"),
        F("in_room", "counter1", "kitchen"),
    }


def test_facts_within_always_includes_zero_ary_facts():
    g = small_graph()
    g.add_fact(Fact("raining", ()))
    g.add_fact(F("next", "a", "b"))
    assert g.facts_within(set()) == {Fact("raining", ())}
    assert g.facts_within({"a", "b"}) == {Fact("raining", ()), F("next", "a", "b")}


def test_networkx_representation():
    g = small_graph()
    g.add_fact(F("next", "a", "b"))
    g.add_fact(F("near", "a", "b"))
    g.add_fact(F("lit", "c"))
    g.add_fact(Fact("raining", ()))
    ternary = F("conn", "a", "c", "d")
    g.add_fact(ternary)
    nxg = g.nx
    # binary: one edge per predicate between the same two nodes, keyed by the predicate
    assert set(nxg["a"]["b"]) == {"next", "near"}
    # unary: a node property; 0-ary: a graph property
    assert nxg.nodes["c"]["props"] == {"lit"} and "props" not in nxg.nodes["a"]
    assert nxg.graph["props"] == {"raining"}
    # n-ary: an edge from the first argument to each other one, keyed by (fact, position)
    assert nxg.has_edge("a", "c", key=(ternary, 1)) and nxg.has_edge("a", "d", key=(ternary, 2))
    assert nxg.edges["a", "d", (ternary, 2)] == {"predicate": "conn", "position": 2}
    assert nxg.number_of_edges() == 4
    assert nxg.nodes["a"]["type"] == "loc"
    g.remove_fact(ternary)
    g.remove_fact(F("lit", "c"))
    g.remove_fact(Fact("raining", ()))
    g.remove_fact(F("near", "a", "b"))
    assert list(nxg.edges(keys=True)) == [("a", "b", "next")]
    assert "props" not in nxg.nodes["c"] and nxg.graph["props"] == set()


def test_networkx_of_the_house():
    nxg = house_graph().nx
    assert nxg.has_edge("book1", "table1", key="on")
    assert nxg.has_edge("faucet1", "sink1", key="faucet_of")
    assert nxg.nodes["mug1"]["props"] == {"dirty"}
    assert nxg.nodes[ROBOT]["props"] == {"hand_empty"}
    assert nxg.number_of_edges() == sum(1 for f in HOUSE_FACTS if len(f.args) == 2)


# ---- JSON ----------------------------------------------------------------------------------
def rich_graph() -> WorldGraph:
    g = house_graph()
    g.add_entity("cup9", "dish", since=4, label="red cup", description="on the left")
    g.add_fact(F("on", "cup9", "shelf1"), since=4)
    g.add_fact(Fact("raining", ()), since=2)
    g.add_fact(F("conn", "kitchen", "bedroom", "living_room"), since=5)
    return g


def test_json_round_trip_keeps_entities_attributes_facts_and_since():
    g = rich_graph()
    doc = json.loads(json.dumps(g.to_json()))
    assert doc["format"] == GRAPH_FORMAT
    assert doc["entities"]["cup9"] == {
        "type": "dish",
        "since": 4,
        "label": "red cup",
        "description": "on the left",
    }
    assert ["@world", "raining", True] in doc["facts"]
    assert ["kitchen", "conn", ["bedroom", "living_room"]] in doc["facts"]
    assert ["book1", "on", "table1"] in doc["facts"] and ["mug1", "dirty", True] in doc["facts"]
    back = WorldGraph.from_json(doc)
    assert back == g
    assert back.to_json() == g.to_json()
    assert back.fact_since(F("conn", "kitchen", "bedroom", "living_room")) == 5


def test_json_without_since():
    g = rich_graph()
    doc = g.to_json(with_since=False)
    assert "since" not in doc and all("since" not in a for a in doc["entities"].values())
    back = WorldGraph.from_json(doc)
    assert back == g
    assert back.fact_since(F("on", "cup9", "shelf1")) == 0


def test_from_json_lowercases_names():
    doc = {
        "format": GRAPH_FORMAT,
        "entities": {"Mug": {"type": "Dish"}, "T": {"type": "table"}},
        "facts": [["MUG", "ON", "t"]],
    }
    g = WorldGraph.from_json(doc)
    assert g.entity_type("mug") == "dish" and g.has_fact(F("on", "mug", "t"))


@pytest.mark.parametrize(
    ("doc", "needle"),
    [
        ([], "format"),
        ({"entities": {}, "facts": []}, "format"),
        ({"format": "l3mp.graph/2", "entities": {}, "facts": []}, "format"),
        ({"format": GRAPH_FORMAT, "entities": [], "facts": []}, "'entities' object"),
        ({"format": GRAPH_FORMAT, "entities": {}}, "'facts' list"),
        ({"format": GRAPH_FORMAT, "entities": {"a": "room"}, "facts": []}, "entity 'a'"),
        ({"format": GRAPH_FORMAT, "entities": {"a": {"type": 3}}, "facts": []}, "string 'type'"),
        (
            {"format": GRAPH_FORMAT, "entities": {"a": {"type": "room"}}, "facts": [["a", "x", "b"]]},
            "unknown entity b",
        ),
        (
            {
                "format": GRAPH_FORMAT,
                "entities": {"a": {"type": "room"}},
                "facts": [["a", "x", True]],
                "since": [1, 2],
            },
            "'since'",
        ),
        ({"format": GRAPH_FORMAT, "entities": {"a": {"type": "room"}}, "facts": [["a", "x"]]}, "triplet"),
        (
            {"format": GRAPH_FORMAT, "entities": {"a": {"type": "room"}}, "facts": [["a", "x", False]]},
            "closed-world",
        ),
    ],
)
def test_from_json_rejects_malformed_documents(doc, needle):
    with pytest.raises(FormatError) as err:
        WorldGraph.from_json(doc)
    assert needle in str(err.value)


@pytest.mark.parametrize("seq", ["x", None, {}, [1], 1e400, float("nan")])
def test_from_json_rejects_a_non_integer_since(seq):
    doc = {
        "format": GRAPH_FORMAT,
        "entities": {"a": {"type": "room"}},
        "facts": [["a", "x", True]],
        "since": [seq],
    }
    with pytest.raises(FormatError):
        WorldGraph.from_json(doc)


@pytest.mark.parametrize("key", ["props", "name", "type_"])
def test_from_json_rejects_reserved_entity_attribute_names(key):
    # keys that collide with WorldGraph.add_entity's own parameters must be a FormatError
    doc = {"format": GRAPH_FORMAT, "entities": {"a": {"type": "room", key: "x"}}, "facts": []}
    with pytest.raises(FormatError):
        WorldGraph.from_json(doc)


# ---- copy and equality -----------------------------------------------------------------
def test_copy_is_equal_and_independent():
    g = rich_graph()
    c = g.copy()
    assert c == g and c is not g
    assert c.to_json() == g.to_json()
    c.add_fact(F("light_on", "lamp2"))
    c.add_entity("box9", "cupboard")
    assert c != g
    assert not g.has_fact(F("light_on", "lamp2")) and not g.has_entity("box9")
    g.remove_fact(F("dirty", "mug1"))
    assert c.has_fact(F("dirty", "mug1"))


def test_equality_compares_facts_and_entity_types():
    assert house_graph() == house_graph()
    other = house_graph()
    other.remove_fact(F("dirty", "mug1"))
    assert other != house_graph()
    retyped = house_graph()
    retyped.add_entity("book1", "food")
    assert retyped != house_graph()
    extra = house_graph()
    extra.add_entity("box9", "cupboard")
    assert extra != house_graph()
    assert house_graph() != "not a graph"
    with pytest.raises(TypeError):
        hash(house_graph())


# ---- model-based property: indexes and networkx always agree with the fact set -----------
NODES = ["a", "b", "c", "d"]
random_fact = st.one_of(
    st.builds(lambda p: Fact(p, ()), st.sampled_from(["raining", "night"])),
    st.builds(lambda p, a: Fact(p, (a,)), st.sampled_from(["lit", "open"]), st.sampled_from(NODES)),
    st.builds(
        lambda p, a, b: Fact(p, (a, b)),
        st.sampled_from(["next", "near"]),
        st.sampled_from(NODES),
        st.sampled_from(NODES),
    ),
    st.builds(
        lambda a, b, c: Fact("conn", (a, b, c)),
        st.sampled_from(NODES),
        st.sampled_from(NODES),
        st.sampled_from(NODES),
    ),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), random_fact), max_size=40))
def test_indexes_and_networkx_stay_consistent(ops):
    g = small_graph()
    expected: set[Fact] = set()
    for add, fact in ops:
        if add:
            g.add_fact(fact)
            expected.add(fact)
        else:
            g.remove_fact(fact)
            expected.discard(fact)
    assert set(g.facts()) == expected and len(g) == len(expected)
    for node in NODES:
        assert g.facts_of(node) == {f for f in expected if node in f.args}
        assert g.nx.nodes[node].get("props", set()) == {f.predicate for f in expected if f.args == (node,)}
    for pred in {f.predicate for f in expected} | {"next", "conn"}:
        assert set(g.facts(predicate=pred)) == {f for f in expected if f.predicate == pred}
    assert g.nx.graph["props"] == {f.predicate for f in expected if not f.args}
    edges = set(g.nx.edges(keys=True))
    want = {(f.args[0], f.args[1], f.predicate) for f in expected if len(f.args) == 2}
    want |= {(f.args[0], f.args[i], (f, i)) for f in expected if len(f.args) == 3 for i in (1, 2)}
    assert edges == want
    assert WorldGraph.from_json(json.loads(json.dumps(g.to_json()))) == g
    assert g.copy() == g
