"""Fuzzing of delta, perception and graph JSON: only FormatError or DeltaRejected may come out, nothing changes."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from l3mp.errors import DeltaRejected, FormatError
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.graph import WorldGraph
from l3mp.world.model import Observation
from tests.helpers import ROBOT, F, house_graph, house_model, snapshot, verifier

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FUZZ_MODEL = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

WORDS = [
    "remove",
    "add",
    "entities",
    "remove_entities",
    "type",
    "label",
    "description",
    "triplets",
    "observation_id",
    "format",
    "facts",
    "since",
    "props",
    "name",
    "l3mp.graph/1",
    "on",
    "holding",
    "in_room",
    "has",
    "hand_empty",
    "light_on",
    "book1",
    "table1",
    "the_robot",
    "@world",
    "dish",
    "cup9",
    "kitchen",
    "Bad Name",
    "ON",
    "",
]

atoms = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS),
    st.text(max_size=12),
)
json_values = st.recursive(
    atoms,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(WORDS), st.text(max_size=6)), children, max_size=4),
    ),
    max_leaves=24,
)

# values a near-valid document is most likely to get wrong
INTERESTING = (
    True,
    False,
    None,
    "",
    0,
    1,
    [],
    {},
    "book1",
    "the_robot",
    "@world",
    ["table1", "kitchen"],
    ["x"],
    {"type": "dish"},
    "Bad Name",
)
# `mutated` edits the document it builds in place, so every drawn value must be a fresh object:
# sampling the shared lists/dicts above directly let one example mutate them (even make them contain
# themselves), so the next example - or hypothesis' replay of the same one - drew something else
# (FlakyStrategyDefinition, RecursionError, failures that would not reproduce).
interesting = st.sampled_from(INTERESTING).map(copy.deepcopy)

VALID_DELTAS = [
    {"remove": [["book1", "on", "table1"]], "add": [["book1", "on", "shelf1"], ["lamp2", "light_on", True]]},
    {"entities": {"cup9": {"type": "dish", "label": "red cup"}}, "add": [["cup9", "on", "counter1"]]},
    {
        "remove_entities": ["mug1"],
        "add": [["the_robot", "holding", "book1"]],
        "remove": [["book1", "on", "table1"], ["the_robot", "hand_empty", True]],
    },
    {"remove": [["alice", "in_room", "living_room"]], "add": [["alice", "in_room", "kitchen"]]},
]
VALID_PERCEPTIONS = [
    {
        "observation_id": "cam0-1",
        "entities": {"cup9": {"type": "dish", "label": "red cup"}},
        "triplets": [["cup9", "on", "counter1"], ["lamp1", "light_on", False]],
        "remove_entities": [],
    },
    {"triplets": [["the_robot", "holding", "mug1"], ["alice", "in_room", "bedroom"]]},
    {"triplets": [["book1", "inside", "cupboard1"], ["tv1", "tv_on", True]], "remove_entities": ["lamp2"]},
]


def house_json() -> dict:
    graph = house_graph()
    graph.add_entity("cup9", "dish", since=3, label="red cup")
    graph.add_fact(F("on", "cup9", "shelf1"), since=3)
    return json.loads(json.dumps(graph.to_json()))


def paths(doc, prefix=()):
    """Every position in a JSON document, as the keys and indexes leading to it."""
    yield prefix
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from paths(value, (*prefix, i))


def get(doc, path):
    for step in path:
        doc = doc[step]
    return doc


@st.composite
def mutated(draw, bases: list[dict]):
    """A valid document with 1 to 3 mutations: a value replaced, deleted, wrapped, retyped, or a key added."""
    doc = copy.deepcopy(draw(st.sampled_from(bases)))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(paths(doc))))
        op = draw(st.sampled_from(["replace", "replace", "delete", "wrap", "insert", "upper", "truncate"]))
        value = get(doc, path)
        if op == "replace":
            new = draw(st.one_of(json_values, interesting))
        elif op == "wrap":
            new = [value]
        elif op == "upper":
            new = value.upper() if isinstance(value, str) else not value if isinstance(value, bool) else value
        elif op == "truncate":
            new = value[: draw(st.integers(0, max(len(value) - 1, 0)))] if isinstance(value, list | str) else value
        elif op == "insert":
            new = value
            if isinstance(value, dict):
                new = {**value, draw(st.sampled_from(WORDS)): draw(json_values)}
            elif isinstance(value, list):
                new = [*value, draw(json_values)]
        else:  # delete
            if not path:
                return draw(json_values)
            del get(doc, path[:-1])[path[-1]]
            continue
        if not path:
            doc = new
        else:
            get(doc, path[:-1])[path[-1]] = new
    return doc


# well-shaped documents made of house names and domain words, in any combination (wrong arities,
# wrong types, unknown names, false facts, ...)
NAMES = [
    "book1",
    "mug1",
    "table1",
    "shelf1",
    "fridge1",
    "alice",
    "kitchen",
    "bedroom",
    "lamp1",
    "the_robot",
    "cup9",
    "Cup9",
    "@world",
]
PREDICATES = [
    "on",
    "inside",
    "holding",
    "has",
    "in_room",
    "hand_empty",
    "light_on",
    "dirty",
    "faucet_of",
    "is_open",
    "On",
    "on_top",
]
triplets = st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).flatmap(
    lambda args: st.tuples(
        st.just(args[0]),
        st.sampled_from(PREDICATES),
        st.one_of(st.booleans(), st.just(args[1:] if len(args) > 2 else args[-1])),
    ).map(list)
)
entity_maps = st.dictionaries(
    st.sampled_from(NAMES),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["dish", "book", "room", "light", "robot", "gizmo"])},
        optional={"label": st.text(max_size=5)},
    ),
    max_size=2,
)
removed_names = st.lists(st.sampled_from(NAMES), max_size=2)
shaped_deltas = st.fixed_dictionaries(
    {},
    optional={
        "remove": st.lists(triplets.filter(lambda t: t[2] is not False), max_size=3),
        "add": st.lists(triplets.filter(lambda t: t[2] is not False), max_size=3),
        "entities": entity_maps,
        "remove_entities": removed_names,
    },
)
shaped_perceptions = st.fixed_dictionaries(
    {"triplets": st.lists(triplets, max_size=4)},
    optional={
        "entities": entity_maps,
        "remove_entities": removed_names,
        "observation_id": st.text(max_size=5),
    },
)

delta_docs = st.one_of(json_values, mutated(VALID_DELTAS), mutated(VALID_DELTAS), shaped_deltas)
perception_docs = st.one_of(json_values, mutated(VALID_PERCEPTIONS), shaped_perceptions, shaped_perceptions)


# ---- parsers ------------------------------------------------------------------------------
@FUZZ
@given(delta_docs)
def test_delta_from_json_raises_only_format_error(doc):
    try:
        delta = Delta.from_json(doc)
    except FormatError as exc:
        assert str(exc)
        event("FormatError")
        return
    event("parsed")
    assert isinstance(delta, Delta)
    again = Delta.from_json(json.loads(json.dumps(delta.to_json())))
    assert again.to_json() == delta.to_json()


@FUZZ
@given(perception_docs)
def test_observation_from_json_raises_only_format_error(doc):
    try:
        obs = Observation.from_json(doc)
    except FormatError as exc:
        assert str(exc)
        event("FormatError")
        return
    event("parsed")
    assert all(isinstance(truth, bool) for _, truth in obs.facts)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(json_values, mutated([house_json()]), mutated([house_json()])))
def test_graph_from_json_raises_only_format_error(doc):
    try:
        graph = WorldGraph.from_json(doc)
    except FormatError as exc:
        assert str(exc)
        event("FormatError")
        return
    event("parsed")
    # whatever was accepted can be checked against the domain, and written back
    assert isinstance(verifier().check_state(graph), list)
    assert WorldGraph.from_json(json.loads(json.dumps(graph.to_json()))) == graph


@pytest.mark.parametrize(
    ("doc", "needle"),
    [
        ([], "a delta must be a JSON object"),
        ({"add": [], "adds": []}, "unknown delta key(s) ['adds']"),
        ({"add": {"book1": "on"}}, "'add' must be a list of triplets"),
        ({"remove": [["book1", "on", "table1"], ["book1", "on"]]}, "'remove'[1]: a triplet must be a list"),
        ({"add": [["lamp1", "light_on", False]]}, "'add'[0]"),
        ({"add": [["lamp1", "light_on", False]]}, "put the fact (with true) in the removals"),
        ({"add": [["book1", "on", ["table1"]]]}, "a list of at least two entity names"),
        ({"add": [["book1", "on", 7]]}, "the object must be true"),
        ({"remove_entities": "mug1"}, "'remove_entities' must be a list of entity names"),
        ({"remove_entities": ["mug1", ""]}, "'remove_entities' must be a list of entity names"),
        ({"entities": {"cup9": {"type": "dish", "colour": "red"}}}, "unknown key(s) ['colour']"),
        (
            {"entities": {"cup9": {"label": "red cup"}}},
            "entity 'cup9' needs an object with a non-empty string 'type'",
        ),
        ({"entities": {"cup9": {"type": "dish", "description": ["x"]}}}, "'description' must be a string"),
    ],
)
def test_malformed_delta_json_names_the_bad_part(doc, needle):
    with pytest.raises(FormatError) as err:
        Delta.from_json(doc)
    assert needle in str(err.value)


# ---- the whole path: JSON -> model ----------------------------------------------------------
@FUZZ_MODEL
@given(delta_docs, st.sampled_from(["nl", "plan", "perception", "user", "import"]))
def test_apply_path_raises_only_format_error_or_delta_rejected(doc, source):
    model = house_model()
    before, seq = snapshot(model.graph), model.last_seq
    try:
        record = model.apply(Delta.from_json(doc), source=source)
    except (FormatError, DeltaRejected) as exc:
        assert str(exc)
        assert snapshot(model.graph) == before and model.last_seq == seq
        event(type(exc).__name__)
        return
    event("applied" if record else "no-op")
    assert verifier().check_state(model.graph) == []


@FUZZ_MODEL
@given(perception_docs)
def test_perception_path_raises_only_format_error_or_delta_rejected(doc):
    model = house_model()
    before, seq = snapshot(model.graph), model.last_seq
    try:
        record = model.perceive(Observation.from_json(doc))
    except (FormatError, DeltaRejected) as exc:
        assert str(exc)
        assert snapshot(model.graph) == before and model.last_seq == seq
        event(type(exc).__name__)
        return
    event("applied" if record else "no-op")
    assert verifier().check_state(model.graph) == []


def test_empty_label_survives_the_round_trip():
    # from_json keeps label "" but to_json drops it: the parsed delta does not round-trip
    delta = Delta.from_json({"entities": {"cup9": {"type": "dish", "label": ""}}})
    assert Delta.from_json(delta.to_json()) == delta


# ---- generated valid deltas round-trip through JSON --------------------------------------------
names = st.sampled_from(["book1", "table1", ROBOT, "cup9", "kitchen"])
facts = st.one_of(
    st.builds(lambda p, a: F(p, a), st.sampled_from(["light_on", "dirty"]), names),
    st.builds(lambda p, a, b: F(p, a, b), st.sampled_from(["on", "in_room"]), names, names),
    st.builds(lambda a, b, c: F("conn", a, b, c), names, names, names),
)
one_line = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1)  # labels: no controls
specs = st.builds(
    EntitySpec,
    st.sampled_from(["dish", "room"]),
    st.one_of(st.none(), one_line),
    st.one_of(st.none(), one_line),
)


@settings(max_examples=150, deadline=None)
@given(
    st.builds(
        Delta,
        st.lists(facts, max_size=3).map(tuple),
        st.lists(facts, max_size=3).map(tuple),
        st.dictionaries(names, specs, max_size=2),
        st.lists(names, max_size=2).map(tuple),
    )
)
def test_delta_json_round_trip(delta):
    doc = json.loads(json.dumps(delta.to_json()))
    assert Delta.from_json(doc) == delta
    assert set(doc) <= {"remove", "add", "entities", "remove_entities"}
