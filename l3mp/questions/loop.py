"""The LLM's observe -> act -> reflect loop for questions the symbolic forms do not answer.

The program runs the loop; the LLM only picks the next operation (or the answer) through a typed JSON schema whose
entity names are enums of the memory's entities (`prompt.schema`). Observe: the program runs the operation on the
memory and adds what it saw to the prompt. Act: the LLM's next step. Reflect: before an answer is accepted the
program checks it against what was observed (named entities seen, the record cited read, a count equal to what a
selection found); a failed check goes back to the LLM as an observation. The loop stops at `Caps.max_steps`
steps or once `Caps.max_tokens` tokens are spent, and then declines with what it saw last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from l3mp.domain.triplets import Fact
from l3mp.llm.asking import ask_json
from l3mp.llm.types import LLM, TokenLedger
from l3mp.questions import prompt
from l3mp.questions.answer import ANSWERED, DECLINED, Answer, Step
from l3mp.questions.clock import clock_words
from l3mp.questions.forms import Question
from l3mp.questions.memory import Memory, Selection
from l3mp.questions.wording import because, listing
from l3mp.world.history import FactStory
from l3mp.world.record import ChangeRecord

Reread = Callable[[str], "tuple[Question, Answer | None]"]
"""Reads a rephrased question and answers it with the symbolic forms (None: not one of them)."""
PURPOSE = "question"
"""The token ledger's purpose of the loop's calls."""


@dataclass(frozen=True)
class Caps:
    """Bounds of one question's loop: LLM steps, tokens (prompt + completion, all steps), entities listed."""

    max_steps: int = 4
    max_tokens: int = 8000
    max_listed: int = 40

    def __post_init__(self) -> None:
        if self.max_steps < 1 or self.max_tokens < 1 or self.max_listed < 1:
            raise ValueError("question caps must be at least 1")


@dataclass
class _Seen:
    """What the loop has observed: observation lines, the facts and records read, the last selection."""

    lines: list[str] = field(default_factory=list)
    facts: dict[Fact, FactStory] = field(default_factory=dict)
    records: dict[int, ChangeRecord] = field(default_factory=dict)
    """Records read with history_of (their changes were shown)."""
    stamps: dict[int, ChangeRecord] = field(default_factory=dict)
    """Records named as where a shown fact comes from (their number and time were shown)."""
    selected: list[str] | None = None

    def entities(self) -> set[str]:
        named = {a for f in self.facts for a in f.args} | set(self.selected or ())
        return named | {a for r in self.records.values() for f in (*r.delta.add, *r.delta.remove) for a in f.args}


