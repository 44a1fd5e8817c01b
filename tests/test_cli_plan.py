"""`l3mp plan` end to end in-process, through a parser built like l3mp.cli's with add_plan_parser."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from l3mp import cli
from l3mp.cli_plan import add_plan_parser
from l3mp.world.model import WorldModel
from tests.helpers import ROBOT, F, household, household_rules
from tests.planning.planning_support import LIGHTS_AND_FAUCETS_OFF


def new_store(path: Path) -> Path:
    """A store at `path` holding the generated house 6."""
    assert cli.main(["--store", str(path), "--no-fsync", "init", "--house", "6"]) == 0
    return path


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """One store the read-only tests share."""
    return new_store(tmp_path_factory.mktemp("plan") / "world")


@pytest.fixture(autouse=True)
def no_llm(monkeypatch):
    """With --goal and --retrieval full no LLM may be started."""
    import l3mp.llm.factory

    def refuse(*args, **kwargs):
        raise AssertionError("an LLM was started")

    monkeypatch.setattr(l3mp.llm.factory, "make_llm", refuse)


def run_plan(store: Path, *argv: str) -> int:
    parser = argparse.ArgumentParser(prog="l3mp")
    parser.add_argument("--store")
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, run, help_: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_)
        p.set_defaults(run=run)
        return p

    add_plan_parser(command)
    args = parser.parse_args(["--store", str(store), "plan", *argv])
    return args.run(cli.Context(args))


def test_plan_with_a_given_goal_and_full_retrieval_prints_problem_plan_time_and_validation(store, capsys):
    assert run_plan(store, "turn off all lights and faucets", "--goal", LIGHTS_AND_FAUCETS_OFF,
                    "--retrieval", "full") == 0
    out = capsys.readouterr().out
    assert "(:init" in out and "(:goal" in out and "turn_off_light" in out
    assert "planner lapkt" in out and "validation (full state): valid" in out
    assert "OK: the plan is valid in the full state" in out


def test_plan_json_with_fast_downward(store, capsys):
    assert run_plan(store, "lights off", "--goal", LIGHTS_AND_FAUCETS_OFF, "--retrieval", "full",
                    "--planner", "fast-downward", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] and data["status"] == "solved" and data["validation"]["valid"]
    assert data["plan"] and data["tokens"]["calls"] == 0


def test_plan_of_an_invalid_goal_exits_1_with_the_reason(store, capsys):
    assert run_plan(store, "x", "--goal", "(and (light_on lamp_99))", "--retrieval", "full") == 1
    assert "FAILED: the goal is not valid: unknown object 'lamp_99'" in capsys.readouterr().out


@pytest.fixture
def fresh_store(tmp_path) -> Path:
    """A store of its own, for a test that executes a plan and so writes to it."""
    return new_store(tmp_path / "world")


def stored_graph(store: Path):
    with WorldModel.open(household(), store, rules=household_rules(), fsync=False, read_only=True) as world:
        return world.graph.copy(), [r for r in world.history.changes() if r.source == "plan"]


def test_execute_runs_the_plan_and_writes_each_steps_effects_to_the_store(fresh_store, capsys):
    assert run_plan(fresh_store, "turn off all lights and faucets", "--goal", LIGHTS_AND_FAUCETS_OFF,
                    "--retrieval", "full", "--execute") == 0
    out = capsys.readouterr().out
    steps = [line.split(". ", 1)[1] for line in out.split("execution:")[0].splitlines() if line.startswith("    ")
             and line.strip()[:1].isdigit()]
    assert "execution:" in out and "execution completed" in out
    assert "- (light_on " in out and "+ (in_room the_robot " in out
    graph, records = stored_graph(fresh_store)
    assert not list(graph.facts(predicate="light_on")) and not list(graph.facts(predicate="faucet_on"))
    assert [r.input for r in records] == steps  # one plan record per step, in order
    assert all(r.ref == "plan: turn off all lights and faucets" for r in records)


def test_execute_json_reports_the_steps_and_their_deltas(fresh_store, capsys):
    assert run_plan(fresh_store, "wash", "--goal", LIGHTS_AND_FAUCETS_OFF, "--retrieval", "full", "--execute",
                    "--json") == 0
    data = json.loads(capsys.readouterr().out)
    execution = data["execution"]
    assert execution["status"] == "completed" and execution["replans"] == 0
    assert [s["action"] for s in execution["steps"]] == data["plan"]
    assert all(s["ok"] and s["delta"] for s in execution["steps"])


def test_a_step_failing_in_the_world_replans_and_stops_with_the_reason(fresh_store, tmp_path, capsys):
    truth, _ = stored_graph(fresh_store)
    here = next(f for f in truth.facts(predicate="in_room") if f.args[0] == ROBOT)
    elsewhere = next(e for e in sorted(truth.entities()) if truth.entity_type(e) == "room" and e != here.args[1])
    truth.remove_fact(here)
    truth.add_fact(F("in_room", ROBOT, elsewhere))  # the store is wrong about where the robot is
    world_file = tmp_path / "truth.json"
    world_file.write_text(json.dumps(truth.to_json()))
    assert run_plan(fresh_store, "lights off", "--goal", LIGHTS_AND_FAUCETS_OFF, "--retrieval", "full",
                    "--execute", "--world", str(world_file), "--max-replans", "1") == 1
    out = capsys.readouterr().out
    assert "FAILED: " in out and f"(in_room the_robot {here.args[1]}) false there" in out
    assert "replanning from the updated store: solved" in out
    assert "execution stopped:" in out and "(after 1 replans)" in out


def test_world_without_execute_is_a_usage_error(store, capsys):
    assert cli.main(["--store", str(store), "plan", "x", "--goal", LIGHTS_AND_FAUCETS_OFF, "--retrieval", "full",
                     "--world", "w.json"]) == 2
    assert "--world and --max-replans only apply with --execute" in capsys.readouterr().err


def test_memory_limit_reaches_lapkt_and_a_memout_is_reported(store, capsys):
    assert run_plan(store, "lights off", "--goal", LIGHTS_AND_FAUCETS_OFF, "--retrieval", "full",
                    "--memory-limit", "20") == 1
    out = capsys.readouterr().out
    assert "no plan: memout" in out
    assert "FAILED: the planner ran out of memory (its cap: 20 MB, set by the memory_limit_mb option)" in out
    assert cli.main(["--store", str(store), "plan", "x", "--goal", LIGHTS_AND_FAUCETS_OFF, "--retrieval", "full",
                     "--planner", "fast-downward", "--memory-limit", "20"]) == 2
    assert "--memory-limit applies to the lapkt planner only" in capsys.readouterr().err
