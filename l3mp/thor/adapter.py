"""The executor node's AI2-THOR adapter (``adapter: l3mp.thor.adapter:make``) and the link it shares.

A process holds one `ThorLink` per scene: the controller (one Unity instance, or the TEST DOUBLE), the agent's
perception of it and its own belief. The executor node calls `make` for each plan; the executor it returns
runs on the shared link, starting from the belief the node sends (the world model's state). A bridge that
publishes perception (``/world_model/perception``) registers with `ThorLink.listen` and gets every batch.

``adapter_options`` (JSON): ``{"scene": "FloorPlan1"}`` plus ``"offline": true`` for the TEST DOUBLE, or
``"executable": "/path/to/build"`` for a local Unity build.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from l3mp.domain.pddl_domain import Domain
from l3mp.thor.controller import real_controller
from l3mp.thor.errors import ThorError
from l3mp.thor.executor import Controller, ThorExecutor
from l3mp.thor.offline import offline_controller
from l3mp.thor.perception import ThorPerception
from l3mp.thor.poses import reachable_pose_finder
from l3mp.thor.scenes import openable_poses, scene_kind
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.graph import WorldGraph
from l3mp.world.model import Observation, WorldModel

OPTIONS = frozenset({"scene", "offline", "executable"})


class ThorLink:
    """A controller of one scene, the agent's perception of it and one executor that keeps where the agent is."""

    def __init__(self, controller: Controller, *, scene: str, domain: Domain,
                 known_poses: Mapping[str, tuple] | None = None) -> None:
        self.scene = scene
        self.controller = controller
        self.world = WorldModel(domain)
        self.perception = ThorPerception(domain, scene=scene)
        self.poses = reachable_pose_finder(controller, known_poses)
        self._listeners: list[Callable[[Observation], None]] = []
        self.executor = ThorExecutor(controller, self.world, self.perception, self.poses,
                                     on_perceived=self._publish)
        self.start_at = self.executor.start(survey=True)

    def listen(self, callback: Callable[[Observation], None], *, replay: bool = True) -> None:
        """Call `callback` with every perception batch from now on (with `replay`, first with those so far)."""
        if replay:
            for observation in self.executor.perceived:
                callback(observation)
        self._listeners.append(callback)

    def executor_for(self, believed: WorldGraph) -> ThorExecutor:
        """The link's executor, checking against `believed` (a plan's start state) and recording its effects."""
        self.executor.use_world(world_of(self.world.domain, believed), writes_back=True)
        return self.executor

    def _publish(self, observation: Observation) -> None:
        for callback in list(self._listeners):
            callback(observation)


_LINKS: dict[tuple[str, bool, str | None], ThorLink] = {}
_LOCK = threading.Lock()


def shared_link(domain: Domain, options: Mapping[str, Any]) -> ThorLink:
    """The process's link for these ``adapter_options``, started (survey perceived) on first use."""
    unknown = set(options) - OPTIONS
    if unknown:
        raise ThorError(f"unknown AI2-THOR adapter option(s) {sorted(unknown)}; valid: {', '.join(sorted(OPTIONS))}")
    scene = options.get("scene")
    if not isinstance(scene, str):
        raise ThorError('the AI2-THOR adapter needs adapter_options {"scene": "FloorPlan<N>", ...}')
    scene_kind(scene)
    offline, executable = bool(options.get("offline", False)), options.get("executable")
    key = (scene, offline, executable)
    with _LOCK:
        if key not in _LINKS:
            controller = offline_controller(scene) if offline else real_controller(
                scene, local_executable_path=executable)
            _LINKS[key] = ThorLink(controller, scene=scene, domain=domain, known_poses=openable_poses(scene))
        return _LINKS[key]


def close_links() -> None:
    """Stop every controller of this process (a Unity build exits) and forget the links."""
    with _LOCK:
        links = list(_LINKS.values())
        _LINKS.clear()
    for link in links:
        stop = getattr(link.controller, "stop", None)
        if callable(stop):
            stop()


def make(context: Any) -> ThorExecutor:
    """Executor adapter factory: `context` has the domain, the believed graph at the plan's start and the
    options (`l3mp.ros.adapters.AdapterContext`)."""
    return shared_link(context.domain, context.options).executor_for(context.believed)


def world_of(domain: Domain, graph: WorldGraph) -> WorldModel:
    """An in-memory world model holding a copy of `graph` (one verified import record)."""
    world = WorldModel(domain)
    constants = domain.constants
    entities = {}
    for name in graph.entities():
        if name in constants:
            continue
        attrs = graph.entity_attrs(name)
        entities[name] = EntitySpec(str(attrs["type"]), _text(attrs.get("label")), _text(attrs.get("description")))
    world.apply(Delta(add=tuple(sorted(graph.facts())), entities=entities), source="import")
    return world


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
