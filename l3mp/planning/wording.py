"""What a request's words say about the goal the LLM wrote for it: checks the LLM is re-prompted with, and mends.

- **Checks** (`goal_problems`): an ``ALL_<type>`` argument needs a word for "all" or a plural noun of that type in
  the request ("every light", "the dishes"), and a state the request asks for with its verb ("wash ...",
  "turn off ...", "answer it") needs a literal of that state.
- **Signs** (`mend_signs`): the words that ask for a state decide its sign ("answer it": not ringing); a literal
  that only repeats what the request says is so now ("the phone is ringing", "it's pitch dark") is the state to
  change, not the goal.
- **Groups** (`within_groups`): "all the dishes on the kitchen island" and "the dirty dishes that are sitting in
  the sink" are the dishes there: an ``ALL_dish`` becomes those dishes, and a dish elsewhere that the request does
  not name is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from l3mp.domain.paths import ROBOT
from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.domain.triplets import Fact
from l3mp.planning.goal import WILDCARD, Literal
from l3mp.planning.impossible import DETERMINERS, LOCATED, Clause, clauses_of
from l3mp.retrieval.grounding import Lexicon, Mention, places_of, tokens
from l3mp.updates.gate import placed
from l3mp.updates.meaning import is_source, signs_in
from l3mp.world.graph import WorldGraph

_THING_PRONOUNS = frozenset({"it", "them", "that", "this", "one"})
_NEGATIONS = frozenset({"not", "t", "never", "no", "nobody", "none", "neither", "nor", "don", "dont", "nothing",
                        "without"})


@dataclass(frozen=True)
class Wording:
    """A request's words, clauses and grounded mentions, read once for the checks and mends."""

    task: str
    words: list[str]
    clauses: list[Clause]
    mentions: tuple[Mention, ...]

    @classmethod
    def of(cls, task: str, mentions: Sequence[Mention]) -> Wording:
        words = tokens(task)
        covered = {i for m in mentions for i in range(m.start, m.end)}
        return cls(task, words, clauses_of(task, words, covered), tuple(mentions))

    def states_said(self, clause: Clause, lexicon: Lexicon) -> dict[str, set[bool]]:
        """Unary predicate -> the signs the clause's own state words give it ("turn off", "wash", "is ringing";
        not a describing word after a determiner, "the dirty mug", nor a word of a mention); none in a clause with
        a negation."""
        covered = {i for m in self.mentions for i in range(m.start, m.end)}
        out: dict[str, set[bool]] = {}
        if _NEGATIONS & set(self.words[clause.start:clause.end]):
            return out  # "don't let it go dark", "not in the pantry": the words do not say the sign plainly
        for i in range(clause.start, clause.end):
            if i in covered or (i > 0 and self.words[i - 1] in DETERMINERS):
                continue
            for predicate, signs in lexicon.states.items():
                found = signs_in(self.words, i, i + 1, signs)
                if found:
                    out.setdefault(predicate, set()).update(found)
        return out

    def names_in(self, clause: Clause) -> set[str]:
        """Everything the clause's mentions may name."""
        return {n for m in self.mentions if clause.start <= m.start < clause.end
                for n in (*m.candidates, *m.alternatives, *m.broader)}

    def about(self, clause: Clause, thing: str) -> bool:
        """Whether the clause speaks of `thing`: a mention of it, or no thing of its own (a pronoun: "answer it")."""
        names = self.names_in(clause)
        return thing in names or not names or bool(_THING_PRONOUNS & set(self.words[clause.start:clause.end]))


