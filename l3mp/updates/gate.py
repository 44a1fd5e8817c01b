"""The gate before a model's answer goes into the memory: every change it makes is explained by words of the text.

The model (a small one, on two cores) may write a valid update that is not what the sentence meant: it moves the
thing a place was named by ("the nightstand with the red dictionary"), changes a thing the text says is "still"
where it was, picks a thing or place the text never names, or sets a state no word of the text gives. The
meaning checks and mends of `l3mp.updates.meaning` fix what the text settles; this gate then refuses what is left
unexplained, so that an unsure update is asked again (bounded) and, failing that, declined with nothing applied:

- a state changed (``light_on``, ``dirty``, ...) needs a word of the lexicon for that state, with that sign, in the
  clause of a mention of the thing (or of a pronoun for it), or in a clause that names nothing ("took the call");
- a new place (``on``, ``inside``, ``has``, ``in_room``: a rule of exactly one place) needs the thing named other
  than only to say which thing is meant, the place named other than as where something came from, and a verb of
  moving, taking, giving or going (or "is in/on") in the clause of one of them; a clause that says "still" explains
  no move;
- every state word of the text that fits a thing named in its clause is covered: the answer states it, or the
  memory already has it (so "heated soup in the saucepan" is not applied without the saucepan being dirty);
- a word after a negation in its clause ("nobody shut it", "didn't wash the mug", "isn't on") neither explains a
  change nor asks for one: what did not happen changes nothing ("no longer on" is not a negation). A state just
  after "still" ("is still open") asks for nothing, but explains that state of a thing named as the one thing it
  is when memory has it otherwise (memory was wrong: "the glass in the dishwasher is still dirty").

Clauses are split at "and", "then", "but", ... and a clause with no verb or state word of its own ("... and the
salad bowl") belongs to the clause before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.domain.triplets import Fact
from l3mp.retrieval.grounding import Lexicon, Mention, outside_mentions, pauses, tokens
from l3mp.updates.meaning import (
    Stated,
    answered_by_picking_up,
    before_it,
    clauses,
    from_a_place,
    is_carried,
    is_source,
    label,
    picked_up_or_took_it,
    says_which_place,
    signs_in,
    took_it_ringing,
    yet_to_be,
)
from l3mp.updates.reading import asides
from l3mp.world.graph import WorldGraph

_BE = frozenset({"is", "'s", "are", "was", "were", "been", "be"})
_TO = frozenset({"in", "into", "on", "onto", "to", "inside", "at", "with"})
_STILL = frozenset({"still"})
_STILL_REACH = 2
"""How many words after "still" it reaches ("still open", "still switched on")."""
_MODALS = frozenset({"can", "could", "will", "would", "should", "may", "might", "must", "to"})
_NEGATIONS = frozenset({"not", "t", "never", "no", "nobody", "nothing", "noone", "neither", "nor", "without"})
_NEGATION_REACH = 3
"""How many words before a word a negation may stand ("nobody has yet shut it", "didn't wash")."""
_THING_PRONOUNS = frozenset({"it", "them"})
_PERSON_PRONOUNS = frozenset({"he", "she", "they", "him", "her"})


@dataclass(frozen=True)
class _Ref:
    """Where the text names some entities: a mention, or a pronoun standing for an earlier one."""

    start: int
    end: int
    names: frozenset[str]
    describes: bool
    """Only says which thing is meant, or what a person carries ("the desk with the gold phone", "with her water")."""
    source: bool
    """Where something came from ("from the desk", "out of the fridge")."""


def _parsed(text: str, mentions: Sequence[Mention], lexicon: Lexicon, rules: RuleSet, graph: WorldGraph,
            domain: Domain) -> tuple[list[str], list[str], list[tuple[int, int]], list[_Ref]]:
    """The text's words; its sign words (outside the mentions, none of what is yet to be: "..., she'll clean it
    later" gives no state now, none of a part that tells nothing the memory keeps: "..., no point leaving it on",
    `reading.asides`); its clauses (`_spans`); and its references (`_references`), none a pronoun of such a part."""
    words = tokens(text)
    planned = yet_to_be(words, pauses(text)) | asides(text, mentions, lexicon, graph, domain)
    sign_words = ["" if i in planned else w for i, w in enumerate(outside_mentions(words, mentions))]
    named = {i for m in mentions for i in range(m.start, m.end)}
    refs = [r for r in _references(words, mentions, graph, domain, rules) if r.start not in planned - named]
    # (a pronoun of an aside stands for nothing that changed: "..., she left the vanity light on, it's less harsh")
    return words, sign_words, _spans(words, sign_words, lexicon, pauses(text), frozenset(planned - named)), refs


def check(stated: Sequence[Stated], mentions: Sequence[Mention], text: str, lexicon: Lexicon, rules: RuleSet,
          graph: WorldGraph, domain: Domain) -> list[str]:
    """What in `stated` (the literals about to be applied, after the mends and settling) the text does not explain,
    and what state the text names that they leave out; empty when the answer may be applied."""
    return [why for _, why in unexplained(stated, mentions, text, lexicon, rules, graph, domain)] + uncovered(
        stated, mentions, text, lexicon, rules, graph, domain)


def uncovered(stated: Sequence[Stated], mentions: Sequence[Mention], text: str, lexicon: Lexicon, rules: RuleSet,
              graph: WorldGraph, domain: Domain) -> list[str]:
    """What the text says that `stated` leaves out: a state word for a thing of its clause, a thing someone took."""
    words, sign_words, spans, refs = _parsed(text, mentions, lexicon, rules, graph, domain)
    items = [r for r in refs if any(a <= r.start < b for a, b in _items(words, sign_words, lexicon, pauses(text)))]
    sign_words = _affirmed(sign_words)
    return _uncovered(stated, spans, refs, items, sign_words, lexicon, graph, domain) + _untaken(
        stated, spans, refs, words, lexicon, graph, domain, rules) + _unmoved(
        stated, spans, refs, sign_words, lexicon, graph, domain) + _unplaced(
        stated, spans, refs, sign_words, lexicon, graph, domain, rules)


def unexplained(stated: Sequence[Stated], mentions: Sequence[Mention], text: str, lexicon: Lexicon, rules: RuleSet,
                graph: WorldGraph, domain: Domain) -> list[tuple[Stated, str]]:
    """The changes of `stated` that no words of the text explain, each with why."""
    words, sign_words, spans, refs = _parsed(text, mentions, lexicon, rules, graph, domain)
    still = _affirmed(sign_words, still=False)  # "the glass is still dirty", memory has it clean: it is dirty
    sign_words = _affirmed(sign_words)
    events = _events(sign_words)
    words = _affirmed(words)
    verbs = lexicon.moves | lexicon.takes | lexicon.gives | lexicon.goes | lexicon.answers
    carried = {(p, r) for who, room in _carried_to(spans, refs, sign_words, lexicon, graph, domain)
               for p in who.names for r in room.names}
    out: list[tuple[Stated, str]] = []
    for literal in stated:
        if not literal.is_change(graph):
            continue
        fact = literal.fact
        signs = lexicon.states.get(fact.predicate)
        if signs and len(fact.args) == 1:
            thing = fact.args[0]
            at = [_span_of(spans, r.start) for r in refs if thing in r.names and not r.describes]
            bare = [s for s in spans if not any(s[0] <= r.start < s[1] for r in refs)]
            said = [a for a, b in {*at, *bare} if literal.true in signs_in(sign_words, a, b, signs)]
            if not said and all(len(r.names) == 1 for r in refs if thing in r.names and not r.describes):
                said = [a for a, b in at if literal.true in signs_in(still, a, b, signs)]  # (of alike things, the
                # one "still" so is the one that already is: "the tap in there is still running")
            if not said and not literal.true and signs.get(False, frozenset()) & lexicon.answers and (
                    answered_by_picking_up(words) or took_it_ringing(words, lexicon.takes,
                                                                     signs.get(True, frozenset()))):
                said = [0]  # "the phone rang and she picked up", "... was ringing so Jessica grabbed it"
            surely = [_span_of(spans, r.start) for r in refs if thing in r.names and not r.describes and (
                len(r.names) == 1 or words[r.start] in _THING_PRONOUNS)]  # not "the kitchen light": maybe another
            later = _undone(literal, max(said, default=0), spans, surely, events, words, signs, lexicon)
            if not said or later:
                out.append((literal, f"the text does not say that {_the(graph, thing)} "
                                      f"{'is now' if literal.true else 'is no longer'} {_state(fact.predicate)}"
                                      f"{' (it says so before, not last)' if said else ''}; "
                                      "state only what the text says"))
            continue
        if not literal.true:
            continue
        placed = _placed(fact.predicate, fact.args, rules)
        if placed is None:
            continue
        thing, place = placed
        if fact.predicate == "in_room" and (thing, place) in carried:
            continue  # "brought it to David in living room 2": who brought it is there too
        named = [r for r in refs if thing in r.names]
        main = [r for r in named if not r.describes]
        if named and not main:
            out.append((literal, f"the text names {_the(graph, thing)} only to say which thing it means; it did "
                                 "not move"))
            continue
        where = [r for r in refs if place in r.names and not r.source and not r.describes]
        if not main or not where:
            out.append((literal, f"the text does not say that {_the(graph, thing)} is now "
                                 f"{'with' if fact.predicate == 'has' else fact.predicate.replace('_', ' ')} "
                                 f"{_the(graph, place)}"))
            continue
        around = {_span_of(spans, r.start) for r in (*main, *where)}
        if any(_STILL & set(words[a:b]) for a, b in around):
            out.append((literal, f"the text says {_the(graph, thing)} is still where it was: nothing moved"))
            continue
        kind = lexicon.takes | lexicon.gives | lexicon.answers if fact.predicate == "has" else (
            lexicon.goes if domain.is_subtype(graph.entity_type(place) or "", "room") else verbs if not any(
                domain.is_subtype(graph.entity_type(thing) or "", k) for k in ("person", "robot") if domain.has_type(k))
            else verbs - lexicon.goes)  # ("the saucepan went in the cupboard": a thing that goes somewhere is moved)
        how = {_moves(words, a, b, kind) for a, b in around}
        if not how - {None}:
            out.append((literal, f"no word of the text moves {_the(graph, thing)} to {_the(graph, place)}"))
        elif how - {None} == {"being"} and any(graph.has_fact(Fact(fact.predicate, tuple(
                n if a == thing else a for a in fact.args))) for r in main for n in r.names if n != thing):
            # "the wine bottle is on the counter" when one of the wine bottles is: it says which, nothing moved
            out.append((literal, f"the text says where one of the things it names already is; "
                                 f"{_the(graph, thing)} did not move"))
    return out


_BACKGROUND = frozenset({"need", "needs", "needed", "had", "been", "to", "a", "an", "be"})
"""Words before a state word that make it no event of the report: "needs a wash", "had been running", "wants to
close"."""


