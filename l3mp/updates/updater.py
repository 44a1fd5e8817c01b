"""Natural-language updates of the world graph (the paper's Algorithm 3), checked for meaning.

retrieve the relevant subgraph -> ground the text's mentions to entities (no LLM) -> the LLM states what
holds after the event, in typed literals constrained to the grounded entities -> the program derives what
stops being true (the domain's rules: a new place supersedes the old one) -> with verification: settle
alike entities by the state or ask which one, check that the update changes what the text mentions and only
that, and (a model's answer) that the text explains every change it makes and it states every state the text
names (`l3mp.updates.gate`), verify against the domain and rules, re-prompt with the problems (bounded) -> apply
atomically, or report why not (or the question to ask) with the graph unchanged.

The update text is data, never instructions: it only ever reaches the graph as a verified delta, natural
language can never create or delete entities, and a delta larger than `max_delta_size` is refused.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from l3mp.domain.triplets import Fact
from l3mp.errors import DeltaRejected, LLMError
from l3mp.llm.asking import ask_json, retry_messages
from l3mp.llm.contract import KG_UPDATE
from l3mp.llm.types import LLM, Message, TokenLedger
from l3mp.retrieval.base import Retrieved, Retriever
from l3mp.retrieval.context import context_entities
from l3mp.retrieval.grounding import Grounder, Mention, tokens
from l3mp.updates import gate, meaning, prompt, reading
from l3mp.updates.meaning import Stated
from l3mp.world.delta import Delta
from l3mp.world.graph import WorldGraph
from l3mp.world.model import Observation, WorldModel
from l3mp.world.record import ChangeRecord

# The paper's six agent variants: retrieval mode x verification (with re-prompting) on/off.
VARIANTS: dict[str, tuple[str, bool]] = {
    "R-": ("full", False),
    "R-_V": ("full", True),
    "R+": ("entities", False),
    "R+_V": ("entities", True),
    "R^S": ("search", False),
    "R^S_V": ("search", True),
}

APPLIED = "applied"
NO_CHANGE = "no_change"
ASKED = "asked"
DECLINED = "declined"
OUTCOMES = (APPLIED, NO_CHANGE, ASKED, DECLINED)
READ_FROM_TEXT = "(read from the text without the LLM)"
"""The answer of attempt 0: a plain report read by `l3mp.updates.reading`."""
"""What became of an update: applied; understood, but nothing in the memory changes; not applied because
it is unclear which entity the text means (the result carries the question); not applied for another
reason (the result says why)."""


@dataclass(frozen=True)
class Attempt:
    """One LLM proposal and what the checks said about it."""

    number: int
    answer: str
    delta: dict[str, Any] | None
    """What the answer stated (``stated``: literals) and, once derived, the delta it means (``remove``, ``add``)."""
    problems: tuple[str, ...]
    prompt_tokens: int
    completion_tokens: int
    seconds: float


@dataclass(frozen=True)
class UpdateResult:
    """The outcome of one natural-language update."""

    text: str
    variant: str
    outcome: str
    record: ChangeRecord | None
    attempts: tuple[Attempt, ...]
    retrieved: Retrieved
    ledger: TokenLedger
    reason: str | None = None
    seconds: float = 0.0
    llm: str = ""
    question: str | None = None
    mentions: tuple[Mention, ...] = ()

    @property
    def accepted(self) -> bool:
        """Understood: applied, or nothing to change."""
        return self.outcome in (APPLIED, NO_CHANGE)

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "variant": self.variant,
            "llm": self.llm,
            "outcome": self.outcome,
            "accepted": self.accepted,
            "reason": self.reason,
            "question": self.question,
            "record": self.record.to_json() if self.record else None,
            "mentions": [{"words": m.words, "candidates": list(m.candidates)} for m in self.mentions],
            "attempts": [a.__dict__ for a in self.attempts],
            "retrieval": {"mode": self.retrieved.mode, "entities": len(self.retrieved.entities),
                          "facts": len(self.retrieved.facts)},
            "tokens": self.ledger.to_json(),
            "seconds": round(self.seconds, 3),
        }


@dataclass
class NLUpdater:
    """Applies natural-language updates to a world model through an LLM (Algorithm 3, see the module doc)."""

    world: WorldModel
    llm: LLM
    retriever: Retriever
    verify: bool = True
    max_attempts: int = 3
    max_delta_size: int = 24
    variant: str = field(default="")
    grounder: Grounder | None = None
    gate: bool = True
    """With verification: a model's answer is applied only when the text explains every change it makes and it
    states every state the text names (`l3mp.updates.gate`); else it is asked again, then declined."""
    drop_unexplained: bool = True
    """With the gate: drop the changes the text does not explain when the rest passes every check."""
    gate_reading: bool = True
    """Also pass the plain reading through the gate (its words were read by the same lexicon)."""
    read_text: bool = True
    """With verification: read a plain report from its words without the LLM (`l3mp.updates.reading`); the
    model is asked only when the reading does not explain the whole text or its result fails a check."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if not self.variant:
            self.variant = _variant_name(self.retriever.mode, self.verify)
        if self.grounder is None:
            self.grounder = Grounder(self.world.domain, self.world.verifier.rules)

    def update(self, text: str, *, ref: str | None = None) -> UpdateResult:
        """Turn `text` into a checked delta and apply it; never raises for LLM or delta problems."""
        run = _Run(self, text, ref)
        return run.go()


