"""Why a request cannot be done in this home, found from its words and the grounded mentions, without the LLM.

A request is impossible here, and is answered so instead of planned, when it asks the robot (an imperative
clause: "bake a cake", "could you turn on the TV in the garage") to act on

- a thing the memory has nothing of: a noun phrase after a determiner ("a cake", "the microwave") that no mention
  covers, as what the verb acts on or as a place after a preposition ("in the microwave");
- a person who is not in the home: a name written with a capital in mid-sentence that no mention covers ("bring
  the tea to Robert");
- a fixture in a room where there is none: "the TV in the kitchen" when the only TV is in the living room;
- a state its type cannot have: "wash the dictionary" (only dishes get dirty), "open the book";
- a fixture, room or person to carry: "move the fridge", "bring me the sink" (only items are picked up);
- a skill the robot does not have: "vacuum the living room", "iron my shirt", "water the plants" (`NO_SKILL`), and
  running a machine: "start the dishwasher", "the dishwasher is full, can you run it?".

A thing given to a person is acted on too ("give Sarah the orange juice" when the memory has no juice: "orange" of
the orange magazine only describes it). A thing of another kind is no substitute: "the orange juice" when the only
juice is the apple juice (a word just before the thing's words that labels of the memory have, none of the things
it may be has, and no other mention covers).

Words for the whole home ("every light in the house") and a few nouns that are never things ("do me a favour")
are no missing thing; a clause that only says what is so ("the pan needs a good scrub", "it's dark in the
bathroom") is not read for this at all: the model reads it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.retrieval.grounding import STOPWORDS, Lexicon, Mention, made_a, noun_phrase_of, places_of, tokens
from l3mp.updates.meaning import clauses, label, signs_in
from l3mp.world.graph import WorldGraph

NOT_THINGS = frozenset({"house", "home", "flat", "apartment", "place", "everywhere", "favour", "favor", "hand",
                        "look", "moment", "minute", "second", "bit", "lot", "time", "way", "day", "night", "morning",
                        "evening", "one", "ones", "other", "others", "rest", "same", "hands", "arms", "head", "back",
                        "feet", "legs", "anymore", "honestly", "anyway", "anyways", "really", "actually", "again",
                        "either", "tho", "though", "already", "ever", "now", "today", "tonight", "tomorrow",
                        "seriously", "literally", "later", "soon", "yet", "too", "instead", "afterwards", "right",
                        "mind", "where", "how", "what", "which", "there", "here", "slice", "bite", "piece", "sip",
                        "drop", "chunk", "mouthful"})
"""Nouns after a determiner that never name a thing of the memory: the whole home, phrases of politeness or
time ("do me a favour", "for a moment"), the speaker's body ("got my hands full"), words that stand for a thing
named elsewhere ("the one in bedroom 1", "the rest"), and words of manner, time or thought ("not watching this
anymore honestly", "a cold beer right about now", "changed my mind about the avocado"), and a part of a thing
named elsewhere ("is there any pizza left? I'd kill for a slice")."""
_POLITE = frozenset({"please", "kindly", "could", "can", "would", "will", "you", "just", "also", "now", "then",
                     "hey", "robot", "ok", "okay", "so", "u", "pls", "plz", "ya", "well", "right"}) | frozenset({
    "ugh", "urgh", "argh", "hmm", "hm", "mmm", "mm", "oh", "ah", "ahh", "ooh", "um", "uh", "er", "erm", "ew", "eww",
    "yikes", "jeez", "gosh", "oops", "whoa", "wow", "damn", "dang", "blimey", "meh", "hi", "yo", "lol", "ow", "ouch",
    "honestly", "seriously", "god", "omg", "brr", "brrr", "brrrr", "phew", "pfft", "sigh", "tsk", "bah", "yuck",
    "gah", "eek", "huh", "hmph", "grr", "grrr"})
"""Words that may open an imperative clause before its verb ("could you please ...", "ugh, ...")."""
_NOT_VERBS = STOPWORDS | frozenset({"someone", "somebody", "anyone", "anybody", "everyone", "everybody", "there",
                                    "here", "what", "where", "who", "which", "why", "how", "when", "if", "thanks",
                                    "whoever", "whatever", "whichever", "nobody",
                                    "fancy", "fancied", "craving", "wanna", "gonna", "gotta",
                                    "thank", "yes", "no", "not", "all", "every", "each", "both", "did", "does"})
"""Words no asking clause opens with ("did anyone leave a tap running?" asks a question, not for a change)."""
_BE = frozenset({"is", "'s", "are", "was", "were", "has", "needs", "need", "looks", "seems", "got", "gets"})
_PARTICLES = frozenset({"up", "down", "off", "on", "out", "away", "back", "over", "me", "us", "him", "her", "them"})
DETERMINERS = frozenset({"the", "a", "an", "some", "my", "your", "his", "her", "their", "our", "this", "that",
                         "these", "those", "every", "all", "each", "any", "both"})
_PLACE_SENSE = frozenset({"out"})
"""State words that of a thing people carry say where it is ("left the butter out"), not a state it cannot have."""
_REFERS_BACK = frozenset({"it", "them"})
"""Words of a clause for the things of the clause before it."""
_PLACE_WORDS = frozenset({"in", "inside", "into", "on", "onto", "to", "at", "from", "with"})
"""Words before a place the request acts with or at ("in the microwave"); not those that only say which thing is
meant ("the lamp next to the bed", "near the window"): the thing may be there whatever the memory calls the place."""
_BESIDE = frozenset({"next", "close", "near", "beside", "behind", "under", "over", "above", "by"})
_GENERIC = frozenset({"nice", "little", "small", "big", "large", "usual", "same", "last", "other", "fresh", "cold",
                      "hot", "warm", "whole", "new", "old", "favourite", "favorite", "good", "spare", "extra", "half",
                      "full", "empty", "tasty", "yummy", "lovely", "single", "entire", "leftover", "clean", "dirty",
                      "cool", "chilled", "quick", "proper", "real", "fancy", "plain", "regular", "normal", "one",
                      "only", "right", "wrong", "first", "second", "third", "next", "whatever", "any", "more",
                      "another", "couple", "few", "bit", "piece", "ripe", "tiny", "huge", "damn", "bloody", "stupid"})
"""Words before a noun that say nothing of which kind of thing it is ("a nice cold drink")."""
_EVERYTHING = frozenset({"everything", "anything", "something", "stuff", "things", "whatever"})
"""Words for whatever is at a place ("everything in the kitchen"): a state word then is for those things."""
_MEALS = frozenset({"dinner", "lunch", "breakfast", "supper", "tea", "a", "some", "something", "everything", "it",
                    "them", "my", "your"})
"""Words after a verb of a skill the robot lacks that say it is asked ("cook dinner", "iron it")."""
LOCATED = frozenset({"in", "inside", "at", "on"})
_NOT_NAMES = frozenset({"nobody", "noone", "nothing", "something", "everything", "anything", "mum", "mom", "dad",
                        "mummy", "daddy", "grandma", "grandpa", "nan", "gran", "baby", "kid", "kids", "today",
                        "tonight", "tomorrow", "yesterday", "dinner", "lunch", "breakfast", "tea", "bedtime",
                        "everyone"})
"""Words that may open a sentence before "'s" and are no name of a person missing from memory ("Nobody's in
there", "Mum's asking")."""
_EVERYWHERE = frozenset({"everywhere", "round", "around", "downstairs", "upstairs"})
"""Words after a verb of a skill the robot lacks that say where ("vacuum in the living room", "hoover round")."""
"""Words after a thing that say where the thing is ("the TV in the kitchen")."""
NO_SKILL = frozenset({"vacuum", "hoover", "mop", "sweep", "dust", "iron", "cook", "bake", "fry", "boil", "roast",
                      "grill", "heat", "warm", "microwave", "toast", "brew", "water", "feed", "fold", "repair", "fix",
                      "paint", "charge", "mow", "sew", "wipe", "polish", "unplug", "plug", "lock", "unlock", "chop",
                      "cut", "peel", "pour"})
"""Verbs of skills the robot does not have (the household domain moves items, opens and closes containers,
switches devices, washes dishes, gives things and answers phones): a request that opens with one of them cannot be
done here."""
_RUNNING = frozenset({"run", "start"})
_APPLIANCES = frozenset({"dishwasher", "oven", "microwave", "kettle", "dryer", "toaster"})
"""Machines the robot may open or close at most: running one ("start the dishwasher") is no action of this home."""
CARRY_VERBS = frozenset({"move", "moved", "carry", "bring", "take", "put", "place", "drop", "hand", "give", "pass",
                         "fetch", "grab", "pick", "lift", "push", "pull", "drag", "shift", "relocate", "return"})
"""Verbs of carrying a thing: what they act on must be an item ("move the fridge" cannot be done)."""
_BOUNDARY = re.compile(r"[,.;:!?()\"]+")
_WORD = re.compile(r"[A-Za-z0-9]+|'[sS]\b")
"""`tokens` on text that keeps its capitals (the same splits)."""
PHRASE_WORDS = 4
"""Words of a noun phrase looked at after its determiner."""


@dataclass(frozen=True)
class Clause:
    """A clause of a request (token span) and, when it asks for something, the index of its imperative verb."""

    start: int
    end: int
    verb: int | None


def why_impossible(task: str, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain, rules: RuleSet,
                   lexicon: Lexicon) -> str | None:
    """Why `task` cannot be done in this home (a sentence for people), or None (see the module docstring).
    `mentions` are the task's mentions grounded over the whole graph."""
    words = tokens(task)
    covered = {i for m in mentions for i in range(m.start, m.end)}
    known = _known_words(graph, lexicon)
    type_words = frozenset(w for ws in lexicon.type_words.values() for w in ws)
    earlier: Clause | None = None
    said = clauses_of(task, words, covered)
    if said and all(c.verb is None for c in said) and not any(m.candidates for m in mentions):
        # "the plants on the windowsill are looking pretty thirsty...": a complaint about what the home has not
        for clause in said:  # (the words from its start are read as if a verb stood before them)
            why = _missing_thing(words, _as_if_asked(words, clause), mentions, covered, known, graph, domain,
                                 type_words)
            if why:
                return why
    for clause in said:
        if clause.verb is None:
            why = _missing_thing(words, _as_if_asked(words, clause), mentions, covered, known, graph, domain,
                                 type_words)
            if why and type_words & set(tokens(why)):  # "is that my phone going off?? pick it up": no phone here
                return why
            earlier = clause
            continue
        why = (_missing_thing(words, clause, mentions, covered, known, graph, domain, type_words)
               or _another_kind(words, clause, mentions, covered, known, graph, domain, lexicon)
               or _state_not_for(words, clause, mentions, graph, domain, lexicon, earlier)
               or _nothing_there(words, clause, mentions, graph, domain, rules, lexicon)
               or _not_carried(words, clause, mentions, graph, domain, lexicon)
               or _no_skill(words, clause, covered, lexicon))
        if why:
            return why
        earlier = clause
    return _missing_person(task, words, covered, known)


def _as_if_asked(words: list[str], clause: Clause) -> Clause:
    """A clause that asks for nothing read as if a verb stood just before its first determiner ("is that my phone
    going off", "the plants on the windowsill ..."), so that the thing it speaks of is looked for in memory."""
    first = next((k for k in range(clause.start, clause.end) if words[k] in DETERMINERS), clause.start)
    return replace(clause, verb=first - 1)


# ---- clauses -------------------------------------------------------------------------------------------------
def _pieces(task: str) -> list[tuple[int, int]]:
    """Token spans of the text between punctuation marks."""
    out, at = [], 0
    for piece in _BOUNDARY.split(task):
        n = len(tokens(piece))
        if n:
            out.append((at, at + n))
        at += n
    return out


def clauses_of(task: str, words: list[str], covered: set[int]) -> list[Clause]:
    """The clauses of a request (split at punctuation and at "and", "but", ...; `words` are its `tokens`,
    `covered` the token indices its mentions cover). A clause asks for something when it opens (after words of
    politeness) with a verb: a word that is no pronoun, no known thing, and not followed by a word of being
    ("Michael is ...", "the pan needs ..."); the others say what is so."""
    out = []
    for start, end in _pieces(task):
        for c_start, c_end in clauses(words[start:end]):
            first, last = start + c_start, start + c_end
            i = first
            while i < last and words[i] in _POLITE:
                i += 1
            wish = _wished(words, i, last)
            imperative = wish is not None or (i < last and words[i] not in _NOT_VERBS and i not in covered and not (
                i + 1 < last and words[i + 1] in _BE) and not (first >= 2 and words[first - 1] == "so" and words[
                    first - 2] in _BE))  # "it's so dark in here": how it is ("so" is no break there)
            if first < last:
                out.append(Clause(first, last, (i if wish is None else wish) if imperative else None))
    return out


_WISHES = frozenset({"have", "get", "want", "need", "like"})


def _wished(words: list[str], i: int, end: int) -> int | None:
    """The verb of a clause that asks as a wish ("can I have the red glass", "I'd like the TV on", "we need the
    lights off"), or None (also for "I want to ...", most often a reason: "I want to try that curry recipe")."""
    if i >= end or words[i] not in ("i", "we"):
        return None
    j = i + 1
    if j < end and words[j] in ("'d", "d", "would", "really", "just", "do", "'ll", "will"):
        j += 1
    if j >= end or words[j] not in _WISHES:
        return None
    if j + 1 < end and words[j + 1] == "to":
        return None  # "I need to wash my face, ...": the reason for the request, not the request
    return j


# ---- a thing the memory has nothing of ------------------------------------------------------------------------
_NOT_NOUNS = frozenset({"as", "so", "too", "again", "now", "then", "already", "anyway", "first", "after", "later",
                        "tonight", "today", "yet", "also", "instead", "alone", "either", "ok", "okay", "quickly"})
"""Words after a room that name no thing ("leave the TV in the living room as it is")."""
_HOW_IT_IS_MADE = frozenset({"make", "makes", "making", "made", "keep", "keeps", "keeping", "kept", "get", "gets",
                             "getting", "got", "leave", "leaves", "leaving", "left", "have", "has", "having"})
"""Verbs whose object may be followed by how it should be: "make the living room cosy", "keep the kitchen warm";
the word after the room there is no thing the home lacks."""


def _missing_thing(words: list[str], clause: Clause, mentions: Sequence[Mention], covered: set[int],
                   known: set[str], graph: WorldGraph, domain: Domain,
                   type_words: frozenset[str] = frozenset()) -> str | None:
    """The first noun phrase the verb acts on (after the person it is given to: "give Sarah the juice") or a
    preposition introduces whose words no mention covers and whose noun no label or type word of the memory has
    (`known`: "a soda" for the soda can is not missing); words that only describe a thing of the memory ("orange"
    of the orange magazine) do not cover the noun after them ("the orange juice")."""
    verb = clause.verb
    if verb is None:
        return None
    people = {i for m in mentions if m.candidates and all(_is(graph, domain, n, "person") for n in m.candidates)
              for i in range(m.start, m.end)}
    rooms = {i for m in mentions if m.candidates and all(_is(graph, domain, n, "room") for n in m.candidates)
             for i in range(m.start, m.end)}
    covered = covered - _describing_only(words, mentions, covered, known, graph, type_words)
    for i in range(verb + 1, clause.end):
        if words[i] not in DETERMINERS or i + 1 >= clause.end:
            continue
        before = range(verb + 1, i)
        acted_on = all(words[j] in _PARTICLES | DETERMINERS or j in people for j in before)
        placed = i > 0 and words[i - 1] in _PLACE_WORDS and not (i > 1 and words[i - 2] in _BESIDE)
        if not (acted_on or placed):
            continue
        phrase = []
        for j in range(i + 1, min(clause.end, i + 1 + PHRASE_WORDS)):
            if words[j] in STOPWORDS or words[j] in _PLACE_WORDS or words[j] in DETERMINERS or words[j] in (
                    "for", "please", "that", "which", "who", "except", "excluding", "besides", "but", "n", "&",
                    "about", "around") or (
                    phrase and (words[j] in _PARTICLES or words[j].endswith("ing"))):
                # "pop the wine back in the fridge", "the pots n pans sitting in the sink": no noun after the first
                break
            phrase.append(j)
        if phrase and any(j in covered for j in phrase) and not (
                acted_on and phrase[-1] not in covered and all(j in rooms for j in phrase if j in covered)
                and words[phrase[-1]].isalpha() and words[phrase[-1]] not in _NOT_NOUNS
                and words[verb] not in _HOW_IT_IS_MADE):
            # (a room before a noun nothing covers, what the verb acts on, says where that thing is: "close the
            # bedroom window"; not a place: "the telly in the living room stays on")
            contents = _contents_missing(words, phrase[-1] + 1, clause.end, covered, known)
            if contents:  # "a glass of milk" with no milk: the glass is no substitute
                return f"there is no {contents} in memory"
            continue
        if not phrase or words[phrase[-1]] in NOT_THINGS | _EVERYTHING:
            continue  # "put all the clean stuff away": whatever the rest of the clause says, not a thing
        if any(words[j] in NOT_THINGS for j in phrase) or words[phrase[-1]] in known or _ends_a_known_word(
                words[phrase[-1]], known):
            continue  # "the pots": the teapot and the saucepan are pots too
        if _of_a_known_thing(words, phrase[-1] + 1, clause.end, covered):
            continue  # "the washing up of the purple serving dish": what is done to a thing the memory has
        return f"there is no {' '.join(words[j] for j in phrase)} in memory"
    return None


def _ends_a_known_word(word: str, known: set[str]) -> bool:
    """Whether `word` (or its singular) ends a longer word of the memory's labels ("pot" of "teapot", "pan" of
    "saucepan")."""
    stem = word[:-1] if word.endswith("s") and len(word) > 3 else word
    return len(stem) >= 3 and any(len(k) > len(stem) and k.endswith(stem) for k in known)


def _another_kind(words: list[str], clause: Clause, mentions: Sequence[Mention], covered: set[int], known: set[str],
                  graph: WorldGraph, domain: Domain, lexicon: Lexicon) -> str | None:
    """A thing the clause names with a word before it that the memory's labels have but none of the things it may
    be ("the orange juice" when the only juice is the small apple juice): not that thing."""
    states = lexicon.state_words
    types = frozenset(w for ws in lexicon.type_words.values() for w in ws)
    for m in mentions:
        at = m.start - 1
        if not (clause.start <= at and m.end <= clause.end) or not m.candidates or at in covered:
            continue
        said = words[at]
        if said in DETERMINERS | STOPWORDS | states | types | _PARTICLES | _GENERIC or said.isdigit():
            continue
        if any(_is(graph, domain, n, k) for n in m.candidates for k in ("person", "room")):
            continue
        if said not in known and not _another_word_of_its_kind(said, m, graph, domain):
            continue
        if not any(said in tokens(label(graph, n)) for n in m.candidates):
            only = " or ".join(f"the {label(graph, n)}" for n in m.candidates[:3])
            return f"there is no {said} {m.words} in memory (only {only})"
    return None


def _another_word_of_its_kind(said: str, mention: Mention, graph: WorldGraph, domain: Domain) -> bool:
    """A word the memory does not know before the noun of portable things whose labels each have a word of their
    own there ("the granola bar" when the only bar is the small chocolate bar): another kind of the thing. Words for
    fixtures are left alone ("the ceiling light" may well be the overhead light)."""
    if not said.isalpha() or len(mention.words.split()) != 1:
        return False
    if not all(_is(graph, domain, n, "item") for n in mention.candidates):
        return False
    for name in mention.candidates:
        phrase = tokens(noun_phrase_of(label(graph, name)))
        if len(phrase) < 2 or phrase[-1] != mention.words or phrase[-2] in _GENERIC:
            return False
    return True


def _contents_missing(words: list[str], start: int, end: int, covered: set[int], known: set[str]) -> str | None:
    """The noun after ``of`` that follows a thing of the memory, when no mention covers it and the memory has no
    word for it ("a glass of milk", "a cup of tea"): what is asked for is the contents, and there is none. Not a
    thing's part or amount the memory has words for ("a glass of water" with a water bottle)."""
    while start < end and start in covered:
        start += 1
    if start + 1 >= end or words[start] != "of":
        return None
    i = start + 1
    while i < end and words[i] in DETERMINERS:
        i += 1
    phrase = []
    while i < end and len(phrase) < PHRASE_WORDS and words[i] not in STOPWORDS | _PLACE_WORDS | DETERMINERS | {
            "for", "please", "that", "which", "who"}:
        phrase.append(i)
        i += 1
    if not phrase or any(j in covered for j in phrase) or any(words[j] in NOT_THINGS for j in phrase):
        return None
    if words[phrase[-1]] in known or words[phrase[-1]].isdigit():
        return None
    return " ".join(words[j] for j in phrase)


def _of_a_known_thing(words: list[str], start: int, end: int, covered: set[int]) -> bool:
    """Whether ``of`` follows (after particles) and a mentioned thing after it."""
    i = start
    while i < end and words[i] in _PARTICLES:
        i += 1
    if i >= end or words[i] != "of":
        return False
    i += 1
    while i < end and words[i] in DETERMINERS:
        i += 1
    return i < end and any(j in covered for j in range(i, min(end, i + PHRASE_WORDS)))


def _describing_only(words: list[str], mentions: Sequence[Mention], covered: set[int], known: set[str],
                     graph: WorldGraph, type_words: frozenset[str] = frozenset()) -> set[int]:
    """Token indices of mentions whose words are no noun of their candidates' labels (only words that describe:
    "orange" of the orange magazine) and that a noun no mention covers and the memory has no word for follows
    ("the orange juice")."""
    out: set[int] = set()
    for m in mentions:
        if m.end >= len(words) or m.end in covered or words[m.end] in known or words[m.end] in STOPWORDS:
            continue
        nouns = {w for n in m.candidates for w in [w for w in tokens(noun_phrase_of(label(graph, n)))
                                                     if not w.isdigit()][-1:]}  # "bathroom 1": bathroom
        nouns |= type_words  # "the tap" of a faucet: the noun, in the lexicon's words for its type
        said = set(m.words.split())
        if m.candidates and not said & nouns and not any(w.rstrip("s") in nouns for w in said):
            out.update(range(m.start, m.end))
    return out


def _known_words(graph: WorldGraph, lexicon: Lexicon) -> set[str]:
    """Every word of the memory's labels, and the lexicon's words for the types it has things of (with plurals)."""
    types = {graph.entity_type(n) or "" for n in graph.entities()}
    words = {w for n in graph.entities() for w in tokens(label(graph, n))}
    words |= {w for t in types for w in lexicon.type_words.get(t, ())}
    return words | {w + "s" for w in words} | {w + "es" for w in words}


def _missing_person(task: str, words: list[str], covered: set[int], known: set[str] = frozenset()) -> str | None:
    """A name (a capital in mid-sentence, no determiner before it; or at the start, with "'s" after it and no word of
    the memory: "Emma's been asking for tea") that no mention covers."""
    cased = _WORD.findall(task.replace("\u2019", "'"))
    if len(cased) != len(words):
        return None
    starts = {s for s, _ in _pieces(task)}
    for i, word in enumerate(cased):
        if i in starts and i not in covered and words[i + 1:i + 2] == ["'s"] and word[0].isupper() and word[
                1:].islower() and words[i] not in known | STOPWORDS | _POLITE | _NOT_VERBS | _NOT_NAMES:
            return f"nobody called {word} is in memory"
        if (i in starts or i in covered or word == "I" or not word[0].isupper() or not word[1:].islower()
                or words[i - 1] in DETERMINERS or words[i] in DETERMINERS | STOPWORDS | _POLITE):
            continue
        return f"nobody called {word} is in memory"
    return None


# ---- a state the thing cannot have ----------------------------------------------------------------------------
def _state_not_for(words: list[str], clause: Clause, mentions: Sequence[Mention], graph: WorldGraph,
                   domain: Domain, lexicon: Lexicon, earlier: Clause | None = None) -> str | None:
    """A state word of the clause ("wash", "open", "off") that fits none of the things the clause names, or, when
    it names none and says "it" or "them", the things the clause before it names ("the dictionary got jam on it,
    could you wash it?")."""
    things = _acted_on(words, clause, mentions, graph, domain)
    before: list[Mention] = []
    """With "it" or "them" for things of the clause before, the things named before that: "it" may be one of them
    ("left the ham out AND the fridge wide open, put the ham back in and shut it": the fridge)."""
    if not things and earlier is not None and _REFERS_BACK & set(words[clause.verb or clause.start:clause.end]):
        things = [m for m in mentions if earlier.start <= m.start < earlier.end and m.candidates and not any(
            _is(graph, domain, n, kind) for n in m.candidates for kind in ("room", "person"))]
        # "put the plate in the dishwasher and close it": "it" may be any of them, the places too ("get Jessica the
        # ham out of the fridge, and close it": the fridge); never a person
        before = [m for m in mentions if m.start < earlier.start and m.candidates and not any(
            _is(graph, domain, n, kind) for n in m.candidates for kind in ("room", "person"))]
    if not things or _EVERYTHING & set(words[clause.start:clause.end]):
        return None  # "turn off everything in living room 2": the room's things, not the room
    for i in range(clause.start, clause.end):
        if words[i] in ("on", "off") and words[i + 1:i + 2] and words[i + 1] in DETERMINERS | {"one", "top"}:
            continue  # "it's on one of the desks": a place, not a state
        predicates = [p for p, signs in lexicon.states.items() if signs_in(words, i, i + 1, signs)
                      and domain.predicate(p) is not None and domain.predicate(p).arity == 1]
        if not predicates:
            continue
        wanted = {domain.predicates[p].types[0] for p in predicates}
        names = [n for m in things for n in m.candidates if not _is(graph, domain, n, "person")]
        if not names:
            continue  # "leave Sarah's on": her light, said without its noun; never a state of a person
        if any(domain.is_subtype(graph.entity_type(n) or "", t) for n in names for t in wanted):
            continue
        if any(domain.is_subtype(graph.entity_type(n) or "", t) for m in before for n in m.candidates for t in wanted):
            continue
        if words[i] in _PLACE_SENSE and any(_is(graph, domain, n, "item") for n in names):
            continue  # "did someone leave the butter out?": out of its place, not a light that is out
        kind = graph.entity_type(names[0]) or "thing"
        return (f"\"{words[i]}\" does not apply to the {label(graph, names[0])}: {' or '.join(sorted(predicates))} "
                f"is for {' and '.join(sorted(_plural(t) for t in wanted))}, not {_plural(kind)}")
    return None


def _acted_on(words: list[str], clause: Clause, mentions: Sequence[Mention], graph: WorldGraph,
              domain: Domain) -> list[Mention]:
    """The clause's things that are no place: not a room, nor after a word of place ("the pans in the sink")."""
    return [m for m in _things(mentions, clause) if not _placed_at(words, m, clause) and not any(
        _is(graph, domain, n, "room") for n in m.candidates)]


def _placed_at(words: list[str], mention: Mention, clause: Clause) -> bool:
    """A mention after a word of place ("in the sink"): where something is, not what is acted on ("switch on the
    lamp": "on" right after the verb is part of it)."""
    i = mention.start - 1
    while i >= 0 and words[i] in DETERMINERS:
        i -= 1
    return i >= 0 and words[i] in _PLACE_WORDS and (clause.verb is None or i - 1 > clause.verb)


def _plural(noun: str) -> str:
    return noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")


def _things(mentions: Sequence[Mention], clause: Clause) -> list[Mention]:
    """The clause's mentions that name what is acted on (not a place that only says which one is meant)."""
    return [m for m in mentions if clause.start <= m.start < clause.end and m.qualifies is None and m.candidates]


# ---- a thing at a place where there is none ---------------------------------------------------------------------
def _nothing_there(words: list[str], clause: Clause, mentions: Sequence[Mention], graph: WorldGraph,
                   domain: Domain, rules: RuleSet, lexicon: Lexicon) -> str | None:
    """``the TV in the kitchen`` when no TV is there: a room after a fixture that none of the fixtures is in
    (fixtures never move, so after a verb of moving too: "put the telly on in the kitchen"). Not for items (they
    move: the memory may not know yet where it is now, and after a verb of moving the room is where it goes) nor
    for places other than rooms ("the lamp on the desk" stands beside it)."""
    for thing in _things(mentions, clause):
        after = thing.end + (thing.end + 1 < clause.end and words[thing.end] in ("on", "off", "up"))
        if after >= clause.end or words[after] not in LOCATED:  # "put the telly on in the kitchen": one word
            continue
        place = next((m for m in mentions if after < m.start <= after + 2), None)
        if place is None or (place.end < len(words) and words[place.end] == "'s"):
            continue
        at = {*place.candidates, *place.alternatives, *place.broader}
        if not at or any(_is(graph, domain, n, "person") for n in at):
            continue
        if any(_is(graph, domain, n, "item") for n in thing.candidates) or not all(
                _is(graph, domain, n, "room") for n in at):
            continue
        names = {*thing.candidates, *thing.alternatives, *thing.broader}
        if any(places_of(graph, rules, n) & at for n in names):
            continue
        rooms = sorted({label(graph, p) for n in names for p in places_of(graph, rules, n)
                        if _is(graph, domain, p, "room")})
        elsewhere = f" (only in {', '.join(rooms)})" if rooms else ""
        return f"there is no {thing.words} {words[thing.end]} the {place.words} in memory{elsewhere}"
    return None


# ---- a fixture to carry, a skill the robot does not have -------------------------------------------------------
def _not_carried(words: list[str], clause: Clause, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain,
                 lexicon: Lexicon) -> str | None:
    """``move the fridge``: a verb of carrying whose first thing after it (not a person it is given to) is no item;
    not when the clause has a state word ("put the TV on" switches it on)."""
    verb = clause.verb
    if verb is None or words[verb] not in CARRY_VERBS or not domain.has_type("item"):
        return None
    if any(signs_in(words, i, i + 1, signs) for i in range(clause.start, clause.end)
           for signs in lexicon.states.values()):
        return None
    after = [m for m in mentions if verb < m.start < clause.end and m.qualifies is None and m.candidates]
    things = [m for m in after if not all(_is(graph, domain, n, "person") for n in m.candidates)]
    if not things:
        return None
    thing = things[0]
    at = thing.start - 1
    while at > verb and words[at] in DETERMINERS:
        at -= 1
    if words[at] == "from" or (words[at] == "of" and words[at - 1] == "out"):
        return None  # "bring Jessica something from the fridge": where it is taken from
    between = words[verb + 1:thing.start]
    if _REFERS_BACK & set(between):
        return None  # "gather the magazines and put them on the wall shelf", "bring them back there": the place
    if not all(w in _PARTICLES | DETERMINERS for w in between) and not any(
            m.start > verb and m.end <= thing.start for m in after):
        return None
    if any(_is(graph, domain, n, "item") for n in (*thing.candidates, *thing.alternatives)):
        return None
    return f"the {thing.words} cannot be moved: it is not an item, and the robot only carries items"


def _no_skill(words: list[str], clause: Clause, covered: set[int], lexicon: Lexicon) -> str | None:
    """A clause that opens with a verb of a skill the robot does not have (`NO_SKILL`), said of something: a
    determiner, a thing, a particle or a meal after it ("vacuum the living room", "cook dinner"; not "water cost a
    fortune")."""
    verb = clause.verb
    if verb is not None and words[verb] in lexicon.makes and any(
            made_a(words, k, lexicon.makes) for k in (verb + 2, verb + 3) if k < clause.end):
        return f"the robot cannot {words[verb]} food or drinks: no action of this home does that"  # "make me a coffee"
    if verb is not None and words[verb] in _RUNNING:  # "start the dishwasher", "the dishwasher is full, run it"
        said = [w for w in words[verb + 1:min(clause.end, verb + 4)] if w not in DETERMINERS]
        named = said[0] if said and said[0] in _APPLIANCES else next(
            (w for w in reversed(words[:clause.start]) if w in _APPLIANCES), None) if said[:1] == ["it"] else None
        if named is not None:
            return f"the robot cannot run the {named}: it can open, close and load it, no more"
    if verb is None or words[verb] not in NO_SKILL:
        return None
    after = words[verb + 1] if verb + 1 < clause.end else ""
    if after and after not in DETERMINERS | _PARTICLES | _MEALS | LOCATED | _EVERYWHERE and verb + 1 not in covered:
        return None
    return f"the robot cannot {words[verb]}: no action of this home does that"


def _is(graph: WorldGraph, domain: Domain, name: str, kind: str) -> bool:
    return domain.has_type(kind) and domain.is_subtype(graph.entity_type(name) or "", kind)
