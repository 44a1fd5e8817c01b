"""The thor domain's plan actions as ai2thor 5.x ``controller.step`` action dicts (the adapter's contract).

An interaction names its target by ``objectId``; ``PutObject`` names the receptacle (ai2thor 5.x; 2.1 named
the held object). ``goto`` becomes a ``Teleport`` to the target's interaction pose. The high-level actions
(wash, heat, cool, fill) are the sequences of primitive steps that have those effects in AI2-THOR.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from l3mp.planning.problem import action_words
from l3mp.thor.errors import ThorError
from l3mp.thor.poses import Pose

Step = dict[str, Any]

SEQUENCES: dict[str, tuple[tuple[str, int], ...]] = {
    "pickup": (("PickupObject", 2),),
    "pickup_from_open": (("PickupObject", 2),),
    "put": (("PutObject", 3),),
    "put_in_open": (("PutObject", 3),),
    "open": (("OpenObject", 2),),
    "close": (("CloseObject", 2),),
    "toggle_on": (("ToggleObjectOn", 2),),
    "toggle_off": (("ToggleObjectOff", 2),),
    "slice": (("SliceObject", 2),),
    "wash": (("PutObject", 3), ("ToggleObjectOn", 4), ("ToggleObjectOff", 4), ("PickupObject", 2)),
    "heat_in_microwave": (("OpenObject", 3), ("PutObject", 3), ("CloseObject", 3), ("ToggleObjectOn", 3),
                          ("ToggleObjectOff", 3), ("OpenObject", 3), ("PickupObject", 2), ("CloseObject", 3)),
    "heat_on_stove": (("PutObject", 3), ("ToggleObjectOn", 4), ("ToggleObjectOff", 4), ("PickupObject", 2)),
    "cool_in_fridge": (("OpenObject", 3), ("PutObject", 3), ("CloseObject", 3), ("OpenObject", 3),
                       ("PickupObject", 2), ("CloseObject", 3)),
    "fill_with_coffee": (("PutObject", 3), ("ToggleObjectOn", 3), ("ToggleObjectOff", 3), ("PickupObject", 2)),
}
"""Domain action -> its ai2thor steps, each (action, the position in ``(name arg ...)`` of the object acted on)."""
GOTO = "goto"


def controller_steps(action: str, *, object_id: Callable[[str], str | None], pose: Callable[[str], Pose | None],
                     agent_y: float) -> list[Step]:
    """The ``controller.step`` dicts that carry out one ground action such as ``(pickup the_robot mug_1 sink_1)``.

    `object_id` maps an entity to its AI2-THOR object id, `pose` an entity to its interaction pose. Raises
    ThorError for an action the adapter cannot carry out.
    """
    words = action_words(action)
    name = words[0]
    if name == GOTO:
        if len(words) != 4:
            raise ThorError(f"{action}: goto takes (goto agent from to)")
        target = pose(words[3])
        if target is None:
            raise ThorError(f"{action}: {words[3]} has no interaction pose (no reachable position in the scene)")
        return [target.teleport(agent_y)]
    if name not in SEQUENCES:
        raise ThorError(f"{action}: the AI2-THOR adapter has no steps for {name!r}; it runs "
                        f"{', '.join([GOTO, *SEQUENCES])}")
    steps = []
    for thor_action, position in SEQUENCES[name]:
        if position >= len(words):
            raise ThorError(f"{action}: {name} needs at least {position} argument(s)")
        target_id = object_id(words[position])
        if target_id is None:
            raise ThorError(f"{action}: {words[position]} is not an AI2-THOR object of this scene")
        step: Step = {"action": thor_action, "objectId": target_id}
        if thor_action == "OpenObject":
            step["openness"] = 1.0
        steps.append(step)
    return steps
