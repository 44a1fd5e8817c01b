"""Property tests of the one-to-one encoding of facts (arity 0 to 5) as triplets, and of its errors."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from l3mp.domain.triplets import WORLD, Fact, fact_from_triplet, fact_to_triplet
from l3mp.errors import FormatError

NAMES = st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True)


@st.composite
def facts(draw, min_arity: int = 0, max_arity: int = 5) -> Fact:
    arity = draw(st.integers(min_arity, max_arity))
    return Fact(draw(NAMES), tuple(draw(st.lists(NAMES, min_size=arity, max_size=arity))))


def json_round_trip(triplet):
    return json.loads(json.dumps(triplet))


# ---- round trips ------------------------------------------------------------------------
@given(facts())
def test_fact_to_triplet_and_back_is_exact(fact):
    assert fact_from_triplet(fact_to_triplet(fact)) == (fact, True)


@given(facts())
def test_the_triplet_survives_json(fact):
    triplet = json_round_trip(fact_to_triplet(fact))
    assert isinstance(triplet, list) and len(triplet) == 3
    assert fact_from_triplet(triplet) == (fact, True)


@given(facts())
def test_the_triplet_has_the_documented_shape(fact):
    subject, relation, obj = fact_to_triplet(fact)
    assert relation == fact.predicate
    arity = len(fact.args)
    if arity == 0:
        assert (subject, obj) == (WORLD, True)
    elif arity == 1:
        assert (subject, obj) == (fact.args[0], True)
    elif arity == 2:
        assert (subject, obj) == fact.args
    else:
        assert subject == fact.args[0] and obj == list(fact.args[1:])


@given(facts(), facts())
def test_the_encoding_is_one_to_one(a, b):
    same_triplet = json.dumps(fact_to_triplet(a)) == json.dumps(fact_to_triplet(b))
    assert same_triplet == (a == b)


@given(facts(min_arity=1))
def test_names_are_lowercased(fact):
    subject, relation, obj = fact_to_triplet(fact)
    upper = (
        [a.upper() for a in obj] if isinstance(obj, list) else obj.upper() if isinstance(obj, str) else obj
    )
    assert fact_from_triplet((subject.upper(), relation.upper(), upper)) == (fact, True)


def test_the_world_subject_is_never_a_pddl_name():
    assert not WORLD[0].isalpha()
    assert fact_from_triplet([WORLD, "movie-rewound", True]) == (Fact("movie-rewound", ()), True)


# ---- closed world: false facts -------------------------------------------------------------
@given(facts(max_arity=1))
def test_a_false_fact_is_rejected_unless_allowed(fact):
    subject, relation, _ = fact_to_triplet(fact)
    with pytest.raises(FormatError, match="closed-world"):
        fact_from_triplet([subject, relation, False])
    assert fact_from_triplet([subject, relation, False], allow_false=True) == (fact, False)


def test_the_false_message_says_what_to_do_instead():
    with pytest.raises(FormatError) as info:
        fact_from_triplet(["lamp1", "light_on", False])
    assert "lamp1" in str(info.value) and "removals" in str(info.value)


# ---- malformed triplets --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("triplet", "words"),
    [
        ("book1 on table1", "must be a list"),
        ({"s": "book1"}, "must be a list"),
        (["book1", "on"], "must be a list"),
        (["book1", "on", "table1", "x"], "must be a list"),
        ([None, "on", "table1"], "subject must be an entity name"),
        (["", "on", "table1"], "subject must be an entity name"),
        ([3, "on", "table1"], "subject must be an entity name"),
        (["book1", "", "table1"], "relation must be a predicate name"),
        (["book1", ["on"], "table1"], "relation must be a predicate name"),
        (["book1", "on", ""], "the object must be"),
        (["book1", "on", None], "the object must be"),
        (["book1", "on", 1], "the object must be"),
        (["book1", "on", 0], "the object must be"),
        (["book1", "on", ["table1"]], "at least two entity names"),
        (["book1", "on", []], "at least two entity names"),
        (["a", "conn", ["b", 3]], "the object must be"),
        (["a", "conn", ["b", ""]], "the object must be"),
        (["a", "conn", ["b", ["c"]]], "the object must be"),
        ([WORLD, "on", "table1"], "only takes 0-ary facts"),
        (["a b", "on", "table1"], "subject must be an entity name"),
        (["book1", "on", "@world"], "the object must be"),
        (["book1", "on", "(table1)"], "the object must be"),
        (["lamp1", "light_on", "true"], "write the JSON boolean true"),
        (["lamp1", "light_on", "False"], "write the JSON boolean false"),
        ([WORLD, "conn", ["b", "c"]], "only takes 0-ary facts"),
    ],
)
def test_malformed_triplets_raise_format_error_naming_the_problem(triplet, words):
    with pytest.raises(FormatError) as info:
        fact_from_triplet(triplet)
    assert words in str(info.value)
    if isinstance(triplet, list) and len(triplet) == 3:
        assert repr(triplet[0]) in str(info.value) or str(triplet[0]) in str(info.value)


@given(st.one_of(st.none(), st.integers(), st.floats(allow_nan=False), st.dictionaries(NAMES, NAMES)))
def test_any_non_entity_object_is_rejected(obj):
    with pytest.raises(FormatError):
        fact_from_triplet(["a", "p", obj])


@given(st.lists(NAMES, max_size=1))
def test_an_object_list_needs_at_least_two_names(names):
    with pytest.raises(FormatError, match="at least two"):
        fact_from_triplet(["a", "p", names])