# ---- checks ---------------------------------------------------------------------------------------------------
def goal_problems(wording: Wording, graph: WorldGraph, domain: Domain, rules: RuleSet,
                  lexicon: Lexicon, *, speaker: str | None = None) -> Callable[[Sequence[Literal]], list[str]]:
    """The check of a goal against the request's words (see the module docstring): the problems to re-prompt
    with (naming the things of that type at the places the request names), none when it fits; and the goal's
    coverage of the request (`coverage_problems`)."""
    def check(literals: Sequence[Literal]) -> list[str]:
        out = coverage_problems(wording, literals, graph, domain, rules, lexicon, speaker=speaker)
        adds, deletes = domain.changeable
        for lit in literals:
            if WILDCARD not in " ".join(lit.args) and lit.predicate not in (deletes if lit.negated else adds) and (
                    graph.has_fact(Fact(lit.predicate, lit.args)) == lit.negated):
                out.append(f"{lit.to_pddl()}: no action of the robot can bring this about; say what the request asks "
                           "the robot to do")
            if not lit.negated and lit.predicate == "holding" and lit.args[:1] == (ROBOT,):
                out.append(f"{lit.to_pddl()}: nobody asks for the robot's own hand; give the thing to the person "
                           "who is to have it (has <person> <thing>), or say where it is to go")
        out += _where_it_is_now(wording, literals, graph, rules)
        said_all = bool(lexicon.all_words & set(wording.words))
        every = [m for m in wording.mentions if m.candidates and (m.plural or lexicon.all_words & set(
            wording.words[max(0, m.start - 3):m.start]))]  # "the lights", "every tap"
        for lit in literals:
            for arg in lit.args:
                wanted = arg[len(WILDCARD):] if arg.startswith(WILDCARD) else None
                if wanted and (not said_all or every) and not any(  # "every tap ... off" is not every light
                        any(domain.is_subtype(graph.entity_type(n) or "", wanted) for n in m.candidates)
                        for m in every):
                    there = _at_places_named(wording, wanted, graph, domain, rules)
                    hint = f" (at the places it names: {', '.join(there)})" if there else ""
                    out.append(f"{lit.to_pddl()}: the task does not ask for every {wanted}; name the {wanted} "
                               f"objects it means{hint}")
        out += _no_exception(wording, literals, graph, domain)
        if speaker is not None and _brought_to_me(wording.words) and not any(
                lit.predicate == "has" and lit.args[:1] == (speaker,) and not lit.negated for lit in literals):
            out.append(f"the task asks for something to be brought to {speaker}, who says it: add (has {speaker} "
                       "<the thing>)")
        to_whom = _brought_to_them(wording, graph, domain, speaker)
        if to_whom and not any(lit.predicate == "has" and lit.args[:1] and lit.args[0] in to_whom and not lit.negated
                               for lit in literals):
            who = " or ".join(sorted(to_whom))
            out.append(f"the task asks for something to be brought to {who}: add (has {sorted(to_whom)[0]} "
                       "<the thing>)")
        predicates = {lit.predicate for lit in literals}
        for clause in wording.clauses:
            if clause.verb is None:
                continue
            asked = set(wording.states_said(clause, lexicon))
            fitting = {p for p in asked if _fits_clause(p, clause, wording, graph, domain)}
            if asked and not (fitting or asked) & predicates:
                words = " ".join(wording.words[clause.start:clause.end])
                out.append(f"the task asks \"{words}\", but no literal is about {' or '.join(sorted(fitting or asked))}"
                           "; add it for the thing the task names")
        return out
    return check


EXCEPT_WORDS = frozenset({"except", "excluding", "besides"})
"""Words that make an exception of a request for every thing of a kind ("every light off except the bedroom one")."""


BRING_WORDS = frozenset({"bring", "fetch", "get", "grab", "pass", "hand", "give", "take", "carry"})
"""Verbs of bringing a thing to someone."""


def _brought_to_me(words: list[str]) -> bool:
    """"bring me ...", "grab me ...", "... and bring it to me", "bring it over here": the speaker is to have something
    (not "get it for me": that may be answering a phone)."""
    for i, word in enumerate(words):
        if word == "here" and i and any(w in BRING_WORDS for w in words[max(0, i - 4):i]) and not any(
                w in ("put", "leave", "on", "in", "inside") for w in words[max(0, i - 4):i]):
            return True  # "answer it and bring it over here" ("put it back here", "in here": where a thing is)
        if word != "me" or not i:
            continue
        if words[i - 1] in BRING_WORDS:
            return True
        if words[i - 1] == "to" and any(w in BRING_WORDS for w in words[max(0, i - 6):i - 1]):
            return True
    return False


_AFTER_THE_ONE = frozenset({"please", "pls", "plz", "now", "and", "then", "so", "thanks", "too", "asap", "right",
                            "when", "before", "if", "as", "straight", "quickly", "first", "for", "thank"})
"""Words after "to her" that leave "her" a person, not the owner of a thing ("to her room")."""


_PLACING = {"on": 0, "inside": 0, "has": 1, "holding": 1}
"""Predicates that say where an item is, and which argument the item is."""


