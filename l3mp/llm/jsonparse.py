"""Tolerant JSON extraction from LLM answers and a small JSON-schema shape check with actionable messages."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from l3mp.errors import LLMOutputError

MAX_PROBLEMS = 8
MAX_ENUM_SHOWN = 12
_MAX_STARTS = 20
_FENCE = re.compile(r"```[ \t]*(?:jsonc?|json5|javascript|js)?[ \t]*\r?\n?(.*?)```", re.S | re.I)
_PY_WORDS = {"True": "true", "False": "false", "None": "null"}
_CLOSER = {"{": "}", "[": "]"}
_NOTHING = object()
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}


class OutputError(LLMOutputError):
    """The answer was not JSON of the requested shape; `text` is the raw answer, `problems` the shape errors."""

    def __init__(self, message: str, *, text: str, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.text = text
        self.problems = tuple(problems)


def parse_json(text: str) -> Any:
    """The first top-level JSON value in `text`, tolerating code fences, prose around it, trailing commas,
    single-quoted strings and Python's True/False/None. Raises OutputError explaining what was wrong."""
    if not text or not text.strip():
        raise OutputError("the answer was empty; answer with one JSON value and nothing else", text=text or "")
    for candidate in _candidates(text):
        value = _load(candidate)
        if value is not _NOTHING:
            return value
    raise OutputError(_explain(text), text=text)


def validate(value: Any, schema: dict) -> list[str]:
    """Shape problems of `value` against `schema` (type, enum, const, properties, required, additionalProperties,
    items, prefixItems, minItems, maxItems, anyOf, oneOf, local $ref), as ``$.path: problem`` lines."""
    problems: list[str] = []
    _check(value, schema, "$", schema, problems)
    return problems


def parse_and_validate(text: str, schema: dict) -> Any:
    """`parse_json` then `validate`; raises OutputError (carrying the raw text) on any problem."""
    value = parse_json(text)
    problems = validate(value, schema)
    if problems:
        shown = "; ".join(problems[:MAX_PROBLEMS]) + (f"; ... ({len(problems) - MAX_PROBLEMS} more)"
                                                     if len(problems) > MAX_PROBLEMS else "")
        raise OutputError(f"the JSON does not have the required shape: {shown}", text=text, problems=problems)
    return value


# ---- extraction ------------------------------------------------------------------------
def _candidates(text: str) -> Iterator[str]:
    yield text.strip()
    for match in _FENCE.finditer(text):
        yield match.group(1).strip()
    starts = [i for i, c in enumerate(text) if c in _CLOSER][:_MAX_STARTS]
    for start in starts:
        segment = _balanced(text, start)
        if segment is not None:
            yield segment


def _load(candidate: str) -> Any:
    try:
        return json.loads(candidate)
    except ValueError:
        repaired = _repair(candidate)
    try:
        return json.loads(repaired) if repaired is not None else _NOTHING
    except ValueError:
        return _NOTHING


def _balanced(text: str, start: int) -> str | None:
    """`text[start:]` up to the bracket closing the one at `start`; None if it never closes or closes wrongly."""
    expected: list[str] = []
    i = start
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = _string_end(text, i)
            if i < 0:
                return None
            continue
        if c in _CLOSER:
            expected.append(_CLOSER[c])
        elif c in "}]":
            if c != expected.pop():
                return None
            if not expected:
                return text[start:i + 1]
        i += 1
    return None


def _string_end(text: str, start: int) -> int:
    """Index just past the string literal opened at `start` (either quote kind), or -1 if unterminated."""
    quote = text[start]
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == quote:
            return i + 1
        else:
            i += 1
    return -1


def _repair(candidate: str) -> str | None:
    """Rewrite the unambiguous non-JSON spellings; None if a string literal is unterminated."""
    out: list[str] = []
    i = 0
    while i < len(candidate):
        c = candidate[i]
        if c in "\"'":
            end = _string_end(candidate, i)
            if end < 0:
                return None
            literal = candidate[i:end]
            out.append(literal if c == '"' else _double_quoted(literal[1:-1]))
            i = end
        elif c == "," and _next_visible(candidate, i + 1) in ("}", "]"):
            i += 1
        elif c.isalpha() and (word := _word_at(candidate, i)) in _PY_WORDS:
            out.append(_PY_WORDS[word])
            i += len(word)
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _double_quoted(body: str) -> str:
    def swap(match: re.Match) -> str:
        if match.group(1) is None:
            return '\\"'
        return "'" if match.group(1) == "'" else match.group(0)

    return '"' + re.sub(r'\\(.)|"', swap, body, flags=re.S) + '"'


def _next_visible(text: str, i: int) -> str:
    while i < len(text) and text[i].isspace():
        i += 1
    return text[i] if i < len(text) else ""


def _word_at(text: str, i: int) -> str:
    if i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
        return ""
    match = re.match(r"[A-Za-z_]\w*", text[i:])
    return match.group(0) if match else ""


