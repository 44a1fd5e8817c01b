"""An answer to a question about the home, with the facts and change records it rests on (the answer JSON)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from l3mp.domain.triplets import fact_to_triplet
from l3mp.llm.types import TokenLedger
from l3mp.world.history import FactStory
from l3mp.world.record import ChangeRecord

ANSWER_FORMAT = "l3mp.answer/1"
ANSWERED = "answered"
DECLINED = "declined"
"""An answer's status: answered from the memory, or declined because the memory cannot answer (the text then says
what is known last)."""


@dataclass(frozen=True)
class Step:
    """One operation the pipeline ran (symbolic or chosen by the LLM) and what it saw, in one line."""

    op: str
    args: tuple[str, ...]
    saw: str
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, "args": list(self.args), "saw": self.saw}
        if self.prompt_tokens or self.completion_tokens:
            out["tokens"] = {"prompt": self.prompt_tokens, "completion": self.completion_tokens}
        return out


@dataclass(frozen=True)
class Answer:
    """What the robot answers: a status, a sentence for people, the value the sentence states (entities, a count,
    yes or no, a time), and the evidence: facts with the record that made each true, and the records of the
    history it read. `at` is the time the graph was taken at when the question names one (None: now)."""

    question: str
    status: str
    kind: str
    text: str
    entities: tuple[str, ...] = ()
    count: int | None = None
    yes: bool | None = None
    time: float | None = None
    facts: tuple[FactStory, ...] = ()
    records: tuple[ChangeRecord, ...] = ()
    at: float | None = None
    steps: tuple[Step, ...] = ()
    via: str = "symbolic"
    llm: str = ""
    ledger: TokenLedger = field(default_factory=TokenLedger)
    seconds: float = 0.0

    @property
    def answered(self) -> bool:
        return self.status == ANSWERED

    def cited_records(self) -> list[int]:
        """Numbers of every record the answer rests on (of its facts and its history), ascending."""
        seqs = {s.seq for s in self.facts if s.seq} | {r.seq for r in self.records}
        return sorted(seqs)

    def to_json(self) -> dict[str, Any]:
        """The answer JSON (docs/questions.md, "Answer JSON")."""
        return {
            "format": ANSWER_FORMAT,
            "question": self.question,
            "status": self.status,
            "kind": self.kind,
            "text": self.text,
            "entities": list(self.entities),
            "count": self.count,
            "yes": self.yes,
            "time": self.time,
            "at": self.at,
            "facts": [story_json(s) for s in self.facts],
            "records": [record_json(r) for r in self.records],
            "steps": [s.to_json() for s in self.steps],
            "via": self.via,
            "llm": self.llm,
            "tokens": self.ledger.to_json(),
            "seconds": round(self.seconds, 3),
        }


def story_json(story: FactStory) -> dict[str, Any]:
    """A fact with the record that made it true (``record`` null when it has none)."""
    record = None if not story.seq else {"seq": story.seq, "time": story.time, "source": story.source,
                                         "input": story.input, "ref": story.ref}
    return {"fact": list(fact_to_triplet(story.fact)), "record": record}


def record_json(record: ChangeRecord) -> dict[str, Any]:
    """A cited change record: number, time, source, the sentence or action that caused it, and what it changed."""
    return {"seq": record.seq, "time": record.time, "source": record.source, "input": record.input,
            "ref": record.ref, "delta": record.delta.to_json()}