def given_to_them(literals: Sequence[Literal], wording: Wording, graph: WorldGraph, domain: Domain,
                  speaker: str | None, notes: list[str]) -> list[Literal]:
    """A goal for "Jessica wants the orange, can you take it over to her" that places the one item somewhere else
    (on a table, in the robot's hand) instead of with the one person the words bring it to: that person has it
    (noted in `notes`). The goal as it is when the words bring nothing to anyone, it already says who has it, or
    it places no item or more than one."""
    to_whom = _brought_to_them(wording, graph, domain, speaker) or (
        {speaker} if speaker is not None and _brought_to_me(wording.words) else set())
    if len(to_whom) != 1 or any(lit.predicate == "has" and lit.args[:1] and lit.args[0] in to_whom and not lit.negated
                                for lit in literals):
        return list(literals)
    person = next(iter(to_whom))
    placing = [(k, lit.args[_PLACING[lit.predicate]]) for k, lit in enumerate(literals)
               if lit.predicate in _PLACING and not lit.negated and len(lit.args) == 2
               and graph.has_entity(lit.args[_PLACING[lit.predicate]])
               and domain.is_subtype(graph.entity_type(lit.args[_PLACING[lit.predicate]]) or "", "item")]
    if len(placing) != 1:
        return list(literals)
    k, item = placing[0]
    notes.append(f"{literals[k].to_pddl()} -> (has {person} {item}): the request brings it to {person}")
    return [*literals[:k], Literal("has", (person, item), False), *literals[k + 1:]]


def without_unasked_places(literals: Sequence[Literal], wording: Wording, graph: WorldGraph, lexicon: Lexicon,
                           notes: list[str]) -> list[Literal]:
    """A goal for a request that asks for nothing to be moved ("wash the orange bowl", "wash all the dirty glasses,
    the wine glass Jessica left in the living room too") with a literal that puts a thing somewhere it is not:
    that literal is dropped (noted in `notes`), for nobody asked for it. The goal as it is when the request has a verb
    of moving ("put", "bring", "back", "away", ...; "left" only says where a thing is), or when nothing else would be
    left of it."""
    said = set(wording.words)
    if (lexicon.moves - {"leave", "left"}) & said or said & (BRING_WORDS | _PUT_AWAY) or lexicon.gives & said:
        return list(literals)
    kept = [lit for lit in literals if lit.negated or lit.predicate not in ("on", "inside") or len(lit.args) != 2
            or WILDCARD in " ".join(lit.args) or graph.has_fact(Fact(lit.predicate, lit.args))]
    if not kept or len(kept) == len(literals):
        return list(literals)
    notes.extend(f"{lit.to_pddl()} dropped: the request asks for nothing to be moved" for lit in literals
                 if lit not in kept)
    return kept


_PUT_AWAY = frozenset({"back", "away", "return", "returned", "tidy", "belongs", "belong", "goes", "store", "move",
                       "swap", "hang", "load", "unload", "empty"})
"""Words of a request to move a thing besides `Lexicon.moves` and `BRING_WORDS` ("the album goes back on the shelf",
"tidy the mugs away", "load the dishwasher")."""


def _brought_to_them(wording: Wording, graph: WorldGraph, domain: Domain, speaker: str | None) -> set[str]:
    """Who the request asks to have a thing brought to, other than the speaker: "take it to Jessica", "bring the
    beer over to her" (her: the people the request names, when it names any but the speaker); empty when none."""
    words = wording.words

    def person(name: str) -> bool:
        return graph.has_entity(name) and domain.is_subtype(graph.entity_type(name) or "", "person")

    people = {k: w for k, w in enumerate(words) if person(w)}  # (the request's mentions may be grounded over less)
    for i, word in enumerate(words):
        if i < 2 or words[i - 1] != "to" or not any(w in BRING_WORDS for w in words[max(0, i - 7):i - 1]):
            continue
        if i in people:
            return {people[i]} - {speaker}
        if word in ("her", "him") and (i + 1 == len(words) or words[i + 1] in _AFTER_THE_ONE):
            return set(people.values()) - {speaker}
    return set()


