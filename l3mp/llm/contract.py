"""The prompt contract: how l3mp's prompts lay out entities, facts and the request, and the names of their answers.

Every prompt writer (updates, goals, entity selection, query graphs) builds its user message from these
pieces, and the simulated LLM of the evaluation (``l3mp_sim.simulated_llm``) reads prompts back with the
same functions. The layout, one item per line:

- an entity: ``name (type): words``, where words are the entity's label, optionally followed by
  ``| facts: f1; f2`` (its own facts, as PDDL atoms without parentheses, e.g. ``on red_mug_1 table_1``);
- a fact: a JSON triplet ``["subject", "relation", object]`` (see ``l3mp.domain.triplets``);
- the request: one line ``<TAG>: text``, last, where TAG names the prompt kind (`REQUEST_TAGS`).

Worked examples of other homes sit in the system message, so a reader of the user message sees only the
robot's own memory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from l3mp.domain.triplets import Fact, fact_from_triplet, fact_to_triplet
from l3mp.errors import FormatError

KG_UPDATE = "kg_update"
"""Schema name of a natural-language update's answer (Algorithm 3)."""
ENTITY_SELECTION = "entity_selection"
"""Schema name of R+'s entity selection."""
QUERY_GRAPH = "query_graph"
"""Schema name of R^S's query graph (Algorithm 1)."""
PDDL_GOAL = "pddl_goal"
"""Schema name of a task's goal literals (Algorithm 4)."""

EVENT = "Event"
REQUEST = "Request"
TASK = "Task"
REQUEST_TAGS = (EVENT, REQUEST, TASK)
"""Line tags that introduce the text a prompt is about: an update's event, a retrieval's request, a task."""

_ENTITY = re.compile(r"^([^\s()]+) \(([\w-]+)\)(?:: (.*))?$")
_FACTS = " | facts: "


@dataclass(frozen=True)
class EntityLine:
    """One listed entity as a reader sees it."""

    name: str
    type: str
    words: str = ""
    facts: tuple[str, ...] = ()


def entity_line(name: str, type_: str, words: str = "", facts: Sequence[Fact] = ()) -> str:
    """``name (type): words | facts: ...`` (the words and facts parts only when there are some)."""
    line = f"{name} ({type_})" + (f": {words}" if words else "")
    if facts:
        line += (_FACTS if words else ":" + _FACTS) + "; ".join(" ".join((f.predicate, *f.args)) for f in facts)
    return line


def fact_line(fact: Fact) -> str:
    """A fact as a compact JSON triplet."""
    return json.dumps(list(fact_to_triplet(fact)))


def fact_lines(facts: Iterable[Fact]) -> str:
    """Facts as JSON triplets, one per line, sorted by arguments then predicate."""
    return "\n".join(fact_line(f) for f in sorted(facts, key=lambda f: (f.args, f.predicate)))


def request_line(tag: str, text: str) -> str:
    """The line that carries the text a prompt is about."""
    if tag not in REQUEST_TAGS:
        raise ValueError(f"unknown request tag {tag!r}; use one of {REQUEST_TAGS}")
    return f"{tag}: {text}"


@dataclass(frozen=True)
class ReadPrompt:
    """What a user message holds: the listed entities, the facts and the request."""

    entities: dict[str, EntityLine]
    facts: frozenset[Fact]
    request: str


def read_user_message(text: str) -> ReadPrompt:
    """Parse a user message laid out by this contract (lines of other shapes are ignored)."""
    entities: dict[str, EntityLine] = {}
    facts: set[Fact] = set()
    request = ""
    for line in text.splitlines():
        line = line.strip()
        tag, sep, rest = line.partition(": ")
        if sep and tag in REQUEST_TAGS:
            request = rest
            continue
        listed = _ENTITY.match(line)
        if listed:
            words, _, atoms = (listed.group(3) or "").partition(_FACTS.lstrip())
            words = words.removesuffix(" |").strip()
            entities[listed.group(1)] = EntityLine(listed.group(1), listed.group(2), words,
                                                   tuple(a.strip() for a in atoms.split(";") if a.strip()))
        elif line.startswith("[") and line.endswith("]"):
            try:
                facts.add(fact_from_triplet(json.loads(line))[0])
            except (ValueError, FormatError):  # a line that only looks like a triplet
                continue
    for entry in entities.values():
        for atom in entry.facts:
            predicate, *args = atom.split()
            facts.add(Fact(predicate, tuple(args)))
    return ReadPrompt(entities, frozenset(facts), request)
