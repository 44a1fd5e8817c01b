"""Answering the common question forms from the graph and its history, without an LLM.

Each form runs a few `Memory` operations and states what they found with the facts and records it rests on. When
the memory cannot answer (an unknown thing, no record of the change asked about, a record that does not say who),
the answer is declined and says what is known last. A form whose parts it cannot find (no thing named) gives
None: the LLM loop takes the question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from l3mp.domain.triplets import Fact
from l3mp.questions.answer import ANSWERED, DECLINED, Answer, Step
from l3mp.questions.clock import clock_words
from l3mp.questions.forms import GENERIC_NOUNS, Question, asks_about_moving, state_words
from l3mp.questions.memory import Memory, Selection
from l3mp.questions.wording import because, listing, story_words, the, where_words
from l3mp.retrieval.grounding import Grounder
from l3mp.world.history import FactStory
from l3mp.world.record import ChangeRecord

_CLAUSES = re.compile(r"[;,.]|\b(?:and|then|but|also|while|after|before)\b")
_COUNT_VERBS = frozenset({"are", "is", "were", "was", "do", "does", "did", "have", "has", "can", "in", "on", "at"})
MAX_CITED = 24
"""Facts cited at most by one answer (a count over a whole house would cite them all)."""


@dataclass
class _Work:
    """The answer being made: the steps run and the evidence gathered."""

    question: Question
    memory: Memory
    now: float
    steps: list[Step] = field(default_factory=list)
    facts: list[FactStory] = field(default_factory=list)
    records: list[ChangeRecord] = field(default_factory=list)

    def step(self, op: str, args: Iterable[str], saw: str) -> None:
        self.steps.append(Step(op, tuple(args), saw))

    def cite(self, facts: Iterable[Fact]) -> None:
        known = {s.fact for s in self.facts}
        for fact in facts:
            if fact not in known and len(self.facts) < MAX_CITED and self.memory.graph.has_fact(fact):
                self.facts.append(self.memory.story(fact))
                known.add(fact)

    def finish(self, status: str, text: str, **value: object) -> Answer:
        q = self.question
        prefix = f"At {clock_words(self.memory.time, self.now)}: " if self.memory.time is not None else ""
        return Answer(q.text, status, q.kind, prefix + text, facts=tuple(self.facts), records=tuple(self.records),
                      at=self.memory.time, steps=tuple(self.steps), **value)  # type: ignore[arg-type]


class Symbolic:
    """The symbolic answers (see the module docstring)."""

    def __init__(self, grounder: Grounder) -> None:
        self._grounder = grounder
        self._forms: dict[str, Callable[[_Work, list[str]], Answer | None]] = {
            "where": self._where, "which_room": self._which_room, "since_when": self._since_when,
            "last_change": self._last_change, "who_has": self._who_has, "who_did": self._who_did,
            "count": self._count, "yes_no": self._yes_no, "contents": self._contents, "who_with": self._who_with,
        }

    def answer(self, question: Question, memory: Memory, now: float) -> Answer | None:
        """The answer to a read question, or None when the LLM loop must take it."""
        form = self._forms.get(question.kind)
        if form is None:
            return None
        work = _Work(question, memory, now)
        work.step("ground", (), "; ".join(f"{m.words!r} -> {', '.join(m.candidates)}" for m in question.mentions)
                  or "no mention of a known thing")
        if question.room_of is not None:
            thing, room = question.room_of
            work.cite(memory.room_chain(thing))
            work.step("path", question.room_of, f"{thing} is in {room}")
        if question.kind == "count":
            return form(work, [])
        things = question.things()
        if not things:
            if question.unknown:
                return work.finish(DECLINED, f"I have no record of any {' or '.join(question.unknown)} in this home.")
            return None
        subjects = list(things[0].candidates)
        if len(subjects) > 1 and not things[0].plural and question.kind not in ("where", "which_room", "contents"):
            places = "; ".join(f"{the(memory, s)} ({where_words(memory, s, f)})" for s in subjects
                               if (f := memory.location(s)) is not None)
            return work.finish(DECLINED, f"I know {len(subjects)} things called {things[0].words!r}: "
                                         f"{places or listing(memory, subjects)}. Which one do you mean?")
        return form(work, subjects)

    # ---- where things are --------------------------------------------------------------------
    def _where(self, work: _Work, subjects: list[str]) -> Answer:
        memory = work.memory
        places, parts = [], []
        for entity in subjects:
            fact = memory.location(entity)
            work.step("facts_of", (entity,), str(fact) if fact else "no location")
            if fact is None:
                parts.append(f"{the(memory, entity)} has no recorded place")
                continue
            chain = memory.room_chain(entity)
            work.cite(chain or [fact])
            place = next(a for a in fact.args if a != entity)
            places.append(place)
            room = memory.room(entity)
            in_room = f", in {the(memory, room)}" if room and room != place and memory.label(room) not in (
                memory.label(place)) else ""
            parts.append(f"{the(memory, entity)} was last recorded {where_words(memory, entity, fact)}{in_room} "
                         f"({story_words(memory, memory.story(fact), work.now)})")
        if not places:
            return work.finish(DECLINED, _sentence("; ".join(parts)))
        return work.finish(ANSWERED, _sentence("; ".join(parts)), entities=tuple(dict.fromkeys(places)))

    def _which_room(self, work: _Work, subjects: list[str]) -> Answer:
        memory = work.memory
        rooms, parts = [], []
        for entity in subjects:
            chain = memory.room_chain(entity)
            work.step("path", (entity, "room"), " -> ".join(str(f) for f in chain) or "no room")
            room = memory.room(entity)
            if room is None:
                continue
            work.cite(chain)
            rooms.append(room)
            via = chain[0]
            where = f"{where_words(memory, entity, via)}; " if len(chain) > 1 else ""
            parts.append(f"{the(memory, entity)} is in {the(memory, room)} "
                         f"({where}{story_words(memory, memory.story(via), work.now)})")
        if not rooms:
            return work.finish(DECLINED, f"No room is recorded for {listing(memory, subjects)}.")
        return work.finish(ANSWERED, _sentence("; ".join(parts)), entities=tuple(dict.fromkeys(rooms)))

    def _who_has(self, work: _Work, subjects: list[str]) -> Answer:
        memory = work.memory
        entity = subjects[0]
        fact = memory.location(entity)
        work.step("facts_of", (entity,), str(fact) if fact else "no location")
        if fact is None:
            return work.finish(DECLINED, f"No place is recorded for {the(memory, entity)}.")
        work.cite([fact])
        why = story_words(memory, memory.story(fact), work.now)
        holder = fact.args[0] if fact.args[-1] == entity and fact.args[0] != entity else None
        if holder is None:
            return work.finish(ANSWERED, f"Nobody has {the(memory, entity)}: it was last recorded "
                                         f"{where_words(memory, entity, fact)} ({why}).")
        return work.finish(ANSWERED, f"{_cap(the(memory, holder))} has {the(memory, entity)} ({why}).",
                           entities=(holder,))

    def _contents(self, work: _Work, subjects: list[str]) -> Answer:
        memory = work.memory
        found: list[str] = []
        for holder in subjects:
            for fact in sorted(memory.graph.facts(entity=holder)):
                for other in fact.args:
                    if other != holder and memory.location(other) == fact:
                        found.append(other)
                        work.cite([fact])
            work.step("neighbours", (holder, "1"), f"{len(found)} thing(s) there")
        where = listing(memory, subjects)
        if not found:
            return work.finish(ANSWERED, f"Nothing is recorded at {where}.")
        parts = [f"{the(memory, e)} ({story_words(memory, memory.story(memory.location(e)), work.now)})"  # type: ignore[arg-type]
                 for e in found]
        return work.finish(ANSWERED, f"At {where}: " + "; ".join(parts) + ".", entities=tuple(sorted(set(found))))

    def _who_with(self, work: _Work, subjects: list[str]) -> Answer:
        memory = work.memory
        entity = subjects[0]
        room = entity if memory.graph.entity_type(entity) == "room" else memory.room(entity)
        if room is None:
            return work.finish(DECLINED, f"No room is recorded for {the(memory, entity)}.")
        if room != entity:
            work.cite(memory.room_chain(entity))
        people = [p for p in memory.select(Selection("person", place=room)) if p != entity]
        work.step("select", ("person", room), ", ".join(people) or "nobody")
        for person in people:
            work.cite(memory.room_chain(person))
        if not people:
            return work.finish(ANSWERED, f"Nobody is recorded in {the(memory, room)}.")
        return work.finish(ANSWERED, f"In {the(memory, room)}: {listing(memory, people)}.", entities=tuple(people))

    # ---- counting ------------------------------------------------------------------------------
    def _count(self, work: _Work, _: list[str]) -> Answer | None:
        q, memory = work.question, work.memory
        words = q.words
        if words[:2] != ("how", "many") or len(words) < 3:
            return None
        noun_at = next((i for i in range(3, len(words)) if words[i] in _COUNT_VERBS), len(words)) - 1
        named = next((m for m in q.mentions if m.start <= noun_at < m.end and m.qualifies is None), None)
        noun = q.words[noun_at]
        if named is not None:
            counted = list(named.candidates)
        elif noun in GENERIC_NOUNS:
            counted = memory.select(Selection(GENERIC_NOUNS[noun]))
        else:
            return work.finish(DECLINED, f"I have no record of any {noun} in this home.")
        for predicate, sign in state_words(q, memory, self._grounder, counted):
            counted = [c for c in counted if memory.graph.has_fact(Fact(predicate, (c,))) == sign]
            work.cite(Fact(predicate, (c,)) for c in counted)
            work.step("select", (predicate, str(sign)), f"{len(counted)} left")
        for place in [m for m in q.mentions if m.start > noun_at and m is not named]:
            counted = [c for c in counted if any(memory.located_at(c, p) for p in place.candidates)]
            work.cite(f for c in counted for f in memory.room_chain(c))
            work.step("select", ("at", *place.candidates), f"{len(counted)} left")
        return work.finish(ANSWERED, f"{len(counted)}" + (f": {listing(memory, counted)}" if counted else "") + ".",
                           entities=tuple(counted), count=len(counted))

    # ---- yes or no -----------------------------------------------------------------------------
    def _yes_no(self, work: _Work, subjects: list[str]) -> Answer:
        q, memory = work.question, work.memory
        things = q.things()
        places = q.places()
        if q.words[0] in ("does", "did", "has", "have", "do") and len(things) > 1 and all(
                memory.graph.entity_type(c) == "person" for c in things[0].candidates):
            places, subjects = [things[0]], list(things[1].candidates)
        states = state_words(q, memory, self._grounder, subjects)
        if states:
            return self._state(work, subjects, *states[0])
        if places and not q.unknown:
            return self._at_place(work, subjects, places[-1].candidates)
        known = [s for e in subjects for s in memory.facts_of(e)]
        work.step("facts_of", tuple(subjects), f"{len(known)} fact(s)")
        work.cite(s.fact for s in known)
        what = f"I know no {' or '.join(q.unknown)}" if q.unknown else "My memory keeps no such thing"
        facts = "; ".join(f"{' '.join((s.fact.predicate, *s.fact.args))} ({story_words(memory, s, work.now)})"
                          for s in known[:6])
        return work.finish(DECLINED, f"{what} about {listing(memory, subjects)}; what it has: {facts or 'nothing'}.")

    def _state(self, work: _Work, subjects: list[str], predicate: str, sign: bool) -> Answer:
        memory = work.memory
        answers = []
        for entity in subjects:
            fact = Fact(predicate, (entity,))
            holds = memory.graph.has_fact(fact)
            work.step("facts_of", (entity,), f"{fact} {'holds' if holds else 'does not hold'}")
            if holds:
                work.cite([fact])
                why = story_words(memory, memory.story(fact), work.now)
            else:
                last = _last(memory, entity, lambda r, f=fact: f in r.delta.remove)
                if last is not None:
                    work.records.append(last)
                why = because(last, work.now) if last else "never recorded since my memory began"
            answers.append((holds == sign, f"{the(memory, entity)}: {predicate.replace('_', ' ')} is "
                                           f"{'true' if holds else 'false'} ({why})"))
        yes = all(a for a, _ in answers)
        return work.finish(ANSWERED, f"{'Yes' if yes else 'No'}: " + "; ".join(t for _, t in answers) + ".", yes=yes)

    def _at_place(self, work: _Work, subjects: list[str], places: tuple[str, ...]) -> Answer:
        memory = work.memory
        yes, parts = True, []
        for entity in subjects:
            chain = memory.room_chain(entity)
            work.step("path", (entity, *places), " -> ".join(str(f) for f in chain) or "nowhere")
            there = any(memory.located_at(entity, p) for p in places)
            yes = yes and there
            fact = memory.location(entity)
            if fact is None:
                parts.append(f"no place is recorded for {the(memory, entity)}")
                continue
            work.cite(chain or [fact])
            parts.append(f"{the(memory, entity)} was last recorded {where_words(memory, entity, fact)} "
                         f"({story_words(memory, memory.story(fact), work.now)})")
        return work.finish(ANSWERED, f"{'Yes' if yes else 'No'}: " + "; ".join(parts) + ".", yes=yes)

    # ---- history -------------------------------------------------------------------------------
    def _target(self, work: _Work, entity: str) -> tuple[str, Callable[[ChangeRecord], bool]]:
        """What change the question asks about, in words, and a test of a record for it."""
        q, memory = work.question, work.memory
        states = state_words(q, memory, self._grounder, [entity])
        if states:
            predicate, sign = states[0]
            fact = Fact(predicate, (entity,))
            said = f"{predicate.replace('_', ' ')} became {'true' if sign else 'false'}"
            return said, (lambda r: fact in (r.delta.add if sign else r.delta.remove))
        places = {c for m in q.places() for c in m.candidates} - {entity}
        if places or asks_about_moving(q, self._grounder.lexicon.moves):
            def moved(record: ChangeRecord) -> bool:
                return any(_locates(memory, entity, f) and (not places or places & set(f.args))
                           for f in record.delta.add)
            return "it was moved" + (f" to {listing(memory, sorted(places))}" if places else ""), moved
        return "it changed", lambda r: r.seq > 1 and _touches(r, entity)

    def _asked_record(self, work: _Work, entity: str) -> tuple[str, ChangeRecord | None]:
        """The newest record of the change the question asks about (cited), and that change in words."""
        said, test = self._target(work, entity)
        record = _last(work.memory, entity, test)
        work.step("history_of", (entity,), f"last record where {said}: #{record.seq}" if record else "none")
        if record is not None:
            work.records.append(record)
        return said, record

    def _last_change(self, work: _Work, subjects: list[str]) -> Answer:
        memory = work.memory
        entity = subjects[0]
        said, record = self._asked_record(work, entity)
        if record is None:
            return self._unknown_change(work, entity, said)
        return work.finish(ANSWERED, f"{_cap(the(memory, entity))}: {said} at {clock_words(record.time, work.now)} "
                                     f"({because(record, work.now)}).", time=record.time)

    def _since_when(self, work: _Work, subjects: list[str]) -> Answer:
        memory = work.memory
        entity = subjects[0]
        states = state_words(work.question, memory, self._grounder, [entity])
        if states:
            predicate, sign = states[0]
            fact = Fact(predicate, (entity,))
            if memory.graph.has_fact(fact) != sign:
                return self._unknown_change(work, entity, f"{predicate.replace('_', ' ')} is "
                                                          f"{'true' if sign else 'false'}")
            if sign:
                return self._since(work, entity, memory.story(fact))
            record = _last(memory, entity, lambda r: fact in r.delta.remove)
            if record is None:
                return self._unknown_change(work, entity, f"{predicate.replace('_', ' ')} became false")
            work.records.append(record)
            return work.finish(ANSWERED, f"Since {clock_words(record.time, work.now)} ({because(record, work.now)}).",
                               time=record.time)
        fact = memory.location(entity)
        places = {c for m in work.question.places() for c in m.candidates} - {entity}
        if fact is None or (places and not any(memory.located_at(entity, p) for p in places)):
            return self._unknown_change(work, entity, f"it is at {listing(memory, sorted(places))}")
        return self._since(work, entity, memory.story(fact))

    def _since(self, work: _Work, entity: str, story: FactStory) -> Answer:
        memory = work.memory
        work.cite([story.fact])
        work.step("facts_of", (entity,), f"{story.fact} since record #{story.seq}")
        first = memory.first_record
        if story.time is None or (first is not None and story.seq <= first.seq):
            begun = f" at {clock_words(first.time, work.now)}" if first else ""
            atom = " ".join((story.fact.predicate, *story.fact.args))
            why = story_words(memory, story, work.now)
            return work.finish(DECLINED, f"I cannot say since when: {atom} has held since my memory began{begun} "
                                         f"({why}).")
        return work.finish(ANSWERED, f"Since {clock_words(story.time, work.now)} "
                                     f"({story_words(memory, story, work.now)}).", time=story.time)

    def _who_did(self, work: _Work, subjects: list[str]) -> Answer:
        memory = work.memory
        entity = subjects[0]
        said, record = self._asked_record(work, entity)
        if record is None:
            return self._unknown_change(work, entity, said)
        actor = self._actor(memory, record.input or "", entity)
        work.step("ground", (f"#{record.seq}",), f"actor: {actor or 'none named'}")
        if actor is None:
            return work.finish(DECLINED, f"The record of it does not say who: {said} at "
                                         f"{clock_words(record.time, work.now)} ({because(record, work.now)}).")
        return work.finish(ANSWERED, f"{_cap(the(memory, actor))}, at {clock_words(record.time, work.now)} "
                                     f"({because(record, work.now)}).", entities=(actor,), time=record.time)

    def _actor(self, memory: Memory, sentence: str, entity: str) -> str | None:
        """The person who did what a sentence says happened to `entity`: the first person named in the clause that
        names the entity (``Michael took the mug from the table``), None when that clause names nobody."""
        for clause in _CLAUSES.split(sentence):
            mentions = self._grounder.ground(clause, memory.graph)
            if not any(entity in (*m.candidates, *m.alternatives, *m.broader) for m in mentions):
                continue
            people = [m.entity for m in mentions if m.entity and memory.graph.entity_type(m.entity) == "person"
                      and m.entity != entity]
            return people[0] if people else None
        return None

    def _unknown_change(self, work: _Work, entity: str, said: str) -> Answer:
        """Declined: no record says so; what is known last about the entity."""
        memory = work.memory
        records = memory.history_of(entity)
        last = records[-1] if records else None
        fact = memory.location(entity)
        known = f"{the(memory, entity)} was last recorded {where_words(memory, entity, fact)}" if fact else ""
        if fact is not None:
            work.cite([fact])
        if last is not None:
            work.records.append(last)
        lately = f"; the last record about it is {because(last, work.now)}" if last else ""
        return work.finish(DECLINED, f"No record says {said} for {the(memory, entity)}"
                                     f"{'; ' + known if known else ''}{lately}.")


def _last(memory: Memory, entity: str, test: Callable[[ChangeRecord], bool]) -> ChangeRecord | None:
    """The newest record about `entity` that passes `test`."""
    return next((r for r in reversed(memory.history_of(entity)) if test(r)), None)


def _locates(memory: Memory, entity: str, fact: Fact) -> bool:
    """Whether `fact` is one that says where `entity` is (a fact a rule allows exactly one of)."""
    return entity in fact.args and len(fact.args) > 1 and any(
        rule.max == 1 and rule.min >= 1 and entity in rule.keys_of(fact.predicate, fact.args)
        for rule in memory.rules.for_predicate(fact.predicate))


def _touches(record: ChangeRecord, entity: str) -> bool:
    return any(entity in f.args for f in (*record.delta.add, *record.delta.remove))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _sentence(text: str) -> str:
    return _cap(text) + "."
