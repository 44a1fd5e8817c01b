"""Tests of delta verification: every violation code and its message, the effective delta, invariants."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from l3mp.domain import Fact
from l3mp.errors import DeltaRejected
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.graph import WorldGraph
from l3mp.world.verify import Verdict, Violation
from tests.helpers import (
    ROBOT,
    F,
    apply_effective,
    codes,
    house_graph,
    household,
    random_deltas,
    snapshot,
    verifier,
)


def check(delta: Delta, *, allow_new: bool = False, graph: WorldGraph | None = None) -> Verdict:
    graph = house_graph() if graph is None else graph
    before = snapshot(graph)
    verdict = verifier().check(graph, delta, allow_new_entities=allow_new)
    assert snapshot(graph) == before, "check changed the graph"
    return verdict


def only(delta: Delta, code: str, *, allow_new: bool = False, graph: WorldGraph | None = None) -> Violation:
    """The single violation of `delta`, which must have `code`."""
    verdict = check(delta, allow_new=allow_new, graph=graph)
    assert codes(verdict.violations) == [code], [v.message for v in verdict.violations]
    assert not verdict.ok
    return verdict.violations[0]


def move(item: str, old: Fact, new: Fact) -> Delta:
    assert item in old.args and item in new.args
    return Delta(remove=(old,), add=(new,))


# ---- accepted deltas ---------------------------------------------------------------------------
def test_house_satisfies_domain_and_rules():
    assert verifier().check_state(house_graph()) == []


@pytest.mark.parametrize(
    "delta",
    [
        move("book1", F("on", "book1", "table1"), F("on", "book1", "shelf1")),  # a shelf is a surface
        move("book1", F("on", "book1", "table1"), F("on", "book1", "sink1")),  # so is a sink
        move("book1", F("on", "book1", "table1"), F("inside", "book1", "cupboard1")),
        move("book1", F("on", "book1", "table1"), F("has", "alice", "book1")),
        Delta(remove=(F("on", "book1", "table1"), F("hand_empty", ROBOT)), add=(F("holding", ROBOT, "book1"),)),
        Delta(remove=(F("in_room", ROBOT, "kitchen"),), add=(F("in_room", ROBOT, "bedroom"),)),
        Delta(add=(F("light_on", "lamp2"), F("tv_on", "tv1"), F("faucet_on", "faucet1"))),
        Delta(remove=(F("light_on", "lamp1"), F("dirty", "mug1"), F("ringing", "phone1"))),
        Delta(),
    ],
)
def test_valid_deltas_pass(delta):
    verdict = check(delta)
    assert verdict.ok and verdict.violations == ()


# ---- one test per violation code -------------------------------------------------------------
def test_unknown_predicate_lists_the_closest_names():
    v = only(Delta(add=(F("on_top", "book1", "table1"),)), "unknown_predicate")
    assert "unknown predicate 'on_top'" in v.message and "(on_top book1 table1)" in v.message
    assert "closest valid predicates: on" in v.message
    assert v.fact == F("on_top", "book1", "table1")
    v = only(Delta(add=(F("holds", ROBOT, "book1"),)), "unknown_predicate")
    assert "closest valid predicates: holding" in v.message


def test_unknown_predicate_without_close_match_lists_all():
    v = only(Delta(remove=(F("zzzzzzzzzzzzz", "book1"),)), "unknown_predicate")
    assert "valid predicates: " in v.message
    assert all(p in v.message for p in household().predicates)


def test_wrong_arity_shows_signature_and_triplet_shape():
    v = only(Delta(add=(F("light_on", "lamp1", "kitchen"),)), "wrong_arity")
    assert "has 2 argument(s)" in v.message and "(light_on ?l - light) takes 1" in v.message
    assert "['<light>', 'light_on', true]" in v.message
    v = only(Delta(add=(F("in_room", "lamp1"),)), "wrong_arity")
    assert "(in_room ?x - locatable ?r - room) takes 2" in v.message
    assert "['<locatable>', 'in_room', '<room>']" in v.message
    v = only(Delta(add=(F("on", "book1", "table1", "kitchen"),)), "wrong_arity")
    assert "['<item>', 'on', '<surface>']" in v.message


def test_wrong_type_fridge_is_not_a_surface():
    v = only(move("book1", F("on", "book1", "table1"), F("on", "book1", "fridge1")), "wrong_type")
    assert "argument 2 (?s) of (on ?i - item ?s - surface) must be a surface" in v.message
    assert "(counter, shelf, sink, table)" in v.message  # the valid kinds
    assert "'fridge1' is a fridge" in v.message
    assert "entities of type surface: counter1, shelf1, sink1, table1" in v.message  # the valid entities
    assert v.entity == "fridge1"


def test_wrong_type_on_the_first_argument():
    v = only(Delta(add=(F("in_room", "book1", "kitchen"),)), "wrong_type")
    assert "must be a locatable" in v.message and "'book1' is a book" in v.message
    v = only(Delta(add=(F("hand_empty", "alice"),)), "wrong_type")
    assert "must be a robot" in v.message and "'alice' is a person" in v.message


def test_wrong_type_suggests_each_entity_once():
    # the_robot is both a domain constant and a graph entity: it must be listed once
    v = only(Delta(add=(F("hand_empty", "alice"),)), "wrong_type")
    assert v.message.count(ROBOT) == 1, v.message


def test_subtypes_are_honoured():
    # person < agent < locatable, faucet < device < fixture < locatable, table < surface
    assert check(Delta(remove=(F("in_room", "alice", "living_room"),), add=(F("in_room", "alice", "kitchen"),))).ok
    assert check(Delta(remove=(F("in_room", "faucet1", "kitchen"),), add=(F("in_room", "faucet1", "bedroom"),))).ok


def test_unknown_entity_lists_the_closest_names():
    v = only(move("book1", F("on", "book1", "table1"), F("on", "book1", "tabel1")), "unknown_entity")
    assert "unknown entity 'tabel1'" in v.message and "closest entities of type surface: table1" in v.message
    assert v.entity == "tabel1"
    v = only(Delta(remove_entities=("tabel1",)), "unknown_entity")
    assert "cannot remove entity 'tabel1'" in v.message and "closest entities: table1" in v.message


def test_unknown_entity_in_a_removal():
    v = only(Delta(remove=(F("dirty", "mugg1"),)), "unknown_entity")
    assert "unknown entity 'mugg1'" in v.message and "mug1" in v.message


def test_entity_creation_forbidden_for_nl_allowed_for_perception():
    delta = Delta(entities={"cup9": EntitySpec("dish")}, add=(F("on", "cup9", "table1"),))
    verdict = check(delta, allow_new=False)
    assert codes(verdict.violations) == ["entity_creation_forbidden", "unknown_entity"]
    forbidden = next(v for v in verdict.violations if v.code == "entity_creation_forbidden")
    assert "'cup9' is not in the graph" in forbidden.message and "only perception can" in forbidden.message
    assert "entities of type dish: mug1, plate1" in forbidden.message
    verdict = check(delta, allow_new=True)
    assert verdict.ok
    assert verdict.effective.entities == {"cup9": EntitySpec("dish")}
    assert verdict.effective.add == (F("on", "cup9", "table1"),)


def test_redeclaring_an_existing_entity_with_its_type_is_allowed_everywhere():
    delta = Delta(entities={"book1": EntitySpec("book"), ROBOT: EntitySpec("robot")})
    for allow in (False, True):
        verdict = check(delta, allow_new=allow)
        assert verdict.ok and verdict.effective.is_empty()


def test_unknown_type_lists_the_closest_types():
    v = only(Delta(entities={"cup9": EntitySpec("dishy")}), "unknown_type", allow_new=True)
    assert "unknown type 'dishy'" in v.message and "closest valid types: dish" in v.message
    v = only(Delta(entities={"cup9": EntitySpec("qqqqqqqqqqqq")}), "unknown_type", allow_new=True)
    assert "valid types: " in v.message and all(t in v.message for t in household().types)


@pytest.mark.parametrize("name", ["cup 9", "9cup", "_cup", "cup!", "@world", "", "tasse\u00e9"])
def test_bad_name(name):
    v = only(Delta(entities={name: EntitySpec("dish")}), "bad_name", allow_new=True)
    assert f"'{name}' is not a valid entity name" in v.message and "start with a letter" in v.message


@pytest.mark.parametrize("name", ["cup9\n", "cup\n9"])
def test_bad_name_with_a_newline(name):
    # `^[a-z][a-z0-9_-]*$` lets "cup9\n" through ($ matches before a final newline): the name
    # would then break every PDDL problem written from the graph
    delta = Delta(entities={name: EntitySpec("dish")}, add=(F("on", name, "table1"),))
    verdict = check(delta, allow_new=True)
    assert codes(verdict.violations) == ["bad_name"]


def test_entity_type_conflict():
    v = only(Delta(entities={"book1": EntitySpec("dish")}), "entity_type_conflict", allow_new=True)
    assert "'book1' already exists with type book" in v.message and "as dish" in v.message
    v = only(Delta(entities={ROBOT: EntitySpec("person")}), "entity_type_conflict", allow_new=True)
    assert "type robot" in v.message
    # also for a constant that the graph does not hold
    v = only(
        Delta(entities={ROBOT: EntitySpec("person")}),
        "entity_type_conflict",
        allow_new=True,
        graph=house_graph(with_robot=False),
    )
    assert "'the_robot' already exists with type robot" in v.message


def test_missing_fact_names_the_existing_similar_fact():
    v = only(Delta(remove=(F("on", "book1", "shelf1"),)), "missing_fact")
    assert "cannot remove (on book1 shelf1): it is not in the graph" in v.message
    assert "the graph has (on book1 table1)" in v.message
    v = only(Delta(remove=(F("light_on", "lamp2"),)), "missing_fact")
    assert "no (light_on lamp2 ...) fact" in v.message


def test_contradiction_same_fact_removed_and_added():
    v = only(Delta(remove=(F("on", "book1", "table1"),), add=(F("on", "book1", "table1"),)), "contradiction")
    assert "(on book1 table1) is both removed and added" in v.message and "keep only one" in v.message


def test_contradiction_fact_about_an_entity_removed_in_the_same_delta():
    v = only(Delta(remove_entities=("book1",), add=(F("on", "book1", "shelf1"),)), "contradiction")
    assert "cannot add (on book1 shelf1): entity 'book1' is removed in this delta" in v.message


def test_contradiction_existing_entity_redeclared_and_removed():
    v = only(
        Delta(entities={"mug1": EntitySpec("dish")}, remove_entities=("mug1",)),
        "contradiction",
        allow_new=True,
    )
    assert "'mug1' is both created and removed" in v.message


def test_contradiction_new_entity_created_and_removed():
    v = only(
        Delta(entities={"cup9": EntitySpec("dish")}, remove_entities=("cup9",)),
        "contradiction",
        allow_new=True,
    )
    assert "'cup9' is both created and removed" in v.message


def test_constant_removal():
    v = only(Delta(remove_entities=(ROBOT,)), "constant_removal")
    assert "'the_robot' is a constant of the domain and cannot be removed" in v.message
    only(Delta(remove_entities=(ROBOT,)), "constant_removal", graph=house_graph(with_robot=False))


def test_rule_max_names_the_conflicting_existing_fact():
    v = only(Delta(add=(F("on", "book1", "shelf1"),)), "rule_violation")
    assert "(on book1 shelf1) breaks rule 'item-location'" in v.message
    assert "conflicts with existing fact(s) (on book1 table1)" in v.message
    assert "remove them in the same delta" in v.message
    assert v.entity == "book1" and v.fact == F("on", "book1", "shelf1")


def test_rule_max_on_two_rules_at_once():
    verdict = check(Delta(add=(F("holding", ROBOT, "book1"),)))
    assert codes(verdict.violations) == ["rule_violation", "rule_violation"]
    text = "\n".join(v.message for v in verdict.violations)
    assert "'item-location'" in text and "(on book1 table1)" in text
    assert "'robot-hand'" in text and "(hand_empty the_robot)" in text


def test_rule_max_within_the_delta():
    delta = Delta(entities={"cup9": EntitySpec("dish")}, add=(F("on", "cup9", "table1"), F("on", "cup9", "shelf1")))
    v = only(delta, "rule_violation", allow_new=True)
    assert "this delta adds" in v.message and "(on cup9 table1)" in v.message and "(on cup9 shelf1)" in v.message
    assert "keep at most 1" in v.message


def test_rule_min_item_left_with_no_place():
    v = only(Delta(remove=(F("on", "book1", "table1"),)), "rule_violation")
    assert "'book1' would have 0 fact(s)" in v.message
    assert "(on book1 ?s) or (inside book1 ?c) or (holding ?r book1) or (has ?p book1)" in v.message
    assert "item-location" in v.message


def test_rule_min_new_item_without_place():
    v = only(Delta(entities={"cup9": EntitySpec("dish")}), "rule_violation", allow_new=True)
    assert "'cup9' would have 0 fact(s)" in v.message and "(on cup9 ?s)" in v.message


def test_rule_min_new_fixture_needs_a_room_and_new_faucet_a_sink():
    verdict = check(Delta(entities={"faucet9": EntitySpec("faucet")}), allow_new=True)
    assert codes(verdict.violations) == ["rule_violation", "rule_violation"]
    text = "\n".join(v.message for v in verdict.violations)
    assert "one-room" in text and "faucet-sink" in text
    ok = Delta(
        entities={"faucet9": EntitySpec("faucet")},
        add=(F("in_room", "faucet9", "kitchen"), F("faucet_of", "faucet9", "sink1")),
    )
    assert check(ok, allow_new=True).ok


def test_rule_min_removing_a_table_strands_its_items():
    v = only(Delta(remove_entities=("table1",)), "rule_violation")
    assert "'book1' would have 0 fact(s)" in v.message
    # moving the book in the same delta makes it fine
    assert check(
        Delta(
            remove_entities=("table1",),
            remove=(F("on", "book1", "table1"),),
            add=(F("on", "book1", "shelf1"),),
        )
    ).ok


def test_robot_hand_cannot_be_left_undefined():
    v = only(Delta(remove=(F("hand_empty", ROBOT),)), "rule_violation")
    assert "robot-hand" in v.message and "(hand_empty the_robot)" in v.message


def test_all_violations_are_reported_at_once():
    delta = Delta(
        remove=(F("on", "book1", "shelf1"),),  # missing_fact
        add=(
            F("on_top", "mug1", "table1"),  # unknown_predicate
            F("light_on", "lamp1", "kitchen"),  # wrong_arity
            F("on", "cup9", "table1"),  # unknown_entity
        ),
    )
    verdict = check(delta)
    assert codes(verdict.violations) == ["missing_fact", "unknown_entity", "unknown_predicate", "wrong_arity"]
    err = DeltaRejected(list(verdict.violations))
    assert "4 problem(s)" in str(err)
    assert all(v.message in str(err) for v in verdict.violations)


def test_violation_json():
    v = only(Delta(add=(F("on", "book1", "fridge1"),)), "wrong_type")
    assert v.to_json() == {
        "code": "wrong_type",
        "message": v.message,
        "fact": "(on book1 fridge1)",
        "entity": "fridge1",
    }
    v = only(Delta(remove_entities=(ROBOT,)), "constant_removal")
    assert v.to_json() == {"code": "constant_removal", "message": v.message, "entity": ROBOT}


# ---- constants ----------------------------------------------------------------------------
def test_constant_is_usable_without_being_declared():
    # the graph does not hold the_robot and the delta does not declare it
    graph = house_graph(with_robot=False)
    delta = Delta(add=(F("in_room", ROBOT, "bedroom"), F("hand_empty", ROBOT)))
    verdict = check(delta, graph=graph)
    assert verdict.ok and set(verdict.effective.add) == set(delta.add)
    assert verdict.effective.entities == {}


# ---- effective delta -----------------------------------------------------------------------
def test_noop_additions_are_dropped():
    verdict = check(Delta(add=(F("on", "book1", "table1"), F("dirty", "mug1"), F("light_on", "lamp2"))))
    assert verdict.ok and verdict.effective.add == (F("light_on", "lamp2"),)
    assert check(Delta(add=(F("dirty", "mug1"),))).effective.is_empty()


def test_duplicates_are_deduplicated():
    delta = Delta(
        remove=(F("light_on", "lamp1"), F("light_on", "lamp1")),
        add=(F("tv_on", "tv1"), F("tv_on", "tv1")),
        remove_entities=("lamp2", "lamp2"),
    )
    eff = check(delta).effective
    assert eff.add == (F("tv_on", "tv1"),)
    assert eff.remove_entities == ("lamp2",)
    assert sorted(eff.remove) == sorted({F("light_on", "lamp1"), F("in_room", "lamp2", "bedroom")})
    assert len(eff.remove) == len(set(eff.remove))


def test_entity_removal_cascades_to_its_facts():
    verdict = check(Delta(remove_entities=("mug1",)))
    assert verdict.ok
    assert set(verdict.effective.remove) == {F("on", "mug1", "counter1"), F("dirty", "mug1")}
    assert verdict.effective.remove_entities == ("mug1",)
    # an explicit removal of a cascaded fact is not listed twice
    verdict = check(Delta(remove_entities=("mug1",), remove=(F("dirty", "mug1"),)))
    assert sorted(verdict.effective.remove) == sorted({F("on", "mug1", "counter1"), F("dirty", "mug1")})


def test_cascade_covers_facts_where_the_entity_is_the_object():
    verdict = check(Delta(remove_entities=("alice", "phone1")))
    assert verdict.ok
    assert set(verdict.effective.remove) == {
        F("in_room", "alice", "living_room"),
        F("has", "alice", "phone1"),
        F("ringing", "phone1"),
    }


# ---- check_state ---------------------------------------------------------------------------
def test_check_state_reports_broken_rules():
    graph = house_graph()
    graph.add_fact(F("on", "book1", "shelf1"))  # two places
    graph.add_entity("cup9", "dish")  # no place
    found = verifier().check_state(graph)
    assert codes(found) == ["rule_violation", "rule_violation"]
    text = "\n".join(v.message for v in found)
    assert "(on book1 shelf1)" in text and "(on book1 table1)" in text
    assert "'cup9' would have 0 fact(s)" in text


def test_check_state_reports_broken_names_and_types():
    graph = house_graph()
    graph.add_entity("Bad Name", "dish")
    graph.add_fact(F("on", "Bad Name", "table1"))
    graph.add_entity("thing9", "gizmo")
    graph.add_fact(F("dirty", "book1"))
    found = verifier().check_state(graph)
    assert codes(found) == ["bad_name", "unknown_type", "wrong_type"]


def test_check_state_reports_rules_broken_by_a_constant():
    # the robot must be in one room and have a defined hand, like every other agent
    graph = house_graph()
    graph.remove_fact(F("hand_empty", ROBOT))
    found = verifier().check_state(graph)
    assert codes(found) == ["rule_violation"], found
    assert "robot-hand" in found[0].message


# ---- property: check never mutates; accepted deltas keep the graph valid -------------------
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_accepted_deltas_keep_the_graph_valid(data):
    graph = house_graph()
    accepted = 0
    for _ in range(data.draw(st.integers(1, 6), label="steps")):
        delta = data.draw(random_deltas(graph), label="delta")
        allow = data.draw(st.booleans(), label="allow_new_entities")
        before = snapshot(graph)
        verdict = verifier().check(graph, delta, allow_new_entities=allow)
        assert snapshot(graph) == before, "check mutated the graph"
        if not verdict.ok:
            continue
        accepted += 1
        eff = verdict.effective
        # the effective delta is exactly applicable: removals present, additions new, no duplicates
        assert all(graph.has_fact(f) for f in eff.remove) and len(set(eff.remove)) == len(eff.remove)
        assert not any(graph.has_fact(f) for f in eff.add) and len(set(eff.add)) == len(eff.add)
        assert not set(eff.remove) & set(eff.add)
        assert all(not graph.has_entity(n) for n in eff.entities)
        apply_effective(graph, eff)
        assert verifier().check_state(graph) == [], verdict
        # checking the same delta again: what it added is now a no-op
        again = verifier().check(graph, Delta(add=eff.add), allow_new_entities=False)
        assert again.ok and again.effective.is_empty()
    event(f"accepted {min(accepted, 3)}+ deltas")
