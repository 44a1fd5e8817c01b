"""The three nodes in one process, driven over their topics and services: perception, deltas, queries, NL updates
(through the scripted LLM server, a TEST DOUBLE for a paid API), planning, execution with write-back and
replanning, malformed requests, diagnostics and the services."""

from __future__ import annotations

import json
import time

import pytest
from diagnostic_msgs.msg import DiagnosticArray

from l3mp.ros import protocol as m
from l3mp.ros.client import Client
from l3mp.ros.executor_node import GOAL_FALSE
from l3mp.ros.launcher import random_domain
from tests.helpers import F, snapshot
from tests.llm.scripted_server import reply, slow
from tests.ros import flaky_adapter
from tests.ros.support import call_trigger, make_store, scripted_llm

FLAKY = "tests.ros.flaky_adapter:make"
WATCHING = "tests.ros.flaky_adapter:watching"
"""The TEST DOUBLE robot with ``reached(goal)``: someone undoes what it did once (the lamp), always (the TV)."""
SLOW_S = 5.0
"""How long the scripted LLM takes to answer in the tests that show nothing else waits for it."""


def changes(*items: tuple) -> str:
    """An update answer: what holds after the event, as (predicate, args..., true|false)."""
    return json.dumps({"changes": [{"predicate": p, "args": list(args), "true": now} for p, *args, now in items]})


@pytest.fixture(scope="module")
def ros(tmp_path_factory, llm_server):
    store = make_store(tmp_path_factory.mktemp("ros") / "world")
    llm = scripted_llm(llm_server.url)
    params = {
        "world_model": {"store_path": str(store), "fsync": False, "state_period_s": 0.05, "update.retrieval": "full",
                        "update.read_text": False,
                        "update.max_attempts": 2, "diagnostics_period_s": 0.2, **llm},
        "planner": {"retrieval": "full", "planner": "fast-downward", **llm},
        "executor": {"adapter": FLAKY, "adapter_options": json.dumps({"fail_once": ["(turn_on_light the_robot "
                                                                                   "lamp2 bedroom)"]})},
    }
    harness = Client(("world_model", "planner", "executor"), params)
    yield harness
    harness.close()


def world(ros: Client):
    return ros.nodes["world_model"].world


def test_perception_reaches_the_graph_the_changes_and_the_state(ros):
    batch = {"observation_id": "cam-1", "entities": {"cup9": {"type": "dish", "label": "blue cup"}},
             "triplets": [["cup9", "on", "counter1"], ["plate1", "dirty", True]]}
    ros.publish(m.WORLD_MODEL_PERCEPTION, batch)
    result = ros.result(m.WORLD_MODEL_RESULTS, "cam-1")
    assert result["ok"] and result["batches"][0]["accepted"]
    seq = result["batches"][0]["seq"]
    graph = world(ros).graph
    assert graph.has_fact(F("on", "cup9", "counter1")) and graph.entity_attrs("cup9")["label"] == "blue cup"
    record = ros.wait(m.WORLD_MODEL_CHANGES, lambda r: r["seq"] == seq)
    assert record["source"] == "perception" and record["ref"] == "cam-1"
    state = ros.wait(m.WORLD_MODEL_STATE, lambda s: s["seq"] >= seq)
    assert "cup9" in state["graph"]["entities"] and state["domain"] == "household"


