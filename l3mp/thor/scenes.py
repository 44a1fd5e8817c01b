"""Real iTHOR scene data shipped in wheels, read by path without importing them.

- the ``procthor`` wheel's ``databases/ai2thor-object-metadata.json``: the initial ``objects`` metadata of every
  iTHOR scene (keys kitchens, living_rooms, bedrooms, bathrooms; index i is FloorPlan base+i+1);
- the ``alfworld`` wheel's ``gen/layouts/FloorPlan<N>-layout.npy`` (the reachable positions of the agent on the
  0.25 m grid) and ``-openable.json`` (an interaction pose [x, z, rotation, horizon] per receptacle id).
"""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path

from l3mp.thor.errors import ThorError

KINDS = {"kitchens": 0, "living_rooms": 200, "bedrooms": 300, "bathrooms": 400}
"""The scene groups of the metadata file and the number before each group's first FloorPlan."""
SCENES_PER_KIND = 30
METADATA = "databases/ai2thor-object-metadata.json"


def wheel_dir(package: str) -> Path:
    """Where an installed data wheel's files are, found without importing the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ThorError(f"the {package!r} wheel is not installed; install its data with "
                        f"`pip install --no-deps procthor==0.0.1.dev2 alfworld==0.4.2`")
    return Path(next(iter(spec.submodule_search_locations)))


@cache
def _metadata() -> dict[str, list[list[dict]]]:
    path = wheel_dir("procthor") / METADATA
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ThorError(f"cannot read the iTHOR object metadata {path}: {exc}") from exc


def scene_names(kinds: tuple[str, ...] = tuple(KINDS)) -> list[str]:
    """Every iTHOR scene of the given kinds, e.g. ``FloorPlan1`` .. ``FloorPlan30`` for kitchens."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ThorError(f"unknown scene kind(s) {sorted(unknown)}; valid: {', '.join(KINDS)}")
    return [f"FloorPlan{KINDS[k] + i + 1}" for k in kinds for i in range(SCENES_PER_KIND)]


def scene_kind(scene: str) -> str:
    """The group of an iTHOR scene name (``FloorPlan201`` -> ``living_rooms``)."""
    number = _number(scene)
    for kind, base in KINDS.items():
        if base < number <= base + SCENES_PER_KIND:
            return kind
    raise ThorError(f"{scene} is not an iTHOR scene; use FloorPlan1-30, 201-230, 301-330 or 401-430")


def scene_objects(scene: str) -> list[dict]:
    """A fresh copy of the initial ``objects`` metadata of an iTHOR scene (42 fields per object)."""
    kind = scene_kind(scene)
    objects = _metadata()[kind][_number(scene) - KINDS[kind] - 1]
    return json.loads(json.dumps(objects))


def reachable_positions(scene: str) -> list[tuple[float, float]]:
    """The agent's reachable (x, z) grid positions in a scene (alfworld's precomputed layout)."""
    import numpy as np

    path = wheel_dir("alfworld") / "gen" / "layouts" / f"{scene}-layout.npy"
    try:
        grid = np.load(path)
    except (OSError, ValueError) as exc:
        raise ThorError(f"cannot read the reachable positions of {scene} ({path}): {exc}") from exc
    return [(float(x), float(z)) for x, z in grid]


def openable_poses(scene: str) -> dict[str, tuple[float, float, float, float]]:
    """alfworld's interaction poses by receptacle object id: (x, z, rotation, horizon)."""
    path = wheel_dir("alfworld") / "gen" / "layouts" / f"{scene}-openable.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ThorError(f"cannot read the interaction poses of {scene} ({path}): {exc}") from exc
    return {k: (float(v[0]), float(v[1]), float(v[2]), float(v[3])) for k, v in raw.items()}


def _number(scene: str) -> int:
    digits = scene.removeprefix("FloorPlan")
    if not scene.startswith("FloorPlan") or not digits.isdigit():
        raise ThorError(f"{scene!r} is not an iTHOR scene name; use FloorPlan<N>, e.g. FloorPlan1")
    return int(digits)
