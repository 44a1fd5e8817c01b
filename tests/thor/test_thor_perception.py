"""Perception from real iTHOR metadata: every scene as a valid graph, incremental and visibility-aware batches."""

from __future__ import annotations

import pytest
from ai2thor.server import Event

from l3mp.domain.triplets import Fact
from l3mp.errors import FormatError
from l3mp.thor.naming import Namer, pddl_type
from l3mp.thor.perception import ThorPerception, immediate_parent
from l3mp.thor.scenes import KINDS, scene_kind, scene_names, scene_objects
from l3mp.world.delta import Delta
from l3mp.world.model import WorldModel
from tests.thor.support import object_id, session, thor_domain


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_scene_of_a_kind_becomes_a_graph_that_satisfies_the_domain_and_its_rules(kind):
    domain = thor_domain()
    for scene in scene_names((kind,)):
        objects = scene_objects(scene)
        s = session(scene)  # the agent at its start pose has surveyed the scene's first ai2thor Event
        event = s.controller.last_event
        assert isinstance(event, Event) and event.metadata["sceneName"] == scene
        graph, namer = s.world.graph, s.perception.namer
        assert s.world.verifier.check_state(graph) == [], scene
        assert graph.entity_count() == len(objects) + len(domain.constants)
        agent = {f for f in graph.facts_of("the_robot") if f.args[0] == "the_robot"}
        assert agent == {Fact("at", ("the_robot", s.executor.at)), Fact("hand_empty", ("the_robot",))}, scene
        by_id = {o["objectId"]: o for o in objects}
        for obj in objects:
            name = namer.name(obj["objectId"])
            attrs = graph.entity_attrs(name)
            assert attrs["description"] == f"AI2-THOR object {obj['objectId']}"
            assert graph.has_fact(Fact("is_open", (name,))) == bool(obj["isOpen"]), (scene, name)
            assert graph.has_fact(Fact("toggled_on", (name,))) == bool(obj["isToggled"]), (scene, name)
            assert graph.has_fact(Fact("dirty", (name,))) == bool(obj["isDirty"]), (scene, name)
            assert graph.has_fact(Fact("cold", (name,))) == (obj["temperature"] == "Cold"), (scene, name)
            places = [f.args[1] for f in graph.facts(predicate="in", entity=name) if f.args[0] == name]
            parent = immediate_parent(obj, by_id)
            assert places == ([] if parent is None else [namer.name(parent)]), (scene, name)
        assert s.perception.last_seen().keys() == {namer.name(i) for i in by_id}
        assert scene_kind(scene) == kind


def test_labels_are_readable_and_numbered_only_when_a_scene_has_several():
    namer = Namer(thor_domain())
    namer.name_all(scene_objects("FloorPlan1"))
    labels = {namer.spec(n).label for n in namer.names().values()}
    assert {"fridge", "coffee machine", "sink basin", "counter top 1", "counter top 3"} <= labels
    assert namer.spec("fridge_1").type == "fridge" and namer.spec("butter_knife_1").type == "butter_knife"


def test_the_same_event_again_sends_nothing_and_one_change_sends_one_fact():
    s = session("FloorPlan1")
    event = s.controller.last_event
    again = s.perception.observe(event.metadata, s.world.graph, at=s.executor.at)
    assert again.facts == () and again.entities == {}
    start = s.executor.at
    assert s.executor.execute(f"(goto the_robot {start} fridge_1)").ok
    batch = s.perception.observe(s.controller.last_event.metadata, s.world.graph, at="fridge_1")
    assert dict(batch.facts) == {Fact("at", ("the_robot", "fridge_1")): True,
                                 Fact("at", ("the_robot", start)): False}
    s.world.perceive(batch)
    event = s.controller.step({"action": "OpenObject", "objectId": object_id(s, "fridge_1"), "openness": 1.0})
    assert isinstance(event, Event) and event.metadata["lastActionSuccess"]
    batch = s.perception.observe(event.metadata, s.world.graph, at="fridge_1")
    assert dict(batch.facts) == {Fact("is_open", ("fridge_1",)): True}