def _events(sign_words: list[str]) -> list[str]:
    """`sign_words` with the state words that are no event blanked (`_BACKGROUND`)."""
    return ["" if i and sign_words[i - 1] in _BACKGROUND else w for i, w in enumerate(sign_words)]


def _undone(literal: Stated, after: int, spans: list[tuple[int, int]], at: list[tuple[int, int]],
            events: list[str], words: list[str], signs: dict[bool, frozenset[str]], lexicon: Lexicon) -> bool:
    """Whether a clause after `after` that names the thing (or "it") says the other way, as an event: "opened the
    fridge ... and shut it again", "the phone rang and Jessica answered it" (or "picked it up")."""
    answered = bool(signs.get(False, frozenset()) & lexicon.answers)
    for a, b in spans:
        if a <= after or (a, b) not in at or before_it(words, a):
            continue  # "picked it up before it rang out"
        if (not literal.true) in signs_in(events, a, b, signs) or (literal.true and answered and picked_up_or_took_it(
                words[a:b], lexicon.takes)):
            return True
    return False


def taken(stated: Sequence[Stated], mentions: Sequence[Mention], text: str, lexicon: Lexicon, rules: RuleSet,
          graph: WorldGraph, domain: Domain) -> list[Stated]:
    """What the text's verbs of taking and answering settle that `stated` leaves out: the one person who answered or
    took the one thing has it ("Sarah answered the smartphone": ``has sarah smartphone_2``)."""
    words, _, spans, refs = _parsed(text, mentions, lexicon, rules, graph, domain)
    out = []
    for who, what, _ in _takings(stated, spans, refs, words, lexicon, graph, domain, rules):
        if len(who.names) == 1 and len(what.names) == 1:
            literal = Stated(Fact("has", (next(iter(who.names)), next(iter(what.names)))), True)
            if domain.predicate("has") is not None and literal not in out:
                out.append(literal)
    return out


