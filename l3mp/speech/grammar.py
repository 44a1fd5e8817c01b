"""The speech grammar of a graph: the domain's phrasings with their slots filled by what the graph names.

`GrammarBuilder.build(graph)` gives a `Grammar`: its JSGF text (for pocketsphinx), one regular expression per
phrasing (which phrasings a transcript is), the spoken form of every label ("kitchen one") with its written form
("kitchen 1"), and the labels left out because the pronunciation dictionary lacks one of their words. The
vocabulary's `signature` changes exactly when the grammar would, so a caller rebuilds only then.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from l3mp.domain.pddl_domain import Domain
from l3mp.retrieval.grounding import Lexicon, noun_phrase_of, tokens
from l3mp.speech.phrasings import KINDS, TASK, Phrasing, Phrasings
from l3mp.world.graph import WorldGraph

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
"""How the numbers of labels are said ("bedroom 2" is "bedroom two")."""
DETERMINERS = ("the", "my", "his", "her")
"""Words that may come before a thing; a room takes only "the", a person none. No "a", "our", "your" or "their":
in trial runs on espeak-ng speech they often took the place of a weakly said "the"."""
GRAMMAR_NAME = "l3mp"



@dataclass(frozen=True)
class Vocabulary:
    """What a graph lets people say: spoken phrases by slot type, their written forms, what cannot be said."""

    slots: dict[str, tuple[str, ...]]
    written: dict[str, str]
    """Spoken phrase -> the label's written form, where they differ ("kitchen one" -> "kitchen 1")."""
    unsayable: tuple[str, ...]
    """Phrases left out: the pronunciation dictionary lacks one of their words."""

    @property
    def signature(self) -> str:
        """A digest of everything the grammar depends on (equal signatures, equal grammars)."""
        text = json.dumps([self.slots, self.written], sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Grammar:
    """A graph's grammar: JSGF text, one pattern per usable phrasing, the vocabulary, and its build time."""

    jsgf: str
    vocabulary: Vocabulary
    patterns: tuple[tuple[Phrasing, re.Pattern[str]], ...]
    seconds: float
    dropped: tuple[str, ...] = field(default=())
    """Phrasings left out because a slot type has nothing the graph can say (no TV: no "turn on the TV")."""
    task_prefixes: tuple[tuple[str, ...], ...] = ()
    """Words that may open a task before its verb ("please", "can you")."""

    @property
    def task_verbs(self) -> frozenset[str]:
        """The words a task phrasing opens with."""
        return frozenset().union(*(p.first_words() for p, _ in self.patterns if p.kind == TASK))

    @property
    def signature(self) -> str:
        return self.vocabulary.signature

    def matches(self, words: Iterable[str]) -> list[Phrasing]:
        """The phrasings the whole of `words` is an utterance of."""
        text = " ".join(words) + " "
        return [phrasing for phrasing, pattern in self.patterns if pattern.fullmatch(text)]

    def written(self, words: Iterable[str]) -> str:
        """The transcript with the labels' written forms ("kitchen one" -> "kitchen 1"), as the services read it."""
        text = " " + " ".join(words) + " "
        for spoken in sorted(self.vocabulary.written, key=len, reverse=True):
            text = text.replace(f" {spoken} ", f" {self.vocabulary.written[spoken]} ")
        return text.strip()


class GrammarBuilder:
    """Builds the grammar of a graph for a domain's phrasings; `knows` says whether a word can be pronounced."""

    def __init__(self, domain: Domain, knows: Callable[[str], bool], *, phrasings: Phrasings | None = None,
                 lexicon: Lexicon | None = None) -> None:
        self._domain = domain
        self._knows = knows
        self._phrasings = phrasings if phrasings is not None else Phrasings.for_domain(domain)
        self._lexicon = lexicon if lexicon is not None else Lexicon.for_domain(domain)

    def vocabulary(self, graph: WorldGraph) -> Vocabulary:
        """The spoken phrases of every slot type of the phrasings (and rooms, for "in the kitchen")."""
        types = {name: graph.entity_type(name) or "" for name in graph.entities()}
        slots: dict[str, set[str]] = {t: set() for t in self._phrasings.slot_types | {"room"}}
        written: dict[str, str] = {}
        unsayable: set[str] = set()
        for name, type_ in types.items():
            label = spoken_label(graph, name)
            spoken, digits = _spoken(label)
            if not spoken:
                continue
            if not all(self._knows(w) for w in spoken.split()):
                unsayable.add(spoken)
                continue
            if digits != spoken:
                written[spoken] = digits
            for slot in slots:
                if self._domain.is_subtype(type_, slot):
                    slots[slot].add(spoken)
        present = set(types.values())
        for slot in slots:
            if slot in ("room", "person"):
                continue  # rooms and people are said by name
            for type_, words in self._lexicon.type_words.items():
                if self._domain.is_subtype(type_, slot) and any(self._domain.is_subtype(t, type_) for t in present):
                    slots[slot].update(w for w in words if self._knows(w))
        return Vocabulary({t: tuple(sorted(p)) for t, p in sorted(slots.items())}, dict(sorted(written.items())),
                          tuple(sorted(unsayable)))

    def build(self, graph: WorldGraph, vocabulary: Vocabulary | None = None) -> Grammar:
        """The grammar of `graph` (of `vocabulary`, when the caller already computed it)."""
        started = time.perf_counter()
        vocabulary = vocabulary if vocabulary is not None else self.vocabulary(graph)
        usable = [p for p in self._phrasings.phrasings if all(vocabulary.slots.get(t) for t in p.slots)]
        dropped = tuple(p.text for p in self._phrasings.phrasings if p not in usable)
        jsgf = self._jsgf(vocabulary, usable)
        patterns = tuple((p, re.compile(self._pattern(p, vocabulary))) for p in usable)
        prefixes = tuple(tuple(p.split()) for p in self._phrasings.task_prefix)
        return Grammar(jsgf, vocabulary, patterns, time.perf_counter() - started, dropped, prefixes)

    # ---- JSGF -------------------------------------------------------------------------------------
    def _jsgf(self, vocabulary: Vocabulary, usable: list[Phrasing]) -> str:
        kinds = [k for k in KINDS if any(p.kind == k for p in usable)]
        lines = ["#JSGF V1.0;", f"grammar {GRAMMAR_NAME};",
                 f"public <utterance> = {' | '.join(f'<{k}>' for k in kinds) or '<VOID>'};"]
        for kind in kinds:
            body = " | ".join(f"( {_jsgf_of(p)} )" for p in usable if p.kind == kind)
            if kind == TASK and self._phrasings.task_prefix:
                body = f"[ <task_prefix> ] ( {body} ) [ please ]"
            lines.append(f"<{kind}> = {body};")
        if self._phrasings.task_prefix:
            lines.append(f"<task_prefix> = {' | '.join(self._phrasings.task_prefix)};")
        lines.append(f"<determiner> = {' | '.join(DETERMINERS)};")
        for type_ in sorted({t for p in usable for t in p.slots} | {"room"}):
            phrases = vocabulary.slots.get(type_)
            if not phrases:
                continue
            lines.append(f"<words_{_rule(type_)}> = {' | '.join(phrases)};")
            lines.append(f"<slot_{_rule(type_)}> = {self._slot_jsgf(type_, vocabulary)};")
        return "\n".join(lines) + "\n"

    def _located(self, type_: str, vocabulary: Vocabulary) -> bool:
        """Whether a thing of `type_` may be said with its room ("the light in the kitchen")."""
        return bool(vocabulary.slots.get("room")) and any(self._domain.is_subtype(type_, t)
                                                          for t in self._phrasings.qualified_by_room)

    def _slot_jsgf(self, type_: str, vocabulary: Vocabulary) -> str:
        """A slot: its words after a determiner (a room takes only "the", a person none), then maybe its room."""
        before = {"person": "", "room": "[ the ] "}.get(type_, "[ <determiner> ] ")
        after = " [ in [ the ] <words_room> ]" if self._located(type_, vocabulary) else ""
        return f"{before}<words_{_rule(type_)}>{after}"

    def _slot_pattern(self, type_: str, vocabulary: Vocabulary) -> str:
        """The regular expression of `_slot_jsgf`, over words each followed by one space."""
        before = {"person": "", "room": "(?:the )?"}.get(type_, f"(?:{_alternatives(DETERMINERS)})?")
        after = f"(?:in (?:the )?{_alternatives(vocabulary.slots['room'])})?" if self._located(
            type_, vocabulary) else ""
        return f"{before}{_alternatives(vocabulary.slots[type_])}{after}"

    def _pattern(self, phrasing: Phrasing, vocabulary: Vocabulary) -> str:
        body = phrasing.render(lambda w: f"{w} ", lambda t: self._slot_pattern(t, vocabulary),
                               ("(?:", ")?"), ("(?:", ")"))
        if phrasing.kind == TASK and self._phrasings.task_prefix:
            body = f"(?:{_alternatives(self._phrasings.task_prefix)})?{body}(?:please )?"
        return body


def spoken_label(graph: WorldGraph, name: str) -> str:
    """The words people use for an entity: its label without the place it names ("overhead light" of "overhead
    light in kitchen 1"), else its description, else its name without the number ("apple" of "apple_1")."""
    attrs = graph.entity_attrs(name)
    label = str(attrs.get("label") or attrs.get("description") or re.sub(r"_?\d+$", "", name).replace("_", " "))
    return noun_phrase_of(label)


def spoken_words(text: str) -> list[str]:
    """The words of `text` as the grammar says them: lowercase, numbers as words, ``'s`` joined to its word."""
    return _spoken(text)[0].split()


def _spoken(label: str) -> tuple[str, str]:
    """The text as said (numbers as words, ``'s`` joined to its word) and as written (digits kept)."""
    said: list[str] = []
    kept: list[str] = []
    for word in tokens(label):
        if word == "'s" and said:
            said[-1] += "'s"
            kept[-1] += "'s"
            continue
        kept.append(word)
        said.append(NUMBER_WORDS[int(word)] if word.isdigit() and int(word) < len(NUMBER_WORDS) else word)
    return " ".join(said), " ".join(kept)


def _jsgf_of(phrasing: Phrasing) -> str:
    return " ".join(phrasing.render(lambda w: f" {w} ", lambda t: f" <slot_{_rule(t)}> ", (" [ ", " ] "),
                                    (" ( ", " ) ")).split())


def _alternatives(phrases: Iterable[str]) -> str:
    """A regex group of whole phrases, each followed by one space (longest first)."""
    ordered = sorted(phrases, key=len, reverse=True)
    return "(?:" + "|".join(re.escape(p) + " " for p in ordered) + ")"


def _rule(type_: str) -> str:
    return re.sub(r"[^a-z0-9_]", "_", type_.lower())
