"""Spoken questions: the one place a routed question is answered (until the question pipeline can be called)."""

from __future__ import annotations

from dataclasses import dataclass

from l3mp.world.graph import WorldGraph

NOT_SUPPORTED = ("I cannot answer questions yet; ask me to do something (\"bring the mug to the kitchen\") "
                 "or tell me what changed (\"I left the keys on the table\").")


@dataclass(frozen=True)
class Reply:
    """The answer to a question, and whether questions are answered at all."""

    question: str
    answer: str
    supported: bool

    def to_json(self) -> dict:
        return {"question": self.question, "answer": self.answer, "supported": self.supported}


def answer_question(question: str, graph: WorldGraph) -> Reply:
    """The reply to a spoken question about the world in `graph`. Questions are not supported yet: the reply says
    so. This is the one function to point at the question pipeline once it exists."""
    return Reply(question, NOT_SUPPORTED, supported=False)