def _untaken(stated: Sequence[Stated], spans: list[tuple[int, int]], refs: list[_Ref], words: list[str],
             lexicon: Lexicon, graph: WorldGraph, domain: Domain, rules: RuleSet) -> list[str]:
    """A person who takes or answers a thing ("Sarah answered the smartphone") has it after, unless the answer
    gives the thing another new place (took it and put it on the shelf)."""
    return [f"the text says {' or '.join(sorted(who.names))} {verb} "
            f"{' or '.join(_the(graph, n) for n in sorted(what.names))}: state who has it now"
            for who, what, verb in _takings(stated, spans, refs, words, lexicon, graph, domain, rules)]


def _takings(stated: Sequence[Stated], spans: list[tuple[int, int]], refs: list[_Ref], words: list[str],
             lexicon: Lexicon, graph: WorldGraph, domain: Domain, rules: RuleSet) -> list[tuple[_Ref, _Ref, str]]:
    """(who, what, the verb) of each taking or answering that `stated` does not give a place."""
    placed = {t for s in stated if s.true for t in [(_placed(s.fact.predicate, s.fact.args, rules) or ("",))[0]]}
    out = []
    for start, end in spans:
        for i in range(start, end):
            eats = words[i] in _EATS
            if (words[i] not in lexicon.takes | lexicon.answers and not eats) or words[i] in (
                    "has", "have", "having") or (i > 0 and words[i - 1] in ("by", "a")) or _MODALS & set(
                    words[max(start, i - 3):i]):
                continue  # not "by hand", nor "can someone get it?"
            people = [r for r in refs if start <= r.start < i and not r.describes
                      and _all(graph, domain, r.names, "person")]
            things = [r for r in refs if i < r.start < end and not r.source and not r.describes
                      and _all(graph, domain, r.names, "item")]
            if eats:  # "ate the avocado": who ate it has it (the memory keeps no eaten things); not the plate
                things = [r for r in things[:1] if any(_all(graph, domain, r.names, k) for k in _EDIBLE
                                                        if domain.has_type(k))]
            if not people or not things:
                continue
            who, what = people[-1], things[0]
            if what.names & placed or any(graph.has_fact(Fact("has", (p, n))) for p in who.names for n in what.names):
                continue
            out.append((who, what, words[i]))
    return out


