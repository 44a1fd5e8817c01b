"""Interaction poses: alfworld's precomputed pose for a receptacle, else the nearest of the positions the
controller's GetReachablePositions returns, turned towards the object; goto teleports there."""

from __future__ import annotations

import math

from l3mp.thor.poses import LOOK_DOWN_DEG, Pose, PoseFinder
from l3mp.thor.scenes import openable_poses
from tests.thor.support import object_id, session


def metadata_of(s, name: str) -> dict:
    return next(o for o in s.controller.last_event.metadata["objects"] if o["objectId"] == object_id(s, name))


def test_the_reachable_positions_come_from_the_controller():
    s = session("FloorPlan1")
    assert s.controller.sent[0] == {"action": "GetReachablePositions"}
    returned = {(p["x"], p["z"]) for p in s.controller.step({"action": "GetReachablePositions"}
                                                             ).metadata["actionReturn"]}
    assert set(s.poses.reachable) == returned and len(returned) > 50


def test_a_receptacle_with_an_alfworld_pose_is_reached_at_that_pose():
    s = session("FloorPlan1")
    basin = object_id(s, "sink_basin_1")
    x, z, rotation, horizon = openable_poses("FloorPlan1")[basin]
    assert s.poses.pose(metadata_of(s, "sink_basin_1")) == Pose(x, z, rotation % 360, horizon)
    assert s.executor.execute(f"(goto the_robot {s.executor.at} sink_basin_1)").ok
    teleport = s.controller.sent[-1]
    assert teleport["action"] == "Teleport" and (teleport["position"]["x"], teleport["position"]["z"]) == (x, z)
    assert teleport["rotation"]["y"] == rotation % 360 and teleport["horizon"] == horizon
    assert metadata_of(s, "sink_basin_1")["visible"]


def test_another_object_is_reached_from_the_nearest_reachable_position_facing_it():
    s = session("FloorPlan1")
    apple = metadata_of(s, "apple_1")
    assert apple["objectId"] not in openable_poses("FloorPlan1")
    pose = s.poses.pose(apple)
    nearest = min(math.hypot(x - apple["position"]["x"], z - apple["position"]["z"]) for x, z in s.poses.reachable)
    assert math.hypot(pose.x - apple["position"]["x"], pose.z - apple["position"]["z"]) == nearest
    assert pose.rotation % 90 == 0 and pose.horizon == 0.0
    assert s.executor.execute(f"(goto the_robot {s.executor.at} apple_1)").ok
    assert metadata_of(s, "apple_1")["visible"]


def test_a_low_object_is_looked_at_from_above_and_no_reachable_position_means_no_pose():
    finder = PoseFinder([(0.0, 0.0), (1.0, 0.0)], agent_y=0.9)
    low = {"objectId": "Cloth|1", "position": {"x": 1.0, "y": 0.1, "z": 1.0}}
    assert finder.pose(low) == Pose(1.0, 0.0, 0.0, LOOK_DOWN_DEG)
    assert PoseFinder([], agent_y=0.9).pose(low) is None
