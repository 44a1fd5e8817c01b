"""Tests of world-state rules: loading household.rules.yaml, loading errors, and enforcement."""

from __future__ import annotations

import textwrap

import pytest

from l3mp.domain import CardinalityRule, Domain, RuleSet
from l3mp.errors import DomainError
from l3mp.world.delta import Delta
from l3mp.world.verify import Verifier
from tests.helpers import DOMAIN_FILE, F, codes, house_graph, household, household_rules


def load_yaml(tmp_path, text: str) -> RuleSet:
    path = tmp_path / "x.rules.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return RuleSet.from_file(path, household())


def rule(**fields) -> dict:
    """A rule mapping with sensible defaults, overridden by `fields`."""
    return {"name": "r", "count": [{"predicate": "on", "arg": 1}], **fields}


# ---- the shipped rules ------------------------------------------------------------------
def test_household_rules_are_loaded_with_their_members_and_bounds():
    rules = household_rules()
    by_name = {r.name: r for r in rules.rules}
    assert set(by_name) == {"item-location", "one-room", "robot-hand", "faucet-sink"}
    assert len(rules) == 4
    loc = by_name["item-location"]
    assert loc.members == (("on", 0), ("inside", 0), ("holding", 1), ("has", 1))
    assert (loc.min, loc.max) == (1, 1)
    assert by_name["robot-hand"].members == (("hand_empty", 0), ("holding", 0))
    assert "exactly one place" in loc.describe() and "item-location" in loc.describe()


def test_for_domain_finds_the_rules_file_next_to_the_domain():
    rules = RuleSet.for_domain(household())
    assert sorted(r.name for r in rules.rules) == sorted(r.name for r in household_rules().rules)


def test_for_domain_without_rules_file_is_empty(tmp_path):
    path = tmp_path / "bare.pddl"
    path.write_text(DOMAIN_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    assert len(RuleSet.for_domain(Domain.from_file(path))) == 0


def test_for_predicate_indexes_every_rule_that_counts_it():
    rules = household_rules()
    assert sorted(r.name for r in rules.for_predicate("holding")) == ["item-location", "robot-hand"]
    assert [r.name for r in rules.for_predicate("in_room")] == ["one-room"]
    assert rules.for_predicate("light_on") == []
    assert rules.for_predicate("no_such_predicate") == []


def test_keys_of_returns_the_counted_arguments():
    loc = next(r for r in household_rules().rules if r.name == "item-location")
    assert loc.keys_of("on", ("book1", "table1")) == ["book1"]
    assert loc.keys_of("holding", ("the_robot", "book1")) == ["book1"]
    assert loc.keys_of("in_room", ("alice", "kitchen")) == []
    assert loc.keys_of("holding", ("the_robot",)) == [], "a fact of the wrong arity is counted for nobody"


def test_says_defaults_to_the_name():
    rules = RuleSet.from_data({"rules": [rule(name="one-per-surface")]}, household())
    assert rules.rules[0].says == "one-per-surface"
    assert rules.rules[0].max is None and rules.rules[0].min == 0


def test_empty_file_and_null_document_give_no_rules(tmp_path):
    assert len(load_yaml(tmp_path, "")) == 0
    assert len(RuleSet.from_data(None, household())) == 0
    assert len(RuleSet.from_data({"rules": []}, household())) == 0


def test_predicate_names_are_case_insensitive():
    rules = RuleSet.from_data({"rules": [rule(count=[{"predicate": "ON", "arg": 1}])]}, household())
    assert rules.rules[0].members == (("on", 1),)


# ---- loading errors -----------------------------------------------------------------------
def test_unknown_predicate_is_named(tmp_path):
    with pytest.raises(DomainError) as err:
        load_yaml(
            tmp_path,
            """
            rules:
              - name: where
                count: [{predicate: "onn", arg: 0}]
        """,
        )
    msg = str(err.value)
    assert "rule 'where'" in msg and "predicate 'onn' is not in domain household" in msg


@pytest.mark.parametrize("arg", [2, -1, "0", 1.0, None])
def test_bad_argument_index_is_explained(arg):
    with pytest.raises(DomainError) as err:
        RuleSet.from_data({"rules": [rule(count=[{"predicate": "on", "arg": arg}])]}, household())
    msg = str(err.value)
    assert "'arg' of on must be an argument index 0..1" in msg and repr(arg) in msg


def test_boolean_argument_index_is_rejected():
    # YAML `arg: yes` reads as True, which is an int subclass: it must not silently mean 1
    with pytest.raises(DomainError, match="'arg'"):
        RuleSet.from_data({"rules": [rule(count=[{"predicate": "on", "arg": True}])]}, household())


def test_boolean_bounds_are_rejected():
    # YAML `max: yes` / `min: on` read as booleans; they must not silently mean 1
    with pytest.raises(DomainError, match="min"):
        RuleSet.from_data({"rules": [rule(max=True)]}, household())
    with pytest.raises(DomainError, match="min"):
        RuleSet.from_data({"rules": [rule(min=True, max=1)]}, household())


@pytest.mark.parametrize("word", ["on", "off", "yes", "no"])
def test_unquoted_yaml_boolean_predicate_gets_a_helpful_message(tmp_path, word):
    with pytest.raises(DomainError) as err:
        load_yaml(
            tmp_path,
            f"""
            rules:
              - name: item-location
                count:
                  - {{predicate: {word}, arg: 0}}
        """,
        )
    msg = str(err.value)
    assert "boolean" in msg and "quote" in msg and '"on"' in msg
    assert "item-location" in msg


def test_quoted_on_loads(tmp_path):
    rules = load_yaml(
        tmp_path,
        """
        rules:
          - name: item-location
            count:
              - {predicate: "on", arg: 0}
            max: 1
    """,
    )
    assert rules.rules[0].members == (("on", 0),)


@pytest.mark.parametrize(
    ("low", "high"),
    [(2, 1), (1, 0), (0, 0), (-1, None), ("1", None), (0, "2"), (1.5, None), (0, -3)],
)
def test_bounds_must_be_integers_with_min_at_most_max(low, high):
    with pytest.raises(DomainError) as err:
        RuleSet.from_data({"rules": [rule(min=low, max=high)]}, household())
    msg = str(err.value)
    assert "0 <= min <= max" in msg and f"min={low!r}" in msg and f"max={high!r}" in msg


@pytest.mark.parametrize(("low", "high"), [(0, 1), (1, 1), (2, 5), (3, None), (0, None)])
def test_valid_bounds_load(low, high):
    loaded = RuleSet.from_data({"rules": [rule(min=low, max=high)]}, household()).rules[0]
    assert (loaded.min, loaded.max) == (low, high)


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (["not", "a", "mapping"], "expected a mapping with a list under 'rules'"),
        ({"rules": {"name": "x"}}, "expected a mapping with a list under 'rules'"),
        ({"rules": None}, "expected a mapping with a list under 'rules'"),
        ({"rules": ["just a string"]}, "each rule needs 'name' and 'count'"),
        ({"rules": [{"name": "x"}]}, "each rule needs 'name' and 'count'"),
        ({"rules": [{"count": [{"predicate": "on"}]}]}, "each rule needs 'name' and 'count'"),
        ({"rules": [rule(count=[])]}, "'count' lists no predicate"),
        ({"rules": [rule(count=None)]}, "'count' must be a list"),
        ({"rules": [rule(count=[{"arg": 0}])]}, "each 'count' entry needs 'predicate'"),
        ({"rules": [rule(count=["on"])]}, "each 'count' entry needs 'predicate'"),
    ],
)
def test_malformed_rule_documents(data, needle):
    with pytest.raises(DomainError) as err:
        RuleSet.from_data(data, household(), source="my.rules.yaml")
    assert needle in str(err.value)
    assert "my.rules.yaml" in str(err.value)


