"""TEST DOUBLE of ``ai2thor.controller.Controller`` for machines that cannot run the Unity build.

`MetadataController` holds a scene's real initial object metadata (from the procthor wheel) and the reachable
positions of alfworld's layout, and applies to that metadata the documented effect of each ai2thor 5.x action
the adapter sends, including its failures: an unknown or invisible object, one out of reach, a full hand, an
empty hand, a closed or full receptacle, an object that cannot be opened, toggled or sliced. Each call returns a
real ``ai2thor.server.Event``. Physics is approximated, and said so: an object is visible when it is within the
visibility distance and the agent's 90-degree field of view (its centre or a corner of its bounding box) and not
shut in a closed receptacle (no occlusion by other objects); an empty receptacle takes any object (a pan overhangs
its burner), one that holds something is full when the floor area of its contents leaves no room for the held
object's footprint (appliances such as a coffee machine take one object);
slicing leaves the whole object (``isSliced``) and adds its pieces in the same place.
It is never used with a real AI2-THOR build (see `l3mp.thor.controller`).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable
from typing import Any

from ai2thor.server import Event

from l3mp.thor.perception import BASIN_TYPES, FAUCET_REACH_M, horizontal_distance, immediate_parent
from l3mp.thor.poses import VISIBILITY_DISTANCE_M
from l3mp.thor.scenes import reachable_positions, scene_objects

AGENT_Y = 0.9009995460510254
"""The agent's body height in iTHOR scenes (its ``position.y``)."""
HALF_FIELD_OF_VIEW_DEG = 45.0
SCREEN = 300
PIECES = {"Egg": ("EggCracked", 1)}
"""Pieces a slice makes (the Unity build makes its own number; ``<Type>Sliced``, an egg cracks)."""
DEFAULT_PIECES = 3
SINGLE_SLOT = frozenset({"CoffeeMachine", "Toaster", "StoveBurner", "ToiletPaperHanger", "TowelHolder",
                         "HandTowelHolder"})
"""Receptacles with room for one object whatever its size (a coffee machine takes one cup)."""


class ActionFailed(Exception):
    """An action the double rejects, with ai2thor's kind of error message."""


