"""Goals read from plain requests without the LLM, and what a request comes to before any plan: a goal, a question
back ("which phone?"), nothing to do, or that this home cannot do it (`l3mp.planning.impossible`).

The request's mentions are grounded over the whole graph, the plain reading of `l3mp.updates.reading` (request
mode: "me" is the speaker, "all the lights in the kitchen" names each) gives the literals that must hold, and
alike things are told apart by what is not so yet (only the lamp that is on can be switched off); when several
still fit, the answer is the question to ask. A request whose literals all hold already is satisfied. A request the
reading does not explain goes to the LLM (`l3mp.planning.goal`), over the context its grounded mentions give
(`grounded_context`); its literals are then settled the same way (`settle_goal`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.domain.triplets import Fact
from l3mp.planning.goal import Literal, holds
from l3mp.planning.impossible import why_impossible
from l3mp.planning.wording import Wording, mend_signs, within_groups
from l3mp.retrieval.base import Retrieved
from l3mp.retrieval.context import DEFAULT_DEPTH, assemble
from l3mp.retrieval.grounding import Grounder, Lexicon, Mention, places_of, tokens
from l3mp.updates import meaning
from l3mp.updates.meaning import Stated
from l3mp.updates.reading import read
from l3mp.world.graph import WorldGraph

GOAL, ASKED, SATISFIED, IMPOSSIBLE = "goal", "asked", "satisfied", "impossible"
KEEP_WORDS = frozenset({"leave", "keep", "stay", "stays", "remain", "remains", "still"})
"""Words of a clause that asks to keep a thing as it is ("but leave the bedside lamp on")."""


@dataclass(frozen=True)
class RequestReading:
    """A plain request's goal (PDDL), and whether it is to be planned, asked about, already holds or cannot be
    done here (`reason` says why, for people)."""

    outcome: str
    goal: str | None = None
    question: str | None = None
    reason: str = ""


def read_request(task: str, graph: WorldGraph, domain: Domain, rules: RuleSet, *, speaker: str | None = None,
                 grounder: Grounder | None = None, mentions: Sequence[Mention] | None = None,
                 ) -> RequestReading | None:
    """The request read without the LLM, or None when it is not plain enough (see the module docstring).
    `mentions`: the task's mentions grounded over the whole graph, if the caller has them."""
    grounder = grounder or Grounder(domain, rules)
    mentions = grounder.ground(task, graph) if mentions is None else mentions
    why = why_impossible(task, mentions, graph, domain, rules, grounder.lexicon)
    if why:
        return RequestReading(IMPOSSIBLE, reason=why)
    reading = read(task, mentions, graph, domain, rules, grounder.lexicon, request=True, speaker=speaker)
    if reading is None or not reading.stated:
        return None
    stated, question = meaning.resolve(reading.stated, mentions, graph, domain, rules, reading.settled,
                                       near=False)
    if question:
        return RequestReading(ASKED, question=question)
    return _answer(sorted(stated, key=str), (), changes=any(s.is_change(graph) for s in stated))


def grounded_context(task: str, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain, *,
                     speaker: str | None = None) -> Retrieved | None:
    """The context the LLM writes the goal over: every entity the mentions may name (and the speaker), their
    surroundings one fact away (the lights of "the bathroom", the dishes on "the kitchen island") and the robot;
    None when the request names nothing the memory has."""
    names = meaning.allowed_entities(mentions, graph, task)
    if speaker is not None and graph.has_entity(speaker):
        names.add(speaker)
    if not names:
        return None
    return assemble("grounded", graph, domain, names, DEFAULT_DEPTH, {"mentions": [m.words for m in mentions]})


