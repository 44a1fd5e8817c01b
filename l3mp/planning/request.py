"""Goals read from plain requests without the LLM, and what a request comes to before any plan: a goal, a question
back ("which phone?"), nothing to do, or that this home cannot do it (`l3mp.planning.impossible`).

The request's mentions are grounded over the whole graph, the plain reading of `l3mp.updates.reading` (request
mode: "me" is the speaker, "all the lights in the kitchen" names each) gives the literals that must hold, and
alike things are told apart by what is not so yet (only the lamp that is on can be switched off); when several
still fit, the answer is the question to ask. A request whose literals all hold already is satisfied. A request the
reading does not explain goes to the LLM (`l3mp.planning.goal`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.planning.impossible import why_impossible
from l3mp.retrieval.grounding import Grounder, Mention
from l3mp.updates import meaning
from l3mp.updates.reading import read
from l3mp.world.graph import WorldGraph

GOAL, ASKED, SATISFIED, IMPOSSIBLE = "goal", "asked", "satisfied", "impossible"


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
    literals = sorted({str(s.fact) if s.true else f"(not {s.fact})" for s in stated})
    goal = literals[0] if len(literals) == 1 else f"(and {' '.join(literals)})"
    if not any(s.is_change(graph) for s in stated):
        return RequestReading(SATISFIED, goal)
    return RequestReading(GOAL, goal)
