"""The simulated LLM answering the question loop's calls (``question_rephrase``, ``question_step``) from an oracle,
with injected errors.

An evaluation instrument like `l3mp_sim.simulated_llm.SimulatedLLM` (which it extends: every other prompt kind is
answered there): it knows the gold answer of the current question (`QuestionOracle`) and plays the loop the way a
model that understood the question would: it says a question asked in an unusual phrasing again in the usual one
(`QuestionOracle.rephrase`; nothing for a question it cannot rephrase), then it looks at the memory until what it
must name is in its prompt (the named things, or what the loop observed), and answers. It reads only its prompt
and can only name what the schema's enums allow. Errors, drawn per step with the `ErrorModel` rates (seeded by the
whole prompt):

- ``wrong_entity``: one named entity becomes another entity of the schema;
- ``missed_fact``: one named entity is left out (a count one too low), or a rephrasing is not given;
- ``wrong_predicate``: yes becomes no, a count is one too high;
- ``malformed``: the reply is cut off mid-JSON.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from l3mp_sim.simulated_llm import ErrorModel, SimulatedLLM

from l3mp.domain.pddl_domain import Domain
from l3mp.errors import LLMError
from l3mp.llm.client import count_message_tokens, count_tokens
from l3mp.llm.jsonparse import parse_and_validate
from l3mp.llm.types import LLMReply, Message, TokenLedger, Usage
from l3mp.questions.prompt import QUESTION_REPHRASE, QUESTION_STEP

_SELECTED = re.compile(r"^select .*?: (\d+):", re.MULTILINE)


@dataclass(frozen=True)
class QuestionOracle:
    """The gold answer of a question: its kind (``entities``, ``count``, ``yes_no``, ``time``, ``decline``) and value;
    `anchor` the entity to look around first, `select` the selection (type, state, place) a count is made of; a
    question asked in an unusual phrasing is first rephrased (`rephrase`), unless that was refused."""

    kind: str
    entities: tuple[str, ...] = ()
    count: int | None = None
    yes: bool | None = None
    record: int | None = None
    anchor: str | None = None
    select: dict[str, str] = field(default_factory=dict)
    rephrase: str = ""
    """The question in a usual phrasing, when it was asked in another one (what a model that understood it says)."""


class SimulatedQuestionLLM(SimulatedLLM):
    """`SimulatedLLM` that also answers ``question_step`` prompts from a `QuestionOracle`."""

    def __init__(self, domain: Domain, errors: ErrorModel | None = None, *, seed: int = 0) -> None:
        super().__init__(domain, errors, seed=seed)
        self._question: QuestionOracle | None = None

    def set_question(self, oracle: QuestionOracle | None) -> None:
        """The gold answer of the next question's steps."""
        self._question = oracle

    def complete_json(self, messages: Sequence[Message], *, schema: dict, schema_name: str, purpose: str,
                      ledger: TokenLedger | None = None) -> LLMReply:
        if schema_name not in (QUESTION_STEP, QUESTION_REPHRASE):
            return super().complete_json(messages, schema=schema, schema_name=schema_name, purpose=purpose,
                                         ledger=ledger)
        if self._question is None:
            raise LLMError("the simulated LLM has no question oracle: call set_question() first")
        user = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
        tokens = count_message_tokens(messages)
        rng = random.Random(f"{self.seed}/{json.dumps(list(messages), sort_keys=True)}")
        if schema_name == QUESTION_REPHRASE:
            missed = self._question.rephrase and self._happens(rng, "missed_fact", tokens)
            text = json.dumps({"question": "" if missed else self._question.rephrase})
        else:
            text = json.dumps({"action": self._step(self._question, user, _names(schema), rng, tokens)})
        if self._happens(rng, "malformed", tokens):
            text = text[: max(1, len(text) // 2)]
        usage = Usage(tokens, count_tokens(text), estimated=True)
        if ledger is not None:
            ledger.add(purpose, usage)
        return LLMReply(parse_and_validate(text, schema), text, usage, self.name)

    def _step(self, gold: QuestionOracle, user: str, names: list[str], rng: random.Random, tokens: int
              ) -> dict[str, Any]:
        seen = user.split("Seen so far:", 1)[-1]
        anchor = gold.anchor if gold.anchor in names else None
        if gold.kind == "decline":
            return {"op": "decline", "reason": "the memory does not say"}
        if gold.kind == "yes_no":
            flip = self._happens(rng, "wrong_predicate", tokens)
            return {"op": "answer_yes_no", "yes": bool(gold.yes) != flip}
        if gold.kind == "count":
            found = _SELECTED.findall(seen)
            if not found:
                return {"op": "select", "type": gold.select.get("type", "item"), "state": gold.select.get("state", ""),
                        "place": gold.select.get("place", "")}
            count = int(found[-1]) + (1 if self._happens(rng, "wrong_predicate", tokens) else 0)
            return {"op": "answer_count", "count": max(0, count - (1 if self._happens(rng, "missed_fact", tokens)
                                                                   else 0))}
        if gold.kind == "time":
            if gold.record is not None and f"#{gold.record} " in seen:
                return {"op": "answer_time", "record": gold.record}
            return {"op": "history_of", "entity": anchor or names[0]}
        unseen = not all(re.search(rf"\b{re.escape(e)}\b", user) for e in gold.entities)
        if unseen and anchor and f"within 2 of {anchor}" not in seen:
            return {"op": "neighbours", "entity": anchor, "depth": 2}
        entities = list(gold.entities)
        if entities and self._happens(rng, "missed_fact", tokens) and len(entities) > 1:
            entities.pop(rng.randrange(len(entities)))
        if entities and self._happens(rng, "wrong_entity", tokens):
            entities[rng.randrange(len(entities))] = rng.choice(names)
        return {"op": "answer_entities", "entities": entities or [rng.choice(names)]}

    def _happens(self, rng: random.Random, kind: str, tokens: int) -> bool:
        if rng.random() < self.errors.rate(kind, tokens):
            self.injected[kind] += 1
            return True
        return False


def _names(schema: dict) -> list[str]:
    """The entity names the step schema allows (the enum of its facts_of variant)."""
    for variant in schema["properties"]["action"]["anyOf"]:
        props = variant["properties"]
        if props["op"]["enum"] == ["facts_of"]:
            return list(props["entity"]["enum"])
    return []
