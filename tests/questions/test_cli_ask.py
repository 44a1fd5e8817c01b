"""``l3mp ask``: the answer with the facts and records it rests on, JSON, and exit statuses."""

from __future__ import annotations

import json

import pytest

from l3mp.cli import Parser, _global_options
from l3mp.cli_ask import add_ask_parser
from l3mp.cli_context import Context
from tests.questions.support import NOW, episode


def _run(argv: list[str]) -> int:
    parser = Parser(prog="l3mp")
    add_ask_parser(parser.add_subparsers(dest="command"), _global_options(suppress=True))
    args = parser.parse_args(argv)
    return args.run(Context(args))


@pytest.fixture
def store(tmp_path):
    episode(tmp_path / "store").close()
    return str(tmp_path / "store")


def test_ask_prints_the_answer_and_the_records_it_rests_on(store, capsys):
    assert _run(["ask", "Who opened the fridge?", "--store", store, "--now", str(NOW), "--no-llm"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Jessica, at 08:20")
    assert 'record #3 at 08:20, nl, from "Jessica opened the fridge."' in out


def test_ask_json_and_a_declined_answer(store, capsys):
    assert _run(["ask", "Where are my keys?", "--store", store, "--json", "--no-llm"]) == 1
    answer = json.loads(capsys.readouterr().out)
    assert answer["status"] == "declined" and "keys" in answer["text"]


def test_ask_refuses_bad_caps(store):
    from l3mp.cli import UsageError

    with pytest.raises(UsageError):
        _run(["ask", "where is the grey mug", "--store", store, "--max-steps", "0"])
