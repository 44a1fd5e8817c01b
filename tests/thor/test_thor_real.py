"""The full loop in the real AI2-THOR simulator. It cannot run on this project's machines (no Unity build, no
display or GPU) and is skipped unless L3MP_THOR_REAL=1 (L3MP_THOR_EXECUTABLE: a local build, else ai2thor
downloads one). Nothing of it has been run here."""

from __future__ import annotations

import os

import pytest

from l3mp.domain.triplets import Fact
from l3mp.thor.controller import real_controller
from l3mp.thor.perception import ThorPerception
from l3mp.thor.scenes import openable_poses
from l3mp.thor.session import ThorSession
from l3mp.world.model import WorldModel
from tests.thor.support import thor_domain

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    os.environ.get("L3MP_THOR_REAL") != "1",
    reason="needs a real AI2-THOR build (a display or Vulkan with a GPU); set L3MP_THOR_REAL=1 to run")]


def test_put_the_apple_in_the_fridge_in_the_real_simulator():
    controller = real_controller("FloorPlan1", local_executable_path=os.environ.get("L3MP_THOR_EXECUTABLE"))
    try:
        s = ThorSession(controller, scene="FloorPlan1", known_poses=openable_poses("FloorPlan1"))
        s.start()
        run = s.run("put the apple in the fridge and close it",
                    goal="(and (in apple_1 fridge_1) (not (is_open fridge_1)))")
        assert run.goal_reached, run.reason
        perception = ThorPerception(thor_domain(), scene="FloorPlan1")
        perception.namer = s.perception.namer
        truth = WorldModel(thor_domain())
        truth.perceive(perception.observe(controller.last_event.metadata, truth.graph, at=s.executor.at,
                                          survey=True))
        for fact in (Fact("in", ("apple_1", "fridge_1")), Fact("is_open", ("fridge_1",))):
            assert truth.graph.has_fact(fact) == s.world.graph.has_fact(fact)
    finally:
        controller.stop()
