"""Every bad input gets its documented answer: exit status 2 (CLI) with one short line, in bounded time, and the
store unchanged. Inputs: deep nesting, oversized documents, other encodings, duplicate keys, control characters
and huge names and labels, a store without meta.json (issue 17, point 4)."""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from l3mp import cli
from l3mp.errors import FormatError
from l3mp.world.delta import Delta
from l3mp.world.jsondoc import MAX_DEPTH, parse_json
from l3mp.world.model import Observation
from l3mp.world.store import Store

LONGEST_ERROR = 400
"""Characters an error line may have (the whole stderr of a rejected input)."""


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("house") / "world"
    assert cli.main(["--store", str(path), "--no-fsync", "init", "--house", "3"]) == 0
    return path


@pytest.fixture
def store(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "world"
    shutil.copytree(template, path)
    return path


def run(capsys, store: Path, *argv: str) -> tuple[int, str]:
    code = cli.main(["--store", str(store), "--no-fsync", *argv])
    return code, capsys.readouterr().err


def records(store: Path) -> int:
    with Store(store, read_only=True) as s:
        return s.open().last_seq


def rejected(capsys, store: Path, command: str, data: bytes, tmp_path: Path) -> str:
    """Feed `data` as the input file of `command`; it must be refused with exit 2 and one short line."""
    before = records(store)
    path = tmp_path / "input.json"
    path.write_bytes(data)
    code, err = run(capsys, store, command, str(path))
    assert code == 2, err
    assert err.count("\n") == 1 and len(err) < LONGEST_ERROR, err[:1000]
    assert records(store) == before
    return err


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize("command", ["apply", "perceive"])
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 100_000])
def test_deep_nesting_is_malformed_not_an_internal_error(capsys, store, tmp_path, command, depth) -> None:
    assert "nested deeper than" in rejected(capsys, store, command, nested(depth), tmp_path)


def test_an_input_over_the_size_limit_is_refused_before_it_is_read_whole(capsys, store, tmp_path, monkeypatch):
    monkeypatch.setenv("L3MP_MAX_INPUT_BYTES", "1000")
    data = json.dumps({"add": [["tv_1", "tv_on", True]] * 200}).encode()
    assert "exceeds the limit of 1000" in rejected(capsys, store, "apply", data, tmp_path)


@pytest.mark.parametrize("command", ["apply", "perceive"])
def test_more_triplets_than_the_ros_limit_are_refused(capsys, store, tmp_path, command) -> None:
    key = "add" if command == "apply" else "triplets"
    data = json.dumps({key: [["tv_1", "tv_on", True]] * 100_001}).encode()
    assert "100001 triplets, more than the limit of 100000" in rejected(capsys, store, command, data, tmp_path)


def test_input_that_is_not_utf8_is_malformed(capsys, store, tmp_path) -> None:
    data = '{"add": [["tv_1", "tv_on", true]], "x": "café"}'.encode("latin-1")
    assert "not UTF-8 text: byte 0xe9" in rejected(capsys, store, "apply", data, tmp_path)


def test_duplicate_keys_are_malformed(capsys, store, tmp_path) -> None:
    data = b'{"add": [["tv_1", "tv_on", true]], "add": []}'
    assert "the key 'add' twice" in rejected(capsys, store, "apply", data, tmp_path)


@pytest.mark.parametrize("name", ["mug\n1", "mug\x001", "a" * 5_000_000])
def test_huge_or_control_character_names_get_one_short_line(capsys, store, tmp_path, name) -> None:
    data = json.dumps({"triplets": [[name, "on", "kitchen_table_1"]]}).encode()
    assert "name" in rejected(capsys, store, "perceive", data, tmp_path)


@pytest.mark.parametrize("label", ["red\nmug", "red\x00mug", "x" * 5000])
def test_labels_must_be_one_bounded_line(capsys, store, tmp_path, label) -> None:
    data = json.dumps({"entities": {"mug_77": {"type": "dish", "label": label}},
                       "triplets": [["mug_77", "on", "kitchen_table_1"]]}).encode()
    rejected(capsys, store, "perceive", data, tmp_path)


def test_a_graph_with_a_multi_line_label_is_rejected_by_the_verifier(capsys, tmp_path) -> None:
    graph = {"format": "l3mp.graph/1", "entities": {"kitchen": {"type": "room"},
                                                     "the_robot": {"type": "robot"},
                                                     "table_9": {"type": "table", "label": "a\ntable"}},
             "facts": [["the_robot", "in_room", "kitchen"], ["the_robot", "hand_empty", True],
                       ["table_9", "in_room", "kitchen"]]}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(graph))
    code, err = run(capsys, tmp_path / "new", "init", "--graph", str(path))
    assert code == 1 and "control character" in err
    assert not (tmp_path / "new").exists()  # a failed init leaves no (empty) store behind


def test_a_pddl_problem_that_is_not_utf8_is_malformed(capsys, tmp_path) -> None:
    path = tmp_path / "p.pddl"
    path.write_bytes("(define (problem p) (:domain household) ; café\n (:objects) (:init))".encode("latin-1"))
    code, err = run(capsys, tmp_path / "new", "init", "--problem", str(path))
    assert code == 2 and "not UTF-8 text" in err and err.count("\n") == 1


def test_a_store_without_meta_json_is_an_error_not_a_silent_skip(capsys, store) -> None:
    (store / "meta.json").unlink()
    code, err = run(capsys, store, "show")
    assert code == 1 and "meta.json is missing" in err


# ---- fuzz --------------------------------------------------------------------------------------
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200) | JSONISH.map(lambda v: json.dumps(v).encode()))
def test_any_bytes_parse_to_a_value_or_a_format_error(data: bytes) -> None:
    try:
        value = parse_json(data, what="input", max_bytes=1000)
    except FormatError as exc:
        assert len(str(exc)) < LONGEST_ERROR
        return
    for parse in (Delta.from_json, Observation.from_json):
        try:
            parse(value)
        except FormatError as exc:
            assert len(str(exc)) < LONGEST_ERROR


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(min_size=1, max_size=300), st.sampled_from(["triplets", "entities", "remove_entities"]))
def test_any_name_is_parsed_or_refused_with_a_short_message(name: str, where: str) -> None:
    doc = {"triplets": [[name, "on", "table_1"]]} if where == "triplets" else (
        {"entities": {name: {"type": "dish", "label": name}}} if where == "entities" else {"remove_entities": [name]})
    try:
        observation = Observation.from_json(doc)
    except FormatError as exc:
        assert len(str(exc)) < LONGEST_ERROR
        return
    names = {*observation.entities, *observation.remove_entities, *(a for f, _ in observation.facts for a in f.args)}
    assert all(len(n) <= 200 and not any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in n) for n in names)
