"""Tolerant JSON extraction and the schema shape check."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from l3mp.errors import LLMOutputError
from l3mp.llm.jsonparse import OutputError, parse_and_validate, parse_json, validate


@pytest.mark.parametrize(("text", "value"), [
    ('{"a": 1}', {"a": 1}),
    ('  [1, 2]\n', [1, 2]),
    ('"just text"', "just text"),
    ('```json\n{"a": [1, 2,],}\n```', {"a": [1, 2]}),
    ('```\n{"a": 1}\n```', {"a": 1}),
    ('Here you go:\n{"add": [], "remove": []}\nDone.', {"add": [], "remove": []}),
    ("Here's the answer: {'a': 'it\\'s', \"b\": \"don't\"}", {"a": "it's", "b": "don't"}),
    ("{'say': 'a \"quoted\" word'}", {"say": 'a "quoted" word'}),
    ('{"ok": True, "none": None, "no": False}', {"ok": True, "none": None, "no": False}),
    ('{"text": "True, None, a,]"}', {"text": "True, None, a,]"}),
    ('[1, 2] and then [3]', [1, 2]),
    ('use {braces} like {"this": 1}', {"this": 1}),
    ('{"nested": {"deep": [{"x": "}"}]}} trailing', {"nested": {"deep": [{"x": "}"}]}}),
    ('{"unicode": "café ☕"}', {"unicode": "café ☕"}),
])
def test_tolerant_parsing(text: str, value: object) -> None:
    assert parse_json(text) == value


@pytest.mark.parametrize(("text", "reason"), [
    ("", "empty"),
    ("   \n", "empty"),
    ("The cup is on the table.", "no JSON object or array"),
    ('{"a": [1, 2', "incomplete"),
    ('{"a": [1}', "brackets do not match"),
    ('{"a": 1 "b": 2}', "does not parse"),
    ("{'a': 'unterminated}", "incomplete"),
])
def test_unparseable_answers_are_explained(text: str, reason: str) -> None:
    with pytest.raises(LLMOutputError, match=reason) as caught:
        parse_json(text)
    assert caught.value.text == text


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                    max_leaves=12))
def test_any_json_survives_fences_and_prose(value: object) -> None:
    if isinstance(value, (dict, list)):
        text = f"Answer:\n```json\n{json.dumps(value)}\n```\nthanks"
    else:
        text = json.dumps(value)
    assert parse_json(text) == value


TRIPLET = {
    "type": "object",
    "properties": {
        "subject": {"type": "string", "enum": ["cup", "table"]},
        "relation": {"type": "string", "enum": ["on", "in"]},
        "object": {"anyOf": [{"type": "string", "enum": ["cup", "table"]}, {"type": "boolean"}]},
    },
    "required": ["subject", "relation", "object"],
    "additionalProperties": False,
}
UPDATE = {
    "type": "object",
    "properties": {"add": {"type": "array", "items": TRIPLET}, "remove": {"type": "array", "items": TRIPLET,
                                                                           "maxItems": 1}},
    "required": ["add", "remove"],
    "additionalProperties": False,
}


def test_valid_value_has_no_problems() -> None:
    good = {"add": [{"subject": "cup", "relation": "on", "object": "table"}],
            "remove": [{"subject": "cup", "relation": "in", "object": False}]}
    assert validate(good, UPDATE) == []


@pytest.mark.parametrize(("value", "problem"), [
    ({"add": []}, '$: missing required key "remove"'),
    ({"add": [], "remove": [], "why": "x"}, '$: unexpected key "why" (allowed keys: "add", "remove")'),
    ({"add": {}, "remove": []}, "$.add: expected an array, got object {}"),
    ({"add": [["cup", "on", "table"]], "remove": []}, '$.add[0]: expected an object, got array ["cup", "on", "table"]'),
    ({"add": [{"subject": "mug", "relation": "on", "object": "table"}], "remove": []},
     '$.add[0].subject: "mug" is not one of ["cup", "table"]'),
    ({"add": [{"subject": "cup", "relation": "on", "object": 3}], "remove": []},
     '$.add[0].object: 3 matches none of the allowed forms: one of ["cup", "table"]; or a boolean'),
    ({"add": [], "remove": [{"subject": "cup", "relation": "on", "object": True}] * 2},
     "$.remove: has 2 item(s), allows at most 1"),
    ({"add": [], "remove": 1.5}, "$.remove: expected an array, got number 1.5"),
])
def test_shape_problems_name_the_path(value: object, problem: str) -> None:
    assert problem in validate(value, UPDATE)


def test_types_numbers_consts_tuples_and_refs() -> None:
    schema = {
        "$defs": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False,
                           "minItems": 2}},
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/pair"}, "n": {"type": "number"}, "k": {"const": "v"},
                       "f": {"type": ["boolean", "null"]}},
    }
    assert validate({"p": ["a", 2], "n": 3, "k": "v", "f": None}, schema) == []
    assert validate({"p": ["a", 2.0], "n": 1.5}, schema) == []
    problems = validate({"p": ["a", True, 3], "n": "1", "k": "w", "f": 0}, schema)
    assert problems == ["$.p[1]: expected an integer, got boolean true", "$.p[2]: no value is allowed here",
                        "$.n: expected a number, got string \"1\"", '$.k: must be "v", got "w"',
                        "$.f: expected a boolean or a null, got integer 0"]
    assert validate({"p": ["a"]}, schema) == ["$.p: has 1 item(s), needs at least 2"]


def test_enum_is_type_exact_and_long_enums_are_shortened() -> None:
    assert validate(True, {"enum": [1]}) == ["$: true is not one of [1]"]
    names = [f"e{i}" for i in range(30)]
    assert validate("x", {"enum": names}) == [f'$: "x" is not one of [{", ".join(json.dumps(n) for n in names[:12])}'
                                              ", ... (18 more)]"]


def test_parse_and_validate_reports_shape_errors_with_the_raw_text() -> None:
    text = '```json\n{"add": [], "remove": [], "extra": 1}\n```'
    with pytest.raises(OutputError) as caught:
        parse_and_validate(text, UPDATE)
    assert str(caught.value).startswith("the JSON does not have the required shape: $: unexpected key")
    assert caught.value.text == text and len(caught.value.problems) == 1
    assert parse_and_validate('{"add": [], "remove": []}', UPDATE) == {"add": [], "remove": []}


def test_many_problems_are_capped_in_the_message() -> None:
    value = {"add": [{"subject": "x", "relation": "y", "object": "z"}] * 5, "remove": []}
    with pytest.raises(OutputError, match=r"\.\.\. \(7 more\)") as caught:
        parse_and_validate(json.dumps(value), UPDATE)
    assert len(caught.value.problems) == 15