BAD = [
    (m.WORLD_MODEL_PERCEPTION, "{not json", "malformed", "not valid JSON"),
    (m.WORLD_MODEL_PERCEPTION, {"observation_id": "x", "triplets": [["mug1", "on_top", "counter1"]]}, "rejected",
     "unknown predicate 'on_top'"),
    (m.WORLD_MODEL_PERCEPTION, {"observation_id": "x", "triplets": "mug1 on counter1"}, "malformed", "'triplets'"),
    (m.WORLD_MODEL_PERCEPTION, [{"triplets": [["mug1", "on", "table1"]]}, {"colour": "red"}], "malformed",
     "batch 2 of 2"),
    (m.WORLD_MODEL_APPLY, {"id": "a1", "delta": {"add": [["kitchen_tap", "faucet_on", True]]}, "source": "nl"},
     "rejected", "unknown entity 'kitchen_tap'"),
    (m.WORLD_MODEL_APPLY, {"id": "a2", "delta": {"add": [["book1", "on", "fridge1"]]}}, "rejected",
     "must be a surface"),
    (m.WORLD_MODEL_APPLY, {"id": "a3", "delta": {"add": []}, "source": "import"}, "malformed", "'source'"),
    (m.WORLD_MODEL_APPLY, {"id": "a4", "delta": [], "ref": 7}, "malformed", "'delta' must be dict"),
    (m.WORLD_MODEL_QUERY, {"id": "q", "kind": "facts", "entity": "nobody"}, "malformed", "unknown entity"),
    (m.WORLD_MODEL_QUERY, {"id": "q", "kind": "everything"}, "malformed", "unknown query kind"),
    (m.WORLD_MODEL_NL_UPDATE, {"id": "n", "text": 5}, "malformed", "'text' must be str"),
    (m.WORLD_MODEL_NL_UPDATE, "   ", "malformed", "empty request"),
    (m.WORLD_MODEL_NL_UPDATE, {"id": "n", "text": "  "}, "malformed", "'text' is empty"),
]


@pytest.mark.parametrize(("topic", "payload", "code", "says"), BAD, ids=[f"{t.split('/')[-1]}-{i}"
                                                                        for i, (t, *_) in enumerate(BAD)])
def test_a_bad_request_gets_an_error_and_changes_nothing(ros, topic, payload, code, says):
    before, seq = snapshot(world(ros).graph), world(ros).last_seq
    count = len(ros.received[m.WORLD_MODEL_RESULTS])
    ros.publish(topic, payload)
    result = ros.wait(m.WORLD_MODEL_RESULTS, lambda r: r in ros.received[m.WORLD_MODEL_RESULTS][count:])
    assert not result["ok"] and result["error"]["code"] == code and says in json.dumps(result), result
    assert snapshot(world(ros).graph) == before and world(ros).last_seq == seq
    ros.publish(m.WORLD_MODEL_QUERY, {"id": f"alive-{count}", "kind": "facts", "entity": "mug1"})
    assert ros.result(m.WORLD_MODEL_RESULTS, f"alive-{count}")["ok"]


@pytest.mark.parametrize(("payload", "says"), [
    ({"id": "t-bad-1", "execute": "yes", "task": "x"}, "'execute' must be bool"),
    ({"id": "t-bad-2", "goal": "(has alice mug1)"}, "missing key 'task'"),
    ({"id": "t-bad-3", "task": "x", "retrieval": "psychic"}, "unknown retrieval"),
])
def test_a_malformed_task_gets_an_error(ros, payload, says):
    ros.publish(m.PLANNER_TASK, payload)
    result = ros.result(m.PLANNER_PLAN, payload["id"])
    assert not result["ok"] and result["error"]["code"] == "malformed" and says in result["error"]["message"]


def test_a_goal_naming_an_unknown_object_is_an_invalid_goal(ros):
    ros.publish(m.PLANNER_TASK, {"id": "t-ghost", "task": "give the ghost cup to alice", "goal": "(has alice cup42)",
                                  "retrieval": "full", "execute": True})
    result = ros.result(m.PLANNER_PLAN, "t-ghost")
    assert not result["ok"] and result["error"]["code"] == "invalid_goal" and "cup42" in result["error"]["message"]