_WAY = frozenset({"off", "out", "back", "up", "down", "over", "through", "across", "along", "round", "around",
                  "straight", "right", "now", "just", "both", "all", "to", "into", "in", "the"})
"""Words that may stand between a verb of going and the room gone to ("has gone back out to the garage")."""
_INTO = frozenset({"to", "into", "in"})
_NOW_BE = frozenset({"is", "'s", "are", "'re"})
_NOW_IN = frozenset({"in", "now", "back", "into", "the"})
"""Between "is" and a room: "Michael's in kitchen 1", "she's back in the bedroom" (not "was": she may have left)."""


def _unmoved(stated: Sequence[Stated], spans: list[tuple[int, int]], refs: list[_Ref], sign_words: list[str],
             lexicon: Lexicon, graph: WorldGraph, domain: Domain) -> list[str]:
    """People a clause says went to a room ("Jessica and Michael have both gone out to the laundry room", "Michael's
    in kitchen 1") whom `stated` does not put in it (nor memory has there): a partial answer is not applied."""
    out: list[str] = []
    for who, room in _goings(stated, spans, refs, sign_words, lexicon, graph, domain):
        message = (f"the text says {' or '.join(sorted(who.names))} went to "
                   f"{' or '.join(_the(graph, r) for r in sorted(room.names))}: state where they are now")
        if message not in out:
            out.append(message)
    return out


