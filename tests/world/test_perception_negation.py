"""Perception that denies a fact with an object: ``[s, p, o, false]`` in perception JSON ("the apple is no longer
in the fridge", where it is now unknown), how the rules still keep the graph consistent, and the FormatErrors of bad
shapes."""

from __future__ import annotations

import pytest

from l3mp.domain.paths import domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact, fact_from_triplet, triplet_with_truth
from l3mp.errors import DeltaRejected, FormatError
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.model import Observation, WorldModel
from tests.helpers import F, codes, house_model, snapshot

KITCHEN = {"apple_1": "apple", "fridge_1": "fridge", "counter_top_1": "counter_top", "mug_1": "mug",
           "sink_basin_1": "sink_basin"}


def kitchen() -> WorldModel:
    """A thor-domain world model: the apple in the fridge, the mug in the sink basin."""
    world = WorldModel(Domain.from_file(domain_path("thor")))
    world.apply(Delta(add=(F("in", "apple_1", "fridge_1"), F("in", "mug_1", "sink_basin_1"), F("hand_empty",
                                                                                                   "the_robot")),
                      entities={n: EntitySpec(t) for n, t in KITCHEN.items()}), source="import")
    return world


def perceive(world: WorldModel, triplets: list) -> object:
    return world.perceive(Observation.from_json({"observation_id": "cam-7", "triplets": triplets}))


def test_a_four_element_triplet_denies_a_binary_fact_without_saying_where_the_thing_is():
    world = kitchen()
    record = perceive(world, [["apple_1", "in", "fridge_1", False]])
    assert record is not None and record.source == "perception" and record.ref == "cam-7"
    assert record.delta.remove == (F("in", "apple_1", "fridge_1"),) and record.delta.add == ()
    assert not world.graph.facts_of("apple_1") and world.graph.has_entity("apple_1")
    assert world.graph.has_fact(F("in", "mug_1", "sink_basin_1"))


def test_denying_an_absent_fact_is_a_no_op_and_true_in_fourth_place_asserts():
    world = kitchen()
    assert perceive(world, [["apple_1", "in", "counter_top_1", False]]) is None
    record = perceive(world, [["apple_1", "in", "counter_top_1", True]])
    # asserted: the new place supersedes the old one (the rule allows one place)
    assert set(record.delta.remove) == {F("in", "apple_1", "fridge_1")}
    assert world.graph.has_fact(F("in", "apple_1", "counter_top_1"))


def test_a_denial_and_a_new_place_in_one_batch_move_the_thing():
    world = kitchen()
    record = perceive(world, [["mug_1", "in", "sink_basin_1", False], ["mug_1", "in", "counter_top_1"]])
    assert record.delta.remove == (F("in", "mug_1", "sink_basin_1"),)
    assert record.delta.add == (F("in", "mug_1", "counter_top_1"),)


def test_a_fact_denied_and_asserted_in_one_batch_is_a_contradiction_and_changes_nothing():
    world = kitchen()
    before = snapshot(world.graph)
    with pytest.raises(DeltaRejected) as caught:
        perceive(world, [["mug_1", "in", "sink_basin_1", False], ["mug_1", "in", "sink_basin_1"]])
    assert codes(caught.value.violations) == ["contradiction"]
    assert snapshot(world.graph) == before


def test_a_rule_that_needs_a_place_rejects_a_denial_that_leaves_none():
    """household.rules.yaml: an item is in exactly one place, so 'not in the fridge' alone is refused there."""
    world = house_model()
    before = snapshot(world.graph)
    with pytest.raises(DeltaRejected) as caught:
        perceive(world, [["apple1", "inside", "fridge1", False]])
    assert codes(caught.value.violations) == ["rule_violation"]
    assert "item-location" in caught.value.violations[0].message
    assert snapshot(world.graph) == before
    record = perceive(world, [["apple1", "inside", "fridge1", False], ["apple1", "on", "table1"]])
    assert record.delta.remove == (F("inside", "apple1", "fridge1"),)


def test_a_denied_fact_that_does_not_fit_the_domain_is_explained_by_the_verifier():
    with pytest.raises(DeltaRejected) as caught:
        perceive(kitchen(), [["apple_1", "inside", "fridge_1", False]])
    assert "unknown predicate 'inside'" in str(caught.value)


def test_n_ary_facts_are_denied_the_same_way():
    assert fact_from_triplet(["a", "conn", ["b", "up"], False], allow_false=True) == (Fact("conn", ("a", "b", "up")),
                                                                                      False)
    assert fact_from_triplet(["A", "In", "Fridge_1", False], allow_false=True) == (Fact("in", ("a", "fridge_1")),
                                                                                   False)


@pytest.mark.parametrize(("triplet", "says"), [
    (["apple_1", "in", "fridge_1", "false"], "must be the JSON boolean false"),
    (["apple_1", "in", "fridge_1", 0], "must be the JSON boolean false"),
    (["apple_1", "in", "fridge_1", None], "must be the JSON boolean false"),
    (["apple_1", "dirty", True, False], "denied with 3 elements"),
    (["apple_1", "dirty", False, False], "denied with 3 elements"),
    (["@world", "raining", "x", False], "only takes 0-ary facts"),
    (["apple_1", "in", "fridge 1", False], "the object must be"),
    (["apple_1", "in", "fridge_1", False, False], "a triplet must be a list"),
    (["apple_1", "in"], "a triplet must be a list"),
])
def test_bad_shapes_are_format_errors(triplet, says):
    with pytest.raises(FormatError, match=says):
        Observation.from_json({"triplets": [["mug_1", "dirty", True], triplet]})
    with pytest.raises(FormatError, match=r"'triplets'\[1\]"):
        Observation.from_json({"triplets": [["mug_1", "dirty", True], triplet]})


def test_outside_perception_a_four_element_triplet_is_a_format_error():
    with pytest.raises(FormatError, match="only for perception batches"):
        fact_from_triplet(["apple_1", "in", "fridge_1", False])
    with pytest.raises(FormatError, match="only for perception batches"):
        Delta.from_json({"remove": [["apple_1", "in", "fridge_1", False]]})


def test_perception_json_round_trips_with_the_negative_triplet():
    observation = Observation(((F("dirty", "mug_1"), False), (F("in", "apple_1", "fridge_1"), False),
                               (F("in", "apple_1", "counter_top_1"), True), (F("raining"), False)),
                              {"egg_1": EntitySpec("egg", "egg 1")}, ("bread_1",), "FloorPlan1:3")
    data = observation.to_json()
    assert data["triplets"] == [["mug_1", "dirty", False], ["apple_1", "in", "fridge_1", False],
                                ["apple_1", "in", "counter_top_1"], ["@world", "raining", False]]
    assert Observation.from_json(data) == observation
    assert triplet_with_truth(F("conn", "a", "b", "c"), False) == ["a", "conn", ["b", "c"], False]
