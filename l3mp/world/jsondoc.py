"""Bounded reading of JSON input from people and other programs: size, text encoding, nesting depth, duplicate keys,
and the length and characters of names and labels. The CLI (files, stdin) and the ROS nodes (messages) read every
JSON document through `parse_json`, so a bad input gets the same one-line FormatError in bounded time and memory."""

from __future__ import annotations

import json
import os
import re
import reprlib
from typing import Any

from l3mp.errors import FormatError

MAX_DEPTH = 32
"""Deepest nesting of JSON arrays and objects accepted (a delta needs 4, a graph 4, a list of batches 6)."""
MAX_INPUT_BYTES = 8_000_000
"""Largest JSON document the CLI reads (``$L3MP_MAX_INPUT_BYTES`` overrides it): the ROS nodes' default
limits.max_message_bytes."""
MAX_TRIPLETS = 100_000
"""Most triplets in one delta or perception batch: the ROS world model's default limits.max_batch_triplets."""
MAX_NAME_CHARS = 200
"""Longest entity, predicate or type name accepted."""
MAX_TEXT_CHARS = 2000
"""Longest entity label or description accepted."""
SHOWN_CHARS = 40
"""How much of a bad value an error message quotes."""
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = SHOWN_CHARS
_REPR.maxlevel = 2
_REPR.maxlist = _REPR.maxdict = 3
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def max_input_bytes() -> int:
    """The CLI's input size limit: ``$L3MP_MAX_INPUT_BYTES`` if set (a positive integer), else MAX_INPUT_BYTES."""
    text = os.environ.get("L3MP_MAX_INPUT_BYTES")
    if text is None:
        return MAX_INPUT_BYTES
    if not text.isdigit() or int(text) < 1:
        raise FormatError(f"L3MP_MAX_INPUT_BYTES must be a positive number of bytes, not {shown(text)}")
    return int(text)


def parse_json(data: str | bytes, *, what: str, max_bytes: int, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of `data` (bytes must be UTF-8); FormatError naming `what` if it is larger than `max_bytes`,
    not UTF-8, not JSON, nested deeper than `max_depth`, or has an object with a key twice."""
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise FormatError(f"{what} has {size} bytes, which exceeds the limit of {max_bytes}")
    text = decode_utf8(data, what) if isinstance(data, bytes) else data
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise FormatError(f"{what} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise FormatError(f"{what} is nested deeper than {max_depth} levels") from None
    except _DuplicateKey as exc:
        raise FormatError(f"{what} has the key {shown(exc.args[0])} twice in one object; keep one") from None
    return check_depth(value, what, max_depth)


def check_depth(value: Any, what: str, max_depth: int = MAX_DEPTH) -> Any:
    """`value` if its arrays and objects nest at most `max_depth` deep; FormatError naming `what` otherwise."""
    if _depth_exceeds(value, max_depth):
        raise FormatError(f"{what} is nested deeper than {max_depth} levels")
    return value


def decode_utf8(data: bytes, what: str) -> str:
    """`data` as text; FormatError saying where it is not UTF-8. A byte order mark at the start is dropped."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(f"{what} is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}") from None


def check_count(items: list, where: str, limit: int = MAX_TRIPLETS) -> list:
    """`items` if there are at most `limit` of them (the time to verify them grows with their number)."""
    if len(items) > limit:
        raise FormatError(f"{where}: {len(items)} triplets, more than the limit of {limit}; split it")
    return items


def check_name(value: str, where: str) -> str:
    """`value` if it can be a name (entity, predicate, type): at most MAX_NAME_CHARS, no control characters."""
    return _one_line(value, where, "name", MAX_NAME_CHARS)


def check_text(value: str, where: str) -> str:
    """`value` if it can be a label or description: at most MAX_TEXT_CHARS, one line, no control characters."""
    return _one_line(value, where, "text", MAX_TEXT_CHARS)


def _one_line(value: str, where: str, kind: str, limit: int) -> str:
    if len(value) > limit:
        raise FormatError(f"{where}: a {kind} of {len(value)} characters ({shown(value)}); at most {limit}")
    if _CONTROL.search(value):
        raise FormatError(f"{where}: the {kind} {shown(value)} holds a control character (newline, tab, NUL, ...)")
    return value


def check_strings(value: Any, where: str) -> None:
    """Every string inside `value` (a triplet, a list of names) is a possible name: check_name before a parser
    that quotes the value in its errors sees it."""
    if isinstance(value, str):
        check_name(value, where)
    elif isinstance(value, list | tuple):
        for item in value:
            check_strings(item, where)


def shown(value: object) -> str:
    """A value as an error message quotes it: its repr, with long strings and lists cut short (bounded time)."""
    text = _REPR.repr(value)
    if isinstance(value, str) and len(value) > SHOWN_CHARS:
        text += f" ({len(value)} characters)"
    return text


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        raise _DuplicateKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return out


def _depth_exceeds(value: Any, max_depth: int) -> bool:
    """Whether arrays and objects nest deeper than `max_depth` in `value` (iterative: no recursion)."""
    if not isinstance(value, list | dict):
        return False
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        for child in item.values() if type(item) is dict else item:
            kind = type(child)
            if kind is list or kind is dict:  # (faster than isinstance: this visits every value)
                if depth >= max_depth:
                    return True
                stack.append((child, depth + 1))
    return False
