"""Spoken questions: the one place a routed question is answered, by the question pipeline (`l3mp.questions`).

Speech answers without the LLM (the symbolic forms of `QuestionAnswerer`): a spoken reply should be quick, and a
question the forms cannot take is declined with what the robot can answer. Given the history, the answer cites the
change records; the speech node, which holds only the world model's replica graph, answers from the graph alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.questions import QuestionAnswerer
from l3mp.world.graph import WorldGraph
from l3mp.world.history import History


@dataclass(frozen=True)
class Reply:
    """The answer to a spoken question, and whether the robot could answer it."""

    question: str
    answer: str
    supported: bool

    def to_json(self) -> dict:
        return {"question": self.question, "answer": self.answer, "supported": self.supported}


def answer_question(question: str, graph: WorldGraph, domain: Domain, rules: RuleSet | None = None,
                    history: History | None = None) -> Reply:
    """The reply to a spoken question about the world in `graph` (and its `history`, when there is one)."""
    answer = QuestionAnswerer(domain, rules).ask(question, graph, history)
    return Reply(question, answer.text, supported=answer.answered)