def _no_exception(wording: Wording, literals: Sequence[Literal], graph: WorldGraph, domain: Domain) -> list[str]:
    """An ``ALL_<type>`` literal of a request that makes an exception ("every light off except the bedroom one")
    with no literal the other way about a thing of that type: the exception was lost."""
    exception = next((w for w in wording.words if w in EXCEPT_WORDS), None)
    if exception is None:
        return []
    out = []
    for lit in literals:
        wanted = [a[len(WILDCARD):] for a in lit.args if a.startswith(WILDCARD)]
        if not wanted or any(
                other.predicate == lit.predicate and not other.quantified and other.negated != lit.negated and any(
                    domain.is_subtype(graph.entity_type(a) or "", t) for a in other.args for t in wanted)
                for other in literals):
            continue
        out.append(f"{lit.to_pddl()}: the task makes an exception (\"{exception} ...\"); keep the {wanted[0]} it "
                   f"excepts as it is, with a literal the other way, or name the {wanted[0]} objects it means")
    return out


def _where_it_is_now(wording: Wording, literals: Sequence[Literal], graph: WorldGraph, rules: RuleSet) -> list[str]:
    """Literals of a goal that holds already which put a thing where the request says it is now or takes it from
    ("fetch me the orange novel off the desk": not (on orange_novel desk)); the request asks for a change."""
    holds = not any(lit.quantified or graph.has_fact(Fact(lit.predicate, lit.args)) == lit.negated
                    for lit in literals)
    out = []
    for lit in literals:
        where = placed(Fact(lit.predicate, lit.args), rules) if not lit.negated else None
        mention = next((m for m in wording.mentions if where[1] in m.candidates), None) if where else None
        if where and mention is not None and (is_source(wording.words, mention.start) or (
                holds and mention.qualifies is not None)):  # "bring him the sparkling water off the side table"
            out.append(f"{lit.to_pddl()}: the task names {where[1]} as where {where[0]} is now or is taken from, not "
                       "where it is to go; say what is to hold once the robot has done what the task asks")
    return out


_PLACE_KINDS = ("room", "receptacle")
_DEICTIC = frozenset({"here", "there", "in here", "in there"})


def coverage_problems(wording: Wording, literals: Sequence[Literal], graph: WorldGraph, domain: Domain,
                      rules: RuleSet, lexicon: Lexicon, *, speaker: str | None = None) -> list[str]:
    """Whether the goal speaks of what the request speaks of, and of nothing else:

    - each thing a literal changes (its first argument; the thing given, for ``has``) is one the request names
      (a mention's candidates; of a group said to be somewhere, "the dishes in the sink", only those there), the
      speaker, or a thing at a place the request names ("it's dark in the bathroom": the bathroom's light);
    - each thing a clause that asks for something names (not a person, not a place that only says where a thing is
      or where it is taken from) is in some literal, or of the type of an ``ALL_<type>`` argument.

    A request that names no thing ("could you get that?") is not checked."""
    things = [m for m in wording.mentions if m.candidates and m.qualifies is None and not _is(graph, domain,
                                                                                             m.candidates[0], "person")]
    if not things:
        return []
    groups = iter(_groups(wording, graph, rules, lexicon))
    named: set[str] = {speaker} if speaker else set()
    moved: set[str] = set()  # before a place narrowed them: the place may be where they go ("the mug in the sink")
    places: set[str] = set()
    group_of: dict[int, frozenset[str]] = {}
    for m in wording.mentions:
        if m.plural and m.qualifies is None and m.candidates:
            group_of[id(m)] = next(groups, frozenset(m.candidates))
            named |= set(m.candidates)  # others of the group's kind are left out when settled (`within_groups`)
        else:
            named |= set(m.candidates)
            moved |= set(m.alternatives)
        if m.candidates and all(any(_is(graph, domain, n, k) for k in _PLACE_KINDS) for n in m.candidates):
            places |= set(m.candidates)
    out = []
    for lit in literals:
        position = 1 if lit.predicate == "has" and len(lit.args) == 2 else 0
        thing = lit.args[position] if len(lit.args) > position else ""
        if not thing or thing.startswith(WILDCARD) or thing in named or thing in domain.constants or (
                thing in moved and len(lit.args) == 2):
            continue
        if places_of(graph, rules, thing) & places:
            continue
        out.append(f"{lit.to_pddl()}: the task does not speak of {thing}; use only the things it names")
    used = {a for lit in literals for a in lit.args}
    wild = {a[len(WILDCARD):] for a in used if a.startswith(WILDCARD)}
    for clause in wording.clauses:
        span = wording.words[clause.start:clause.end]
        if clause.verb is None or _KEEPING & set(span):
            continue  # what a clause asks to keep is added when settled (`l3mp.planning.request.apply_keeps`)
        moving = bool((lexicon.moves - {"leave", "left"}) & set(span)) or "back" in span or "away" in span
        for m in things:
            if not clause.start <= m.start < clause.end or _taken_from(wording.words, m.start) or _beside_of(
                    wording.words, m.start) or m.words in _DEICTIC:
                continue  # "bring it to me in here", "put it there": where the speaker or the thing named is
            if any(_is(graph, domain, n, k) for n in m.candidates for k in _PLACE_KINDS) and (
                    not moving and _located_by(wording.words, m.start)):
                continue  # "wash the dishes in the sink": where they are
            pool = group_of.get(id(m)) or {*m.candidates, *m.alternatives}
            if pool & used or any(domain.is_subtype(graph.entity_type(n) or "", t) for n in pool for t in wild):
                continue
            out.append(f"the task names \"{m.words}\", but no literal is about it; add what the task asks of it")
    return out


