"""`l3mp check` and `l3mp store status|ack|salvage` on a store with damage (l3mp.cli_store, run through its parser)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from l3mp.cli_context import Context, UsageError
from l3mp.cli_store import add_store_parser, cmd_check
from l3mp.world.delta import Delta
from l3mp.world.model import WorldModel
from tests.helpers import F, household
from tests.world.test_damage import build, damage_record


def run(store: Path, *argv: str) -> int:
    """Run a store command as the `l3mp` command would (the lead wires add_store_parser into l3mp.cli)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", default=str(store))
    common.add_argument("--no-fsync", action="store_true", default=True)
    common.add_argument("--domain", default="household")
    common.add_argument("--rules")
    parser = argparse.ArgumentParser(prog="l3mp")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check", parents=[common]).set_defaults(run=cmd_check)
    add_store_parser(sub, common)
    args = parser.parse_args(list(argv))
    return args.run(Context(args))


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    """A store of the small house and six changes whose record 4 cannot be read (record 6 depended on it)."""
    build(tmp_path)
    damage_record(tmp_path, 4, changes=2)
    return tmp_path


def test_check_reports_damage_until_it_is_acknowledged(damaged: Path, capsys) -> None:
    assert run(damaged, "check") == 1
    out = capsys.readouterr().out
    assert "record(s) 4 unreadable" in out and "held back: #6" in out and "l3mp store ack" in out
    assert not out.startswith("ok")
    assert run(damaged, "store", "status") == 1 and "NEW:" in capsys.readouterr().out
    assert run(damaged, "store", "ack") == 0
    assert "acknowledged 1 damage report(s)" in capsys.readouterr().out
    assert run(damaged, "check") == 0 and capsys.readouterr().out.startswith("ok: ")
    assert run(damaged, "store", "status") == 0 and "acknowledged: " in capsys.readouterr().out


def test_check_of_a_sound_store_is_ok(tmp_path: Path, capsys) -> None:
    build(tmp_path)
    assert run(tmp_path, "check") == 0 and "no unacknowledged damage" in capsys.readouterr().out


def test_ack_of_an_unknown_key_is_a_usage_error(damaged: Path) -> None:
    with pytest.raises(UsageError, match="no damage with key nothing@0"):
        run(damaged, "store", "ack", "nothing@0")


def test_salvage_writes_what_was_set_aside_and_applies_what_fits_again(damaged: Path, capsys) -> None:
    out = damaged.parent / "salvaged.json"
    assert run(damaged, "store", "salvage", "--out", str(out)) == 0
    report = json.loads(out.read_text())
    assert [r["seq"] for r in report["held"]] == [6] and report["still_held"] == [6]
    assert report["unreadable"][0]["lost"] == [4, 4] and '"seq":4' in report["unreadable"][0]["bytes"]
    # a person puts the book where record 4 had put it; then the held record 6 fits again
    with WorldModel.open(household(), damaged, fsync=False) as model:
        model.apply(Delta(remove=(F("on", "book1", "table1"),), add=(F("on", "book1", "shelf1"),)), source="user")
    capsys.readouterr()
    assert run(damaged, "store", "salvage", "--out", str(out), "--apply") == 0
    assert "applied held record #6 as #9" in capsys.readouterr().out
    with WorldModel.open(household(), damaged, fsync=False, read_only=True) as model:
        assert model.graph.has_fact(F("on", "book1", "counter1")) and model.store.record(9).ref == "salvaged record #6"
