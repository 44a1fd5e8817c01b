"""`l3mp listen` end to end: spoken audio (espeak-ng + sox) -> transcript -> route -> plan, graph change or reply.

The LLM that writes goals and updates is the scripted OpenAI-compatible server of tests/llm (a TEST DOUBLE for a
paid API), so the whole path after recognition runs through the real client, planner, updater and store.
"""

from __future__ import annotations

import argparse
import json

import pytest

from l3mp import cli
from l3mp.cli_context import Context
from l3mp.cli_speech import add_listen_parser
from l3mp.domain.triplets import Fact
from l3mp.speech.synth import silence, speak
from l3mp.world.model import WorldModel
from tests.helpers import house_graph, household, household_rules
from tests.llm.scripted_server import ScriptedServer, reply


@pytest.fixture
def server():
    with ScriptedServer() as scripted:
        yield scripted


@pytest.fixture
def store(tmp_path):
    graph = tmp_path / "house.json"
    graph.write_text(json.dumps(house_graph().to_json()))
    path = tmp_path / "store"
    assert cli.main(["--store", str(path), "--no-fsync", "init", "--graph", str(graph)]) == 0
    return path


def listen(store, wav, *options: str, server: ScriptedServer | None = None) -> int:
    """Run ``l3mp listen`` as the CLI wires it: global options, then the subcommand's."""
    common = argparse.ArgumentParser(add_help=False)
    for flag in ("--store", "--domain", "--rules"):
        common.add_argument(flag)
    common.add_argument("--no-fsync", action="store_true")
    common.add_argument("-v", "--verbose", action="store_true")
    parser = argparse.ArgumentParser(prog="l3mp")
    add_listen_parser(parser.add_subparsers(), common)
    llm = ["--llm-provider", "compatible", "--llm-base-url", server.url, "--llm-model", "scripted",
           "--llm-timeout", "5"] if server else []
    args = parser.parse_args(["listen", str(wav), "--store", str(store), "--no-fsync", "--retrieval", "full",
                              *llm, *options])
    return args.run(Context(args))


def stored(store) -> WorldModel:
    return WorldModel.open(household(), store, rules=household_rules(), read_only=True)


def test_a_spoken_task_ends_in_the_right_plan(store, server, tmp_path, capsys):
    goal = {"literals": [{"predicate": "light_on", "args": ["lamp1"], "negated": True, "quote": "turn off the lamp"}]}
    server.push(reply(json.dumps(goal)))
    wav = speak("please turn off the lamp in the living room", tmp_path / "task.wav", voice="en-us")
    assert listen(store, wav, server=server) == 0
    out = capsys.readouterr().out
    assert 'heard: "please turn off the lamp in the living room" (confidence' in out
    assert "route: task (turn_off_light) [grammar]" in out
    assert "task: 'please turn off the lamp in the living room'" in out and "goal: (not (light_on lamp1))" in out
    steps = [line.strip() for line in out.splitlines() if line.strip()[:3] in ("1. ", "2. ", "3. ")]
    assert steps and any("turn_off_light" in s and "lamp1" in s for s in steps), out


def test_a_spoken_update_ends_in_the_right_graph_change_with_the_transcript_as_its_input(store, server, tmp_path,
                                                                                         capsys):
    change = {"changes": [{"predicate": "has", "args": ["alice", "book1"], "true": True}]}
    server.push(reply(json.dumps(change)))
    wav = speak("alice took the book", tmp_path / "update.wav", voice="en-us+f2")
    assert listen(store, wav, "--json", server=server) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["heard"]["route"]["kind"] == "update" and result["result"]["outcome"] == "applied"
    with stored(store) as world:
        graph = world.graph
        assert graph.has_fact(Fact("has", ("alice", "book1"))) and not graph.has_fact(Fact("on", ("book1", "table1")))
        [record] = list(world.history.changes(source="nl"))
    assert record.input == "alice took the book" and record.source == "nl"


def test_silence_asks_back_and_changes_nothing(store, server, tmp_path, capsys):
    before = stored(store).graph.to_json()
    assert listen(store, silence(tmp_path / "quiet.wav"), server=server) == 1
    out = capsys.readouterr().out
    assert "heard: nothing (silence)" in out and "ask: I heard nothing. Please say it again" in out
    assert server.requests == [] and stored(store).graph.to_json() == before


def test_a_spoken_question_is_answered_from_the_store_without_the_llm(store, server, tmp_path, capsys):
    assert listen(store, speak("where is the milk", tmp_path / "q.wav", voice="en-us+f2"), server=server) == 0
    out = capsys.readouterr().out
    assert "route: question [grammar]" in out and "answer: The milk" in out and "fridge" in out
    assert server.requests == []


def test_a_dry_run_only_recognises_and_routes(store, server, tmp_path, capsys):
    wav = speak("put the apple on the counter", tmp_path / "dry.wav", voice="en-us+f2")
    assert listen(store, wav, "--dry-run", server=server) == 0
    out = capsys.readouterr().out
    assert "route: task (place_on_surface)" in out and "plan" not in out and server.requests == []


def test_a_file_that_is_not_16_khz_mono_is_a_usage_error_naming_the_fix(store, tmp_path):
    (tmp_path / "notes.wav").write_text("hello")
    with pytest.raises(cli.FormatError, match="not a PCM WAV file"):
        listen(store, tmp_path / "notes.wav")
