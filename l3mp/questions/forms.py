"""Reading a question without an LLM: its form (where, since when, who, how many, yes/no, ...), the time it names,
and its mentions grounded to entities with the existing grounding (`l3mp.retrieval.grounding`).

A question whose form is none of these (where, which_room, since_when, last_change, who_has, who_with, who_did,
count, contents, yes_no) is ``open``: the LLM loop answers it. A phrase ``the room where X is`` is resolved here
first (X's room, a hop the grounding cannot make) and the question is read with that room in its place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from l3mp.questions.clock import Moment, moment_in
from l3mp.questions.memory import Memory
from l3mp.retrieval.grounding import Grounder, Mention, tokens, unexplained

_FILLER = re.compile(r"^(?:(?:hey|ok|okay|so|robot|please|tell me|can you tell me|could you tell me|do you know|"
                     r"any idea|i wonder|i'd like to know)[\s,]+)+")
_FORMS = (
    ("which_room", re.compile(r"^(?:which|what) room\b|^in which room\b")),
    ("where", re.compile(r"^where\b")),
    ("since_when", re.compile(r"^since when\b|^how long\b|^for how long\b")),
    ("last_change", re.compile(r"^when\b|^at what time\b|^what time\b")),
    ("who_has", re.compile(r"^who (?:has|holds|is holding|has got|got)\b")),
    ("who_with", re.compile(r"^who (?:is|was|are|were) (?:in|with)\b|^who else is\b")),
    ("who_did", re.compile(r"^who\b")),
    ("count", re.compile(r"^how many\b")),
    ("contents", re.compile(r"^what(?:'s| is| was| are| were)? (?:on|in|inside)\b|^what (?:does|did) \S+ have\b|"
                            r"^what (?:is|are) there (?:on|in)\b")),
    ("yes_no", re.compile(r"^(?:is|are|was|were|does|did|do|has|have)\b")),
)
_WHICH_ROOM = re.compile(r"^(?:in )?(?:which|what) room (?:is|are|was|were|has|have)?\s*")
_ROOM_OF = re.compile(r"\b(?:the )?room (?:where|that|with|in which) (.+?)(?: (?:is|are|was|were|sits|stands|"
                      r"lies))?(?= in\b| on\b|[?.!]|$)")
GENERIC_NOUNS = {"thing": "item", "things": "item", "item": "item", "items": "item", "object": "item",
                 "objects": "item", "people": "person", "persons": "person", "person": "person", "rooms": "room",
                 "room": "room", "devices": "device", "device": "device", "appliances": "device"}
"""Nouns of questions that name a type rather than a thing (`count`)."""
_PREPOSITIONS = frozenset({"on", "off", "in", "out", "up", "down", "over"})
PLACE_TYPES = ("receptacle", "room", "agent")
"""Types of the things a preposition can put something at (on the table, in the kitchen, with Michael)."""
MOVING = frozenset({"took", "take", "taken", "grabbed", "grab", "picked", "pick", "gave", "give", "given", "handed",
                    "hand", "moved", "move", "put", "left", "carried", "brought", "placed", "set", "dropped"})
"""Verbs that ask about where a thing went (beside the domain lexicon's own ``moves``)."""


@dataclass(frozen=True)
class Question:
    """A question read: its form, the time it names, its mentions (text order), the nouns it names that the memory
    has no entity for, and the hops made to resolve ``the room where X is`` (entity, its room)."""

    text: str
    kind: str
    words: tuple[str, ...]
    mentions: tuple[Mention, ...]
    unknown: tuple[str, ...] = ()
    moment: Moment | None = None
    room_of: tuple[str, str] | None = None
    said_states: frozenset[tuple[str, bool]] = frozenset()
    """The states the question's words name by the lexicon (``open`` and ``opened``: is_open true), whatever the
    thing."""

    def things(self) -> list[Mention]:
        """The mentions that do not only locate another one."""
        return [m for m in self.mentions if m.qualifies is None]

    def places(self) -> list[Mention]:
        """The mentions after the first thing: where it is, or what it is compared with."""
        things = self.things()
        rest = [m for m in self.mentions if m is not (things[0] if things else None)]
        return [m for m in rest if not things or m.start > things[0].start]


def normalise(text: str) -> str:
    """Lower case, curly quotes straightened, fillers (``hey robot, can you tell me``) and end marks dropped."""
    text = text.strip().lower().replace("\u2019", "'")
    text = _FILLER.sub("", text)
    return text.rstrip("?.! ").strip()


def form_of(text: str) -> str:
    """The form of a normalised question (``open`` when it has none of the known ones)."""
    return next((kind for kind, pattern in _FORMS if pattern.search(text)), "open")


def read(text: str, memory: Memory, grounder: Grounder, now: float) -> Question:
    """Read a question against `memory` (see the module docstring); ValueError for an impossible time."""
    plain = normalise(text)
    moment = moment_in(plain, now)
    body = plain.replace(moment.words, " ") if moment else plain
    body = re.sub(r"\s+", " ", body).strip()
    body = _WHICH_ROOM.sub("", body)
    room_of = None
    hop = _ROOM_OF.search(body)
    if hop:
        inner = grounder.ground(hop.group(1), memory.graph)
        thing = next((m.entity for m in inner if m.qualifies is None and m.entity), None)
        room = memory.room(thing) if thing else None
        if thing and room:
            room_of = (thing, room)
            body = body[:hop.start()] + memory.label(room) + body[hop.end():]
    mentions = grounder.ground(body, memory.graph)
    if room_of is not None:
        mentions = tuple(replace(m, candidates=(room_of[1],)) if room_of[1] in m.candidates else m for m in mentions)
    words = tuple(tokens(body))
    unknown = tuple(w for w in unexplained(body, mentions) if w not in GENERIC_NOUNS)
    said = frozenset((predicate, sign) for predicate, signs in grounder.lexicon.states.items()
                     for sign, listed in signs.items() if listed.intersection(words))
    return Question(text, form_of(plain), words, mentions, unknown, moment, room_of, said)


def state_words(question: Question, memory: Memory, grounder: Grounder, subjects: list[str]) -> list[tuple[str, bool]]:
    """The unary states the question's words name (``on``, ``dirty``, ``closed`` -> predicate and sign) that apply
    to the type of every subject; a word that begins a place (``on the table``, ``out of``) names no state."""
    found = []
    words = question.words
    for i, word in enumerate(words):
        if word in _PREPOSITIONS and _begins_place(question, memory, i):
            continue
        for predicate, signs in grounder.lexicon.states.items():
            for sign, said in signs.items():
                if word in said and _applies(memory, predicate, subjects):
                    found.append((predicate, sign))
    return list(dict.fromkeys(found))


def _begins_place(question: Question, memory: Memory, i: int) -> bool:
    """Whether word `i` is a preposition before a place (``on the table``, ``out of the fridge``): a mention of a
    receptacle, room or agent follows it (after at most a determiner)."""
    after = question.words[i + 1] if i + 1 < len(question.words) else ""
    if after == "of":
        return True
    for mention in question.mentions:
        if mention.start in (i + 1, i + 2) and mention.candidates and all(
                any(memory.domain.is_subtype(memory.graph.entity_type(c) or "", t) for t in PLACE_TYPES)
                for c in mention.candidates):
            return True
    return False


def _applies(memory: Memory, predicate: str, subjects: list[str]) -> bool:
    declared = memory.domain.predicate(predicate)
    if declared is None or declared.arity != 1:
        return False
    return bool(subjects) and all(memory.domain.is_subtype(memory.graph.entity_type(s) or "", declared.types[0])
                                  for s in subjects)


def asks_about_moving(question: Question, moves: frozenset[str]) -> bool:
    """Whether the question's verb is one of moving a thing (moved, took, put, gave, ...)."""
    return any(w in MOVING or w in moves for w in question.words)