def test_queries_answer_facts_entities_and_history(ros):
    ros.publish(m.WORLD_MODEL_QUERY, {"id": "q-facts", "kind": "facts", "entity": "alice"})
    ros.publish(m.WORLD_MODEL_QUERY, {"id": "q-rooms", "kind": "entities", "type": "room"})
    ros.publish(m.WORLD_MODEL_QUERY, {"id": "q-story", "kind": "history", "entity": "phone1"})
    assert ["alice", "has", "phone1"] in ros.result(m.WORLD_MODEL_RESULTS, "q-facts")["facts"]
    assert set(ros.result(m.WORLD_MODEL_RESULTS, "q-rooms")["entities"]) == {"kitchen", "living_room", "bedroom"}
    story = ros.result(m.WORLD_MODEL_RESULTS, "q-story")["facts"]
    assert {"fact": ["alice", "has", "phone1"], "seq": 1, "source": "import"}.items() <= story[0].items()


def test_a_question_is_answered_from_the_store_with_its_records(ros):
    ros.publish(m.WORLD_MODEL_QUERY, {"id": "q-where", "kind": "question", "question": "where is the milk?"})
    answer = ros.result(m.WORLD_MODEL_RESULTS, "q-where")
    assert answer["ok"] and answer["answer"]["status"] == "answered" and "fridge" in answer["answer"]["text"]
    ros.publish(m.WORLD_MODEL_QUERY, {"id": "q-bad", "kind": "question"})
    bad = ros.result(m.WORLD_MODEL_RESULTS, "q-bad")
    assert not bad["ok"] and bad["error"]["code"] == "malformed" and "'question'" in bad["error"]["message"]


def test_an_nl_update_goes_through_the_llm_and_the_verifier(ros, llm_server):
    llm_server.push(reply(changes(("light_on", "lamp1", False))))
    ros.publish(m.WORLD_MODEL_NL_UPDATE, {"id": "nl-1", "text": "Alice switched off the living-room lamp."})
    result = ros.result(m.WORLD_MODEL_RESULTS, "nl-1")
    assert result["ok"] and result["record"]["source"] == "nl" and result["record"]["ref"] == "nl-1"
    assert not world(ros).graph.has_fact(F("light_on", "lamp1"))
    ros.wait(m.WORLD_MODEL_CHANGES, lambda r: r["seq"] == result["record"]["seq"])


def test_a_hallucinating_llm_changes_nothing(ros, llm_server):
    wrong = reply(changes(("faucet_on", "kitchen_tap", True)))
    llm_server.push(wrong, wrong)
    before = snapshot(world(ros).graph)
    ros.publish(m.WORLD_MODEL_NL_UPDATE, "Someone turned on the kitchen tap.")
    result = ros.wait(m.WORLD_MODEL_RESULTS, lambda r: r["kind"] == "nl_update" and "kitchen tap" in r.get("text", ""))
    assert not result["ok"] and result["error"]["code"] == "not_applied" and len(result["attempts"]) == 2
    assert "kitchen_tap" in result["error"]["message"] and snapshot(world(ros).graph) == before


def test_a_slow_llm_call_does_not_hold_up_perception(ros, llm_server):
    llm_server.push(slow(SLOW_S, changes(("tv_on", "tv1", True))))
    ros.publish(m.WORLD_MODEL_NL_UPDATE, {"id": "nl-slow", "text": "The TV is on now."})
    time.sleep(0.3)
    ros.publish(m.WORLD_MODEL_PERCEPTION, {"observation_id": "cam-during-llm", "triplets": [["apple1", "inside",
                                                                                              "fridge1"]]})
    quick = ros.result(m.WORLD_MODEL_RESULTS, "cam-during-llm", timeout=SLOW_S - 0.5)
    late = ros.result(m.WORLD_MODEL_RESULTS, "nl-slow")
    assert quick["ok"] and late["ok"] and quick["time"] < late["time"]
    assert world(ros).graph.has_fact(F("tv_on", "tv1"))


