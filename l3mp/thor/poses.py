"""Interaction poses: where the agent stands (and looks) to act on an object.

alfworld's precomputed pose for a receptacle id when it has one, else the reachable grid position nearest the
object within the visibility distance, turned (in steps of 90 degrees) towards it and looking down at low
objects. Reachable positions come from the controller (``GetReachablePositions``) or alfworld's layouts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

VISIBILITY_DISTANCE_M = 1.5
"""AI2-THOR's default ``visibilityDistance``: the farthest an object may be to be acted on."""
LOOK_DOWN_BELOW_M = 0.6
"""An object this far or more below the agent's body centre is looked at with the camera tilted down."""
LOOK_DOWN_DEG = 30.0


@dataclass(frozen=True)
class Pose:
    """An agent pose: floor position (x, z), heading (degrees, 0 = +z, 90 = +x) and camera horizon."""

    x: float
    z: float
    rotation: float
    horizon: float

    def teleport(self, agent_y: float) -> dict[str, Any]:
        """The ai2thor 5.x ``Teleport`` action that puts the agent in this pose."""
        return {"action": "Teleport", "position": {"x": self.x, "y": agent_y, "z": self.z},
                "rotation": {"x": 0.0, "y": self.rotation, "z": 0.0}, "horizon": self.horizon,
                "standing": True}


class PoseFinder:
    """Interaction poses of a scene's objects over its reachable positions (and alfworld's known poses)."""

    def __init__(self, reachable: Iterable[tuple[float, float]], known: Mapping[str, tuple] | None = None,
                 *, agent_y: float) -> None:
        self._reachable = sorted(set(reachable))
        self._known = dict(known or {})
        self._agent_y = agent_y

    @property
    def reachable(self) -> list[tuple[float, float]]:
        return list(self._reachable)

    def pose(self, obj: Mapping[str, Any]) -> Pose | None:
        """Where to stand to act on `obj` (None when the scene has no reachable position at all)."""
        known = self._known.get(obj["objectId"])
        if known is not None:
            x, z, rotation, horizon = known
            return Pose(x, z, rotation % 360, horizon)
        if not self._reachable:
            return None
        ox, oz = obj["position"]["x"], obj["position"]["z"]
        x, z = min(self._reachable, key=lambda p: (math.hypot(p[0] - ox, p[1] - oz), p))
        heading = math.degrees(math.atan2(ox - x, oz - z))
        rotation = (round(heading / 90.0) * 90) % 360
        low = obj["position"]["y"] < self._agent_y - LOOK_DOWN_BELOW_M
        return Pose(x, z, float(rotation), LOOK_DOWN_DEG if low else 0.0)


def reachable_pose_finder(controller: Any, known: Mapping[str, tuple] | None = None) -> PoseFinder:
    """The poses of a controller's scene: its ``GetReachablePositions`` and the agent's height, with `known`
    (alfworld's) poses first."""
    reachable = controller.step({"action": "GetReachablePositions"}).metadata["actionReturn"] or []
    agent_y = controller.last_event.metadata["agent"]["position"]["y"]
    return PoseFinder(((p["x"], p["z"]) for p in reachable), known, agent_y=agent_y)