def _goings(stated: Sequence[Stated], spans: list[tuple[int, int]], refs: list[_Ref], sign_words: list[str],
            lexicon: Lexicon, graph: WorldGraph, domain: Domain) -> list[tuple[_Ref, _Ref]]:
    """(who, room) of each person a clause says went to a room, or is in one now, that `stated` does not put there
    and memory does not have there. Not after a negation or a modal ("nobody went in", "wants to go to"):
    `sign_words` has those blanked."""
    said = {s.fact for s in stated if s.true}
    placed = [s.fact.args for s in stated if s.true and s.fact.predicate == "in_room"]
    """Who `stated` puts in which room ("went into the dining room and then to the living room": a room named later
    is where they are last)."""
    out: list[tuple[_Ref, _Ref]] = []
    for start, end in spans:
        for room in refs:
            if not (start <= room.start < end) or room.describes or room.source or not _all(
                    graph, domain, room.names, "room"):
                continue
            i = room.start - 1
            while i >= start and sign_words[i] in _WAY:
                i -= 1
            between = set(sign_words[i + 1:room.start])
            if i < start or not between & _INTO:
                continue
            if sign_words[i] in lexicon.goes and not _MODALS & set(sign_words[max(start, i - 3):i]):
                before = [r for r in refs if start <= r.start and r.end <= i]
            elif sign_words[i] in _NOW_BE and between <= _NOW_IN:
                before = [r for r in refs if start <= r.start and r.end == i]
            else:
                continue
            people = [r for r in before if not r.describes and _all(graph, domain, r.names, "person")]
            group = people[-1:]
            for earlier in reversed(people[:-1]):  # "Jessica and Michael ... gone": both went
                if [w for w in sign_words[earlier.end:group[0].start] if w] != ["and"]:
                    break
                group.insert(0, earlier)
            later = {p for p, r in placed if any(ref.start > room.start and r in ref.names for ref in refs)}
            out += [(who, room) for who in group if not who.names & later and not any(
                Fact("in_room", (p, r)) in said or graph.has_fact(Fact("in_room", (p, r)))
                for p in who.names for r in room.names)]
    for who, room in _carried_to(spans, refs, sign_words, lexicon, graph, domain):
        if not any(Fact("in_room", (p, r)) in said or graph.has_fact(Fact("in_room", (p, r)))
                   for p in who.names for r in room.names) and (who, room) not in out:
            out.append((who, room))
    return out


def _in_their_room(between: list[str]) -> bool:
    """The words between a person and their room: "(David) in (living room 2)", "(Michael) up in his (room)"."""
    return (between[:1] == ["up"] and _in_their_room(between[1:])) or between in (
        ["in"], ["in", "the"], ["in", "his"], ["in", "her"], ["in", "their"])


def _carried_to(spans: list[tuple[int, int]], refs: list[_Ref], sign_words: list[str], lexicon: Lexicon,
                graph: WorldGraph, domain: Domain) -> list[tuple[_Ref, _Ref]]:
    """(who, room) of each person who carried a thing to someone the text says is in a room ("took the album off
    the shelf and brought it to David in living room 2": the one who brought it went there too)."""
    carry = lexicon.moves | lexicon.takes | lexicon.gives
    out = []
    for start, end in spans:
        for to in refs:
            if not (start < to.start < end) or to.describes or sign_words[to.start - 1] != "to" or not _all(
                    graph, domain, to.names, "person"):
                continue
            room = next((r for r in refs if r.start > to.end and r.start < end and _all(graph, domain, r.names, "room")
                         and _in_their_room([w for w in sign_words[to.end:r.start] if w])),
                        None)
            verb = next((i for i in range(to.start - 2, start - 1, -1) if sign_words[i] in carry), None)
            if room is None or verb is None:
                continue
            people = [r for r in refs if r.end <= verb and not r.describes and r.names != to.names
                      and _all(graph, domain, r.names, "person")]
            if people:
                out.append((people[-1], room))
    return out


_PUT_TO = frozenset({"on", "onto", "in", "into", "inside"})


