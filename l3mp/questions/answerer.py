"""Questions about the home, answered from the graph and its history: the entry point of the question pipeline.

read the question (its form, the time it names, its mentions grounded without an LLM) -> a question about a time
works on the memory as it was then -> the common forms are answered symbolically -> any other question goes to the
bounded observe -> act -> reflect loop of the LLM (when one is given) -> an `Answer` that names the facts and
change records it rests on, or declines and says what is known last. The question is data: it never changes the
memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.errors import FormatError
from l3mp.llm.types import LLM, TokenLedger
from l3mp.questions.answer import DECLINED, Answer
from l3mp.questions.clock import clock_words, moment_in
from l3mp.questions.forms import Question, normalise, read
from l3mp.questions.loop import Caps, Loop
from l3mp.questions.memory import Memory
from l3mp.questions.symbolic import Symbolic
from l3mp.retrieval.grounding import Grounder
from l3mp.world.graph import WorldGraph
from l3mp.world.history import History
from l3mp.world.model import WorldModel

MAX_QUESTION_CHARS = 500
"""The longest question read (a longer text is not a question to the robot)."""


class QuestionAnswerer:
    """Answers questions about a world model or a graph (see the module docstring). Thread-safe if the LLM is."""

    def __init__(self, domain: Domain, rules: RuleSet | None = None, *, llm: LLM | None = None,
                 make_llm: Callable[[], LLM] | None = None, caps: Caps | None = None,
                 clock: Callable[[], float] = time.time, symbolic: bool = True) -> None:
        """`llm` answers the questions the symbolic forms do not; or `make_llm` makes it when the first such question
        comes (the embedded server is not started for questions that need no LLM). Without either, such questions
        are declined. `symbolic` False sends every question to the LLM loop (to measure the loop alone)."""
        self._domain = domain
        self._rules = rules if rules is not None else RuleSet.for_domain(domain)
        self._grounder = Grounder(domain, self._rules)
        self._symbolic = Symbolic(self._grounder)
        self._fast = symbolic
        self._llm = llm
        self._make_llm = make_llm
        self._caps = caps or Caps()
        self._clock = clock

    @property
    def llm(self) -> LLM | None:
        """The LLM of the loop, once there is one (the caller closes one that `make_llm` made)."""
        return self._llm

    def _loop(self) -> Loop | None:
        if self._llm is None and self._make_llm is not None:
            self._llm = self._make_llm()
        return Loop(self._llm, self._caps) if self._llm is not None else None

    def ask_world(self, world: WorldModel, question: str, *, now: float | None = None) -> Answer:
        """Answer from a world model's live graph and, when it has a store, its history."""
        history = world.history if world.store is not None else None
        return self.ask(question, world.graph, history, now=now)

    def ask(self, question: str, graph: WorldGraph, history: History | None = None, *,
            now: float | None = None) -> Answer:
        """Answer `question` from `graph` and `history` (None: a graph without records, so no past)."""
        if not isinstance(question, str) or not question.strip():
            raise FormatError("a question must be a non-empty string")
        if len(question) > MAX_QUESTION_CHARS:
            raise FormatError(f"a question has at most {MAX_QUESTION_CHARS} characters, not {len(question)}")
        started = time.perf_counter()
        now = self._clock() if now is None else now
        memory = Memory(graph, self._domain, self._rules, history)
        answer = self._past(question, memory, now)
        if answer is None:
            memory = self._memory_then(question, memory, now)
            asked = read(question, memory, self._grounder, now)
            answer = self._symbolic.answer(asked, memory, now) if self._fast else None
            loop = self._loop() if answer is None else None
            if loop is not None:
                answer = loop.run(asked, memory, now, lambda text: self._reread(text, memory, now))
            if answer is None:
                answer = Answer(question, DECLINED, asked.kind, "I cannot answer this kind of question without the "
                                "LLM; ask where something is, who has or did something, how many, yes or no, or since "
                                "when.", at=memory.time)
        ledger = answer.ledger if answer.ledger.calls else TokenLedger()
        return replace(answer, seconds=time.perf_counter() - started, ledger=ledger,
                       llm=answer.llm or (getattr(self._llm, "name", "") if answer.via == "llm" else ""))

    def _past(self, question: str, memory: Memory, now: float) -> Answer | None:
        """Declined when the question names a time the memory cannot look at; else None."""
        try:
            moment = moment_in(normalise(question), now)
        except ValueError as exc:
            return Answer(question, DECLINED, "open", f"I cannot read the time: {exc}.")
        if moment is None:
            return None
        first = memory.first_record
        if memory.history is None or first is None:
            return Answer(question, DECLINED, "open", "I keep no history of this memory, so I cannot say how it was "
                          f"at {clock_words(moment.time, now)}.", at=moment.time)
        if moment.time < first.time:
            return Answer(question, DECLINED, "open", f"My memory begins at {clock_words(first.time, now)} "
                          f"(record #{first.seq}); I know nothing of {clock_words(moment.time, now)}.",
                          at=moment.time)
        return None

    def _reread(self, text: str, memory: Memory, now: float) -> tuple[Question, Answer | None]:
        """A rephrasing of the question (by the LLM) read and answered by the symbolic forms."""
        asked = read(text, memory, self._grounder, now)
        return asked, self._symbolic.answer(asked, memory, now)

    @staticmethod
    def _memory_then(question: str, memory: Memory, now: float) -> Memory:
        moment = moment_in(normalise(question), now)
        return memory if moment is None else memory.at(moment.time)