def test_a_task_is_planned_executed_and_written_back(ros):
    ros.publish(m.PLANNER_TASK, {"id": "t-mug", "task": "bring the mug to Alice", "goal": "(has alice mug1)",
                                  "retrieval": "full"})
    plan = ros.result(m.PLANNER_PLAN, "t-mug")
    assert plan["ok"] and plan["execute"] and plan["plan"][-1].startswith("(give the_robot mug1 alice")
    done = ros.result(m.EXECUTOR_RESULT, "t-mug")
    assert done["ok"] and done["status"] == "completed" and len(done["steps"]) == len(plan["plan"])
    graph = world(ros).graph
    assert graph.has_fact(F("has", "alice", "mug1")) and graph.has_fact(F("hand_empty", "the_robot"))
    records = [world(ros).store.record(step["seq"]) for step in done["steps"]]
    assert [r.source for r in records] == ["plan"] * len(records) and {r.ref for r in records} == {"t-mug"}
    steps = [s for s in ros.received[m.EXECUTOR_STEPS] if s["plan_id"] == "t-mug"]
    assert [s["action"] for s in steps] == plan["plan"]
    statuses = [s["status"] for s in ros.received[m.PLANNER_STATUS] if s["id"] == "t-mug"]
    assert statuses == ["queued", "planning", "solved"]
    executor = ros.nodes["executor"]
    assert executor.replica.origin_seq == world(ros).last_seq or executor.replica.graph == graph


def test_a_failed_step_is_replanned_through_the_planner(ros):
    assert not world(ros).graph.has_fact(F("light_on", "lamp2"))
    ros.publish(m.PLANNER_TASK, {"id": "t-lamp", "task": "light the bedroom", "goal": "(light_on lamp2)",
                                  "retrieval": "full"})
    done = ros.result(m.EXECUTOR_RESULT, "t-lamp")
    assert done["ok"] and done["replans"] == 1 and "failed" in done["failures"][0]
    assert world(ros).graph.has_fact(F("light_on", "lamp2"))


def test_an_execute_request_with_a_bad_plan_gets_an_error(ros):
    ros.publish(m.EXECUTOR_EXECUTE, {"id": "x-1", "plan": []})
    ros.publish(m.EXECUTOR_EXECUTE, {"id": "x-2", "plan": ["(fly the_robot moon)"]})
    assert ros.result(m.EXECUTOR_RESULT, "x-1")["error"]["code"] == "malformed"
    failed = ros.result(m.EXECUTOR_RESULT, "x-2")
    assert failed["error"]["code"] == "failed" and "fly" in failed["error"]["message"]


def test_services_give_the_state_and_write_a_snapshot(ros):
    for name, check in (("get_state", lambda r: json.loads(r.message)["seq"] == world(ros).last_seq),
                        ("snapshot", lambda r: "snapshot written" in r.message)):
        response = call_trigger(ros, f"{m.WORLD_MODEL}/{name}")
        assert response.success and check(response)
    assert any(p.name.startswith("snapshot-") for p in world(ros).store.path.iterdir())


