"""`l3mp thor` on the TEST DOUBLE controller (the lead wires `add_thor_parser` into l3mp/cli.py)."""

from __future__ import annotations

import argparse
import json

import pytest

from l3mp.cli_context import Context
from l3mp.cli_thor import add_thor_parser, cmd_thor
from l3mp.thor.errors import ThorError


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="l3mp")
    add_thor_parser(parser.add_subparsers(dest="command"), argparse.ArgumentParser(add_help=False))
    return parser.parse_args(["thor", *argv])


def test_runs_a_task_offline_and_prints_the_run(capsys):
    args = parse("--scene", "FloorPlan201", "--task", "put the remote on the sofa", "--offline",
                 "--goal", "(in remote_control_1 sofa_1)", "--json")
    assert cmd_thor(Context(args)) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "reached" and out["goal_reached"] is True
    assert out["plans"][0][-1].startswith("(put the_robot remote_control_1 sofa_1")


def test_a_goal_that_is_not_reached_exits_1(capsys):
    args = parse("--scene", "FloorPlan1", "--task", "slice the fridge", "--offline", "--goal", "(sliced fridge_1)")
    assert cmd_thor(Context(args)) == 1
    assert "slice the fridge" in capsys.readouterr().out


def test_an_unknown_scene_is_a_thor_error():
    with pytest.raises(ThorError, match="not an iTHOR scene"):
        cmd_thor(Context(parse("--scene", "FloorPlan99", "--task", "x", "--offline", "--goal", "(and)")))