def test_unseen_objects_keep_their_last_known_state_and_provenance():
    s = session("FloorPlan1")
    mug = object_id(s, "mug_1")
    seen_first = s.perception.last_seen()["mug_1"]
    assert s.controller.step({"action": "DirtyObject", "objectId": mug, "forceAction": True})
    assert not _visible(s, mug)
    s.executor.flush()
    s.perception.observe(s.controller.last_event.metadata, s.world.graph, at=s.executor.at)
    assert not s.world.graph.has_fact(Fact("dirty", ("mug_1",)))
    assert s.perception.last_seen()["mug_1"] == seen_first
    outcome = s.executor.execute(f"(goto the_robot {s.executor.at} mug_1)")
    assert outcome.ok, outcome.message
    s.executor.flush()
    assert s.world.graph.has_fact(Fact("dirty", ("mug_1",)))
    assert s.perception.last_seen()["mug_1"].step > seen_first.step
    assert s.perception.last_seen()["mug_1"].observation_id == f"FloorPlan1:{s.perception.step}"


def test_a_seen_receptacle_without_a_believed_thing_denies_it_and_slices_arrive_as_new_entities():
    s = session("FloorPlan1")
    s.world.apply(_move("mug_1", "counter_top_3", "sink_basin_1"), source="user")
    assert s.executor.execute(f"(goto the_robot {s.executor.at} sink_basin_1)").ok
    s.executor.flush()
    assert not s.world.graph.has_fact(Fact("in", ("mug_1", "sink_basin_1")))
    assert s.executor.execute("(goto the_robot sink_basin_1 apple_1)").ok
    s.executor.flush()
    apple = object_id(s, "apple_1")
    assert s.controller.step({"action": "SliceObject", "objectId": apple}).metadata["lastActionSuccess"]
    batch = s.perception.observe(s.controller.last_event.metadata, s.world.graph, at=s.executor.at)
    pieces = {n: spec for n, spec in batch.entities.items() if spec.type == "apple_sliced"}
    assert len(pieces) == 3 and all(spec.label.startswith("apple sliced") for spec in pieces.values())
    assert batch.facts and dict(batch.facts)[Fact("sliced", ("apple_1",))] is True
    s.world.perceive(batch)
    assert all(s.world.graph.has_fact(Fact("in", (n, "counter_top_2"))) for n in pieces)


def test_an_object_gone_from_the_metadata_is_removed():
    s = session("FloorPlan1")
    metadata = s.controller.last_event.metadata
    gone = object_id(s, "apple_1")
    event = Event({**metadata, "objects": [o for o in metadata["objects"] if o["objectId"] != gone]})
    batch = s.perception.observe(event.metadata, s.world.graph, at=s.executor.at)
    assert batch.remove_entities == ("apple_1",)
    s.world.perceive(batch)
    assert not s.world.graph.has_entity("apple_1")


def _visible(s, object_id_: str) -> bool:
    return next(o for o in s.controller.last_event.metadata["objects"] if o["objectId"] == object_id_)["visible"]


def _move(thing: str, old: str, new: str) -> Delta:
    return Delta(remove=(Fact("in", (thing, old)),), add=(Fact("in", (thing, new)),))


@pytest.mark.parametrize("metadata", [
    None, {}, {"objects": "all"}, {"objects": [{"objectType": "Mug"}]},
    {"objects": [{"objectId": 7, "objectType": "Mug", "position": {"x": 0, "y": 0, "z": 0}}]},
    {"objects": [], "inventoryObjects": [{"objectType": "Mug"}]},
])
def test_malformed_metadata_is_a_format_error_and_counts_no_step(metadata):
    perception = ThorPerception(thor_domain(), scene="FloorPlan1")
    with pytest.raises(FormatError, match="AI2-THOR metadata"):
        perception.observe(metadata, WorldModel(thor_domain()).graph, at=None)
    assert perception.step == 0


def test_an_object_type_the_domain_does_not_know_falls_back_to_its_group():
    domain = thor_domain()
    base = {"position": {"x": 0.0, "y": 0.0, "z": 0.0}}
    assert pddl_type(domain, {**base, "objectId": "Robot|1", "objectType": "ToyRobot", "pickupable": True}) == "item"
    assert pddl_type(domain, {**base, "objectId": "Oven|1", "objectType": "Oven", "pickupable": False}) == "fixture"
    # a known type whose object is pickupable against its group (a fixture type) is not forced into it
    assert pddl_type(domain, {**base, "objectId": "Sofa|1", "objectType": "Sofa", "pickupable": True}) == "item"
