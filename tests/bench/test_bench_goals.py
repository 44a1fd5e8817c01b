"""Tests of the ``goals`` benchmark suite's judging, with the scripted server (a TEST DOUBLE for the LLM)."""

from __future__ import annotations

import json

import pytest
from l3mp_sim.house import house_graph

from l3mp.bench.goal_suite import SCALE, SEED, TASKS, judge
from l3mp.domain.paths import domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.llm.client import ChatLLM
from l3mp.planning.planner import plan
from l3mp.planning.problem import full_state_problem
from l3mp.planning.validate import validate_plan
from tests.llm.conftest import settings_for
from tests.llm.scripted_server import ScriptedServer, reply


@pytest.fixture(scope="module")
def setting():
    return Domain.from_file(domain_path("household")), house_graph(SEED, SCALE)


def literals(*items: tuple) -> str:
    return json.dumps({"literals": [{"predicate": p, "args": list(a), "negated": n, "quote": p} for p, a, n in items]})


def test_every_gold_goal_names_entities_of_the_house_and_is_reachable(setting):
    domain, graph = setting
    assert len(TASKS) == 8 and len({t.name for t in TASKS}) == 8
    for task in TASKS:
        assert all(graph.has_entity(s) for s in task.seeds), task
        outcome = plan(full_state_problem(domain, graph, task.gold))
        assert outcome.solved and validate_plan(domain, graph, outcome.plan, task.gold).valid, task


def test_a_goal_is_judged_by_its_plan_in_the_full_state_and_exactly(setting):
    domain, graph = setting
    food = next(t for t in TASKS if t.name == "food")
    lights = next(t for t in TASKS if t.name == "lights_faucets")
    with ScriptedServer() as server:
        llm = ChatLLM(settings_for(server.url, timeout_s=1.0, max_retries=0))
        server.push(reply(literals(("has", ("michael", "banana_1"), False))))
        right = judge(domain, graph, llm, food, examples=True)
        server.push(reply(literals(("holding", ("the_robot", "banana_1"), False))))
        wrong = judge(domain, graph, llm, food, examples=False)
        server.push(reply(literals(("faucet_on", ("ALL_faucet",), True), ("light_on", ("ALL_light",), True))))
        quantified = judge(domain, graph, llm, lights, examples=True)
    assert (right.success, right.exact, right.goal) == (True, True, "(and (has michael banana_1))")
    assert (wrong.success, wrong.exact) == (False, False)
    assert "its plan misses the gold goal" in wrong.why and "(has michael banana_1) is false" in wrong.why
    assert quantified.success and quantified.exact  # order and variable names do not matter