class Loop:
    """Runs the loop of one question (see the module docstring)."""

    def __init__(self, llm: LLM, caps: Caps) -> None:
        self._llm = llm
        self._caps = caps

    def run(self, question: Question, memory: Memory, now: float, reread: Reread) -> Answer:
        """Answer `question` from `memory`; `reread` reads and answers a rephrasing of it with the symbolic forms."""
        seen = _Seen()
        ledger = TokenLedger()
        steps: list[Step] = []
        focus = [e for m in question.mentions for e in m.candidates][: self._caps.max_listed]
        for entity in focus:
            self._observe(memory, {"op": "facts_of", "entity": entity}, seen, now)
        answer = self._rephrase(question, reread, steps, ledger, seen)
        if answer is not None:
            return answer
        schema = prompt.schema(memory, self._caps.max_listed)
        for _ in range(self._caps.max_steps - 1):
            if ledger.total_tokens >= self._caps.max_tokens:
                break
            before = (ledger.prompt_tokens, ledger.completion_tokens)
            reply = ask_json(self._llm, prompt.messages(memory, question, focus, seen.lines), schema=schema,
                             schema_name=prompt.QUESTION_STEP, purpose=PURPOSE, ledger=ledger)
            spent = (ledger.prompt_tokens - before[0], ledger.completion_tokens - before[1])
            action = reply.data.get("action") if isinstance(reply.data, dict) else None
            if reply.fatal:
                steps.append(Step("llm", (), reply.problem, *spent))
                break
            if not isinstance(action, dict) or reply.problem or reply.off_schema:
                problem = reply.problem or reply.off_schema or "no action"
                seen.lines.append(f"Your last step could not be used ({problem[:200]}); answer with the JSON schema.")
                steps.append(Step("llm", (), f"unusable step: {problem[:200]}", *spent))
                continue
            op = str(action.get("op", ""))
            if op.startswith("answer") or op == "decline":
                problem = _reflect(action, seen, _singular(question))
                steps.append(Step(op, _args(action), problem or "accepted", *spent))
                if problem is None:
                    return self._answer(question, memory, now, action, seen, steps, ledger)
                seen.lines.append(f"Check: {problem}")
                continue
            saw = self._observe(memory, action, seen, now)
            steps.append(Step(op, _args(action), saw, *spent))
        last = seen.lines[-1] if seen.lines else "nothing"
        return Answer(question.text, DECLINED, question.kind, f"I could not find the answer within "
                      f"{self._caps.max_steps} step(s) and {self._caps.max_tokens} tokens; what I saw last: {last}",
                      facts=tuple(seen.facts.values())[:12], records=tuple(seen.records.values())[-3:],
                      at=memory.time, steps=tuple(steps), via="llm", ledger=ledger)

    def _rephrase(self, question: Question, reread: Reread, steps: list[Step], ledger: TokenLedger,
                  seen: _Seen) -> Answer | None:
        """The first step: the LLM says the question again in a usual form, which the symbolic forms answer when it
        names only what the question names; else None (and why, as an observation)."""
        reply = ask_json(self._llm, prompt.rephrase_messages(question.text), schema=prompt.REPHRASE_SCHEMA,
                         schema_name=prompt.QUESTION_REPHRASE, purpose=PURPOSE, ledger=ledger)
        text = reply.data.get("question", "") if isinstance(reply.data, dict) else ""
        problem, answer = _rephrased(question, str(text), reread) if not reply.problem else (reply.problem, None)
        usage = ledger.calls[-1][1] if ledger.calls else None
        spent = (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)
        steps.append(Step("rephrase", (f"question={text}",), problem or f"answered as {answer.kind}",  # type: ignore[union-attr]
                          *spent))
        if answer is None:
            if text:
                seen.lines.append(f"Check: {problem}")
            return None
        return replace(answer, question=question.text, steps=(*steps, *answer.steps), via="llm", ledger=ledger)

    # ---- observe ---------------------------------------------------------------------------------
    def _observe(self, memory: Memory, action: dict[str, Any], seen: _Seen, now: float) -> str:
        """Run one operation on the memory; add what it saw to `seen` and return it in one line."""
        op = action.get("op")
        graph = memory.graph
        entity = str(action.get("entity", ""))
        if op in ("facts_of", "neighbours", "history_of") and not graph.has_entity(entity):
            line = f"{op} {entity}: no such entity"
        elif op == "facts_of":
            stories = memory.facts_of(entity)
            seen.facts.update((s.fact, s) for s in stories)
            seen.stamps.update((s.seq, r) for s in stories if (r := memory.record(s.seq)) is not None)
            line = f"facts of {entity}: " + ("; ".join(_fact_words(s, now) for s in stories) or "none")
        elif op == "neighbours":
            depth = int(action.get("depth", 1))
            near = sorted(memory.neighbours(entity, depth))
            facts = graph.facts_within({entity, *near})
            seen.facts.update((f, memory.story(f)) for f in facts if f.args)
            shown = near[: self._caps.max_listed]
            line = f"within {depth} of {entity}: " + ", ".join(f"{n} ({graph.entity_type(n)})" for n in shown)
        elif op == "path":
            start, goal = str(action.get("from", "")), str(action.get("to", ""))
            chain = memory.path(start, goal)
            seen.facts.update((f, memory.story(f)) for f in chain or ())
            line = f"path {start} -> {goal}: " + ("no chain of facts joins them" if chain is None else
                                                   "; ".join(" ".join((f.predicate, *f.args)) for f in chain))
        elif op == "history_of":
            records = memory.history_of(entity)[-6:]
            seen.records.update((r.seq, r) for r in records)
            line = f"history of {entity}: " + (" | ".join(_record_words(r, now) for r in records) or "no record")
        elif op == "select":
            selection = Selection(action.get("type") or None, action.get("state") or None, True,
                                  action.get("place") or None)
            found = memory.select(selection)
            seen.selected = found
            seen.facts.update((f, memory.story(f)) for e in found for f in _selection_facts(memory, e, selection))
            line = f"select {_args(action)}: {len(found)}: " + ", ".join(found[: self._caps.max_listed])
        else:
            line = f"unknown operation {op!r}"
        seen.lines.append(line)
        return line

    # ---- the answer ------------------------------------------------------------------------------
    def _answer(self, question: Question, memory: Memory, now: float, action: dict[str, Any], seen: _Seen,
                steps: list[Step], ledger: TokenLedger) -> Answer:
        op = action["op"]
        common: dict[str, Any] = {"at": memory.time, "steps": tuple(steps), "via": "llm", "ledger": ledger}
        if op == "decline":
            last = seen.lines[-1] if seen.lines else "nothing"
            return Answer(question.text, DECLINED, question.kind, f"The memory does not say: {action.get('reason', '')}"
                          f" (what I saw last: {last})", facts=tuple(seen.facts.values())[:12], **common)
        if op == "answer_time":
            record = {**seen.stamps, **seen.records}[int(action["record"])]
            return Answer(question.text, ANSWERED, question.kind, f"At {clock_words(record.time, now)} "
                          f"({because(record, now)}).", time=record.time, records=(record,), **common)
        if op == "answer_yes_no":
            cited = tuple(seen.facts.values())[:12]
            return Answer(question.text, ANSWERED, question.kind, "Yes." if action["yes"] else "No.",
                          yes=bool(action["yes"]), facts=cited, **common)
        entities = tuple(dict.fromkeys(str(e) for e in action.get("entities", ())))
        cited = tuple(s for f, s in seen.facts.items() if set(f.args) & set(entities))[:24]
        if op == "answer_count":
            count = int(action["count"])
            return Answer(question.text, ANSWERED, question.kind, f"{count}.", count=count,
                          entities=tuple(seen.selected or ()), facts=cited, **common)
        return Answer(question.text, ANSWERED, question.kind, f"{listing(memory, entities).capitalize()}.",
                      entities=entities, facts=cited, **common)


