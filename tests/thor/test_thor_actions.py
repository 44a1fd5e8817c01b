"""Contract: the exact ai2thor 5.x action dicts each plan action sends, and the TEST DOUBLE's documented failures."""

from __future__ import annotations

import pytest
from ai2thor.server import Event

from l3mp.thor.actions import SEQUENCES, controller_steps
from l3mp.thor.errors import ThorError
from l3mp.thor.poses import Pose
from tests.thor.support import object_id, session

IDS = {"mug_1": "Mug|1", "sink_basin_1": "Sink|2|SinkBasin", "faucet_1": "Faucet|3", "microwave_1": "Microwave|4",
       "fridge_1": "Fridge|5", "apple_1": "Apple|6", "knife_1": "Knife|7", "counter_top_1": "CounterTop|8",
       "stove_burner_1": "StoveBurner|9", "stove_knob_1": "StoveKnob|10", "coffee_machine_1": "CoffeeMachine|11"}


def o(action: str, object_id_: str, **extra: object) -> dict:
    return {"action": action, "objectId": object_id_, **extra}


def steps(action: str) -> list[dict]:
    return controller_steps(action, object_id=IDS.get, pose=lambda n: Pose(1.25, -0.5, 90.0, 30.0), agent_y=0.9)


def test_goto_is_a_teleport_to_the_interaction_pose():
    assert steps("(goto the_robot mug_1 fridge_1)") == [
        {"action": "Teleport", "position": {"x": 1.25, "y": 0.9, "z": -0.5},
         "rotation": {"x": 0.0, "y": 90.0, "z": 0.0}, "horizon": 30.0, "standing": True}]


@pytest.mark.parametrize(("action", "expected"), [
    ("(pickup the_robot apple_1 counter_top_1)", [o("PickupObject", "Apple|6")]),
    ("(pickup_from_open the_robot apple_1 fridge_1)", [o("PickupObject", "Apple|6")]),
    ("(put the_robot apple_1 counter_top_1)", [o("PutObject", "CounterTop|8")]),
    ("(put_in_open the_robot apple_1 fridge_1)", [o("PutObject", "Fridge|5")]),
    ("(open the_robot fridge_1)", [o("OpenObject", "Fridge|5", openness=1.0)]),
    ("(close the_robot fridge_1)", [o("CloseObject", "Fridge|5")]),
    ("(toggle_on the_robot faucet_1)", [o("ToggleObjectOn", "Faucet|3")]),
    ("(toggle_off the_robot faucet_1)", [o("ToggleObjectOff", "Faucet|3")]),
    ("(slice the_robot apple_1 knife_1 counter_top_1)", [o("SliceObject", "Apple|6")]),
    ("(wash the_robot mug_1 sink_basin_1 faucet_1)", [
        o("PutObject", "Sink|2|SinkBasin"), o("ToggleObjectOn", "Faucet|3"),
        o("ToggleObjectOff", "Faucet|3"), o("PickupObject", "Mug|1")]),
    ("(heat_in_microwave the_robot apple_1 microwave_1)", [
        o("OpenObject", "Microwave|4", openness=1.0),
        o("PutObject", "Microwave|4"), o("CloseObject", "Microwave|4"),
        o("ToggleObjectOn", "Microwave|4"), o("ToggleObjectOff", "Microwave|4"),
        o("OpenObject", "Microwave|4", openness=1.0),
        o("PickupObject", "Apple|6"), o("CloseObject", "Microwave|4")]),
    ("(heat_on_stove the_robot apple_1 stove_burner_1 stove_knob_1)", [
        o("PutObject", "StoveBurner|9"), o("ToggleObjectOn", "StoveKnob|10"),
        o("ToggleObjectOff", "StoveKnob|10"), o("PickupObject", "Apple|6")]),
    ("(cool_in_fridge the_robot apple_1 fridge_1)", [
        o("OpenObject", "Fridge|5", openness=1.0), o("PutObject", "Fridge|5"),
        o("CloseObject", "Fridge|5"), o("OpenObject", "Fridge|5", openness=1.0),
        o("PickupObject", "Apple|6"), o("CloseObject", "Fridge|5")]),
    ("(fill_with_coffee the_robot mug_1 coffee_machine_1)", [
        o("PutObject", "CoffeeMachine|11"),
        o("ToggleObjectOn", "CoffeeMachine|11"),
        o("ToggleObjectOff", "CoffeeMachine|11"), o("PickupObject", "Mug|1")]),
])
def test_each_action_sends_exactly_these_steps(action, expected):
    assert steps(action) == expected