class MetadataController:
    """TEST DOUBLE: an AI2-THOR controller over a scene's real metadata (see the module docstring)."""

    def __init__(self, scene: str, objects: list[dict], reachable: Iterable[tuple[float, float]], *,
                 start: tuple[float, float, float] | None = None) -> None:
        self.scene = scene
        self._objects = {o["objectId"]: copy.deepcopy(o) for o in objects}
        self._reachable = sorted(set(reachable))
        x, z = self._reachable[0] if start is None else start[:2]
        self._agent = {"position": {"x": x, "y": AGENT_Y, "z": z},
                       "rotation": {"x": 0.0, "y": 0.0 if start is None else start[2], "z": 0.0},
                       "cameraHorizon": 0.0, "isStanding": True}
        self._held: str | None = None
        self.sent: list[dict[str, Any]] = []
        """Every action dict this controller was given, in order (what a real build would have received)."""
        self.last_event = self._event("Initialize", True, "", None)

    def step(self, action: str | dict[str, Any] | None = None, **action_args: Any) -> Event:
        """Apply one action (a dict, or a name with keyword arguments, as ai2thor accepts) and return its Event."""
        args = dict(action) if isinstance(action, dict) else {"action": action}
        args.update(action_args)
        self.sent.append(copy.deepcopy(args))
        name = str(args.get("action"))
        handler = getattr(self, f"_do_{name}", None)
        try:
            if handler is None:
                raise ActionFailed(f"Invalid action: {name}")
            returned = handler(args)
        except ActionFailed as exc:
            self.last_event = self._event(name, False, str(exc), None)
        else:
            self.last_event = self._event(name, True, "", returned)
        return self.last_event

    # ---- navigation -----------------------------------------------------------------------------
    def _do_GetReachablePositions(self, args: dict) -> list[dict]:
        return [{"x": x, "y": AGENT_Y, "z": z} for x, z in self._reachable]

    def _do_Teleport(self, args: dict) -> None:
        position = args.get("position") or {}
        spot = (float(position.get("x", math.nan)), float(position.get("z", math.nan)))
        if not any(math.isclose(spot[0], x, abs_tol=1e-3) and math.isclose(spot[1], z, abs_tol=1e-3)
                   for x, z in self._reachable):
            raise ActionFailed(f"Teleport: position {position} is not a reachable position of {self.scene}")
        self._agent["position"] = {"x": spot[0], "y": AGENT_Y, "z": spot[1]}
        self._agent["rotation"] = {"x": 0.0, "y": float((args.get("rotation") or {}).get("y", 0.0)), "z": 0.0}
        self._agent["cameraHorizon"] = float(args.get("horizon", 0.0))

    def _do_Pass(self, args: dict) -> None:
        return None

    # ---- picking up and putting -----------------------------------------------------------------
    def _do_PickupObject(self, args: dict) -> None:
        obj = self._target(args)
        if not obj["pickupable"]:
            raise ActionFailed(f"{obj['objectId']} is not pickupable")
        if self._held is not None:
            raise ActionFailed(f"Agent hand is already holding {self._held}")
        for parent in obj["parentReceptacles"] or ():
            ids = self._objects[parent]["receptacleObjectIds"] or []
            if obj["objectId"] in ids:
                ids.remove(obj["objectId"])
        obj["parentReceptacles"] = None
        obj["isPickedUp"] = True
        self._held = obj["objectId"]

    def _do_PutObject(self, args: dict) -> None:
        receptacle = self._target(args)
        if self._held is None:
            raise ActionFailed("PutObject: the agent is not holding anything")
        held = self._objects[self._held]
        if not receptacle["receptacle"]:
            raise ActionFailed(f"{receptacle['objectId']} is not a receptacle")
        if receptacle["openable"] and not receptacle["isOpen"]:
            raise ActionFailed(f"{receptacle['objectId']} is closed; open it first")
        contents = self._contents(receptacle)
        if contents and (receptacle["objectType"] in SINGLE_SLOT or _footprint(held) > self._free_area(receptacle)):
            raise ActionFailed(f"No valid positions to place object found: {receptacle['objectId']} is full")
        self._place(held, receptacle)
        self._held = None
        if receptacle["isColdSource"]:
            held["temperature"] = "Cold"

    # ---- states ---------------------------------------------------------------------------------
    def _do_OpenObject(self, args: dict) -> None:
        obj = self._openable(args)
        obj["isOpen"], obj["openness"] = True, float(args.get("openness", 1.0))

    def _do_CloseObject(self, args: dict) -> None:
        obj = self._openable(args)
        obj["isOpen"], obj["openness"] = False, 0.0

    def _do_ToggleObjectOn(self, args: dict) -> None:
        obj = self._toggleable(args)
        if obj["objectType"] == "Microwave" and obj["isOpen"]:
            raise ActionFailed(f"{obj['objectId']} cannot be turned on while it is open")
        obj["isToggled"] = True
        for thing in self._affected_by(obj):
            self._expose(thing, obj["objectType"])

    def _do_ToggleObjectOff(self, args: dict) -> None:
        self._toggleable(args)["isToggled"] = False

    def _do_SliceObject(self, args: dict) -> None:
        obj = self._target(args)
        if not obj["sliceable"] or obj["isSliced"]:
            raise ActionFailed(f"{obj['objectId']} cannot be sliced" + (" again" if obj["isSliced"] else ""))
        obj["isSliced"] = True
        piece_type, count = PIECES.get(obj["objectType"], (f"{obj['objectType']}Sliced", DEFAULT_PIECES))
        parent = self._objects.get(immediate_parent(obj, self._objects) or "")
        for n in range(count):
            piece = copy.deepcopy(obj)
            piece.update(objectId=f"{obj['objectId']}|{piece_type}_{n}", objectType=piece_type,
                         name=f"{piece_type}_{n}", sliceable=False, isSliced=False, isPickedUp=False)
            self._objects[piece["objectId"]] = piece
            if parent is not None:
                self._place(piece, parent)
        if self._held == obj["objectId"]:
            self._held = None

    def _do_DirtyObject(self, args: dict) -> None:
        self._dirtyable(args)["isDirty"] = True

    def _do_CleanObject(self, args: dict) -> None:
        self._dirtyable(args)["isDirty"] = False

    # ---- helpers --------------------------------------------------------------------------------
    def _target(self, args: dict, *, reach: bool = True) -> dict:
        object_id = args.get("objectId")
        obj = self._objects.get(str(object_id))
        if obj is None:
            raise ActionFailed(f"Object ID appears to be invalid: {object_id}")
        if reach and not args.get("forceAction"):
            why = self._out_of_reach(obj)
            if why is not None:
                raise ActionFailed(f"{object_id} {why}")
        return obj

    def _out_of_reach(self, obj: dict) -> str | None:
        """Why the agent cannot act on `obj` from where it stands (inside a closed receptacle, too far, out of
        sight), or None when it can."""
        if obj["objectId"] == self._held:
            return None
        shut = self._shut_in(obj)
        if shut is not None:
            return f"is not visible: it is inside {shut}, which is closed"
        distance = min(horizontal_distance(self._agent["position"], p) for p in _points(obj))
        if distance > VISIBILITY_DISTANCE_M:
            return (f"is too far from the agent: {distance:.2f} m, beyond the visibility distance of "
                    f"{VISIBILITY_DISTANCE_M} m")
        if not any(self._in_view(point) for point in _points(obj)):
            return "is not visible: it is outside the agent's field of view"
        return None

    def _openable(self, args: dict) -> dict:
        obj = self._target(args)
        if not obj["openable"]:
            raise ActionFailed(f"{obj['objectId']} is not openable")
        return obj

    def _toggleable(self, args: dict) -> dict:
        obj = self._target(args)
        if not obj["toggleable"]:
            raise ActionFailed(f"{obj['objectId']} is not toggleable")
        return obj

    def _dirtyable(self, args: dict) -> dict:
        obj = self._target(args, reach=False)
        if not obj["dirtyable"]:
            raise ActionFailed(f"{obj['objectId']} is not dirtyable")
        return obj

    def _place(self, obj: dict, receptacle: dict) -> None:
        obj["parentReceptacles"] = [receptacle["objectId"], *(receptacle["parentReceptacles"] or ())]
        obj["isPickedUp"] = False
        obj["position"] = dict(receptacle["position"])
        ids = receptacle["receptacleObjectIds"] or []
        ids.append(obj["objectId"])
        receptacle["receptacleObjectIds"] = ids

    def _contents(self, receptacle: dict) -> list[dict]:
        return [self._objects[i] for i in receptacle["receptacleObjectIds"] or () if i in self._objects]

    def _free_area(self, receptacle: dict) -> float:
        return _footprint(receptacle) - sum(_footprint(o) for o in self._contents(receptacle))

    def _affected_by(self, switch: dict) -> list[dict]:
        """What turning `switch` on acts on: a faucet its basin's contents, a knob its burners' contents (and
        what stands in them), an appliance its own contents."""
        if switch["objectType"] == "Faucet":
            basins = [o for o in self._objects.values() if o["objectType"] in BASIN_TYPES
                      and horizontal_distance(o["position"], switch["position"]) <= FAUCET_REACH_M]
            holders = [min(basins, key=lambda b: horizontal_distance(b["position"], switch["position"]))
                       ] if basins else []
        elif switch["objectType"] == "StoveKnob":
            holders = [self._objects[i] for i in switch["controlledObjects"] or () if i in self._objects]
        else:
            holders = [switch]
        out = []
        for holder in holders:
            for thing in self._contents(holder):
                out.append(thing)
                out.extend(self._contents(thing) if thing["receptacle"] else ())
        return out

    def _expose(self, thing: dict, source_type: str) -> None:
        """The effect on `thing` of a switched-on object of type `source_type`."""
        if source_type == "Faucet":
            if thing["dirtyable"]:
                thing["isDirty"] = False
            if thing["canFillWithLiquid"]:
                thing["isFilledWithLiquid"], thing["fillLiquid"] = True, "water"
            return
        if source_type == "CoffeeMachine" and thing["canFillWithLiquid"]:
            thing["isFilledWithLiquid"], thing["fillLiquid"] = True, "coffee"
        if source_type in ("Microwave", "StoveKnob", "Toaster", "CoffeeMachine"):
            thing["temperature"] = "Hot"
            if thing["cookable"]:
                thing["isCooked"] = True

    def _visible(self, obj: dict) -> bool:
        return self._out_of_reach(obj) is None

    def _shut_in(self, obj: dict) -> str | None:
        """The closed receptacle `obj` is inside, if any."""
        for parent in obj["parentReceptacles"] or ():
            holder = self._objects.get(parent)
            if holder is not None and holder["openable"] and not holder["isOpen"]:
                return parent
        return None

    def _in_view(self, point: dict[str, float]) -> bool:
        """Whether a point is within the visibility distance and the field of view."""
        here = self._agent["position"]
        distance = horizontal_distance(here, point)
        if distance > VISIBILITY_DISTANCE_M:
            return False
        if distance < 1e-6:
            return True
        heading = math.degrees(math.atan2(point["x"] - here["x"], point["z"] - here["z"]))
        off = (heading - self._agent["rotation"]["y"] + 180.0) % 360.0 - 180.0
        return abs(off) <= HALF_FIELD_OF_VIEW_DEG + 1e-6

    def _event(self, action: str, success: bool, error: str, returned: Any) -> Event:
        objects = []
        for obj in self._objects.values():
            obj["visible"] = self._visible(obj)
            obj["distance"] = horizontal_distance(self._agent["position"], obj["position"])
            objects.append(copy.deepcopy(obj))
        held = self._objects[self._held] if self._held else None
        return Event({
            "objects": objects,
            "agent": copy.deepcopy(self._agent),
            "inventoryObjects": [] if held is None else [{"objectId": held["objectId"],
                                                          "objectType": held["objectType"]}],
            "lastAction": action,
            "lastActionSuccess": success,
            "errorMessage": error,
            "actionReturn": returned,
            "sceneName": self.scene,
            "screenWidth": SCREEN,
            "screenHeight": SCREEN,
        })


def offline_controller(scene: str) -> MetadataController:
    """TEST DOUBLE on an iTHOR scene's real initial metadata and alfworld's reachable positions."""
    return MetadataController(scene, scene_objects(scene), reachable_positions(scene))


def _points(obj: dict) -> list[dict[str, float]]:
    """An object's centre and the corners of its bounding box (the places the agent may see it at)."""
    corners = (obj.get("axisAlignedBoundingBox") or {}).get("cornerPoints") or []
    return [obj["position"], *({"x": c[0], "y": c[1], "z": c[2]} for c in corners)]


def _footprint(obj: dict) -> float:
    size = (obj.get("axisAlignedBoundingBox") or {}).get("size") or {}
    return float(size.get("x", 0.0)) * float(size.get("z", 0.0))