def _rephrased(question: Question, text: str, reread: Reread) -> tuple[str | None, Answer | None]:
    """The symbolic answer to the LLM's rephrasing of the question, or why it cannot be used: the rephrasing must
    be one of the usual forms, keep the state words of the question and name only things the question names."""
    if not text.strip():
        return "the rephrased question is empty", None
    asked, answer = reread(text)
    if answer is None:
        return f"{text!r} is not one of the usual questions; use the operations", None
    dropped = question.said_states - asked.said_states
    if dropped:
        said = ", ".join(sorted(f"{p} {'true' if sign else 'false'}" for p, sign in dropped))
        return f"{text!r} leaves out what the question says: {said}", None
    named = {c for m in question.mentions for c in (*m.candidates, *m.alternatives, *m.broader)}
    extra = {c for m in asked.things() for c in m.candidates} - named
    if extra:
        return f"{text!r} asks about {', '.join(sorted(extra)[:5])}, which the question does not name", None
    return None, answer


def _singular(question: Question) -> set[str]:
    """The things the question names one by one (not "the lamps", "all the dishes")."""
    return {c for m in question.mentions if not m.plural for c in m.candidates}


def _reflect(action: dict[str, Any], seen: _Seen, asked: set[str]) -> str | None:
    """Why an answer cannot be accepted from what was observed (None: it can); `asked` are the things the question
    names one by one (an answer that only repeats them says nothing)."""
    op = action["op"]
    if op == "answer_entities" and action.get("entities") and set(action["entities"]) <= asked:
        return "your answer only repeats what the question names; answer with what the memory shows about it"
    if op == "answer_entities":
        unseen = [e for e in action.get("entities", ()) if e not in seen.entities()]
        if not action.get("entities"):
            return "an answer names at least one entity; if nothing fits, decline"
        if unseen:
            return f"your answer names {', '.join(unseen)}, which no observation showed; look at the memory first"
    if op == "answer_time" and int(action.get("record", 0)) not in {**seen.stamps, **seen.records}:
        return f"record #{action.get('record')} was not shown; use history_of first"
    if op == "answer_count" and seen.selected is not None and int(action.get("count", -1)) != len(seen.selected):
        return f"the last selection found {len(seen.selected)}, not {action.get('count')}"
    if op == "answer_count" and seen.selected is None:
        return "count after a select"
    return None


def _args(action: dict[str, Any]) -> tuple[str, ...]:
    return tuple(f"{k}={v}" for k, v in action.items() if k != "op")


def _fact_words(story: FactStory, now: float) -> str:
    atom = " ".join((story.fact.predicate, *story.fact.args))
    return atom + (f" (since #{story.seq} {clock_words(story.time, now)})" if story.time is not None else "")


def _record_words(record: ChangeRecord, now: float) -> str:
    changes = [f"-{' '.join((f.predicate, *f.args))}" for f in record.delta.remove]
    changes += [f"+{' '.join((f.predicate, *f.args))}" for f in record.delta.add]
    said = f' "{record.input[:100]}"' if record.input else ""
    return f"#{record.seq} {clock_words(record.time, now)} {record.source}{said}: {', '.join(changes[:6])}"


def _selection_facts(memory: Memory, entity: str, selection: Selection) -> Iterable[Fact]:
    if selection.state:
        yield Fact(selection.state, (entity,))
    if selection.place:
        yield from memory.room_chain(entity)