class _Run:
    """One update: its context, its attempts and its result."""

    def __init__(self, updater: NLUpdater, text: str, ref: str | None) -> None:
        self.u = updater
        self.text = text
        self.report = text
        """The text that is read: without verification all of it; with it, what `meaning.report_part` keeps."""
        self.set_aside: tuple[str, ...] = ()
        self.respelt: tuple[tuple[str, str], ...] = ()
        """Misspelt words read as words of the home (`l3mp.retrieval.spelling`), with verification."""
        self.mended: list[str] = []
        self.unknown: tuple[str, ...] = ()
        """Things the plain reading left out because the memory has none of them (`reading.Reading.unknown`)."""
        self.ref = ref
        self.started = time.perf_counter()
        self.ledger = TokenLedger()
        self.graph: WorldGraph = updater.world.graph
        self.retrieved = Retrieved(updater.retriever.mode, frozenset(), frozenset())
        self.mentions: tuple[Mention, ...] = ()
        self.attempts: list[Attempt] = []
        self.unsure = False
        """The last answer failed the gate (`l3mp.updates.gate`): the text does not explain it."""
        self.parts: list[tuple[str, list[Stated]]] = []
        """What the clauses that read plainly on their own state (`reading.read_parts`), when the whole text does
        not: the model's answer is made to agree with them."""

    def go(self) -> UpdateResult:
        u = self.u
        if u.verify:
            assert u.grounder is not None
            respelt, self.respelt = u.grounder.respell(self.text, self.graph)
            self.report, self.set_aside = meaning.report_part(respelt)
            if not self.report:
                return self.result(DECLINED, "this speaks to the robot's memory instead of reporting a change; "
                                             "nothing recorded")
            if meaning.is_question(self.report):
                return self.result(DECLINED, "this is a question, not a report of a change; nothing recorded")
            asked = [s for s in self.set_aside if meaning.is_question(s)]
            if asked and meaning.unsure_after_asking(self.report):
                return self.result(DECLINED, "this asks, and what it tells is only a guess; nothing recorded (say "
                                             "what is so, and it will be)")
            if asked and self.report:  # "why is the pendant light always on?? I've switched it off anyway"
                said = meaning.it_asked_about(self.report, asked[-1], u.grounder.ground(asked[-1], self.graph),
                                              self.graph, u.world.domain)
                self.report = said or self.report
            self.report = meaning.eaten_from(meaning.contracted(self.report))
            if u.read_text:
                early = self.read_first()
                if early is not None:
                    return early
        try:
            self.retrieved = u.retriever.retrieve(self.report, self.graph, ledger=self.ledger)
        except LLMError as exc:
            return self.result(DECLINED, f"retrieval failed: {exc}")
        assert u.grounder is not None
        self.mentions = u.grounder.ground(self.report, self.graph, context_entities(self.graph, self.retrieved))
        if u.verify and u.read_text:
            self.plainer()
        allowed = meaning.allowed_entities(self.mentions, self.graph, self.report)
        if u.verify and allowed and meaning.only_new_things(self.report, self.mentions, self.graph, u.world.domain,
                                                            u.grounder.lexicon.covered):
            return self.result(DECLINED, "the text tells of a new thing the memory does not have (language cannot "
                                         "add things; perception can) and of nothing else that changed; nothing "
                                         "recorded")
        if u.verify and meaning.about_the_robot(self.mentions, self.graph, u.world.domain):
            return self.result(DECLINED, "the text reports what the robot itself holds or does; that comes from its "
                                         "own sensors and actions, not from reports; nothing recorded")
        if u.verify and not allowed:
            return self.result(DECLINED, "nothing in the robot's memory matches what the text talks about (language "
                                         "cannot add new things; perception can); nothing recorded")
        if u.verify and u.read_text:
            assert u.grounder is not None
            read = reading.read(self.report, self.mentions, self.graph, u.world.domain, u.world.verifier.rules,
                                u.grounder.lexicon)
            if read is None:
                self.parts = reading.read_parts(self.report, self.mentions, self.graph, u.world.domain,
                                                u.world.verifier.rules, u.grounder.lexicon)
            self.unknown = read.unknown if read is not None else ()
            if read is not None and not read.stated:
                self.note(0, READ_FROM_TEXT, [], Delta(), (), (0, 0, time.perf_counter()))
                return self.result(NO_CHANGE, "nothing to record: the text says where things already are")
            if read is not None:
                step = self.judge(0, READ_FROM_TEXT, read.stated, (0, 0, time.perf_counter()),
                                  allowed | read.implied, settled=read.settled)
                if step is not None:
                    return step
                self.mended, self.unknown = [], ()  # the model reads the text afresh
        messages = prompt.messages(u.world.domain, self.graph, self.retrieved, allowed, self.report)
        schema = prompt.schema(u.world.domain, self.graph, allowed)
        limit = u.max_attempts if u.verify else 1
        for number in range(1, limit + 1):
            step = self.attempt(number, messages, schema, allowed)
            if step is not None:
                return step
            last = self.attempts[-1]
            if last.problems and last.problems[0].startswith("LLM "):
                return self.result(DECLINED, last.problems[0])
            if number > 1 and last.answer == self.attempts[-2].answer:
                break  # the same answer after being told its problems: another try would repeat it
            messages = retry_messages(messages, last.answer, last.problems, what="Your update",
                                      again="Answer again with the complete corrected update.")
        if self.unsure:
            return self.result(DECLINED, "unsure what the text changed, so nothing was recorded: "
                               + "; ".join(self.attempts[-1].problems) + ". Please say it again more plainly: "
                               "the thing, and where it is now or what state it is in")
        return self.result(DECLINED, f"no valid update after {len(self.attempts)} attempt(s): "
                                     + "; ".join(self.attempts[-1].problems))

    @property
    def placing_verbs(self) -> frozenset[str]:
        """The lexicon's verbs of moving, taking and giving (none without a grounder)."""
        lex = self.u.grounder.lexicon if self.u.grounder else None
        return lex.moves | lex.takes | lex.gives if lex else frozenset()

    def read_first(self) -> UpdateResult | None:
        """The result of reading the text plainly over the whole graph, before any retrieval: a retrieval that
        would ask the model (a word of the text that names nothing of the home, as in "..., he's going to sleep")
        is not needed when the text reads plainly. None (and nothing kept of the try) when it does not read so, or
        its reading is not settled without the model: the usual way then runs."""
        u = self.u
        assert u.grounder is not None
        report = self.report
        self.mentions = u.grounder.ground(report, self.graph)
        self.mentions = reading.not_those(tokens(report), self.mentions, reading.asides(
            report, self.mentions, u.grounder.lexicon, self.graph, u.world.domain), self.graph,
            u.world.verifier.rules)  # ("- not the black one -", "- not the one on his bookshelf -")
        self.plainer(context=False)
        allowed = meaning.allowed_entities(self.mentions, self.graph, self.report)
        read = None
        if allowed and not meaning.only_new_things(self.report, self.mentions, self.graph, u.world.domain,
                                                   u.grounder.lexicon.covered) and not meaning.about_the_robot(
                self.mentions, self.graph, u.world.domain):
            read = reading.read(self.report, self.mentions, self.graph, u.world.domain, u.world.verifier.rules,
                                u.grounder.lexicon)
        if read is not None:
            self.unknown = read.unknown
            named = frozenset(n for m in self.mentions for n in m.candidates)
            self.retrieved = Retrieved(u.retriever.mode, named, frozenset(),
                                       {"query_source": "read", "selected": sorted(named)})
            if not read.stated:
                self.note(0, READ_FROM_TEXT, [], Delta(), (), (0, 0, time.perf_counter()))
                return self.result(NO_CHANGE, "nothing to record: the text says where things already are")
            step = self.judge(0, READ_FROM_TEXT, read.stated, (0, 0, time.perf_counter()), allowed | read.implied,
                              settled=read.settled)
            if step is not None:
                return step
        self.report, self.mentions, self.attempts, self.mended, self.unknown = report, (), [], [], ()
        self.retrieved = Retrieved(u.retriever.mode, frozenset(), frozenset())
        self.unsure = False
        return None

    def plainer(self, *, context: bool = True) -> None:
        """Read the report in plainer words (`meaning.plain_report`: "the cupboard that was open" -> "the open
        cupboard") when they read plainly as a whole; else the model gets the words as they were said. The words
        are grounded over the retrieved context, or (`context` False) over the whole graph."""
        u = self.u
        plain = meaning.plain_report(self.report)
        if plain == self.report:
            return
        assert u.grounder is not None
        mentions = u.grounder.ground(plain, self.graph, context_entities(self.graph, self.retrieved)
                                     if context else None)
        if reading.read(plain, mentions, self.graph, u.world.domain, u.world.verifier.rules,
                        u.grounder.lexicon) is not None:
            self.report, self.mentions = plain, mentions

    def attempt(self, number: int, messages: list[Message], schema: dict, allowed: set[str]) -> UpdateResult | None:
        """One proposal: None to try again (the attempt is recorded with its problems), else the result."""
        u = self.u
        before = (self.ledger.prompt_tokens, self.ledger.completion_tokens, time.perf_counter())
        answer = ask_json(u.llm, messages, schema=schema, schema_name=KG_UPDATE, purpose="update",
                          ledger=self.ledger)
        if answer.problem:
            self.note(number, answer.text, [], None, [answer.problem], before)
            return None
        stated, problems = _parse(answer.data, self.graph, u.world.domain)
        if problems:
            self.note(number, answer.text, [], None, problems, before)
            return None
        stated = self.with_parts(stated)
        if not stated:
            self.note(number, answer.text, [], Delta(), (), before)
            if number > 1:
                return self.result(DECLINED, "the LLM withdrew its update after the checks' errors (answered that "
                                             "nothing changes); nothing recorded. Last problems: "
                                   + "; ".join(self.attempts[-2].problems))
            return self.result(NO_CHANGE, "nothing to record: the text reports no change to the memory")
        return self.judge(number, answer.text, stated, before, allowed)

    def with_parts(self, stated: list[Stated]) -> list[Stated]:
        """The model's literals with what the clauses read plainly state (`self.parts`) and the model left out: a
        fact it says nothing of, about a thing it gives no new place ("Michael came to kitchen 1 and Jessica handed
        him her phone": Michael's move too). Where the model says otherwise, its answer stands for the checks."""
        rules = self.u.world.verifier.rules
        for words, literals in self.parts:
            for literal in literals:
                placed = gate.placed(literal.fact, rules) if literal.true else None
                if any(s.fact == literal.fact or (placed and s.true and (gate.placed(s.fact, rules) or ("",))[0]
                                                  == placed[0]) for s in stated):
                    continue
                stated = [*stated, literal]
                note = f"added {literal}: read from the words \"{words}\""
                self.mended += [] if note in self.mended else [note]
        return stated

    def note(self, number: int, answer: str, stated: list[Stated], delta: Delta | None,
             problems: list[str] | tuple[str, ...], before: tuple[int, int, float]) -> None:
        """Record one attempt: what it stated, the delta it meant and the problems found."""
        shown = {"stated": [str(s) for s in stated], **(delta.to_json() if delta is not None else {})}
        tokens = (0, 0) if number == 0 else (self.ledger.prompt_tokens - before[0],
                                              self.ledger.completion_tokens - before[1])
        self.attempts.append(Attempt(number, answer, shown if stated or delta is not None else None, tuple(problems),
                                     *tokens, round(time.perf_counter() - before[2], 3)))

    def judge(self, number: int, answer: str, stated: list[Stated], before: tuple[int, int, float],
              allowed: set[str], *, settled: frozenset[str] = frozenset()) -> UpdateResult | None:
        """Mend, settle, check and apply stated literals (the model's answer, or attempt 0: the text read
        without the model); None to try (again) with the model."""
        u = self.u

        def record(delta: Delta | None, problems: list[str] | tuple[str, ...]) -> None:
            self.note(number, answer, stated, delta, problems, before)

        question = None
        self.unsure = False
        if u.verify and number > 0:
            both = meaning.contradictions(stated)
            if both:  # "picked it up" answered as has and not has: the model is unsure; it is asked again
                self.unsure = True
                record(None, both)
                return None
        if u.verify:
            assert u.grounder is not None
            stated, mended = meaning.repair(stated, self.mentions, self.report, u.grounder.lexicon,
                                            u.world.verifier.rules, self.graph, u.world.domain)
            self.mended += mended
            stated, question = meaning.resolve(stated, self.mentions, self.graph, u.world.domain,
                                               u.world.verifier.rules, settled, back=meaning.says_back(self.report),
                                               left=meaning.rooms_left(tokens(self.report), self.mentions, self.graph,
                                                                       u.world.domain))
            question = question or meaning.several_for_one(stated, self.mentions, self.graph,
                                                              tokens(self.report))
        if question:
            record(None, [question])
            return self.result(ASKED, "the text fits more than one thing in memory; nothing recorded",
                               question=question)
        delta, problems = self.derive(stated)
        if delta is not None and u.verify and not problems:
            problems = meaning.problems(delta, stated, self.told(), allowed, self.graph, u.world.domain,
                                        u.grounder.lexicon.covered if u.grounder else frozenset(), self.report,
                                        u.world.verifier.rules, self.placing_verbs)
            if not problems and (number > 0 or u.gate_reading) and u.gate:
                stated, delta, problems = self.gated(stated, delta, allowed)
                self.unsure = bool(problems)
            if not problems and not delta.is_empty():
                problems = [v.message for v in u.world.verify(delta, source="nl").violations]
        if problems or delta is None:
            record(delta, problems)
            return None
        if delta.is_empty():
            record(delta, ())
            said = ", ".join(map(str, stated)) or "no change"
            return self.result(NO_CHANGE, f"nothing to record: the memory already has this ({said})")
        try:
            applied = u.world.apply(delta, source="nl", input=self.text, ref=self.ref)
        except DeltaRejected as exc:
            record(delta, [v.message for v in exc.violations])
            return None
        record(delta, ())
        return self.result(APPLIED, None, record=applied)

    def told(self) -> list[Mention]:
        """The mentions an answer must say something of (`meaning.problems`): not those of a part that tells nothing
        the memory keeps (`reading.asides`: "bought some milk and put it in the fridge", "..., the dishwasher never
        got run": the fridge and the dishwasher need not change)."""
        if self.u.grounder is None:
            return list(self.mentions)
        aside = reading.asides(self.report, self.mentions, self.u.grounder.lexicon, self.graph, self.u.world.domain)
        return [m for m in self.mentions if m.start not in aside]

    def gated(self, stated: list[Stated], delta: Delta, allowed: set[str]) -> tuple[list[Stated], Delta, list[str]]:
        """The gate (`l3mp.updates.gate`): the literals, their delta and the problems left. Changes no words of the
        text explain are dropped (a mend, noted) when what is left passes every check again and still states all the
        text says; otherwise they are the problems."""
        u = self.u
        assert u.grounder is not None
        args = (self.mentions, self.report, u.grounder.lexicon, u.world.verifier.rules, self.graph, u.world.domain)
        if u.drop_unexplained:  # "Sarah answered the smartphone": she has it, whatever the model said about that
            for settles, why in ((gate.taken, "who takes or answers a thing has it"),
                                 (gate.gone, "the text says they went there")):
                for literal in settles(stated, *args):
                    stated = [s for s in stated if s.fact != literal.fact] + [literal]
                    self.mended.append(f"added {literal}: {why}")
            fewer, again = self.derive(stated)
            if fewer is None or again:
                return stated, delta, again
            delta = fewer
        odd = gate.unexplained(stated, *args)
        problems = [why for _, why in odd] + gate.uncovered(stated, *args)
        if not odd or not u.drop_unexplained:
            return stated, delta, problems
        kept = [s for s in stated if s not in {literal for literal, _ in odd}]
        fewer, again = self.derive(kept)
        if fewer is not None and not again:
            again = meaning.problems(fewer, kept, self.told(), allowed, self.graph, u.world.domain,
                                     u.grounder.lexicon.covered, self.report, u.world.verifier.rules,
                                     self.placing_verbs) or gate.check(
                kept, *args)
        if fewer is None or again or fewer.is_empty():  # nothing left: the model is asked again
            return stated, delta, problems
        self.mended += [f"dropped {literal}: {why}" for literal, why in odd]
        return kept, fewer, []

    def derive(self, stated: list[Stated]) -> tuple[Delta | None, list[str]]:
        """The delta the literals mean against the memory: a fact that now holds supersedes the one a rule allows
        only one of (the item's old place, the person's old room); facts already so are no change."""
        try:
            delta = self.u.world.perception_delta(Observation(tuple((s.fact, s.true) for s in stated)))
        except DeltaRejected as exc:
            return None, [v.message for v in exc.violations]
        if delta.size() > self.u.max_delta_size:
            return None, [f"refused: the update changes {delta.size()} facts; at most {self.u.max_delta_size} may "
                          "change per update. Describe only what the event changed."]
        return delta, []

    def result(self, outcome: str, reason: str | None, *, record: ChangeRecord | None = None,
               question: str | None = None) -> UpdateResult:
        if self.mended and outcome in (APPLIED, NO_CHANGE):
            reason = ((reason + "; ") if reason else "") + "mended from the text: " + "; ".join(self.mended)
        if self.respelt:
            reason = ((reason + "; ") if reason else "") + "read " + ", ".join(
                f"{word!r} as {read!r}" for word, read in self.respelt)
        if self.unknown and outcome in (APPLIED, NO_CHANGE):
            reason = ((reason + "; ") if reason else "") + "nothing recorded of " + ", ".join(
                f'"{said}"' for said in self.unknown) + ": the memory has no such thing (language cannot add things; " \
                "perception can)"
        if self.set_aside and outcome != DECLINED:
            reason = ((reason + "; ") if reason else "") + "set aside as instructions, not reports: " + " | ".join(
                self.set_aside)
        return UpdateResult(self.text, self.u.variant, outcome, record, tuple(self.attempts), self.retrieved,
                            self.ledger, reason, time.perf_counter() - self.started, self.u.llm.name, question,
                            self.mentions)


