"""The real AI2-THOR controller (Unity build), for machines that can run it.

ai2thor 5.x downloads its Unity build on first use (or runs a local one) and needs a display (X/GLX) or
Vulkan with a GPU. The import is deferred so that the rest of the adapter works where the build cannot.
"""

from __future__ import annotations

from typing import Any

from l3mp.thor.errors import ThorError
from l3mp.thor.poses import VISIBILITY_DISTANCE_M

GRID_SIZE_M = 0.25
"""The grid of the agent's positions (alfworld's layouts use the same)."""


def real_controller(scene: str, *, local_executable_path: str | None = None, **settings: Any) -> Any:
    """An ``ai2thor.controller.Controller`` on `scene` with the grid and visibility distance the adapter assumes.

    `local_executable_path` runs a Unity build already on disk instead of downloading one; other `settings` go
    to the Controller as they are (``platform``, ``width``, ``height``, ...). Raises ThorError when ai2thor or
    its build cannot start, with ai2thor's reason.
    """
    try:
        from ai2thor.controller import Controller
    except ImportError as exc:
        raise ThorError(f"ai2thor's controller cannot be imported ({exc}); install it with its dependencies: "
                        "pip install ai2thor==5.0.0") from exc
    options = {"scene": scene, "gridSize": GRID_SIZE_M, "visibilityDistance": VISIBILITY_DISTANCE_M, **settings}
    if local_executable_path:
        options["local_executable_path"] = local_executable_path
    try:
        return Controller(**options)
    except Exception as exc:  # ai2thor raises many kinds (download, display, Unity crash)
        raise ThorError(f"AI2-THOR could not start scene {scene}: {type(exc).__name__}: {exc}") from exc
