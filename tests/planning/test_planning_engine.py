"""Tests of the LAPKT engine for unified-planning: real PDDL problems, goal forms LAPKT mishandles, statuses, limits."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from unified_planning.engines import PlanGenerationResultStatus as Status
from unified_planning.io import PDDLReader
from unified_planning.shortcuts import GE, Fluent, IntType, OneshotPlanner, get_environment

from l3mp.planning import register_engines
from l3mp.planning.engines import lapkt_pool
from l3mp.planning.engines.lapkt import LAPKTPlanner
from l3mp.planning.problem import full_state_problem
from tests.helpers import household
from tests.planning.planning_support import (
    FEATURES,
    LIGHTS_AND_FAUCETS_OFF,
    assert_valid,
    house_graph,
    pddlgym_problem,
)


def features_problem(goal: str):
    return PDDLReader().parse_problem_string(FEATURES, f"""(define (problem p) (:domain feat)
 (:objects l1 l2 l3 - loc b1 b2 b3 - ball)
 (:init (robot-at l1) (at b1 l1) (at b2 l2) (at b3 l3))
 (:goal {goal}))""")


def solve(problem, timeout: float = 30, **params):
    with OneshotPlanner(name="lapkt", params=params) as planner:
        return planner.solve(problem, timeout=timeout)


def test_importing_l3mp_planning_registers_lapkt_once():
    register_engines()
    factory = get_environment().factory
    assert factory.engines.count("lapkt") == 1
    assert factory.engine("lapkt") is LAPKTPlanner


@pytest.mark.parametrize("name", ["gripper", "manylogistics", "manyferry", "newspapers", "searchandrescue_level1"])
def test_lapkt_solves_the_first_problem_of_real_pddlgym_domains(name):
    problem = pddlgym_problem(name)
    result = solve(problem)
    assert result.status == Status.SOLVED_SATISFICING, result.log_messages
    assert result.engine_name == "lapkt"
    assert_valid(problem, result.plan)
    assert result.metrics["outcome"] == "finished"
    assert 0 <= float(result.metrics["search_s"]) <= float(result.metrics["engine_internal_time"])
    assert 0 < float(result.metrics["parse_ground_s"]) <= float(result.metrics["engine_internal_time"])


def test_lapkt_solves_a_larger_pddlgym_problem():
    problem = pddlgym_problem("gripper", index=-1)
    assert len(problem.all_objects) >= 20
    result = solve(problem)
    assert result.status == Status.SOLVED_SATISFICING
    assert len(result.plan.actions) >= 20
    assert_valid(problem, result.plan)


@pytest.mark.parametrize("goal", [
    # LAPKT's own front end drops these quantified goals (it reports the goal as already achieved)
    "(forall (?b - ball) (painted ?b))",
    "(and (painted b2) (not (exists (?l - loc) (and (lit ?l) (not (robot-at ?l))))))",
    "(and (exists (?l - loc) (and (lit ?l) (not (= ?l l1)))) (painted b1))",
    # ... and mishandles these (no plan, or an invalid one, or a crash)
    "(and (or (painted b1) (painted b2)) (or (lit l3) (lit l2)))",
    "(and (imply (robot-at l1) (painted b3)) (painted b1))",
    "(and (not (and (robot-at l1) (robot-at l2))) (painted b3) (lit l2))",
    # conditional and universal effects, equality and quantified preconditions
    "(and (painted b2) (done))",
])
def test_goals_lapkt_cannot_read_are_compiled_and_the_plans_are_valid(goal):
    problem = features_problem(goal)
    result = solve(problem)
    assert result.status == Status.SOLVED_SATISFICING, result.log_messages
    assert result.plan.actions, "none of these goals holds initially"
    assert_valid(problem, result.plan)


@pytest.mark.parametrize("option, planner", [
    ("siw-then-bfsf", "SIW_PLUS_BFS_F_Planner"), ("siw", "SIW_Planner"), ("bfsf", "BFS_f_Planner"),
    ("BFS_f_Planner", "BFS_f_Planner"),
])
def test_the_planner_option_selects_the_lapkt_planner(option, planner):
    assert LAPKTPlanner(planner=option).planner == planner
    problem = features_problem("(and (painted b3) (lit l2))")
    result = solve(problem, planner=option)
    assert result.status == Status.SOLVED_SATISFICING
    assert_valid(problem, result.plan)


def test_an_unknown_planner_option_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="siw-then-bfsf, siw, bfsf"):
        LAPKTPlanner(planner="astar")


def test_a_goal_true_in_the_initial_state_gives_the_empty_plan():
    result = solve(features_problem("(and (robot-at l1) (at b1 l1))"))
    assert result.status == Status.SOLVED_SATISFICING
    assert list(result.plan.actions) == []


def test_a_relaxed_unreachable_goal_is_proven_unsolvable_by_every_planner():
    problem = features_problem("(at b1 l2)")  # no action moves balls
    for option in ("siw-then-bfsf", "siw", "bfsf"):
        assert solve(problem, planner=option).status == Status.UNSOLVABLE_PROVEN


def test_no_plan_after_exhaustive_search_is_proven_only_for_complete_planners():
    problem = features_problem("(and (robot-at l1) (robot-at l2))")  # reachable one by one, never both
    assert solve(problem, planner="siw").status == Status.UNSOLVABLE_INCOMPLETELY
    assert solve(problem, planner="bfsf").status == Status.UNSOLVABLE_PROVEN
    assert solve(problem, planner="siw-then-bfsf").status == Status.UNSOLVABLE_PROVEN


def test_numeric_problems_are_declared_unsupported():
    problem = features_problem("(painted b1)")
    battery = Fluent("battery", IntType())
    problem.add_fluent(battery, default_initial_value=0)
    problem.add_goal(GE(battery, 1))
    assert not LAPKTPlanner.supports(problem.kind)
    with pytest.warns(UserWarning, match="cannot establish whether lapkt can solve"):
        result = solve(problem)
    assert result.status == Status.UNSUPPORTED_PROBLEM
    assert "INT_FLUENTS" in result.log_messages[0].message


def test_the_timeout_kills_the_planning_child_and_the_warm_server_plans_on():
    problem = full_state_problem(household(), house_graph(target_entities=450), LIGHTS_AND_FAUCETS_OFF)
    result = solve(problem, timeout=0.3)  # unlimited, this run takes seconds and GBs
    assert (result.status, result.plan) == (Status.TIMEOUT, None)
    assert result.metrics["outcome"] == "timeout"
    (server,) = lapkt_pool._POOL._idle  # kept: only the child that planned was killed
    time.sleep(0.1)
    assert live_children(server._proc.pid) == []
    small = features_problem("(painted b2)")
    assert solve(small).status == Status.SOLVED_SATISFICING
    assert lapkt_pool._POOL._idle == [server]


def test_a_planning_child_killed_from_outside_is_an_internal_error_and_the_server_plans_on():
    problem = full_state_problem(household(), house_graph(target_entities=450), LIGHTS_AND_FAUCETS_OFF)
    killed = []

    def kill_the_child():  # as the kernel's OOM killer would
        deadline = time.monotonic() + 30
        while not killed and time.monotonic() < deadline:
            servers = [p for p in live_children(os.getpid()) if "lapkt_worker" in cmdline(p)]
            for child in (c for server in servers for c in live_children(int(server))):
                os.kill(int(child), signal.SIGKILL)
                killed.append(child)
            time.sleep(0.02)

    with ThreadPoolExecutor(1) as pool:
        killer = pool.submit(kill_the_child)
        result = solve(problem, timeout=60)
        killer.result()
    assert killed and result.status == Status.INTERNAL_ERROR
    assert "killed by SIGKILL" in result.log_messages[-1].message
    assert solve(features_problem("(painted b2)")).status == Status.SOLVED_SATISFICING


def test_a_server_started_by_a_thread_that_ended_stays_alive_and_is_reused():
    lapkt_pool._POOL.close()  # the next call starts a server, from this short-lived thread
    problem = features_problem("(painted b2)")
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(solve, problem).result().status == Status.SOLVED_SATISFICING
    time.sleep(0.2)  # the thread has ended: a parent-death signal tied to it would have fired
    (server,) = lapkt_pool._POOL._idle
    assert server.alive
    assert solve(problem).status == Status.SOLVED_SATISFICING
    assert lapkt_pool._POOL._idle == [server]


def test_concurrent_calls_get_their_own_servers():
    problem = features_problem("(and (painted b3) (lit l2))")
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda _: solve(problem), range(3)))
    assert [r.status for r in results] == [Status.SOLVED_SATISFICING] * 3
    for result in results:
        assert_valid(problem, result.plan)
    assert 1 <= len(lapkt_pool._POOL._idle) <= 2  # extra servers beyond the idle cap were closed


def cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def live_children(pid: int) -> list[str]:
    """The pids of the non-zombie children of a process (Linux /proc)."""
    live = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
        except OSError:
            continue  # the process ended meanwhile
        if int(parent) == pid and state != "Z":
            live.append(stat.parent.name)
    return live


def test_a_problem_beyond_the_memory_cap_is_a_memout_and_a_small_one_still_solves():
    graph = house_graph(target_entities=450)
    big = full_state_problem(household(), graph, LIGHTS_AND_FAUCETS_OFF)
    result = solve(big, memory_limit_mb=300)
    assert result.status == Status.MEMOUT, result.log_messages
    assert "out of memory" in result.log_messages[-1].message
    assert result.metrics["memory_limit_mb"] == "300"
    small = features_problem("(forall (?b - ball) (painted ?b))")
    assert solve(small, memory_limit_mb=300).status == Status.SOLVED_SATISFICING


def test_the_memory_cap_defaults_to_4_gb_or_half_the_ram_and_is_checked():
    ram_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    assert LAPKTPlanner().memory_limit_mb == min(4096, ram_mb // 2)
    assert LAPKTPlanner(memory_limit_mb=None).memory_limit_mb is None
    assert LAPKTPlanner(memory_limit_mb=512).memory_limit_mb == 512
    for bad in (0, -5, "lots", True):
        with pytest.raises(ValueError, match="memory_limit_mb must be a positive number of MB"):
            LAPKTPlanner(memory_limit_mb=bad)


def test_lapkt_writes_nothing_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert solve(features_problem("(painted b2)")).status == Status.SOLVED_SATISFICING
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("goal", ["(not (dirty purple_saucepan_1))", "(and (not (dirty purple_saucepan_1)))"])
def test_a_goal_that_holds_already_is_the_empty_plan_not_a_planner_crash(goal):
    # LAPKT exits with code 255 on such a goal (seen by a HOLDOUT7 writer's structural test)
    from l3mp_sim.house import house_graph

    from l3mp.planning.planner import plan
    from l3mp.planning.problem import full_state_problem
    from tests.helpers import household
    outcome = plan(full_state_problem(household(), house_graph(7), goal), timeout_s=30)
    assert outcome.solved and outcome.plan == [] and "holds in the initial state" in outcome.message
