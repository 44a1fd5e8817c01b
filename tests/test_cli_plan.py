"""`l3mp plan` end to end in-process, through a parser built like l3mp.cli's with add_plan_parser."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from l3mp import cli
from l3mp.cli_plan import add_plan_parser
from tests.planning.planning_support import LIGHTS_AND_FAUCETS_OFF


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("plan") / "world"
    assert cli.main(["--store", str(path), "--no-fsync", "init", "--house", "6"]) == 0
    return path


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