def _unplaced(stated: Sequence[Stated], spans: list[tuple[int, int]], refs: list[_Ref], sign_words: list[str],
              lexicon: Lexicon, graph: WorldGraph, domain: Domain, rules: RuleSet) -> list[str]:
    """Things a clause says were put somewhere ("put his lemon down on the coffee table") to which `stated` gives no
    new place (nor memory has them there already): an answer that only repeats what memory has is no record of
    the event."""
    moved = {t for s in stated if s.true and s.is_change(graph)
             for t in [(_placed(s.fact.predicate, s.fact.args, rules) or ("",))[0]] if t}
    out: list[str] = []
    for start, end in spans:
        for v in range(start, end):
            if sign_words[v] not in lexicon.moves or _MODALS & set(sign_words[max(start, v - 3):v]):
                continue
            after = [r for r in refs if v < r.start < end and not r.describes and not r.source]
            thing = next((r for r in after if _all(graph, domain, r.names, "item")), None)
            if thing is None:
                continue
            place = next((r for r in after if r.start > thing.start and _all(graph, domain, r.names, "receptacle")
                          and set(sign_words[max(thing.end, r.start - 3):r.start]) & _PUT_TO), None)
            if place is None or thing.names & moved or any(graph.has_fact(Fact(p, (n, w))) for n in thing.names
                                                            for w in place.names for p in ("on", "inside")):
                continue
            message = (f"the text says {' or '.join(_the(graph, n) for n in sorted(thing.names))} was put in or on "
                       f"{' or '.join(_the(graph, w) for w in sorted(place.names))}: state where it is now")
            if message not in out:
                out.append(message)
            break
    return out


def gone(stated: Sequence[Stated], mentions: Sequence[Mention], text: str, lexicon: Lexicon, rules: RuleSet,
         graph: WorldGraph, domain: Domain) -> list[Stated]:
    """What the text's going settles that `stated` leaves out: the one person it says went to (or is in) the one
    room is in it ("Michael's in kitchen 1 raiding the pantry, he's nicked the chocolate bar")."""
    _, sign_words, spans, refs = _parsed(text, mentions, lexicon, rules, graph, domain)
    out = []
    for who, room in _goings(stated, spans, refs, _affirmed(sign_words), lexicon, graph, domain):
        if len(who.names) == 1 and len(room.names) == 1 and domain.predicate("in_room") is not None:
            literal = Stated(Fact("in_room", (next(iter(who.names)), next(iter(room.names)))), True)
            if literal not in out:
                out.append(literal)
    return out


_EATS = frozenset({"ate", "eaten", "drank", "drunk", "scoffed", "munched", "gobbled", "devoured", "wolfed"})
"""Verbs of eating or drinking: the one who ate a food or drank a drink has it (what they ate off is a dish)."""
_EDIBLE = ("food", "drink")


def _all(graph: WorldGraph, domain: Domain, names: frozenset[str], type_: str) -> bool:
    return all(domain.is_subtype(graph.entity_type(n) or "", type_) for n in names)