def _taken_from(words: list[str], start: int) -> bool:
    """Whether a place is where something is taken from ("from the counter", "out of the fridge"; not "turn off
    the lamp")."""
    i = start - 1
    while i >= 0 and words[i] in DETERMINERS:
        i -= 1
    return i >= 0 and (words[i] == "from" or (words[i] == "of" and i > 0 and words[i - 1] == "out"))


_KEEPING = frozenset({"leave", "keep", "stay", "stays", "remain", "remains", "still", "not", "don", "dont", "never",
                      "t"}) | EXCEPT_WORDS
"""Words of a clause that asks to keep something or not to do it."""
_NEAR = frozenset({"near", "beside", "behind", "under", "above", "by", "with", "below", "opposite"})


def _beside_of(words: list[str], start: int) -> bool:
    """Whether a mention only says which thing is meant by what is near it ("the lamp next to the TV")."""
    i = start - 1
    while i >= 0 and words[i] in DETERMINERS:
        i -= 1
    return i >= 0 and (words[i] in _NEAR or (words[i] == "to" and i > 0 and words[i - 1] in {"next", "close"}))


def _is(graph: WorldGraph, domain: Domain, name: str, kind: str) -> bool:
    return domain.has_type(kind) and domain.is_subtype(graph.entity_type(name) or "", kind)


MAX_HINTS = 5
"""The most things a problem names as those the request may mean."""


def _at_places_named(wording: Wording, type_: str, graph: WorldGraph, domain: Domain, rules: RuleSet) -> list[str]:
    """The things of `type_` at the places (rooms, receptacles) the request's mentions name."""
    places = {n for m in wording.mentions for n in m.candidates
              if any(domain.is_subtype(graph.entity_type(n) or "", k) for k in ("room", "receptacle")
                     if domain.has_type(k))}
    found = sorted(n for n in graph.entities() if domain.is_subtype(graph.entity_type(n) or "", type_)
                   and places_of(graph, rules, n) & places)
    return found if len(found) <= MAX_HINTS else []


def _fits_clause(predicate: str, clause: Clause, wording: Wording, graph: WorldGraph, domain: Domain) -> bool:
    declared = domain.predicate(predicate)
    return declared is not None and any(domain.is_subtype(graph.entity_type(n) or "", declared.types[0])
                                        for n in wording.names_in(clause))


# ---- signs ----------------------------------------------------------------------------------------------------
def mend_signs(wording: Wording, literals: Sequence[Literal], graph: WorldGraph, lexicon: Lexicon,
               notes: list[str], domain: Domain) -> list[Literal]:
    """Each state literal with the sign the request's words give it (see the module docstring); mends noted."""
    out = []
    for lit in literals:
        if len(lit.args) != 1 or lit.predicate not in lexicon.states:
            out.append(lit)
            continue
        if lit.quantified:  # "make sure every tap is off": the words for every thing of the kind give the sign
            asked = _kind_signs(wording, lexicon, lit.predicate, lit.args[0][len(WILDCARD):], graph, domain)
            flip = len(asked) == 1 and lit.negated in asked
        else:
            thing = lit.args[0]
            asked = _signs(wording, lexicon, lit.predicate, thing, imperative=True)
            said = _signs(wording, lexicon, lit.predicate, thing, imperative=False)
            holds = graph.has_fact(Fact(lit.predicate, lit.args)) != lit.negated
            flip = (len(asked) == 1 and lit.negated in asked) or (
                not asked and holds and said == {not lit.negated})
        if flip:
            mended = Literal(lit.predicate, lit.args, not lit.negated, lit.quote)
            notes.append(f"{lit.to_pddl()} -> {mended.to_pddl()}: the request's words say so")
            lit = mended
        out.append(lit)
    return out