def test_every_domain_action_has_steps():
    from tests.thor.support import thor_domain

    assert set(thor_domain().actions) == {"goto", *SEQUENCES}


@pytest.mark.parametrize("action", ["(fly the_robot mug_1)", "(pickup the_robot cabinet_99 counter_top_1)"])
def test_an_action_the_adapter_cannot_carry_out_is_a_thor_error(action):
    with pytest.raises(ThorError):
        steps(action)


def test_the_double_fails_like_ai2thor():
    s = session("FloorPlan1")
    c = s.controller
    far = c.step({"action": "PickupObject", "objectId": object_id(s, "apple_1")})
    assert isinstance(far, Event) and far is c.last_event
    assert not far.metadata["lastActionSuccess"] and "is too far from the agent" in far.metadata["errorMessage"]
    assert not c.step({"action": "PutObject", "objectId": object_id(s, "counter_top_1")}).metadata["lastActionSuccess"]
    assert "not a reachable position" in c.step({"action": "Teleport", "position": {"x": 99.0, "y": 0.9, "z": 99.0}}
                                                ).metadata["errorMessage"]
    assert "Invalid action" in c.step({"action": "Levitate"}).metadata["errorMessage"]
    assert s.executor.execute(f"(goto the_robot {s.executor.at} mug_1)").ok
    assert c.step({"action": "PickupObject", "objectId": object_id(s, "mug_1")}).metadata["lastActionSuccess"]
    full_hand = c.step({"action": "PickupObject", "objectId": object_id(s, "potato_1"), "forceAction": True})
    assert "already holding" in full_hand.metadata["errorMessage"]
    assert s.executor.execute("(goto the_robot mug_1 fridge_1)").ok
    closed = c.step({"action": "PutObject", "objectId": object_id(s, "fridge_1")})
    assert "is closed" in closed.metadata["errorMessage"]
    # within reach of the fridge's pose: the egg shut in the fridge, the apple on the island behind the agent
    shut_in = c.step({"action": "PickupObject", "objectId": object_id(s, "egg_1")}).metadata
    assert not shut_in["lastActionSuccess"]
    assert shut_in["errorMessage"].endswith(f"is not visible: it is inside {object_id(s, 'fridge_1')}, which is closed")
    behind = c.step({"action": "PickupObject", "objectId": object_id(s, "apple_1")}).metadata
    assert not behind["lastActionSuccess"] and "outside the agent's field of view" in behind["errorMessage"]
    assert [o["visible"] for o in behind["objects"] if o["objectId"] in (object_id(s, "egg_1"),
                                                                         object_id(s, "apple_1"))] == [False, False]
    assert s.executor.execute("(goto the_robot fridge_1 coffee_machine_1)").ok
    assert c.step({"action": "PutObject", "objectId": object_id(s, "coffee_machine_1")}).metadata["lastActionSuccess"]
    cup = object_id(s, "cup_1")
    c.step({"action": "PickupObject", "objectId": cup, "forceAction": True})
    full = c.step({"action": "PutObject", "objectId": object_id(s, "coffee_machine_1")})
    assert "is full" in full.metadata["errorMessage"]
    assert [a["action"] for a in c.sent][-2:] == ["PickupObject", "PutObject"]