def _uncovered(stated: Sequence[Stated], spans: list[tuple[int, int]], refs: list[_Ref], items: list[_Ref],
               sign_words: list[str], lexicon: Lexicon, graph: WorldGraph, domain: Domain) -> list[str]:
    """State words of a clause that fit things it names, which the answer does not state (and memory does not
    already have). A word that may say the state of things of several kinds ("off": a lamp or the TV) is covered
    when the things of one kind are ("turned off the lamp next to the TV" need not switch the TV off), except for
    the later `items` of a list after it: each of them is covered too ("switched on the light and the TV")."""
    said = {(s.fact, s.true) for s in stated}

    def covered(predicate: str, sign: bool, ref: _Ref) -> bool:
        facts = [Fact(predicate, (n,)) for n in ref.names]  # not by a thing the answer changes the other way ("killed
        # the pendant light and put the main kitchen light on": the pendant light, on till now, is not the one)
        return any((f, sign) in said or (graph.has_fact(f) == sign and (f, not sign) not in said) for f in facts)

    out: list[str] = []
    events = _events(sign_words)
    bare = [s for s in spans if not any(s[0] <= r.start < s[1] for r in refs)]  # "... and answered"
    for start, end in spans:
        if before_it(sign_words, start):
            continue  # "picked it up before it rang out": no state it has now
        here = [r for r in refs if start <= r.start < end and not r.describes and not r.source]
        for i in range(start, end):
            options = []
            for predicate, signs in lexicon.states.items():
                declared = domain.predicate(predicate)
                found = signs_in(events, i, i + 1, signs)  # not "it had been on all night"
                if declared is None or declared.arity != 1 or len(found) != 1:
                    continue
                fitting = [r for r in here if all(domain.is_subtype(graph.entity_type(n) or "", declared.types[0])
                                                  for n in r.names) and not _undone(
                    Stated(Fact(predicate, (next(iter(r.names)),)), next(iter(found))), start,
                    spans, [_span_of(spans, o.start) for o in refs if o.names & r.names] + bare, events, sign_words,
                    signs, lexicon)]  # "the phone rang and Jessica answered it" (or "... and answered"): "rang" is
                # not asked for
                if fitting and next(iter(found)) and signs.get(False, frozenset()) & lexicon.answers and (
                        picked_up_or_took_it(sign_words[i + 1:end], lexicon.takes)):
                    continue  # "the phone was ringing so she ran in and picked it up" ("... so she grabbed it"):
                    # answered, in one clause
                if fitting:
                    options.append((predicate, next(iter(found)), fitting))
            listed = [(p, sign, r) for p, sign, fitting in options for r in fitting
                      if r in items and r.start > i and not covered(p, sign, r)]
            if not options or (not listed and any(all(covered(p, sign, r) for r in fitting)
                                                  for p, sign, fitting in options)):
                continue
            predicate, sign, ref = listed[0] if listed else next(
                (p, sign, r) for p, sign, fitting in options[:1] for r in fitting if not covered(p, sign, r))
            names = sorted(ref.names)
            message = (f"the text says {_the(graph, names[0]) if len(names) == 1 else 'it'} "
                       f"{'is now' if sign else 'is no longer'} {_state(predicate)}; your answer does not")
            if message not in out:
                out.append(message)
    return out


def _affirmed(words: list[str], *, still: bool = True) -> list[str]:
    """`words` with each word that a negation of its clause reaches blanked ("nobody closed it": "closed" says
    nothing), and (with `still`) the words "still" stands before ("is still open": nothing to ask for; a state
    "still" so that memory does not have says memory was wrong); "no longer" is not a negation (it says the state
    stopped)."""
    out = list(words)
    for start, end in clauses(words):
        for i in range(start, end):
            if words[i] in _NEGATIONS and not (words[i] == "no" and i + 1 < end and words[i + 1] == "longer"):
                reach = _NEGATION_REACH
            elif words[i] in _STILL and still:
                reach = _STILL_REACH
            else:
                continue
            for j in range(i + 1, min(end, i + 1 + reach)):
                out[j] = ""
    return out


def placed(fact: Fact, rules: RuleSet) -> tuple[str, str] | None:
    """(thing, place) of a fact that gives a thing its one place (``on mug table``, ``in_room sarah kitchen``)."""
    return _placed(fact.predicate, fact.args, rules)


def _placed(predicate: str, args: tuple[str, ...], rules: RuleSet) -> tuple[str, str] | None:
    """(thing, place) of a fact that gives a thing its one place (``on mug table``, ``has sarah book``)."""
    for rule in rules.for_predicate(predicate):
        keys = rule.keys_of(predicate, args)
        if rule.max == 1 and rule.min and keys and len(args) == 2:
            thing = keys[0]
            return thing, args[1] if args[0] == thing else args[0]
    return None


def _moves(words: list[str], start: int, end: int, verbs: frozenset[str]) -> str | None:
    """``verb``: a verb of moving, taking, giving or going in the clause (not "by hand", "a hand"); else ``being``:
    "is in/on ..."; else None."""
    being = None
    for i in range(start, end):
        if words[i] in verbs and not (i > 0 and words[i - 1] in ("by", "a")):
            return "verb"
        if words[i] in _BE and any(w in _TO for w in words[i + 1:min(end, i + 4)]):
            being = "being"
    return being


