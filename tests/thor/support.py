"""Shared pieces of the AI2-THOR tests: sessions on the TEST DOUBLE over real iTHOR metadata, the truth as a graph."""

from __future__ import annotations

from functools import cache

from l3mp.domain.paths import domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.thor.offline import MetadataController, offline_controller
from l3mp.thor.perception import ThorPerception
from l3mp.thor.scenes import openable_poses
from l3mp.thor.session import ThorSession
from l3mp.world.graph import WorldGraph
from l3mp.world.model import WorldModel


@cache
def thor_domain() -> Domain:
    return Domain.from_file(domain_path("thor"))


def session(scene: str = "FloorPlan1") -> ThorSession:
    """A started session on the TEST DOUBLE of `scene` (the agent has surveyed the scene)."""
    s = ThorSession(offline_controller(scene), scene=scene, known_poses=openable_poses(scene))
    s.start()
    return s


def truth_graph(s: ThorSession) -> WorldGraph:
    """What the controller's current metadata says, in the session's names, as a graph of its own."""
    controller = s.controller
    assert isinstance(controller, MetadataController)
    perception = ThorPerception(thor_domain(), scene=controller.scene)
    perception.namer = s.perception.namer
    world = WorldModel(thor_domain())
    world.perceive(perception.observe(controller.last_event.metadata, world.graph, at=s.executor.at, survey=True))
    return world.graph


def object_id(s: ThorSession, name: str) -> str:
    found = s.perception.namer.object_id(name)
    assert found is not None, name
    return found
