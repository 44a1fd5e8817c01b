"""The executor node's AI2-THOR adapter (``adapter: l3mp.thor.adapter:make``) and the link it shares.

A process holds one `ThorLink` per scene: the controller (one Unity instance, or the TEST DOUBLE), the agent's
perception of it and its own belief. The executor node calls `make` for each plan; the executor it returns
runs on the shared link, starting from the belief the node sends (the world model's state). The bridge node
(`l3mp.ros.thor_bridge`, in the same process) registers with `ThorLink.listen`, gets every batch and publishes
it on ``/world_model/perception``; without it the world model never hears what the agent saw.

``adapter_options`` (JSON): ``{"scene": "FloorPlan1"}`` (the process's controller of that scene, as the bridge
started it, else AI2-THOR), plus ``"offline": true`` for the TEST DOUBLE, or ``"executable": "/path/to/build"``
for a local Unity build.
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
                 known_poses: Mapping[str, tuple] | None = None, belief: WorldGraph | None = None) -> None:
        self.scene = scene
        self.controller = controller
        self.offline = False
        """Whether the controller is the TEST DOUBLE (set by `shared_link`)."""
        self.executable: str | None = None
        self.world = WorldModel(domain) if belief is None else world_of(domain, belief)
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

    def look(self) -> Observation | None:
        """Perceive the controller's latest event if it was not perceived yet (see `ThorExecutor.look`)."""
        return self.executor.look()

    def executor_for(self, believed: WorldGraph) -> ThorExecutor:
        """The link's executor, checking against `believed` (a plan's start state) and recording its effects."""
        self.executor.use_world(world_of(self.world.domain, believed), writes_back=True)
        return self.executor

    def _publish(self, observation: Observation) -> None:
        for callback in list(self._listeners):
            callback(observation)


_LINKS: dict[str, ThorLink] = {}
_LOCK = threading.Lock()


def shared_link(domain: Domain, options: Mapping[str, Any], *, belief: WorldGraph | None = None) -> ThorLink:
    """The process's link to `options`' scene, started (survey perceived) on first use.

    One controller per scene and process: the executor node's adapter and the bridge node
    (`l3mp.ros.thor_bridge`) get the same link. Options that name ``offline`` or ``executable`` must agree
    with the link's (a ThorError says how they differ); without them, the link already there is used, else
    AI2-THOR starts. A new link's first belief is `belief` (the world model's graph: the survey then says
    only what differs), else empty."""
    unknown = set(options) - OPTIONS
    if unknown:
        raise ThorError(f"unknown AI2-THOR adapter option(s) {sorted(unknown)}; valid: {', '.join(sorted(OPTIONS))}")
    scene = options.get("scene")
    if not isinstance(scene, str):
        raise ThorError('the AI2-THOR adapter needs adapter_options {"scene": "FloorPlan<N>", ...}')
    scene_kind(scene)
    offline, executable = bool(options.get("offline", False)), options.get("executable") or None
    with _LOCK:
        link = _LINKS.get(scene)
        if link is None:
            controller = offline_controller(scene) if offline else real_controller(
                scene, local_executable_path=executable)
            link = _LINKS[scene] = ThorLink(controller, scene=scene, domain=domain,
                                            known_poses=openable_poses(scene), belief=belief)
            link.offline, link.executable = offline, executable
        elif ("offline" in options and offline != link.offline) or (executable and executable != link.executable):
            have = "the TEST DOUBLE (offline)" if link.offline else f"AI2-THOR ({link.executable or 'its own build'})"
            raise ThorError(f"this process's controller of {scene} is {have}; options {dict(options)} ask for "
                            "another one (give the executor's adapter_options and the bridge the same offline and "
                            "executable, or leave them out of adapter_options)")
        return link


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
    """Executor adapter factory: `context` has the domain, the believed graph at the plan's start, the options,
    and the plan with its goal (`l3mp.ros.adapters.AdapterContext`). With a goal, what the agent sees is checked
    against the rest of the plan before each action, as `l3mp thor` does: a surprise that breaks it (the cup
    found dirty on arrival) fails the action, and the executor node re-plans (then calls `expect` with the new
    plan); when a plan has run to its end, its `reached(goal)` perceives the last action's event and checks the
    goal in what the agent saw (False re-plans too); its `finish` perceives the last action's event at the
    plan's end."""
    executor = shared_link(context.domain, context.options).executor_for(context.believed)
    goal, plan = getattr(context, "goal", None), getattr(context, "plan", ())
    if goal is not None:
        executor.expect(plan, goal)
    return executor


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