def _spans(words: list[str], sign_words: list[str], lexicon: Lexicon,
           stops: frozenset[int] = frozenset(), asides: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
    """The clauses, a clause with no verb or state word joined to the one before ("cleaned the teapot and the
    bowl", "washed the pan and the glass, put them both away"); a clause that is all aside and names nothing
    (`asides`: "..., stared for a minute, ...") is joined too, but the clause after it is not."""
    out: list[tuple[int, int]] = []
    lead = False
    """The clauses so far are only things named, their verb still to come ("the cup and the bowl were washed")."""
    for k, (start, end, has_verb) in enumerate(_clauses(words, sign_words, lexicon, stops)):
        if out and (not has_verb or lead):
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
        lead = len(out) == 1 and not has_verb and not (k and set(range(start, end)) <= asides)
    return out


def _items(words: list[str], sign_words: list[str], lexicon: Lexicon,
           stops: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
    """The clauses joined to the one before (the later items of a list after one verb: "... and the bowl")."""
    out = []
    for k, (start, end, has_verb) in enumerate(_clauses(words, sign_words, lexicon, stops)):
        if k and not has_verb:
            out.append((start, end))
    return out


def _clauses(words: list[str], sign_words: list[str], lexicon: Lexicon,
             stops: frozenset[int] = frozenset()) -> list[tuple[int, int, bool]]:
    """The clauses (split at "and", "then", ... and after the words in `stops`: a comma or a stop follows them),
    each with whether it has a verb or state word of its own."""
    every_sign = lexicon.state_words
    verbs = lexicon.moves | lexicon.takes | lexicon.gives | lexicon.goes | lexicon.answers | _BE
    return [(start, end, not _so_was(words, start) and any(sign_words[i] in verbs or (  # (not "reading" of "the
                # reading lamp": the words of a thing named are no verb)
                sign_words[i] in every_sign and not from_a_place(words, i)) for i in range(start, end)))
            for start, end in clauses(words, stops)]


def _so_was(words: list[str], start: int) -> bool:
    """A clause "(and) so was the black plate": the same as the clause before, of another thing."""
    return 0 < start < len(words) and words[start - 1] == "so" and words[start] in _BE


def _span_of(spans: list[tuple[int, int]], index: int) -> tuple[int, int]:
    return next((s for s in spans if s[0] <= index < s[1]), (index, index + 1))


def _references(words: list[str], mentions: Sequence[Mention], graph: WorldGraph, domain: Domain,
                rules: RuleSet) -> list[_Ref]:
    """The mentions (each with the entities it may name) and the pronouns, each standing for the earlier mentions
    of its kind (a thing or a person; with no person named but as whose a thing is, that person)."""
    out = []
    carried = set()
    for mention in mentions:
        names = frozenset((*mention.candidates, *(mention.broader if mention.by_label else ())))
        if not names:
            continue
        if is_carried(words, mention, mentions, graph):
            carried.add(mention.start)
        describes = mention.qualifies is not None or mention.start in carried or says_which_place(words, mention)
        out.append(_Ref(mention.start, mention.end, names, describes, is_source(words, mention.start)))
    for i, word in enumerate(words):
        if word not in _THING_PRONOUNS | _PERSON_PRONOUNS:
            continue
        person = word in _PERSON_PRONOUNS  # what a person carries may be what "it" is ("done with his album, he
        # put it on the shelf")
        earlier = [r for r in out if r.end <= i and (not r.describes or r.start in carried) and all(
            domain.is_subtype(graph.entity_type(n) or "", "person") == person for n in r.names)]
        if not earlier and person:  # "Emily's silver smartphone rang and she picked it up": whose it is
            earlier = [r for r in out if r.end <= i and r.describes and all(
                domain.is_subtype(graph.entity_type(n) or "", "person") for n in r.names)][-1:]
        if earlier:
            out.append(_Ref(i, i + 1, frozenset().union(*(r.names for r in earlier)), False, False))
    return sorted(out, key=lambda r: r.start)


def _the(graph: WorldGraph, name: str) -> str:
    return f"the {label(graph, name)} ({name})"


def _state(predicate: str) -> str:
    return predicate.replace("_", " ")
