"""The words of answers: how entities, places, states and the records behind them are told to people."""

from __future__ import annotations

from l3mp.domain.triplets import Fact
from l3mp.questions.answer import Answer
from l3mp.questions.clock import clock_words
from l3mp.questions.memory import Memory
from l3mp.world.history import FactStory
from l3mp.world.record import ChangeRecord

_PREPOSITION = {"on": "on", "inside": "in", "in_room": "in"}
INPUT_SHOWN = 160
"""Characters of a record's sentence quoted in an answer."""


def the(memory: Memory, entity: str) -> str:
    """``Michael``, ``the grey mug``, ``the counter in the kitchen``."""
    label = memory.label(entity)
    return label if memory.graph.entity_type(entity) == "person" else f"the {label}"


def listing(memory: Memory, entities: list[str] | tuple[str, ...]) -> str:
    """``the mug, the plate and Michael`` (``nothing`` for none)."""
    names = [the(memory, e) for e in entities]
    if not names:
        return "nothing"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def where_words(memory: Memory, entity: str, fact: Fact) -> str:
    """Where a location fact puts `entity`: ``on the counter``, ``with Michael``, ``held by the robot``."""
    other = next(a for a in fact.args if a != entity)
    if fact.predicate in _PREPOSITION:
        return f"{_PREPOSITION[fact.predicate]} {the(memory, other)}"
    if fact.args[0] == other:  # has, holding: the holder comes first
        return f"with {the(memory, other)}" if memory.graph.entity_type(other) == "person" else (
            f"held by {the(memory, other)}")
    return f"{fact.predicate.replace('_', ' ')} {the(memory, other)}"


def because(record: ChangeRecord | None, now: float | None) -> str:
    """``record #5 at 08:12, from "Michael put the mug on the counter."`` (the record's own words)."""
    if record is None:
        return "no record: known before the recorded history"
    said = record.input or ""
    quoted = f', from "{said[:INPUT_SHOWN]}{"..." if len(said) > INPUT_SHOWN else ""}"' if said else ""
    return f"record #{record.seq} at {clock_words(record.time, now)}, {record.source}{quoted}"


def story_words(memory: Memory, story: FactStory, now: float | None) -> str:
    """Why a fact is true: the record that made it so (see `because`)."""
    return because(memory.record(story.seq), now)


def answer_lines(answer: Answer, *, now: float | None = None) -> list[str]:
    """An answer for people: its sentence, then the facts and records it rests on, then how it was found."""
    lines = [answer.text]
    if answer.facts:
        lines.append("rests on:")
        for story in answer.facts:
            atom = " ".join((story.fact.predicate, *story.fact.args))
            when = f"record #{story.seq} at {clock_words(story.time, now)}, {story.source}" if story.time else (
                "no record: known before the recorded history")
            lines.append(f"    {atom}  ({when}" + (f', "{story.input}")' if story.input else ")"))
    if answer.records:
        lines.append("records read:")
        lines += [f"    {because(r, now)}" for r in answer.records]
    tokens = answer.ledger
    how = f"{answer.status}, {answer.kind}, {answer.via}" + (f" ({answer.llm})" if answer.llm else "")
    lines.append(f"{how}; {len(answer.steps)} step(s), {tokens.prompt_tokens} prompt + {tokens.completion_tokens} "
                 f"completion tokens, {answer.seconds:.2f} s")
    return lines
