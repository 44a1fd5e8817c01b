"""Tests of Domain on household.pddl (types, constants, predicates, actions) and of its loading errors."""

from __future__ import annotations

import hashlib
import textwrap

import pytest

from l3mp.domain import Domain, Predicate
from l3mp.domain.pddl_domain import is_pddl_name
from l3mp.errors import DomainError
from tests.helpers import DOMAIN_FILE, household

TINY = """
(define (domain tiny)
  (:requirements :strips :typing)
  (:types place - object)
  (:predicates (at ?p - place))
  (:action stay :parameters (?p - place) :precondition (at ?p) :effect (at ?p)))
"""


def load_text(tmp_path, text: str) -> Domain:
    path = tmp_path / "d.pddl"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return Domain.from_file(path)


# ---- household.pddl -------------------------------------------------------------------
def test_household_name_source_text_and_hash():
    d = household()
    assert d.name == "household"
    assert d.source == str(DOMAIN_FILE)
    assert d.text == DOMAIN_FILE.read_text(encoding="utf-8")
    assert d.sha256 == hashlib.sha256(d.text.encode("utf-8")).hexdigest()
    assert "household" in repr(d) and "13 predicates" in repr(d)


def test_household_type_hierarchy():
    types = household().types
    assert len(types) == 27
    assert types["object"] is None
    assert {t for t, parent in types.items() if parent == "object"} == {"room", "locatable", "item"}
    expected = {
        "agent": "locatable", "fixture": "locatable", "robot": "agent", "person": "agent",
        "receptacle": "fixture", "device": "fixture", "surface": "receptacle", "container": "receptacle",
        "table": "surface", "counter": "surface", "shelf": "surface", "sink": "surface",
        "fridge": "container", "cupboard": "container", "dishwasher": "container",
        "light": "device", "faucet": "device", "tv": "device",
        "food": "item", "drink": "item", "dish": "item", "book": "item", "phone": "item",
    }  # fmt: skip
    assert {t: types[t] for t in expected} == expected


def test_household_is_subtype_and_subtypes():
    d = household()
    assert d.is_subtype("table", "table")
    assert d.is_subtype("table", "surface") and d.is_subtype("table", "fixture")
    assert d.is_subtype("robot", "locatable") and d.is_subtype("robot", "object")
    assert not d.is_subtype("surface", "table")
    assert not d.is_subtype("book", "fixture") and not d.is_subtype("room", "locatable")
    assert not d.is_subtype("spaceship", "object")
    assert d.subtypes("container") == {"container", "fridge", "cupboard", "dishwasher"}
    assert d.subtypes("agent") == {"agent", "robot", "person"}
    assert d.subtypes("phone") == {"phone"}
    assert d.subtypes("object") == set(d.types)
    assert d.subtypes("spaceship") == frozenset()
    assert d.leaf_types("receptacle") == [
        "counter",
        "cupboard",
        "dishwasher",
        "fridge",
        "shelf",
        "sink",
        "table",
    ]
    assert d.has_type("tv") and not d.has_type("car")


def test_household_constant_the_robot():
    assert household().constants == {"the_robot": "robot"}


def test_household_predicates_with_typed_parameters():
    d = household()
    assert set(d.predicates) == {
        "in_room", "on", "inside", "holding", "has", "hand_empty", "is_open",
        "light_on", "faucet_on", "tv_on", "faucet_of", "ringing", "dirty",
    }  # fmt: skip
    assert d.predicate("in_room") == Predicate("in_room", (("x", "locatable"), ("r", "room")))
    assert d.predicate("on").types == ("item", "surface")
    assert d.predicate("holding").types == ("robot", "item")
    assert d.predicate("hand_empty").arity == 1
    assert d.predicate("faucet_of").signature() == "(faucet_of ?f - faucet ?s - sink)"
    assert d.predicate("flying") is None


def test_household_actions_with_typed_parameters():
    actions = household().actions
    assert len(actions) == 17
    assert actions["move"].params == (("r", "robot"), ("from", "room"), ("to", "room"))
    assert [t for _, t in actions["wash_dish"].params] == ["robot", "dish", "sink", "faucet", "room"]
    assert actions["answer_phone"].params == (("r", "robot"), ("ph", "phone"))


def test_household_requirements():
    assert household().requirements == {
        "strips", "typing", "negative-preconditions", "universal-preconditions",
        "existential-preconditions", "disjunctive-preconditions",
    }  # fmt: skip


def test_returned_collections_are_copies():
    d = household()
    d.types["car"] = "object"
    d.constants["r2"] = "robot"
    d.predicates.clear()
    assert not d.has_type("car") and "r2" not in d.constants and d.predicate("on") is not None


# ---- other domains ----------------------------------------------------------------------
def test_from_string_and_an_untyped_domain():
    d = Domain.from_string(TINY)
    assert (d.name, d.source) == ("tiny", "<string>")
    assert d.types == {"object": None, "place": "object"}
    untyped = Domain.from_string("(define (domain u) (:predicates (p ?x ?y) (q)))")
    assert untyped.types == {"object": None}
    assert untyped.predicate("p").types == ("object", "object") and untyped.predicate("q").arity == 0
    assert untyped.requirements == frozenset() and untyped.constants == {}


def test_pddl_names():
    assert is_pddl_name("f0-1f") and is_pddl_name("table_1")
    assert not is_pddl_name("1table") and not is_pddl_name("Table") and not is_pddl_name("a b")


# ---- loading errors ---------------------------------------------------------------------
def test_a_syntax_error_raises_domain_error_with_the_parser_reason(tmp_path, capsys):
    broken = TINY.replace("(:predicates (at ?p - place))", "(:predicates (at ?p - place)")
    with pytest.raises(DomainError) as info:
        load_text(tmp_path, broken)
    message = str(info.value)
    assert message.startswith(f"cannot load PDDL domain {tmp_path / 'd.pddl'}: ")
    assert "Expected" in message or "Error" in message
    assert "\n" not in message and "Traceback" not in message
    assert capsys.readouterr() == ("", "")


def test_an_undefined_type_raises_domain_error(tmp_path):
    with pytest.raises(DomainError, match="Undefined parameter's type: spaceship"):
        load_text(tmp_path, TINY.replace("(at ?p - place)", "(at ?p - spaceship)"))


def test_a_name_clash_raises_domain_error_not_a_unified_planning_error(tmp_path):
    with pytest.raises(DomainError, match="already defined"):
        load_text(tmp_path, TINY.replace("(:action stay", "(:action at"))


def test_a_missing_file_raises_domain_error(tmp_path):
    missing = tmp_path / "nowhere" / "domain.pddl"
    with pytest.raises(DomainError) as info:
        Domain.from_file(missing)
    assert str(info.value) == f"cannot read PDDL domain file {missing}: No such file or directory"


def test_a_numeric_fluent_domain_raises_domain_error(tmp_path):
    numeric = TINY.replace(
        "(:predicates (at ?p - place))", "(:predicates (at ?p - place)) (:functions (battery ?p - place))"
    ).replace(":typing", ":typing :numeric-fluents")
    with pytest.raises(DomainError) as info:
        load_text(tmp_path, numeric)
    assert "battery" in str(info.value) and "numeric" in str(info.value)
    assert "boolean predicates" in str(info.value)


def test_an_empty_text_raises_domain_error():
    with pytest.raises(DomainError, match="cannot load PDDL domain <string>"):
        Domain.from_string("")