def _parse(data: Any, graph: WorldGraph, domain: Any) -> tuple[list[Stated], list[str]]:
    """``{"changes": [{"predicate", "args", "true"}]}`` -> literals, or the problems that stop it."""
    items = data.get("changes") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return [], ['answer with a JSON object {"changes": [...]}']
    out: list[Stated] = []
    problems: list[str] = []
    for index, item in enumerate(items, 1):
        if not isinstance(item, dict) or not isinstance(item.get("args"), list) or not isinstance(
                item.get("true"), bool):
            problems.append(f'change {index}: write it as {{"predicate": ..., "args": [...], "true": true|false}}')
            continue
        name = item.get("predicate")
        predicate = domain.predicate(name) if isinstance(name, str) else None
        if predicate is None:
            known = ", ".join(sorted(domain.predicates))
            problems.append(f"change {index}: no predicate {name!r}; use one of: {known}")
            continue
        args = item["args"]
        if len(args) != predicate.arity:
            problems.append(f"change {index}: {name} takes {predicate.arity} argument(s): {name}"
                            f"({', '.join(predicate.types)})")
            continue
        unknown = [a for a in args if not isinstance(a, str) or not graph.has_entity(a)]
        if unknown:
            problems.append(f"change {index}: unknown entity {', '.join(repr(a) for a in unknown)}: language cannot "
                            "add things to the memory; use listed things")
            continue
        bad = [a for a, t in zip(args, predicate.types, strict=True) if not domain.is_subtype(graph.entity_type(a), t)]
        if bad:
            problems.append(f"change {index}: {', '.join(map(str, bad))} cannot stand in {name}"
                            f"({', '.join(predicate.types)}); use listed things of those types")
            continue
        stated = Stated(Fact(name, tuple(args)), item["true"])
        if stated not in out:
            out.append(stated)
    return out, problems


def _variant_name(mode: str, verify: bool) -> str:
    for name, (m, v) in VARIANTS.items():
        if m == mode and v == verify:
            return name
    return f"{mode}{'_V' if verify else ''}"
