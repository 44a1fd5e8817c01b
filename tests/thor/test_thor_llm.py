"""AI2-THOR through the embedded local model: a task's goal written by the LLM and a spoken-style update, on a
real kitchen with the TEST DOUBLE controller.

Asserts the loop's guarantees, not the 1.5B model's wording: whatever goal or update it writes, the plan is valid
for that goal and what the agent later sees decides the belief.
"""

from __future__ import annotations

import pytest

from l3mp.domain.triplets import Fact
from l3mp.llm.factory import make_llm
from l3mp.llm.settings import LLMSettings
from l3mp.retrieval import make_retriever
from l3mp.thor.offline import offline_controller
from l3mp.thor.scenes import openable_poses
from l3mp.thor.session import ThorSession
from l3mp.updates import NLUpdater
from tests.thor.support import object_id, truth_graph

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llm():
    model = make_llm(LLMSettings(timeout_s=600, max_tokens=400))
    yield model
    model.close()


def test_put_the_apple_in_the_fridge_through_the_llm(llm):
    s = ThorSession(offline_controller("FloorPlan1"), scene="FloorPlan1", known_poses=openable_poses("FloorPlan1"),
                    llm=llm)
    s.start()
    run = s.run("put the apple in the fridge")
    print("goal:", run.goal, "| plans:", run.plans, "|", run.reason)
    assert run.goal is not None, run.reason
    assert "(in apple_1 fridge_1)" in run.goal
    assert run.status == "reached", run.reason
    assert s.world.graph == truth_graph(s)


def test_a_spoken_update_is_confirmed_or_corrected_by_what_the_agent_sees(llm):
    s = ThorSession(offline_controller("FloorPlan1"), scene="FloorPlan1", known_poses=openable_poses("FloorPlan1"))
    s.start()
    for step in ({"action": "PickupObject", "objectId": object_id(s, "mug_1")},
                 {"action": "PutObject", "objectId": object_id(s, "sink_basin_1")}):
        assert s.controller.step({**step, "forceAction": True}).metadata["lastActionSuccess"]
    updater = NLUpdater(s.world, llm, make_retriever("search", llm=llm, domain=s.world.domain), max_attempts=2)
    result = updater.update("I put the mug in the sink.", ref="utt-1")
    print("update:", result.record.delta.to_json() if result.record else result.reason)
    said = s.world.graph.has_fact(Fact("in", ("mug_1", "sink_basin_1")))
    assert s.executor.execute(f"(goto the_robot {s.executor.at} sink_basin_1)").ok
    s.executor.flush()
    assert s.world.graph.has_fact(Fact("in", ("mug_1", "sink_basin_1")))
    told = [f for batch in s.executor.perceived[1:] for f, truth in batch.facts if truth]
    assert (Fact("in", ("mug_1", "sink_basin_1")) in told) != said
