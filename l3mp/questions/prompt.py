"""The prompt of one step of the question loop and its answer schema (``question_step``).

The fixed part (instructions, operations, a worked example of another home) comes first so the server's prompt
cache keeps it; then the things the question names, with their facts (the prompt contract's entity lines), what
the loop observed so far, and the question on a ``Request:`` line. The answer is ``{"action": {...}}``: one
operation or one answer, every entity name an enum of the memory's entities (constrained decoding).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from l3mp.domain.pddl_domain import Domain
from l3mp.llm.contract import REQUEST, entity_line, request_line
from l3mp.llm.types import Message
from l3mp.questions.forms import Question
from l3mp.questions.memory import MAX_DEPTH, Memory

QUESTION_STEP = "question_step"
"""Schema name of one step of the question loop."""
QUESTION_REPHRASE = "question_rephrase"
"""Schema name of a question said again in one of the usual forms (the loop's first call)."""
MAX_REPHRASE = 120
"""Characters of a rephrased question at most."""

REPHRASE_SYSTEM = """Say a person's question about their home again as ONE plain question in one of these \
forms, keeping the words for the things it names: where is X | which room is X in | since when has X been on Y | \
since when is X on (or open, dirty) | when was X last opened (or moved, washed) | who has X | who moved (or took, \
opened, turned on) X | how many X are there (or are on Y, are in Y) | is X on (or open, dirty) | is X on Y | \
was X on at 08:30 | where was X at 08:30 | what is on X | who is in the room where X is.
If it fits none of them, answer with an empty question. Answer JSON: {"question": "..."}.

Examples:
do you happen to know where my book went? -> {"question": "where is the book"}
somebody switched the hall lamp off, who was it? -> {"question": "who turned off the hall lamp"}
the heater, is it running right now? -> {"question": "is the heater on"}
count the clean cups for me -> {"question": "how many clean cups are there"}
back at 7:10, where did the red pen lie? -> {"question": "where was the red pen at 7:10"}
what room would I find the blue pen in? -> {"question": "which room is the blue pen in"}
list everything lying on the shelf in the room Tom is in -> {"question": "what is on the shelf in the room where \
Tom is"}
tell me a joke -> {"question": ""}"""
"""Schema name of one step of the question loop."""

SYSTEM = """You answer questions about a home from the robot's memory: facts such as "on mug_1 table_1" \
(the mug is on the table), "in_room table_1 kitchen_1", "has michael phone_1", "light_on lamp_1". Each step, \
either look at the memory with one operation, or answer:
- facts_of ENTITY: every fact about it, with the record that made it true;
- neighbours ENTITY DEPTH: what is within DEPTH facts of it;
- path FROM TO: the chain of facts that joins two things;
- history_of ENTITY: the last change records about it (time, sentence, what changed);
- select TYPE STATE PLACE: the entities of a type, optionally with a state that holds and at a place;
- answer_entities, answer_count, answer_yes_no, answer_time (a record number you read): the answer;
- decline: the memory cannot answer (say why).
Use only what the memory shows; never guess. Names are the memory's entity names."""

EXAMPLE = """Example (another home):
Things the question names:
cup_1 (dish): cup
Seen so far:
facts of cup_1: on cup_1 shelf_1 (since #4 09:10)
Request: what else is on the shelf the cup is on?
Step: {"action": {"op": "neighbours", "entity": "shelf_1", "depth": 1}}
Seen: within 1 of shelf_1: cup_1 (dish), book_2 (book), hall_1 (room)
Step: {"action": {"op": "answer_entities", "entities": ["book_2"]}}"""


def messages(memory: Memory, question: Question, focus: Sequence[str], seen: Sequence[str]) -> list[Message]:
    """System: instructions and the example; user: the named things (their facts are the first observations), the
    observations, the question."""
    graph = memory.graph
    things = [entity_line(name, str(graph.entity_type(name)), memory.label(name)) for name in focus]
    user = "Things the question names:\n" + ("\n".join(things) or "(none found)")
    user += "\n\nSeen so far:\n" + ("\n".join(seen) or "(nothing yet)")
    user += f"\n\n{request_line(REQUEST, question.text)}"
    return [{"role": "system", "content": fixed_part(memory.domain)}, {"role": "user", "content": user}]


@lru_cache(maxsize=8)
def fixed_part(domain: Domain) -> str:
    types = ", ".join(sorted(domain.types))
    unary = ", ".join(sorted(n for n, p in domain.predicates.items() if p.arity == 1))
    return f"{SYSTEM}\nTypes: {types}. States: {unary}.\n\n{EXAMPLE}"


def rephrase_messages(question: str) -> list[Message]:
    """The rephrase call: the fixed instructions and examples, then the question alone (no memory)."""
    return [{"role": "system", "content": REPHRASE_SYSTEM}, {"role": "user", "content": question}]


REPHRASE_SCHEMA = {"type": "object", "properties": {"question": {"type": "string", "maxLength": MAX_REPHRASE}},
                   "required": ["question"], "additionalProperties": False}


def schema(memory: Memory, max_listed: int) -> dict[str, Any]:
    """One variant per operation and answer; entity names, types, states enums of this memory and domain."""
    names = sorted(memory.graph.entities())
    entity = {"type": "string", "enum": names}
    optional = {"type": "string", "enum": ["", *names]}
    unary = sorted(n for n, p in memory.domain.predicates.items() if p.arity == 1)
    variants = [
        _variant("facts_of", entity=entity),
        _variant("neighbours", entity=entity, depth={"type": "integer", "minimum": 1, "maximum": MAX_DEPTH}),
        _variant("path", **{"from": entity, "to": entity}),
        _variant("history_of", entity=entity),
        _variant("select", type={"type": "string", "enum": sorted(memory.domain.types)},
                 state={"type": "string", "enum": ["", *unary]}, place=optional),
        _variant("answer_entities", entities={"type": "array", "items": entity, "minItems": 1,
                                              "maxItems": max_listed}),
        _variant("answer_count", count={"type": "integer", "minimum": 0}),
        _variant("answer_yes_no", yes={"type": "boolean"}),
        _variant("answer_time", record={"type": "integer", "minimum": 1}),
        _variant("decline", reason={"type": "string"}),
    ]
    return {"type": "object", "properties": {"action": {"anyOf": variants}}, "required": ["action"],
            "additionalProperties": False}


def _variant(op: str, **fields: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"op": {"type": "string", "enum": [op]}, **fields},
            "required": ["op", *fields], "additionalProperties": False}