def _kind_signs(wording: Wording, lexicon: Lexicon, predicate: str, kind: str, graph: WorldGraph,
                domain: Domain) -> set[bool]:
    """The signs the asking clauses that name things of `kind` give `predicate` ("turn every light off")."""
    found: set[bool] = set()
    for clause in wording.clauses:
        if clause.verb is not None and any(domain.is_subtype(graph.entity_type(n) or "", kind)
                                           for n in wording.names_in(clause)):
            found |= wording.states_said(clause, lexicon).get(predicate, set())
    return found


def _signs(wording: Wording, lexicon: Lexicon, predicate: str, thing: str, *, imperative: bool) -> set[bool]:
    found: set[bool] = set()
    for clause in wording.clauses:
        if (clause.verb is not None) == imperative and wording.about(clause, thing):
            found |= wording.states_said(clause, lexicon).get(predicate, set())
    return found


# ---- groups ---------------------------------------------------------------------------------------------------
def within_groups(wording: Wording, literals: Sequence[Literal], graph: WorldGraph, domain: Domain,
                  rules: RuleSet, lexicon: Lexicon, notes: list[str]) -> list[Literal]:
    """``ALL_<type>`` of a group the request names only part of, as those things; things of the group's type
    the request does not name, left out (see the module docstring)."""
    groups = _groups(wording, graph, rules, lexicon)
    named = {n for m in wording.mentions if not m.plural for n in (*m.candidates, *m.alternatives)}
    expanded: list[Literal] = []
    for lit in literals:
        position = next((j for j, a in enumerate(lit.args) if a.startswith(WILDCARD)), None)
        type_ = lit.args[position][len(WILDCARD):] if position is not None else ""
        every = {n for n in graph.entities() if type_ and domain.is_subtype(graph.entity_type(n) or "", type_)}
        fitting = [g & every for g in groups if g & every]
        if position is None or len(fitting) != 1 or not fitting[0] < every:
            expanded.append(lit)
            continue
        expanded += [Literal(lit.predicate, (*lit.args[:position], n, *lit.args[position + 1:]), lit.negated,
                             lit.quote) for n in sorted(fitting[0])]
    left_out = [lit for lit in expanded if not lit.quantified and _beside(lit, expanded, groups, named, graph)]
    if left_out:
        notes.append(f"left out {', '.join(lit.to_pddl() for lit in left_out)}: not among the things the request "
                     "names")
    return [lit for lit in expanded if lit not in left_out]


def _beside(lit: Literal, literals: Sequence[Literal], groups: list[frozenset[str]], named: set[str],
            graph: WorldGraph) -> bool:
    """Whether a literal is about a thing of a group's kind outside the group and not named otherwise, while
    another literal of its predicate is about the group (the LLM listed more than the request asks for)."""
    thing = lit.args[0] if lit.args else ""
    for group in groups:
        if thing in group or thing in named or graph.entity_type(thing) not in {graph.entity_type(n) for n in group}:
            continue
        if any(other.predicate == lit.predicate and other.args and other.args[0] in group for other in literals):
            return True
    return False


def _groups(wording: Wording, graph: WorldGraph, rules: RuleSet, lexicon: Lexicon) -> list[frozenset[str]]:
    """The things each plural mention stands for: its candidates, only those at the place the request says they
    are ("the dishes that are sitting in the sink"), when some are there; not where a verb of moving says where
    they go."""
    out = []
    mentions = wording.mentions
    for k, mention in enumerate(mentions):
        if not mention.plural or mention.qualifies is not None or not mention.candidates:
            continue
        group = frozenset(mention.candidates)
        clause = next((c for c in wording.clauses if c.start <= mention.start < c.end), None)
        moved = clause is not None and bool(lexicon.moves & set(wording.words[clause.start:clause.end]))
        place = next((m for m in mentions[k + 1:] if clause is not None and m.start < clause.end
                      and _located_by(wording.words, m.start)), None)
        if place is not None and not moved:
            there = frozenset(n for n in group if places_of(graph, rules, n) & set(place.candidates))
            group = there or group
        out.append(group)
    return out


def _located_by(words: list[str], start: int) -> bool:
    i = start - 1
    while i >= 0 and words[i] in DETERMINERS:
        i -= 1
    return i >= 0 and words[i] in LOCATED
