"""Checks that an update means what its text says, beyond being valid.

- `report_part`: sentences that speak to the memory itself ("ignore your rules") are set aside.
- `is_question`: a question is not a report of a change.
- `resolve`: where the text names one of several alike entities ("the light in the living room" with two
  lights there), keep the one for which the stated fact is a real change; if several are, ask which.
- `problems`: every changed entity is one the text refers to (or the place something left), no entity that the
  text only uses to tell which thing it means ("Michael's desk", "the light in the kitchen") is changed, and
  every thing the text mentions that can move is changed (else half of the event was missed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.retrieval.grounding import Mention, noun_phrase_of, tokens
from l3mp.world.delta import Delta
from l3mp.world.graph import WorldGraph

_QUESTION_WORDS = frozenset({
    "is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "should", "has", "have",
    "where", "what", "which", "who", "whose", "when", "why", "how",
})
_OTHER = frozenset({"other", "another"})
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|#+|\n+")
_INSTRUCTION = re.compile(
    r"\b(ignore|disregard|forget|erase|wipe|delete|instructions?|system|prompt|pretend|override|rules?|"
    r"from now on|your memory|the memory|database|developer mode|jailbreak)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Stated:
    """One literal of the model's answer: a fact and whether it holds after the event."""

    fact: Fact
    true: bool

    def is_change(self, graph: WorldGraph) -> bool:
        return graph.has_fact(self.fact) != self.true

    def __str__(self) -> str:
        return str(self.fact) if self.true else f"(not {self.fact})"


def report_part(text: str) -> tuple[str, tuple[str, ...]]:
    """The text without its sentences addressed to the robot's memory itself ("Ignore your rules", "SYSTEM: new
    rule ..."): those are instructions, never reports, so they are set aside before anything reads the text.
    Returns the rest and what was set aside."""
    kept, dropped = [], []
    for sentence in _SENTENCE.split(text):
        if not sentence.strip():
            continue
        (dropped if _INSTRUCTION.search(sentence) else kept).append(sentence.strip())
    return " ".join(kept), tuple(dropped)


def is_question(text: str) -> bool:
    """Whether the text asks rather than tells: it opens with a question word or an auxiliary verb ("Is the fridge
    open?", "Where did Tom put the mug?"). A report followed by a request ("The phone is ringing, can someone get
    it?") tells."""
    words = tokens(text)
    return bool(words) and words[0] in _QUESTION_WORDS


def allowed_entities(mentions: Sequence[Mention], graph: WorldGraph, text: str) -> set[str]:
    """The entities an answer may name: every candidate of every mention; with "the other one", also the
    entities that share a candidate's label noun."""
    names = {n for m in mentions for n in (*m.candidates, *m.alternatives)}
    if _OTHER & set(tokens(text)):
        heads = {_noun(graph, n) for n in names}
        names |= {e for e in graph.entities() if _noun(graph, e) in heads}
    return names


def resolve(stated: list[Stated], mentions: Sequence[Mention], graph: WorldGraph,
            domain: Domain) -> tuple[list[Stated], str | None]:
    """Pick, for each argument that stands for an ambiguous mention, the candidate whose fact really changes.

    Returns the literals with those arguments settled and, when the state cannot tell alike entities apart,
    the question to ask instead (the literals are then not to be applied)."""
    out = []
    for literal in stated:
        args = list(literal.fact.args)
        for position, arg in enumerate(args):
            mention = _ambiguous_mention(arg, mentions)
            if mention is None:
                continue
            viable = _viable(literal, args, position, mention.candidates, graph, domain)
            if not viable and mention.alternatives != mention.candidates:
                viable = _viable(literal, args, position, mention.alternatives, graph, domain)
            if len(viable) > 1:
                return stated, which(mention, viable, graph)
            if viable:
                args[position] = viable[0]
        out.append(Stated(Fact(literal.fact.predicate, tuple(args)), literal.true))
    return out, None


def which(mention: Mention, options: Iterable[str], graph: WorldGraph) -> str:
    """``Which light do you mean: the floor lamp in the living room or the reading lamp in the living room?``"""
    labels = [f"the {label(graph, n)}" for n in sorted(options)]
    listed = ", ".join(labels[:-1]) + f" or {labels[-1]}" if len(labels) > 1 else labels[0]
    noun = mention.words.split()[-1]
    return f"Which {noun} do you mean: {listed}?"


def label(graph: WorldGraph, name: str) -> str:
    attrs = graph.entity_attrs(name)
    return str(attrs.get("label") or attrs.get("description") or name)


def problems(delta: Delta, stated: Sequence[Stated], mentions: Sequence[Mention], allowed: set[str],
             graph: WorldGraph, domain: Domain, covered_types: frozenset[str]) -> list[str]:
    """What makes an (otherwise valid) update not what the text says."""
    out = []
    named = sorted({a for s in stated for a in s.fact.args if a not in allowed})
    if named:
        out.append(f"the event does not mention {', '.join(named)}; change only the things it talks about")
    changed = [s for s in stated if s.is_change(graph)]
    main = {n for m in mentions if m.qualifies is None for n in m.candidates}
    for mention in mentions:
        if mention.qualifies is None or set(mention.candidates) & main:
            continue
        if any(set(mention.candidates) & set(s.fact.args) for s in changed):
            out.append(f"\"{mention.words}\" only tells which {mentions[mention.qualifies].words} is meant; the event "
                       f"does not say that it changed")
    touched = {a for f in (*delta.remove, *delta.add) for a in f.args} | {a for s in stated for a in s.fact.args}
    for mention in mentions:
        if mention.qualifies is not None or mention.plural or not mention.candidates:
            continue
        if not all(_is_a(graph, domain, n, covered_types) for n in mention.candidates):
            continue
        if not touched & set(mention.candidates):
            out.append(f"the event mentions \"{mention.words}\" but your answer does not say what happened to it; "
                       "give its new place or state (or leave the whole answer empty if nothing changed)")
    return out


def _ambiguous_mention(arg: str, mentions: Sequence[Mention]) -> Mention | None:
    """The mention an argument stands for, when it leaves a choice: one whose candidates hold the argument (none,
    if one of those names it alone), else one whose wider alternatives do."""
    single = [m for m in mentions if not m.plural]
    holding = [m for m in single if arg in m.candidates]
    if holding:
        return None if any(len(m.candidates) == 1 for m in holding) else holding[0]
    return next((m for m in single if arg in m.alternatives), None)


def _viable(literal: Stated, args: list[str], position: int, options: Iterable[str], graph: WorldGraph,
            domain: Domain) -> list[str]:
    wanted = domain.predicates[literal.fact.predicate].types[position]
    out = []
    for option in options:
        if not domain.is_subtype(graph.entity_type(option) or "", wanted):
            continue
        trial = Stated(Fact(literal.fact.predicate, (*args[:position], option, *args[position + 1:])), literal.true)
        if trial.is_change(graph):
            out.append(option)
    return out


def _is_a(graph: WorldGraph, domain: Domain, name: str, types: frozenset[str]) -> bool:
    type_ = graph.entity_type(name) or ""
    return any(domain.is_subtype(type_, t) for t in types)


def _noun(graph: WorldGraph, name: str) -> str:
    words = tokens(noun_phrase_of(label(graph, name)))
    return words[-1] if words else name
