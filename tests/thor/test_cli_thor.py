"""`l3mp thor` on the TEST DOUBLE controller (the lead wires `add_thor_parser` into l3mp/cli.py)."""

from __future__ import annotations

import argparse
import json

import pytest

from l3mp.cli_context import Context, UsageError
from l3mp.cli_thor import add_thor_parser, cmd_thor
from l3mp.domain.triplets import Fact
from l3mp.thor.errors import ThorError
from l3mp.world.model import WorldModel
from tests.thor.support import thor_domain


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


def test_record_keeps_the_belief_in_the_store_with_its_provenance(tmp_path, capsys):
    store = tmp_path / "world"
    args = parse("--scene", "FloorPlan201", "--task", "put the remote on the sofa", "--offline",
                 "--goal", "(in remote_control_1 sofa_1)", "--record", "--json")
    args.store, args.no_fsync = str(store), True
    assert cmd_thor(Context(args)) == 0
    capsys.readouterr()
    with WorldModel.open(thor_domain(), store, read_only=True) as world:
        assert world.graph.has_fact(Fact("in", ("remote_control_1", "sofa_1")))
        records = list(world.history.changes())
    sources = [r.source for r in records]
    assert sources[0] == "perception" and records[0].ref == "FloorPlan201:1"
    # nothing unexpected was seen on the way: every later change is a plan step, referring to its task
    assert sources[1:] == ["plan"] * (len(records) - 1)
    assert all(r.ref == "put the remote on the sofa" for r in records[1:])
    assert records[-1].input.startswith("(put the_robot remote_control_1 sofa_1")
    # a second run is a new episode of the scene (the remote is back on its side table): the survey corrects the
    # stored belief in one record, and the task is done again
    assert cmd_thor(Context(args)) == 0
    assert json.loads(capsys.readouterr().out)["goal_reached"] is True
    with WorldModel.open(thor_domain(), store, read_only=True) as world:
        survey = world.history.changes(source="perception")[1]
    assert survey.ref == "FloorPlan201:1"
    assert Fact("in", ("remote_control_1", "side_table_2")) in survey.delta.add
    assert Fact("in", ("remote_control_1", "sofa_1")) in survey.delta.remove


def test_another_domain_is_a_usage_error():
    args = parse("--scene", "FloorPlan1", "--task", "x", "--offline", "--goal", "(and)")
    args.domain = "household"
    with pytest.raises(UsageError, match="needs the thor domain"):
        cmd_thor(Context(args))
