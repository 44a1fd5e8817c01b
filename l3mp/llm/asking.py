"""Asking for a structured answer and re-prompting with what was wrong: the loop that updates and goals share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from l3mp.errors import LLMError, LLMOutputError
from l3mp.llm.jsonparse import parse_json
from l3mp.llm.types import LLM, Message, TokenLedger


@dataclass(frozen=True)
class Answer:
    """One reply: its raw text, its JSON (None when unusable), a problem that stops it from being checked, and
    whether asking again is pointless (the LLM is unreachable or timed out)."""

    text: str
    data: Any = None
    problem: str = ""
    fatal: bool = False
    off_schema: str = ""
    """When the reply was JSON but broke the schema: what the schema check said (the caller's own check of the
    JSON usually explains it better)."""


def ask_json(llm: LLM, messages: Sequence[Message], *, schema: dict, schema_name: str, purpose: str,
             ledger: TokenLedger | None = None) -> Answer:
    """Ask once; never raises for LLM problems (they become the answer's problem)."""
    try:
        reply = llm.complete_json(messages, schema=schema, schema_name=schema_name, purpose=purpose, ledger=ledger)
    except LLMOutputError as exc:
        text = getattr(exc, "text", "") or str(exc)
        try:
            return Answer(text, parse_json(text), off_schema=str(exc))
        except LLMOutputError:
            return Answer(text, problem=f"your answer was not JSON: {exc}")
    except LLMError as exc:
        return Answer("", problem=f"LLM {type(exc).__name__}: {exc}", fatal=True)
    return Answer(reply.text, reply.data)


def feedback(problems: Sequence[str], *, what: str, again: str) -> str:
    """The re-prompt: what cannot be used and why, then what to answer instead."""
    listed = "\n".join(f"- {p}" for p in problems)
    return f"{what} cannot be used:\n{listed}\n{again}"


def retry_messages(messages: Sequence[Message], answer: str, problems: Sequence[str], *, what: str,
                   again: str) -> list[Message]:
    """`messages` followed by the rejected answer and the feedback on it."""
    return [*messages, {"role": "assistant", "content": answer or "(no answer)"},
            {"role": "user", "content": feedback(problems, what=what, again=again)}]


def literal_variant(predicate: str, options: Sequence[Sequence[str]], fields: dict[str, dict]) -> dict:
    """JSON schema of one typed literal: the predicate fixed, each argument an enum of `options`, plus `fields`."""
    return {
        "type": "object",
        "properties": {
            "predicate": {"type": "string", "enum": [predicate]},
            "args": {"type": "array", "prefixItems": [{"type": "string", "enum": list(o)} for o in options],
                     "minItems": len(options), "maxItems": len(options)},
            **fields,
        },
        "required": ["predicate", "args", *fields],
        "additionalProperties": False,
    }