def test_diagnostics_report_llm_store_queue_and_last_update(ros):
    got: list[DiagnosticArray] = []
    ros.node.create_subscription(DiagnosticArray, m.DIAGNOSTICS, got.append, 10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not {s.name for a in got for s in a.status} >= {
            "l3mp: world_model", "l3mp: planner", "l3mp: executor"}:
        time.sleep(0.05)
    status = next(s for a in got for s in a.status if s.name == "l3mp: world_model")
    values = {kv.key: kv.value for kv in status.values}
    assert {"llm", "store", "queue_depth", "last_update", "last_seq"} <= set(values)
    assert values["store"].startswith("writable") and values["llm"].startswith("compatible:scripted")
    planner = next(s for a in got for s in a.status if s.name == "l3mp: planner")
    assert "in step at record" in {kv.key: kv.value for kv in planner.values}["world_model"]


def test_a_resent_delta_is_answered_again_and_applied_once(ros):
    request = {"id": "apply-twice", "delta": {"add": [["tv1", "tv_on", True]]}, "source": "user",
               "input": "I switched the TV on"}
    if world(ros).graph.has_fact(F("tv_on", "tv1")):
        request["delta"] = {"remove": [["tv1", "tv_on", True]]}
    ros.publish(m.WORLD_MODEL_APPLY, request)
    first = ros.result(m.WORLD_MODEL_RESULTS, "apply-twice")
    seq = world(ros).last_seq
    ros.publish(m.WORLD_MODEL_APPLY, request)
    ros.wait(m.WORLD_MODEL_RESULTS, lambda r: r.get("id") == "apply-twice" and r is not first)
    answers = [r for r in ros.received[m.WORLD_MODEL_RESULTS] if r.get("id") == "apply-twice"]
    assert len(answers) == 2 and answers[0] == answers[1] and first["ok"]
    assert first["record"]["seq"] == seq == world(ros).last_seq


def test_a_running_plan_can_be_cancelled_after_its_current_step(tmp_path):
    domain_id = random_domain()  # not the module's nodes
    params = {"world_model": {"store_path": str(make_store(tmp_path / "world")), "fsync": False},
              "executor": {"adapter": FLAKY, "adapter_options": json.dumps({"delay_s": 0.5})}}
    ros = Client(("world_model", "executor"), params, domain_id=domain_id)
    try:
        plan = ["(move the_robot kitchen bedroom)", "(move the_robot bedroom living_room)",
                "(move the_robot living_room kitchen)"]
        ros.publish(m.EXECUTOR_EXECUTE, {"id": "long", "plan": plan})
        ros.wait(m.EXECUTOR_STEPS, lambda s: s["plan_id"] == "long")
        response = call_trigger(ros, m.EXECUTOR_CANCEL)
        assert response.success and "cancelling long" in response.message
        done = ros.result(m.EXECUTOR_RESULT, "long")
        assert not done["ok"] and done["error"]["code"] == "cancelled"
        ran = [s for s in done["steps"] if s["ok"]]
        assert 1 <= len(ran) < len(plan) and done["steps"][-1]["message"] == "cancelled"
        graph = ros.nodes["world_model"].world.graph
        assert graph.has_fact(F("in_room", "the_robot", "bedroom" if len(ran) == 1 else "living_room"))
    finally:
        ros.close()


def test_a_slow_goal_from_the_llm_does_not_hold_up_the_planners_other_requests(ros, llm_server):
    llm_server.push(slow(SLOW_S, '{"literals": []}'))
    ros.publish(m.PLANNER_TASK, {"id": "t-slow", "task": "make the living room cosy", "retrieval": "full"})
    ros.wait(m.PLANNER_STATUS, lambda s: s["id"] == "t-slow" and s["status"] == "planning")
    ros.publish(m.PLANNER_TASK, {"id": "t-quick-bad", "task": ["not", "text"]})
    ros.publish(m.PLANNER_TASK, {"id": "t-queued", "task": "light the bedroom", "goal": "(light_on lamp2)",
                                  "retrieval": "full", "execute": False})
    quick = ros.result(m.PLANNER_PLAN, "t-quick-bad", timeout=SLOW_S - 0.5)
    assert quick["error"]["code"] == "malformed"
    queued = ros.wait(m.PLANNER_STATUS, lambda s: s["id"] == "t-queued" and s["status"] == "queued",
                      timeout=SLOW_S - 0.5)
    assert queued["queue_depth"] == 2
    slow_result, later = ros.result(m.PLANNER_PLAN, "t-slow"), ros.result(m.PLANNER_PLAN, "t-queued")
    assert not slow_result["ok"] and later["ok"] and quick["time"] < slow_result["time"] < later["time"]


@pytest.fixture(scope="module")
def watched(tmp_path_factory):
    """World model, planner and executor with the TEST DOUBLE robot that looks when asked whether the goal holds
    (`flaky_adapter.Watching`); what it sees goes to the world model's perception topic, as the AI2-THOR bridge
    sends it, and is applied there before `reached` answers."""
    domain_id = random_domain()  # not the other stacks'
    undone = {"(light_on lamp2)": {"triplets": [["lamp2", "light_on", False]], "times": 1},
              "(tv_on tv1)": {"triplets": [["tv1", "tv_on", False]], "times": 99}}
    params = {"world_model": {"store_path": str(make_store(tmp_path_factory.mktemp("watched") / "world")),
                              "fsync": False, "state_period_s": 0.05},
              "planner": {"retrieval": "full", "planner": "fast-downward"},
              "executor": {"adapter": WATCHING, "max_replans": 2, "adapter_options": json.dumps(
                  {"unseen": undone, "reached_raises": ["(faucet_on faucet1)"]})}}
    client = Client(("world_model", "planner", "executor"), params, domain_id=domain_id)

    def seen(batch: dict) -> None:
        client.publish(m.WORLD_MODEL_PERCEPTION, batch)
        assert client.result(m.WORLD_MODEL_RESULTS, batch["observation_id"])["ok"]

    flaky_adapter.SEEN = seen
    yield client
    flaky_adapter.SEEN = None
    client.close()


def test_a_plan_that_ends_with_the_goal_seen_false_is_replanned_until_it_holds(watched):
    watched.publish(m.PLANNER_TASK, {"id": "w-lamp", "task": "light the bedroom", "goal": "(light_on lamp2)",
                                     "retrieval": "full"})
    first = watched.result(m.PLANNER_PLAN, "w-lamp")
    done = watched.result(m.EXECUTOR_RESULT, "w-lamp")
    assert done["ok"] and done["status"] == "completed", done
    assert done["replans"] == 1 and done["failures"] == [GOAL_FALSE]
    switch = "(turn_on_light the_robot lamp2 bedroom)"
    assert first["plan"][-1] == switch and [s["action"] for s in done["steps"]] == [*first["plan"], switch]
    assert done["message"] == f"completed: {len(first['plan']) + 1} step(s), 1 replan(s)"
    # the robot's sighting reached the world model between the two plans, and the second plan's effect after it
    world = watched.nodes["world_model"].world
    assert world.graph.has_fact(F("light_on", "lamp2"))
    seqs = [s["seq"] for s in done["steps"]]
    seen = [r for r in (world.store.record(q) for q in range(seqs[-2] + 1, seqs[-1])) if r.source == "perception"]
    assert len(seen) == 1 and seen[0].ref.startswith("seen-")
    replans = [r for r in watched.received[m.PLANNER_PLAN] if r.get("task") == "light the bedroom"
               and r is not first]
    assert [r["plan"] for r in replans] == [[switch]]


def test_a_goal_never_seen_true_stops_when_no_replan_is_left(watched):
    watched.publish(m.PLANNER_TASK, {"id": "w-tv", "task": "turn the TV on", "goal": "(tv_on tv1)",
                                     "retrieval": "full"})
    done = watched.result(m.EXECUTOR_RESULT, "w-tv")
    assert not done["ok"] and done["error"]["code"] == "failed" and done["replans"] == 2
    assert done["failures"] == [GOAL_FALSE] * 3
    assert done["error"]["message"] == f"stopped: {GOAL_FALSE} (after 2 replans)"
    assert sum(s["action"] == "(turn_on_tv the_robot tv1 living_room)" for s in done["steps"]) == 3
    assert not watched.nodes["world_model"].world.graph.has_fact(F("tv_on", "tv1"))


def test_a_crash_in_reached_is_logged_and_the_plans_outcome_stands(watched):
    watched.publish(m.PLANNER_TASK, {"id": "w-tap", "task": "run the tap", "goal": "(faucet_on faucet1)",
                                     "retrieval": "full"})
    done = watched.result(m.EXECUTOR_RESULT, "w-tap")
    assert done["ok"] and done["status"] == "completed" and done["replans"] == 0 and done["failures"] == []
    assert watched.nodes["world_model"].world.graph.has_fact(F("faucet_on", "faucet1"))