def _explain(text: str) -> str:
    start = next((i for i, c in enumerate(text) if c in _CLOSER), None)
    if start is None:
        return "the answer contains no JSON object or array; answer with one JSON value and nothing else"
    segment = _balanced(text, start)
    if segment is None:
        return "the JSON is incomplete or its brackets do not match; close every bracket and string"
    try:
        json.loads(_repair(segment) or segment)
    except ValueError as exc:
        return f"the JSON does not parse ({exc}); answer with one valid JSON value and nothing else"
    return "no valid JSON value found; answer with one JSON value and nothing else"


# ---- shape check -----------------------------------------------------------------------
def _check(value: Any, schema: Any, path: str, root: dict, out: list[str]) -> None:
    if not isinstance(schema, dict):
        if schema is False:
            out.append(f"{path}: no value is allowed here")
        return
    if "$ref" in schema:
        _check(value, _resolve(schema["$ref"], root), path, root, out)
        return
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives and not any(_fits(value, alt, root) for alt in alternatives):
        wanted = "; or ".join(_describe(_resolve_maybe(alt, root)) for alt in alternatives)
        out.append(f"{path}: {_show(value)} matches none of the allowed forms: {wanted}")
        return
    if "type" in schema and not _type_ok(value, schema["type"]):
        out.append(f"{path}: expected {_type_words(schema['type'])}, got {_json_type(value)} {_show(value)}")
        return
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        out.append(f"{path}: {_show(value)} is not one of {_options(schema['enum'])}")
    if "const" in schema and not _same(value, schema["const"]):
        out.append(f"{path}: must be {json.dumps(schema['const'])}, got {_show(value)}")
    if isinstance(value, dict):
        _check_object(value, schema, path, root, out)
    elif isinstance(value, list):
        _check_array(value, schema, path, root, out)


def _check_object(value: dict, schema: dict, path: str, root: dict, out: list[str]) -> None:
    properties = schema.get("properties", {})
    for key in schema.get("required", []):
        if key not in value:
            out.append(f"{path}: missing required key {json.dumps(key)}")
    extra_schema = schema.get("additionalProperties", True)
    for key, item in value.items():
        where = f"{path}.{key}" if re.fullmatch(r"[A-Za-z_]\w*", key) else f"{path}[{json.dumps(key)}]"
        if key in properties:
            _check(item, properties[key], where, root, out)
        elif extra_schema is False:
            allowed = ", ".join(json.dumps(k) for k in properties) or "none"
            out.append(f"{path}: unexpected key {json.dumps(key)} (allowed keys: {allowed})")
        else:
            _check(item, extra_schema, where, root, out)


def _check_array(value: list, schema: dict, path: str, root: dict, out: list[str]) -> None:
    if len(value) < schema.get("minItems", 0):
        out.append(f"{path}: has {len(value)} item(s), needs at least {schema['minItems']}")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        out.append(f"{path}: has {len(value)} item(s), allows at most {schema['maxItems']}")
    prefix = schema.get("prefixItems", [])
    for i, item in enumerate(value):
        item_schema = prefix[i] if i < len(prefix) else schema.get("items", True)
        _check(item, item_schema, f"{path}[{i}]", root, out)


def _fits(value: Any, schema: Any, root: dict) -> bool:
    problems: list[str] = []
    _check(value, schema, "$", root, problems)
    return not problems


def _resolve(ref: str, root: dict) -> Any:
    if not ref.startswith("#"):
        return True
    node: Any = root
    for part in filter(None, ref[1:].split("/")):
        node = node.get(part.replace("~1", "/").replace("~0", "~"), True) if isinstance(node, dict) else True
    return node


def _resolve_maybe(schema: Any, root: dict) -> Any:
    return _resolve(schema["$ref"], root) if isinstance(schema, dict) and "$ref" in schema else schema


def _type_ok(value: Any, wanted: str | list[str]) -> bool:
    kinds = [wanted] if isinstance(wanted, str) else wanted
    actual = _json_type(value)
    return actual in kinds or (actual == "integer" and "number" in kinds) or (
        actual == "number" and "integer" in kinds and float(value).is_integer())


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _same(a: Any, b: Any) -> bool:
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def _describe(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "anything" if schema is not False else "nothing"
    if "enum" in schema:
        return f"one of {_options(schema['enum'])}"
    if "const" in schema:
        return json.dumps(schema["const"])
    if "type" in schema:
        return _type_words(schema["type"])
    return "a value of another form"


def _type_words(wanted: str | list[str]) -> str:
    kinds = [wanted] if isinstance(wanted, str) else list(wanted)
    return " or ".join(("an " if k[0] in "aeiou" else "a ") + k for k in kinds)


def _options(options: Sequence[Any]) -> str:
    shown = ", ".join(json.dumps(o) for o in options[:MAX_ENUM_SHOWN])
    more = f", ... ({len(options) - MAX_ENUM_SHOWN} more)" if len(options) > MAX_ENUM_SHOWN else ""
    return f"[{shown}{more}]"


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