def settle_goal(task: str, literals: Sequence[Literal], mentions: Sequence[Mention], graph: WorldGraph,
                domain: Domain, rules: RuleSet) -> RequestReading:
    """The LLM's goal literals settled as a plain reading's are:

    - "all the X" of a request that names only some X ("all the dishes on the kitchen island"): those X, not every
      X of the home; state signs as the request's words give them (`l3mp.planning.wording`);
    - a thing's not being somewhere that its new place implies ("in the fridge, not in the pantry") is left out;
    - alike things are told apart by where the request says they come from ("the wine bottle from the counter"),
      then by what is not so yet, or else asked about (`meaning.resolve`);
    - a goal that holds entirely is satisfied; otherwise what holds already is left out, unless the request asks
      to keep it ("leave the lamp on")."""
    lexicon = Lexicon.for_domain(domain)
    wording = Wording.of(task, mentions)
    notes: list[str] = []
    literals = mend_signs(wording, within_groups(wording, literals, graph, domain, rules, lexicon, notes), graph,
                          lexicon, notes)
    literals = _without_implied(literals, rules)
    quantified = [lit for lit in literals if lit.quantified]
    ground = [Stated(Fact(lit.predicate, lit.args), not lit.negated) for lit in literals if not lit.quantified]
    stated, question = meaning.resolve(ground, _from_places(task, mentions, graph, rules), graph, domain, rules,
                                       near=False)
    if question:
        return RequestReading(ASKED, question=question)
    changes = any(s.is_change(graph) for s in stated) or not all(holds(lit, graph, domain) for lit in quantified)
    if changes:
        stated = [s for s in stated if s.is_change(graph) or _asked_to_keep(s, task, mentions)]
    return _answer(stated, quantified, changes=changes, notes=notes)


def _answer(stated: Sequence[Stated], quantified: Sequence[Literal], *, changes: bool,
            notes: Sequence[str] = ()) -> RequestReading:
    parts = list(dict.fromkeys([*map(str, stated), *(lit.to_pddl() for lit in quantified)]))
    goal = parts[0] if len(parts) == 1 else f"(and {' '.join(parts)})"
    return RequestReading(GOAL if changes else SATISFIED, goal, reason="; ".join(notes))


def _from_places(task: str, mentions: Sequence[Mention], graph: WorldGraph, rules: RuleSet) -> list[Mention]:
    """Mentions of alike things narrowed to the one at the place they are taken from ("the wine bottle from the
    counter", "the mug out of the sink"), when exactly one is there."""
    words = tokens(task)
    out = list(mentions)
    for k, mention in enumerate(mentions):
        if mention.plural or len(mention.candidates) < 2:
            continue
        place = next((m for m in mentions if mention.end < m.start <= mention.end + 3), None)
        if place is None or not meaning.is_source(words, place.start):
            continue
        there = tuple(n for n in mention.candidates if places_of(graph, rules, n) & set(place.candidates))
        if len(there) == 1:
            out[k] = replace(mention, candidates=there)
    return out


def _without_implied(literals: Sequence[Literal], rules: RuleSet) -> list[Literal]:
    """Without ``not (inside bottle pantry)`` when the goal puts the bottle elsewhere under a rule that allows it
    one place."""
    placed = {(rule.name, key) for lit in literals if not lit.negated and not lit.quantified
              for rule in rules.for_predicate(lit.predicate) if rule.max == 1
              for key in rule.keys_of(lit.predicate, lit.args)}
    return [lit for lit in literals if not (lit.negated and any(
        (rule.name, key) in placed for rule in rules.for_predicate(lit.predicate) if rule.max == 1
        for key in rule.keys_of(lit.predicate, lit.args)))]


def _asked_to_keep(literal: Stated, task: str, mentions: Sequence[Mention]) -> bool:
    """Whether a clause that asks to keep things as they are ("leave the bedside lamp on") names the literal's
    thing."""
    words = tokens(task)
    for start, end in meaning.clauses(words):
        if KEEP_WORDS & set(words[start:end]) and any(
                start <= m.start < end and literal.fact.args[0] in m.candidates for m in mentions):
            return True
    return False