@pytest.mark.parametrize("count", [5, 2.5, True])
def test_non_list_count_is_a_domain_error(count):
    # found by review: `for m in raw["count"] or []` iterates an int -> TypeError escaped
    with pytest.raises(DomainError, match="count"):
        RuleSet.from_data({"rules": [rule(count=count)]}, household())


def test_invalid_yaml_and_missing_file(tmp_path):
    with pytest.raises(DomainError, match="not valid YAML"):
        load_yaml(tmp_path, "rules: [unclosed\n")
    with pytest.raises(DomainError, match="cannot read rules file"):
        RuleSet.from_file(tmp_path / "missing.rules.yaml", household())


# ---- rules are enforced as loaded --------------------------------------------------------
def test_a_custom_rule_is_enforced_by_the_verifier():
    # a surface carries at most one item (counted at argument 1 of `on`)
    rules = RuleSet.from_data(
        {
            "rules": [
                {
                    "name": "one-per-surface",
                    "says": "a surface holds one item",
                    "count": [{"predicate": "on", "arg": 1}],
                    "max": 1,
                }
            ]
        },
        household(),
    )
    v = Verifier(household(), rules)
    graph = house_graph()
    move = Delta(remove=(F("on", "mug1", "counter1"),), add=(F("on", "mug1", "table1"),))
    verdict = v.check(graph, move, allow_new_entities=False)
    assert codes(verdict.violations) == ["rule_violation"]
    assert "one-per-surface" in verdict.violations[0].message
    assert "(on book1 table1)" in verdict.violations[0].message
    # without rules the same delta is fine (and the item may then have no place at all)
    assert Verifier(household(), RuleSet()).check(graph, move, allow_new_entities=False).ok
    assert (
        Verifier(household(), RuleSet())
        .check(graph, Delta(remove=(F("on", "mug1", "counter1"),)), allow_new_entities=False)
        .ok
    )


def test_min_rule_with_no_max_counts_several_facts():
    # every surface must carry at least one item; any number is fine
    rules = RuleSet([CardinalityRule("busy", "a surface is never empty", (("on", 1),), min=1)])
    v = Verifier(household(), rules)
    graph = house_graph()
    empties = Delta(remove=(F("on", "mug1", "counter1"),), add=(F("on", "mug1", "table1"),))
    verdict = v.check(graph, empties, allow_new_entities=False)
    assert codes(verdict.violations) == ["rule_violation"]
    assert "'counter1'" in verdict.violations[0].message
    assert v.check(
        graph,
        Delta(add=(F("on", "apple1", "table1"),), remove=(F("inside", "apple1", "fridge1"),)),
        allow_new_entities=False,
    ).ok
