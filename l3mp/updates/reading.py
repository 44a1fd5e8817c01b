"""Reading a plain report from its words and the grounded mentions alone, so that the LLM is asked only when needed.

Each clause of the text (split at "and", "then", "but", ...) is read with the domain's lexicon:

- a state word for a thing that has that state: "switched the lamp off", "the phone is ringing", "washed the mug";
- a verb of moving, the thing and where it went: "put the mug in the sink", "brought it to the desk";
- a verb of taking and the person who took it: "Sarah took the salad", "... and picked up the phone";
- a verb of giving and the person given to: "gave Michael the book", "handed the novel to Sarah";
- a verb of going and the room: "went to the kitchen"; "X is in/on Y" says where a thing or person is now.

A reading is returned only when it explains the whole text: every thing the text names (other than the places
that only say which thing is meant, or where something came from) is changed or is who did it, every such verb
and state word is used, and nothing is left the reader does not know (a negation, a noun it could not ground,
"a new ...", a pronoun without a thing before it). Otherwise the model reads the text. Either way the literals go
through the same mends, settling of alike things, meaning checks and verification (`l3mp.updates.updater`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.domain.triplets import Fact
from l3mp.retrieval.grounding import (
    STOPWORDS,
    Lexicon,
    Mention,
    outside_mentions,
    pauses,
    places_of,
    token_spans,
    tokens,
    unexplained_at,
)
from l3mp.updates.meaning import (
    BACK_WORDS,
    DOUBT_WORDS,
    PICK_WORDS,
    Stated,
    clauses,
    each_of,
    from_a_place,
    is_carried,
    is_source,
    is_where_it_is,
    picked_up,
    places_for,
    signs_in,
)
from l3mp.world.graph import WorldGraph

_NEGATIONS = frozenset({"not", "t", "never", "no", "nobody", "nothing", "without", "instead", "almost", "if",
                        "should", "will", "would", "wants", "want", "going"}) | DOUBT_WORDS
"""Words after which a plain reading may be wrong: negation, doubt, plans ("is going to put ..."); "instead" only
before "of" ("switched the lamp on instead of the light"), not at a clause's end ("... and switched the one in the
living room on instead")."""
_NEW = frozenset({"new", "another", "bought", "got"})
_REQUEST_BLOCKERS = frozenset({"not", "t", "never", "no", "nobody", "nothing", "without", "instead", "leave", "keep",
                               "except", "unless", "if", "new", "another", "don", "dont"})
"""Words after which a plain reading of a request may be wrong: negation, exceptions, "leave X as it is"."""
_DOUBT = frozenset({"not", "t", "never", "no", "maybe", "probably", "might", "think", "guess", "sure", "if", "or",
                    "unless", "instead", "wrong"})
_THING_PRONOUNS = frozenset({"it", "them"})
_EATS = frozenset({"ate", "eaten", "eat", "eats", "eating", "drank", "drunk", "drink", "drinks", "drinking",
                   "finished", "polished"})
"""Verbs of eating or drinking: "it" after them is the food or drink named before, not the dish it was in."""
_FEW = 3
"""The most things a plural mention may name for a plain reading ("both wine glasses")."""
_PERSON_PRONOUNS = frozenset({"he", "she", "they"})
_SOMEONE_ELSE = frozenset({"i", "we", "someone", "somebody"})
"""Who does something, not a person the memory knows ("... and I handed her the bottle")."""
_TO = frozenset({"in", "into", "on", "onto", "to", "inside"})
_TOWARDS = frozenset({"to", "into", "onto"})
"""Words of where a thing taken was carried ("took the book to the desk"); not "in" or "on", which may say where
it was ("took the mug on the counter")."""
_FILLERS = frozenset({"down", "back", "up", "away", "out", "over", "there", "still", "upstairs", "downstairs",
                      "already", "just", "finally", "currently", "sat", "sitting", "stood", "standing", "lying"})
_BE = frozenset({"is", "'s", "are", "was", "were", "now"})
_DETERMINERS = frozenset({"the", "a", "an", "his", "her", "their", "my", "our", "your"})
_OUGHT = frozenset({"should", "must", "ought", "needs", "need", "to", "be", "really", "belongs", "goes", "go",
                    "stay", "stays", "kept"})
"""Words of a request that say where a thing should be ("the wine bottle should really be in the fridge")."""


@dataclass(frozen=True)
class Reading:
    """What a plain text states (empty: nothing new) and the alike things the reading itself told apart (the
    book the giver has), which the settling by state leaves as they are."""

    stated: list[Stated]
    settled: frozenset[str] = frozenset()
    unknown: tuple[str, ...] = ()
    """Things listed beside a known one that the memory has none of ("the bread loaf and the bananas"): nothing is
    recorded of them (language never adds things), and the answer says so."""
    implied: frozenset[str] = frozenset()
    """Things the text does not name that its words change all the same, found in memory ("the dishwasher's done,
    everything in there is clean": the dirty things inside it)."""


@dataclass
class _Thing:
    """A mention, or a pronoun standing for an earlier one, with what it names."""

    start: int
    end: int
    mention: Mention
    kind: str


def read(text: str, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain, rules: RuleSet,
         lexicon: Lexicon, *, request: bool = False, speaker: str | None = None) -> Reading | None:
    """What `text` states, read without the LLM (empty: it reports nothing new, "the wine bottle is on the
    counter" when one is); None when the text is not plain enough (see the module docstring).

    With `request`, the text asks the robot for something ("turn off all the lights in the kitchen", "bring me the
    banana"): the literals are what must hold once it is done, "me" is `speaker`, and "all the X" names each."""
    words = tokens(text)
    blockers = _REQUEST_BLOCKERS if request else _NEGATIONS | _NEW
    aside = (set() if request else _asides(text, words, mentions, lexicon, graph, domain)) | _got_no_new(
        words, lexicon)
    washed = None if request else _all_washed(text, words, mentions, graph, domain)
    if washed is not None:
        return washed
    listed = {} if request else _listed_unknown(words, mentions, graph, domain)
    if listed:  # read the rest as if they had not been said
        cut = {i for span in listed.values() for i in span}
        spans = token_spans(text)
        kept = "".join(text[a:b] for a, b in _kept(spans, cut, len(text)))
        shift = [sum(1 for j in cut if j < i) for i in range(len(words) + 1)]
        moved = [replace(m, start=m.start - shift[m.start], end=m.end - shift[m.end]) for m in mentions
                 if not cut & set(range(m.start, m.end))]
        found = read(kept, moved, graph, domain, rules, lexicon)
        return replace(found, unknown=tuple(listed)) if found is not None else None
    if not words or blockers & {w for i, w in enumerate(words) if i not in aside and not (
            w == "instead" and not request and words[i + 1:i + 2] != ["of"])} or _unknown_nouns(
            text, words, mentions, lexicon, aside):
        return None
    if request and any(w.endswith("ing") and i > 0 and words[i - 1] in _BE for i, w in enumerate(words)):
        return None  # "somebody's phone is ringing, get it": says what is so, to ask for something else
    mentions = not_those(words, mentions, aside, graph, rules)
    reader = _Reader(words, mentions, graph, domain, rules, lexicon, request, speaker, pauses(text),
                     frozenset(aside) - _got_no_new(words, lexicon))
    found = reader.read()
    if found is not None or request or not reader.stops:
        return found
    # a report whose parts between commas each read plainly: "Sarah turned on the TV in living room 2, the other
    # one was already on" (a comma that only lists, "she picked it up, she needs it for ...", reads whole, above)
    reader = _Reader(words, mentions, graph, domain, rules, lexicon, request, speaker, pauses(text),
                     frozenset(aside) - _got_no_new(words, lexicon), at_commas=True)
    return reader.read()


def read_parts(text: str, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain, rules: RuleSet,
               lexicon: Lexicon, *, request: bool = False, speaker: str | None = None,
               ) -> list[tuple[str, list[Stated]]]:
    """What each clause of a report states that can be read plainly on its own, in text order, each with the words
    of its clause: for a text the whole of which is not plain enough to read (`read` gives None), the parts the
    model's answer must still agree with ("Michael came to kitchen 1 and Jessica handed him her phone": Michael is
    in kitchen 1, whatever the model says of the phone). A clause is left out when it holds a word of negation, doubt
    or plans, a new thing, a noun the grounding did not find, a pronoun with nothing before it, a thing it does not
    explain, or many things at once; a text with a word of doubt anywhere ("I think ...") gives nothing. With
    `request`, as `read` reads a request ("put the white plate in the dishwasher and close it": the plate's place,
    whatever the model says; of alike things the first, for the goal's settling to choose among or ask about)."""
    words = tokens(text)
    aside = (set() if request else _asides(text, words, mentions, lexicon, graph, domain)) | _got_no_new(
        words, lexicon)
    if not words or (_DOUBT - _NEGATIONS) & set(words):
        return []  # "I think ...", "maybe": nothing is sure; a negation stops only its clause (below)
    unknown = {i for i in unexplained_at(text, mentions) if i not in aside}
    blockers = _REQUEST_BLOCKERS if request else _NEGATIONS | _NEW
    blocked = {i for i, w in enumerate(words) if w in blockers and i not in aside} | unknown
    stops = pauses(text)
    return _Reader(words, mentions, graph, domain, rules, lexicon, request, speaker, stops).read_parts(blocked, stops)


def _unknown_nouns(text: str, words: list[str], mentions: Sequence[Mention], lexicon: Lexicon,
                   aside: set[int]) -> list[str]:
    """Nouns the grounding did not find (outside the asides); a state word after "'s" is what the thing is ("so
    it's dirty"), not one."""
    states = lexicon.state_words
    return [words[i] for i in unexplained_at(text, mentions) if i not in aside
            and not (words[i - 1] == "'s" and words[i] in states)]


_RAN_CLEAN = re.compile(
    r"^[^.;!?]*\bdishwasher\b[^.;!?]*?\b(?:finished|done|has\s+run|ran|been\s+run|run)\b[^.;!?]*?"
    r"\b(?:everything|whatever|all|the\s+lot|the\s+(?:dishes|stuff|things))\b[^.;!?]*\bclean\b[^.;!?]*[.!]*\s*$")
""""the dishwasher in kitchen 2 is done, everything in there is clean": each dirty thing inside it is clean now."""


def _all_washed(text: str, words: list[str], mentions: Sequence[Mention], graph: WorldGraph,
                domain: Domain) -> Reading | None:
    """What a report that a dishwasher has run states (`_RAN_CLEAN`): every dirty thing inside the one dishwasher it
    names is clean (nothing, when none is). None when the text is not that, has a negation, or names anything else."""
    if not _RAN_CLEAN.match(text.lower().replace("\u2019", "'")) or _NEGATIONS & set(words):
        return None
    named = [m for m in mentions if m.candidates]
    washers = [m for m in named if all(graph.entity_type(n) == "dishwasher" for n in m.candidates)]
    rooms = [m for m in named if all(_is(graph, domain, n, "room") for n in m.candidates)]
    if len(washers) != 1 or len(washers[0].candidates) != 1 or len(washers) + len(rooms) != len(named) or (
            domain.predicate("dirty") is None):
        return None
    washer = washers[0].candidates[0]
    dirty = sorted(f.args[0] for f in graph.facts(predicate="inside") if f.args[1] == washer and graph.has_fact(
        Fact("dirty", (f.args[0],))))
    return Reading([Stated(Fact("dirty", (n,)), False) for n in dirty]
                   + [Stated(Fact("inside", (n, washer)), True) for n in dirty],  # (where they are: as before)
                   frozenset({washer}), implied=frozenset(dirty))


_SOME_OF = frozenset({"bunch", "couple", "pair", "few", "box", "bag", "handful", "pack", "packet", "tin", "can",
                      "jar", "bottle", "carton", "loaf", "bit"})
"""Nouns of an amount ("a bunch of bananas"): the thing is the noun after "of"."""


def _listed_unknown(words: list[str], mentions: Sequence[Mention], graph: WorldGraph,
                    domain: Domain) -> dict[str, range]:
    """Things the memory has none of, listed with "and" right beside a known item ("put the bread loaf and the
    bananas in the cupboard", "the bananas and the lemon", "the lemon and a bunch of bananas"): each one's words
    (with its "and") by what it was called. Not when a word of it is part of the name of anything in memory (a
    thing maybe called otherwise there), nor a word the grounding reads as part of a mention."""
    items = [m for m in mentions if m.candidates and all(_is(graph, domain, n, "item") for n in m.candidates)]
    covered = {i for m in mentions for i in range(m.start, m.end)}
    names = {part for n in graph.entities() for part in n.split("_") if not part.isdigit()}

    def unknown_at(k: int) -> int | None:  # the end of an unknown thing's words from its determiner at k
        if k + 1 >= len(words) or words[k] not in _DETERMINERS | {"some"} or {k, k + 1} & covered:
            return None
        end = k + 4 if words[k + 1] in _SOME_OF and words[k + 2:k + 3] == ["of"] and k + 3 < len(words) else k + 2
        said = [w for w in words[k + 1:end] if w != "of"]
        if any(w in STOPWORDS or set(range(k, end)) & covered or any(
                n.startswith(w.rstrip("s")) or w.startswith(n) for n in names) for w in said):
            return None
        return end if end == len(words) or (words[end] in STOPWORDS and words[end] != "'s") else None

    out: dict[str, range] = {}
    for m in items:
        end = unknown_at(m.end + 1) if words[m.end:m.end + 1] == ["and"] else None
        if end is not None:
            out[" ".join(words[m.end + 1:end])] = range(m.end, end)
        for k in range(max(0, m.start - 6), m.start - 2):  # "the bananas and the lemon"
            end = unknown_at(k) if k >= 0 else None
            if end is not None and words[end:end + 1] == ["and"] and end + 1 <= m.start <= end + 2 and (
                    end + 1 == m.start or words[end + 1] in _DETERMINERS):
                out[" ".join(words[k:end])] = range(k, end + 1)
    return out


def _kept(spans: list[tuple[int, int]], cut: set[int], size: int) -> list[tuple[int, int]]:
    """The character ranges of a text left when the tokens at `cut` (and the space before each) are taken out."""
    out, at = [], 0
    for i, (a, b) in enumerate(spans):
        if i in cut:
            out.append((at, a))
            at = b
    out.append((at, size))
    return out


def _got_no_new(words: list[str], lexicon: Lexicon) -> set[int]:
    """Where "got" tells of no new thing: "got the atlas", "got washed" ("got a new lamp" does; "she has got a
    migraine" is neither: what she has, no thing of the home)."""
    return {i for i, w in enumerate(words) if w == "got" and i + 1 < len(words) and not (
        i and words[i - 1] in ("has", "have", "'s", "'ve") and words[i + 1] in ("a", "an")) and (
        words[i + 1] in _DETERMINERS or words[i + 1] in lexicon.state_words or words[i + 1].endswith("ed"))}


def _asides(text: str, words: list[str], mentions: Sequence[Mention], lexicon: Lexicon, graph: WorldGraph,
            domain: Domain) -> set[int]:
    """The words of the parts of a report that tell nothing the memory keeps, so that they do not stop the plain
    reading of the rest:

    - a part after a comma that only says what a person will do or wants: a person pronoun, and no mention, no "it"
      or "them", no verb or state word of the lexicon, nothing of doubt or negation ("..., he's going to sleep");
    - the same before a comma, naming a person instead ("Michael's going to sleep, he turned his lamp off");
    - the clauses about things the memory has none of (`new_parts`; the rest is read);
    - a purpose or reason at the end that names nothing ("took the mug to make coffee", `_purpose`);
    - a comment after a comma on what went on before (`_commentary`: "..., nobody was watching it anyway", "..., it
      had been running all night");
    - a part after a comma that only says which thing was not meant (`_not_that_one`: "..., not the grey one",
      "..., not the small one on the other desk", "..., the other one");
    - a part after a comma that only says what never happened to a thing (`_never_happened`: "..., the dishwasher
      never got run")."""
    verbs = lexicon.moves | lexicon.takes | lexicon.gives | lexicon.goes | lexicon.answers | lexicon.state_words
    people = {i for m in mentions if m.candidates and all(_is(graph, domain, n, "person") for n in m.candidates)
              for i in range(m.start, m.end)}
    named = {i for m in mentions for i in range(m.start, m.end)}
    out: set[int] = set()
    at = 0
    parts = re.split(r"[,();]|[.!?]+(?=\s)|\s[-\u2013\u2014]+\s", text)  # ("... (not the textbook)", "... - the
    # normal one", "... Don't ask me why")
    for k, part in enumerate(parts):
        n = len(tokens(part))
        span = range(at, at + n)
        plain = not any(words[i] in _THING_PRONOUNS | _DOUBT or (words[i] in verbs and words[i:i + 2] != [
            "off", "to"]) for i in span)  # "Sarah's off to bed": no state of a thing
        after_a_comma = at > 0 and not any(m.start in span for m in mentions) and any(
            words[i] in _PERSON_PRONOUNS | {"i", "we"} for i in span)
        before_a_comma = k == 0 and len(parts) > 1 and bool(named & set(span)) and named & set(span) <= people
        if (at > 0 and not any(m.start in span and not _there_is(words, m) for m in mentions) and _remark(
                [words[i] for i in span], verbs)) or (
                plain and (after_a_comma or before_a_comma)) or (at > 0 and _not_that_one(
                [words[i] for i in span], verbs)) or (at > 0 and _only_looked([words[i] for i in span], verbs)) or (
                at > 0 and _commentary(
                [words[i] for i in span], verbs, any(m.start in span and words[m.start] not in _THING_PRONOUNS
                                                     for m in mentions))) or (at > 0 and _never_happened(
                [words[i] for i in span])) or (at > 0 and _no_more([words[i] for i in span], verbs)):
            out.update(span)
        at += n
    if at != len(words):
        return set()
    ran = _RAN_IT.match(text)
    if ran is not None:
        out.update(range(len(tokens(ran[0]))))
    spans = token_spans(text)
    for found in _ASKING_FOR.finditer(text):
        out.update(k for k, (a, b) in enumerate(spans) if a >= found.start() and b <= found.end())
    return out | _purpose(words, mentions, verbs, out) | new_parts(text, words, mentions, graph, domain)


_ASKING_FOR = re.compile(r"\b(?:asking|begging|looking|hunting|desperate|gasping)\s+for\s+(?:some\s+|a\s+|an\s+|the\s+|"
                         r"more\s+|a\s+glass\s+of\s+|a\s+drink\s+of\s+)?[a-z]+(?=\s+(?:so|and|but)\b|\s*[,.;!?]|\s*$)",
                         re.IGNORECASE)
""""Jessica came into the kitchen asking for water so I handed her the bottle ...": what someone wanted is why (it
names no thing that changed)."""
_RAN_IT = re.compile(r"^\s*(?:(?:i|we|someone|somebody|[A-Z][a-z]+)\s+)?(?:ran|run|started|put\s+on|turned\s+on|"
                     r"switched\s+on|set\s+off)\s+the\s+dishwasher(?:\s+in\s+(?:the\s+)?[a-z]+(?:\s+\d)?)?"
                     r"(?=\s*,|\s+so\b|\s+and\s+now\b)", re.IGNORECASE)
""""ran the dishwasher so the pan in there is clean now": running the dishwasher is no state the memory keeps; what
it did is said after it."""


def asides(text: str, mentions: Sequence[Mention], lexicon: Lexicon, graph: WorldGraph, domain: Domain) -> set[int]:
    """The words of the parts of a report that tell nothing the memory keeps (`_asides`): what they name need not
    change."""
    return _asides(text, tokens(text), mentions, lexicon, graph, domain)


_LOOKED = frozenset({"stared", "looked", "peered", "gazed", "glanced", "peeked", "peeped", "squinted"})


def _only_looked(part: list[str], verbs: frozenset[str]) -> bool:
    """Whether a part after a comma only says someone looked at or into a thing ("..., stared into it for a minute,
    shut it again"): looking changes nothing (no verb or state word of the lexicon, no thing named but a pronoun)."""
    words = [w for w in part if w not in ("and", "then", "just", "she", "he", "they", "i", "we")]
    return bool(words) and words[0] in _LOOKED and not any(w in verbs for w in words)


def _never_happened(part: list[str]) -> bool:
    """Whether a part after a comma only says what never happened to a thing: "the dishwasher never got run", "the
    tap never got turned off" (no pronoun for a thing of the report before it)."""
    return "never" in part[1:] and part[0] in _DETERMINERS and not _THING_PRONOUNS & set(part)


def new_parts(text: str, words: list[str], mentions: Sequence[Mention], graph: WorldGraph,
              domain: Domain) -> set[int]:
    """The words of the clauses of a report about things the memory has none of (language never adds a thing):

    - a clause of a new thing ("brought home a watermelon and put the tomato on the table"): "new" or a noun the
      grounding did not find after "brought home", "came home with" or "bought", and no mention but people;
    - a clause that puts down "some" or "a" thing the grounding did not find, naming only people and places
      (`_puts_a_new_thing`: "put some flowers on the console table and grabbed the black phone");
    - a clause right after one of those that names only people and places, and "it" or "them" for the new thing
      ("Jessica bought some milk and put it in the fridge")."""
    people = {i for m in mentions if m.candidates and all(_is(graph, domain, n, "person") for n in m.candidates)
              for i in range(m.start, m.end)}
    named = {i for m in mentions for i in range(m.start, m.end)}
    places = {i for m in mentions if m.candidates and all(
        _is(graph, domain, n, "receptacle") or _is(graph, domain, n, "room") for n in m.candidates)
              for i in range(m.start, m.end)}
    out: set[int] = set()
    new = False
    """Whether the clause before told of a new thing."""
    for start, end in clauses(words, pauses(text)):
        span = set(range(start, end))
        if named & span <= people and _tells_of_a_new_thing(words, start, end, named):
            out |= span
            new = True
        elif named & span <= people | places and _puts_a_new_thing(words, start, end, named):
            out |= span  # "Sarah put some flowers on the console table and grabbed the black phone": no such thing
            new = True
        elif new and named & span <= people | places and any(words[i] in _THING_PRONOUNS for i in span):
            out |= span
        else:
            new = False
    return out


_PUTS = frozenset({"put", "placed", "set", "stuck", "left", "dropped"})


def _puts_a_new_thing(words: list[str], start: int, end: int, named: set[int]) -> bool:
    """Whether the clause puts down "some" or "a" thing the grounding did not find ("put some flowers on the
    console table"): language never adds a thing to the memory, and such a clause changes nothing it has."""
    return any(words[i] in _PUTS and words[i + 1] in ("some", "a", "an") and i + 2 < end and i + 2 not in named
               and words[i + 2] not in STOPWORDS for i in range(start, end - 2))


_AT = frozenset({"in", "on", "at", "from", "off", "inside", "near", "by", "under", "of", "out"})


def _place_words_from(words: list[str], start: int, place: int) -> int:
    """Where the words of a place that says which thing is meant begin, between the thing (ending at `start`) and
    the place's noun (at `place`): at the last preposition before it ("on the nightstand"), else right after the
    thing."""
    return max((i for i in range(start, place) if words[i] in _AT), default=start)


def _there_is(words: list[str], mention: Mention) -> bool:
    """Whether a mention is the "there" of "there was / there's ..." (that something is, not a place)."""
    return mention.words == "there" and words[mention.end:mention.end + 1] != [] and words[mention.end] in _THERE_BE


_NOBODY = frozenset({"nobody", "noone"})
_CALLERS = frozenset({"his", "her", "their", "my", "your", "our", "the", "a", "an", "just", "only", "probably",
                      "some", "someone", "somebody"})
"""Words that open who a call was from after "it was" ("it was his mum", "it was only the dentist")."""
_CALLING = frozenset({"calling", "ringing", "rang", "call"})
_SAYS = frozenset({"says", "said", "reckons", "thinks", "reckoned", "thought", "claims", "reckon"})
_HOPES = frozenset({"hope", "hopefully", "wonder", "guess", "bet"})
_THERE_BE = frozenset({"was", "wasn", "wasnt", "is", "isn", "isnt", "'s", "were", "weren", "werent"})


_ACTIVITIES = frozenset({"nap", "bath", "shower", "rest", "snooze", "break", "chat", "kip", "lie", "sleep", "cuppa",
                         "coffee", "tea", "sandwich", "smoke", "think", "look", "laugh", "cry", "moan"})
"""What a person is having that is no thing of the home ("he's having a nap")."""
_MAKING = frozenset({"making", "cooking", "baking", "brewing", "heating", "frying", "boiling", "warming"})
"""What a person is making, said after a comma with no thing of the home named ("..., she's making sandwiches")."""
_RELIEF = frozenset({"finally", "phew", "lol", "haha", "yay", "thankfully", "ugh", "typical", "classic", "gross",
                    "yuck", "ew", "eww", "bless", "rude", "weirdo"})
"""Words that open a part which only says how the speaker feels about the report ("..., finally some quiet", "...,
gross")."""
_FEELINGS = frozenset({"hungry", "thirsty", "tired", "sleepy", "bored", "full", "busy", "sick", "ill", "cold", "hot",
                       "stressed", "upset", "happy", "grumpy", "starving", "knackered", "exhausted"})
"""How a person felt, said after a comma ("..., he wasn't hungry")."""
_SHOWS = frozenset({"show", "shows", "film", "movie", "programme", "program", "documentary", "match", "game",
                    "series", "news", "cartoons", "quiz", "soap", "footy", "football"})
"""What is on a TV, said after a comma ("..., some cooking show")."""
_LEADS_OF_DOUBT = (["i", "think"], ["think"], ["i", "guess"], ["guess"], ["probably"], ["i", "reckon"], ["reckon"])


def _no_more(part: list[str], verbs: frozenset[str]) -> bool:
    """Whether a part after a comma says only what is over now, with no verb or state word ("..., no more stewed
    tea smell", "..., no more mess"): a remark, whatever it names."""
    words = [w for w in part if w not in ("and", "but", "so", "finally", "at", "last")]
    return words[:2] == ["no", "more"] and len(words) > 2 and not set(words) & verbs


def _remark(part: list[str], verbs: frozenset[str]) -> bool:
    """Whether a part after a comma that names no thing only remarks on the report before it: what a person says
    or thinks of it ("..., he says there's nothing worth watching tonight": a person pronoun and a word of saying
    first; "..., says she'll give it back tomorrow"; "..., hope nobody wanted it"), or what someone was doing,
    opened by an -ing word ("..., planning the holiday apparently", "..., chatting away now") with no verb or state
    word of the lexicon and no "it" or "them", or having a rest ("..., think she's having a lie-down"), or who did
    it ("..., dunno who moved it", "..., someone's trying to call")."""
    words = [w for w in part if w not in ("and", "but", "so")]
    if not words:
        return False
    if words[:3] in (["don", "t", "ask"], ["dont", "ask", "me"]) or words[:2] in (["no", "idea"], ["dunno", "why"],
                                                                                ["who", "knows"]):
        return not (set(words) & verbs)  # "... Don't ask me why", "..., no idea why": nothing of the home
    if words[:2] in (["dunno", "who"], ["dunno", "how"], ["dunno", "when"]) or words[:3] in (["no", "idea", "who"], [
            "no", "idea", "how"]):
        return True  # "the notebook's on the coffee table now, dunno who moved it": who did it, not what is so
    if words[:1] in (["someone"], ["somebody"]) and words[1:3] in (["'s", "trying"], ["is", "trying"]):
        return True  # "the smartphone's started buzzing, someone's trying to call": who rings it
    if words[:2] == ["good", "luck"]:
        return True  # "..., so good luck changing the channel"
    if words[:2] in (["no", "point"], ["no", "sense"]) or words in (["i", "did", "it"], ["i", "did"]):
        return True  # "..., no point leaving it on", "It's off now, I did it": why, or who
    if words[0] in _RELIEF and not (set(words) & verbs) and not _THING_PRONOUNS & set(words):
        return True  # "tv's off now, finally some quiet"
    while len(words) > 3 and words[-2:] in (["i", "guess"], ["i", "think"], ["i", "reckon"], ["i", "suppose"]):
        words = words[:-2]  # "..., looking for a snack I guess": what someone was doing, whatever the doubt
    lead = next((len(d) for d in _LEADS_OF_DOUBT if words[:len(d)] == d), 0)
    if len(words) > lead + 4 and words[lead] in _PERSON_PRONOUNS and words[lead + 1] in ("'s", "is") and (
            words[lead + 2] in ("having", "taking") and words[lead + 3] in ("a", "an")
            and words[lead + 4] in _ACTIVITIES):
        return True  # "..., (think) she's having a lie-down", "..., she's taking a break from revising"
    if lead and len(words) > lead + 2 and words[lead] in _PERSON_PRONOUNS and words[lead + 1] in ("'s", "is") and (
            words[lead + 2].endswith("ing") and words[lead + 2] not in verbs) and not _THING_PRONOUNS & set(words):
        return True  # "..., think he's fixing his bike": what someone is doing, maybe
    if len(words) > 3 and words[0] in _PERSON_PRONOUNS and words[1] in ("'s", "is") and words[2] == "having" and (
            words[3] in ("a", "an", "some") and words[4:5] and words[4] in _ACTIVITIES):
        return True  # "..., he's having a nap"
    if words[:2] in (["it", "was"], ["it", "'s"], ["it", "is"]) and len(words) > 2 and words[2] in _CALLERS and not (
            set(words) & verbs - _CALLING):  # "..., it was his mum calling": who rang, not what is so
        return True
    if len(words) > 2 and words[0] in _PERSON_PRONOUNS and (
            (words[1:3] in (["'s", "got"], ["has", "got"]) and words[3:4] in (["a"], ["an"]))
            or (words[1] in ("has", "got") and words[2] in ("a", "an"))  # "..., she's got a migraine"
            or words[1] in ("never", "always")  # "..., he never finishes it"
            or (words[1] in ("'s", "is") and words[2].endswith("ing") and (
                words[2] not in verbs or words[2] in _MAKING))):  # "she's talking
        return True  # to someone"
    if words[:1] in (["somebody"], ["someone"]) and words[1:2] in (["got"], ["answered"], ["picked"]) and (
            words[2:3] == ["it"]):  # "phone's stopped ringing, somebody got it": who, not what changed
        return True
    if (words[0] == "theres" or (words[0] == "there" and words[1:2] and words[1] in _THERE_BE)) and not any(
            w in verbs and not (w in ("on", "in", "over") and words[k + 1:k + 2] and words[k + 1] in (
                _THING_PRONOUNS | _DETERMINERS | {"all"})) for k, w in enumerate(words)) and not _DOUBT & set(words):
        return True  # "..., theres lipstick on it": why it is so (a thing the memory has would be a mention)
    if len(words) < 2 or (_THING_PRONOUNS & set(words) and words[0] not in _SAYS | _HOPES | {"i", "no"}):
        return False
    if (words[0] in _PERSON_PRONOUNS and words[1] in _SAYS) or words[0] in _SAYS | _HOPES or (
            words[0] == "i" and words[1] in _HOPES):  # "..., says she'll give it back", "..., hope nobody wanted it"
        return True
    if words[0] in _PERSON_PRONOUNS and words[1] in ("'s", "is", "was") and words[2:3] in (
            ["done"], ["finished"], ["through"]) and (len(words) == 3 or words[3].endswith("ing")):
        return True  # "..., she's done watching for tonight": why, not what is so
    if words[-1] in ("started", "begun", "starting", "over") and len(words) <= 5 and not (
            set(words) - {"has", "have"}) & verbs:
        return True  # "telly's on in the living room, the footy's started": why
    if words[0] in _PERSON_PRONOUNS and len(words) <= 5 and words[-1] in _FEELINGS and set(words[1:-1]) <= {
            "was", "wasn", "wasnt", "is", "isn", "isnt", "'s", "t", "not", "too", "so", "very", "really", "that"}:
        return True  # "Michael gave Jessica his ripe pear, he wasn't hungry": how he felt
    if words[:2] == ["heads", "up"] and len(words) == 2:
        return True  # "Heads up, ...": nothing of the home
    if words[0] in ("some", "a", "the") and words[-1] in _SHOWS and len(words) <= 5 and not set(words) & (
            verbs - _MAKING):  # ("cooking" here only says what show)
        return True  # "Jessica put the TV on, some cooking show": what is on it
    if words[:2] in (["no", "point"], ["no", "need"]):  # "..., no point leaving it on": why, not what is so
        return True
    if words[0] == "there" and words[1] in _THERE_BE and "left" in words[2:6] and not _THING_PRONOUNS & set(words):
        return True  # "..., there wasn't much left anyway": how much there was, not what is so
    return words[0].endswith("ing") and len(words[0]) > 4 and not any(w in verbs for w in words) and not (
        _DOUBT & set(words))


def _not_that_one(part: list[str], verbs: frozenset[str]) -> bool:
    """Whether a part after a comma only says which thing was not meant, or that the one named is the other one:
    "not the grey one", "not the small one on the other desk", "not the cordless", "the other one" (no verb or
    state word of the lexicon; what it names changes nothing). The thing before it must still be named alone:
    the reading asks when its words fit several things."""
    words = [w for w in part if w not in ("but", "and", "i", "mean", "just", "only")]
    if not words or any(w in verbs and words[k + 1:k + 2] not in ([d] for d in _DETERMINERS) for k, w in
                        enumerate(words)):
        return False  # ("on the other desk": a place, not a state)
    if words[:1] == ["not"] and words[1:2] and words[1] in _DETERMINERS | {"that", "this", "those", "these"}:
        return True
    return words in (["the", "other", "one"], ["that", "other", "one"])


def not_those(words: list[str], mentions: Sequence[Mention], aside: set[int], graph: WorldGraph,
              rules: RuleSet) -> list[Mention]:
    """The mentions with what an aside says was not meant taken out of the one thing named before it ("took a
    photo album off the bookshelf - not the black one, the other one": the photo album that is not black; "took the
    red atlas - not the one on his bookshelf": the red atlas that is not on that bookshelf), when that leaves one."""
    out = list(mentions)
    for k, m in enumerate(mentions):
        if m.start not in aside:
            continue
        at = m.start - 1
        while at >= 0 and words[at] in _DETERMINERS:
            at -= 1
        if at >= 3 and words[at] in ("on", "in", "from", "at") and words[at - 3:at] == ["not", "the", "one"]:
            def excluded(n: str, place: Mention = m) -> bool:  # "not the one on his bookshelf": the one there
                return bool(places_of(graph, rules, n) & set(place.candidates))
            alike = [j for j in range(k) if len(out[j].candidates) > 1]
        elif m.start >= 2 and words[m.start - 2:m.start] in (["not", "the"], ["not", "that"]):
            def excluded(n: str, said: Mention = m) -> bool:  # "not the black one": the black one
                return n in said.candidates
            alike = [j for j in range(k) if set(mentions[j].candidates) & set(m.candidates)]
        else:
            continue
        before = [j for j in alike if mentions[j].start not in aside and mentions[j].qualifies is None]
        if not before:
            continue
        left = tuple(n for n in out[before[-1]].candidates if not excluded(n))
        if len(left) == 1:
            out[before[-1]] = replace(out[before[-1]], candidates=left, alternatives=left)
    return out


_DID_NOT = frozenset({"didn", "wasn", "weren", "hasn", "haven"})


def _commentary(part: list[str], verbs: frozenset[str], names_a_thing: bool) -> bool:
    """Whether a part after a comma only comments on what went on before the change it follows, naming no thing
    (a pronoun may stand for one): nobody doing something ("nobody was watching it anyway", "nobody got to it in
    time") with no verb or state word of the lexicon ("nobody turned it off" says it is still on: not a comment),
    what nobody bothered to do to it ("nobody's bothered to go and turn it off"),
    what a thing had been ("it had been running all night": the state before the change, not the one now), or
    what did not happen to it ("it didn't get washed properly"), how it was left before ("it was just hanging
    open"), that someone used it and put it back where it is ("somebody drank out of it and put it back"), what
    it explains ("no wonder he can't sleep", "it's less harsh"), or what someone says or wants with no event ("she
    says she wants it back tomorrow"), or for whom it is said ("if anyone's looking for it")."""
    words = [w for w in part if w not in ("and", "but", "so", "though", "even", "really", "actually", "ever")]
    if names_a_thing or len(words) < 3:
        return False
    if words[0] in _THING_PRONOUNS and words[1:3] in (["had", "been"], ["d", "been"]):  # ("it'd been")
        return True
    if words[0] in _THING_PRONOUNS and (words[1] in ("was", "were") or words[1:3] in (["'s", "been"], [
            "has", "been"])) and {"hanging", "left"} & set(words):
        return True  # "I shut the cupboard, it was just hanging open" ("it's been hanging open all day"): how it
        # was before
    if words[0] in _THING_PRONOUNS and words[1] in _DID_NOT and words[2] == "t":
        return True  # "..., it didn't get washed properly": what did not happen changes nothing
    if words[0] in ("someone", "somebody") and (words[1:3] == ["didn", "t"] or words[1] == "didnt") and (
            words[-1] == "properly" or words[-2:] == ["it", "properly"]):
        return True  # "the fridge is wide open, someone didn't close it properly": how it came to be so
    if words[0] in ("someone", "somebody") and "back" in words and _PUTS & set(words):
        return True  # "the plate is dirty, somebody put it back without washing it": back where it is
    if words[0] in _THING_PRONOUNS and words[1] in ("was", "were") and words[2].endswith("ing") and not any(
            w in verbs for w in words[1:]):
        return True  # "..., it was doing my head in": how it was, before
    if words[0] in _THING_PRONOUNS and words[1] in ("'s", "is") and words[2] in _HOW_MUCH and not any(
            w in verbs for w in words[1:]):
        return True  # "..., she left the vanity one on, it's less harsh": why, of what happened
    if words[:2] == ["no", "wonder"] and not any(w in verbs for w in words[2:]):
        return True  # "..., no wonder he can't sleep": why, of what happened
    if words[0] == "if" and words[1] in ("anyone", "anybody", "someone", "somebody", "you") and not any(
            w in verbs for w in words[2:]):
        return True  # "..., if anyone's looking for it": for whom it is said, no event
    if words[0] in ("she", "he", "they") and words[1] in _SAYS_OR_WANTS and not any(w in verbs for w in words[2:]):
        return True  # "..., she says she wants it back tomorrow": what someone says or wants, no event
    lead = 2 if words[:2] == ["no", "one"] else 1 if words[0] in _NOBODY else 0
    rest = words[lead:]
    while lead and rest[:1] and rest[0] in ("'s", "has", "had", "even"):
        rest = rest[1:]
    if lead and rest[:2] in (["bothered", "to"], ["thought", "to"], ["remembered", "to"]) and (
            words[-1] in _THING_PRONOUNS or words[-2:-1] in (["it"], ["them"])):
        return True  # "the light in bedroom 1 is still on, nobody's bothered to go and turn it off": what nobody
        # did to the thing said before changes nothing
    if rest[:1] in (["was"], ["were"]) and len(rest) > 1 and rest[1].endswith("ing"):
        tail = rest[2:]  # "was watching": what went on, whatever its word
    elif rest[:2] == ["got", "to"]:
        tail = rest[2:]
    else:
        return False
    return bool(lead) and not any(w in verbs for w in tail)


_HOW_MUCH = frozenset({"less", "more", "much", "nicer", "better", "softer", "warmer", "cosier", "quieter"})
"""Words of comparing how a thing is ("it's less harsh"): a reason, not a state of the memory."""
_SAYS_OR_WANTS = frozenset({"says", "said", "reckons", "thinks", "wants", "hopes"})
_PURPOSE_ENDS = frozenset({"on", "with", "up", "in"})


def _purpose(words: list[str], mentions: Sequence[Mention], verbs: frozenset[str],
             aside: set[int] = frozenset()) -> set[int]:
    """The words of a purpose or reason at the end of a report that names nothing: "to" before a word that is no
    thing or place ("took the mug to make coffee", "grabbed the chocolate bar to snack on"), or "for" ("for her
    homework"), with no mention, pronoun for a thing, doubt or word of the lexicon after it (the last word may be a
    particle: "to snack on"); words already found `aside` do not count ("for the evening, she says she wants it
    back": what she says is an aside of its own)."""
    named = {i for m in mentions for i in range(m.start, m.end)}
    last = max(named, default=-1)
    for i in range(last + 1, len(words) - 1):
        if words[i] not in ("to", "for") or (words[i + 1] in _DETERMINERS and words[i] == "to") or (
                i and words[i - 1] in _STARTED):  # "started to ring": no purpose
            continue
        span = range(i + 1, len(words))
        body = [words[j] for j in span if j not in aside and not (j == len(words) - 1 and words[j] in _PURPOSE_ENDS)]
        if body and not any((w in verbs and not (words[i] == "to" and k == 0) and not (
                w in ("on", "off", "out", "in") and body[k + 1:k + 2] and body[k + 1] in _DETERMINERS)) or w in (
                _THING_PRONOUNS | _DOUBT | _NEGATIONS) for k, w in enumerate(body)):  # ("turned the tap on to wash
            # her face", "took the novel off the bookshelf to read on the sofa": what for)
            return set(range(i, len(words)))
    return set()


_STARTED = frozenset({"started", "starts", "start", "starting", "began", "begins", "begin", "stopped", "continued",
                      "kept", "tried", "going", "about", "wants", "wanted", "needs", "needed"})
_HOME_WITH = (("brought", "home"), ("came", "home"), ("got", "home"), ("bought",))


def _tells_of_a_new_thing(words: list[str], start: int, end: int, named: set[int]) -> bool:
    """Whether the clause has "new" or "another" before a noun, or brings home something the grounding did not
    find ("brought home a watermelon", "came home with some headphones")."""
    for i in range(start, end):
        if words[i] in ("new", "another") and i + 1 < end and i + 1 not in named:
            return True
        for lead in _HOME_WITH:
            if tuple(words[i:i + len(lead)]) == lead:
                after = [j for j in range(i + len(lead), end) if words[j] not in _DETERMINERS | {"with", "some"}]
                return bool(after) and after[0] not in named
    return False


def _with_it(words: list[str], mentions: Sequence[Mention]) -> frozenset[int]:
    """The "on it" of a thing that only says which place is meant: "the table with the plate on it" (the grounding
    has the plate say which table: it qualifies it); the "it" is the place, nothing that changed. After "the one
    with", the whole of it: "..., the one with the gold phone on it" (the grounding chose the place already)."""
    out: set[int] = set()
    for m in mentions:
        if not (m.start > 0 and "with" in words[max(0, m.start - 2):m.start] and words[m.end:m.end + 2] in (
                ["on", "it"], ["in", "it"], ["inside", "it"])):
            continue
        if m.qualifies is not None:
            out.update((m.end, m.end + 1))
        lead = next((j for j in range(max(0, m.start - 4), m.start) if words[j:j + 3] in (
            ["the", "one", "with"], ["that", "one", "with"])), None)
        if lead is not None:  # "on the desk in bedroom 3, the one with the gold phone on it": which desk, again
            out.update(range(lead, m.end + 2))
    return frozenset(out)


def _is(graph: WorldGraph, domain: Domain, name: str, kind: str) -> bool:
    return domain.has_type(kind) and domain.is_subtype(graph.entity_type(name) or "", kind)


class _Reader:
    def __init__(self, words: list[str], mentions: Sequence[Mention], graph: WorldGraph, domain: Domain,
                 rules: RuleSet, lexicon: Lexicon, request: bool = False, speaker: str | None = None,
                 stops: frozenset[int] = frozenset(), aside: frozenset[int] = frozenset(),
                 at_commas: bool = False) -> None:
        self.request = request
        self.at_commas = at_commas
        """Whether `read` ends a clause at a comma or a stop too (`stops`), not only at "and", "then", ..."""
        aside = aside | _with_it(words, mentions)
        self.aside = aside
        """The words of the parts that tell nothing the memory keeps (`_asides`): their clauses are not read, but
        a person they name may be who does what follows ("Jessica brought home a melon and put ...")."""
        self.speaker = speaker if speaker and graph.has_entity(speaker) else None
        self.words = words
        self.sign_words = ["" if i in aside or (w == "out" and i and words[i - 1] in lexicon.goes) else w
                           for i, w in enumerate(outside_mentions(words, mentions))]
        """The words that may say a state ("the clean wine glass" only says which glass; nor do asides, nor the
        "out" of going out: "went out to the garage")."""
        self.graph = graph
        self.domain = domain
        self.rules = rules
        self.lexicon = lexicon
        self.mentions = list(mentions)
        self.stops = stops
        """The words a comma or a stop follows ("the mug, the green teapot and the red teapot")."""
        self.placing = {i for m in self.mentions if m.qualifies is not None and 0 <= m.qualifies < len(self.mentions)
                        for i in range(_place_words_from(words, self.mentions[m.qualifies].end, m.start), m.end)}
        """The words of a place after a thing that only say which thing it is ("on the counter" of "the purple plate
        on the counter", of "the phone was ringing on the nightstand": not "was ringing")."""
        self.things = [_Thing(m.start, m.end, m, self._kind(m)) for m in mentions
                       if m.qualifies is None and m.candidates]
        self.plural = any(m.plural and not self._counted(m) and m.qualifies is None for m in mentions) and not request
        """Several things of one noun ("all the books"), not those that only say which thing is meant ("the
        bookshelf with the novels")."""
        self.verbs = lexicon.moves | lexicon.takes | lexicon.gives | (frozenset() if request else lexicon.goes)
        self.used: set[int] = set()
        """Starts of the things used by a literal (as what changed or who did it)."""
        self.stated: list[Stated] = []
        self.read_any = False
        """Whether anything was read: a literal, or a thing said to be where it already is."""
        self.settled: set[str] = set()
        self.stateful: list[_Thing] = []
        """The things of the current clause whose state a word of it gives."""

    def read(self) -> Reading | None:
        if self.plural:
            return None  # "all the books": the model lists them (a few, "both wine glasses", are read)
        subject: _Thing | None = None
        for start, end in self._clauses(self.stops if self.at_commas else frozenset()):
            if self.aside >= set(range(start, end)):
                subject = next((t for t in self.things if start <= t.start < end and t.kind == "person"), subject)
                continue
            things = self._things_in(start, end)
            if things is None:
                return None
            people = [t for t in things if t.kind == "person"]
            verb = next((i for i in range(start, end) if self._is_verb(i)), None)
            before = [t for t in people if verb is None or t.start < verb]
            subject = before[-1] if before else None if verb is not None and _SOMEONE_ELSE & set(
                self.words[start:verb]) else subject  # "Jessica came in and I handed her ...": not Jessica
            states = self._states(things, start, end)
            if states is None:
                return None
            if not self._answered(start, end, subject):
                return None
            if verb is not None and not self._verb(verb, end, things, subject, bool(states)):
                return None
            if verb is None and not self._being(things, start, end) and not states and any(
                    t.kind != "person" for t in things) and not self._doing_with_it(things, start, end):
                return None
        if any(t.kind != "person" and t.start not in self.used and not self._aside(t) for t in self.things) or (
                not self.read_any):
            return None
        return Reading(self.stated, frozenset(self.settled))

    def read_parts(self, blocked: set[int], stops: frozenset[int] = frozenset()) -> list[tuple[str, list[Stated]]]:
        """See `read_parts`: each clause read alone (what it states, and nothing of it when it cannot be read), the
        subject carried from clause to clause as `read` does; clauses end at the words in `stops` too (a comma or a
        stop follows them). A state read from a clause is left out when a later
        clause that could not be read has a word for the same state ("opened the fridge, took out the yogurt and
        shut it again"): the last word stands, and it was not read."""
        subject: _Thing | None = None
        read: list[tuple[int, int, list[Stated]]] = []
        unread: list[tuple[int, int]] = []
        for start, end in self._clauses(stops):
            things = self._things_in(start, end)
            if things is None:
                unread.append((start, end))
                continue
            people = [t for t in things if t.kind == "person"]
            verb = next((i for i in range(start, end) if self._is_verb(i)), None)
            before = [t for t in people if verb is None or t.start < verb]
            subject = before[-1] if before else subject
            literals = None if blocked & set(range(start, end)) or any(
                (t.mention.plural and not self._counted(t.mention)) or (not t.mention.plural and len(
                    t.mention.candidates) > 1 and not self.request) or self._renamed(t) for t in things
            ) else self._clause_alone(things, start, end, verb, subject)
            if literals is None:
                unread.append((start, end))
            elif literals:
                read.append((start, end, literals))
        out = []
        for start, end, literals in read:
            later = [(a, b) for a, b in unread if a >= end]
            kept = [s for s in literals if len(s.fact.args) != 1 or not any(
                signs_in(self.sign_words, a, b, self.lexicon.states.get(s.fact.predicate, {})) or (
                    self._answering(s.fact.predicate) and picked_up(self.words[a:b])) for a, b in later)]
            if kept:
                out.append((" ".join(self.words[start:end]), kept))
        return out

    def _doing_with_it(self, things: list[_Thing], start: int, end: int) -> bool:
        """A clause that only says what a person is doing with what an earlier clause read ("grabbed the juice box
        and is sipping it", "... and started reading it"): a word in -ing, and its things only pronouns for things
        already read."""
        others = [t for t in things if t.kind != "person"]
        return bool(others) and all(self.words[t.start] in _THING_PRONOUNS and t.mention.start in self.used
                                    for t in others) and any(self.words[i].endswith("ing") for i in range(start, end))

    def _answering(self, predicate: str) -> bool:
        """Whether answering ends the state (ringing): "... and she picked up" says it stopped."""
        return bool(self.lexicon.states.get(predicate, {}).get(False, frozenset()) & self.lexicon.answers)

    def _clause_alone(self, things: list[_Thing], start: int, end: int, verb: int | None,
                      subject: _Thing | None) -> list[Stated] | None:
        """What one clause states, read as `read` reads it; None when it cannot be read plainly or leaves a thing
        of its own unexplained."""
        self.stated, self.used, self.read_any = [], set(), False
        states = self._states(things, start, end)
        if states is None or not self._answered(start, end, subject):
            return None
        if verb is not None and not self._verb(verb, end, things, subject, bool(states)):
            return None
        if verb is None and not self._being(things, start, end) and not states:
            return None
        if any(t.kind != "person" and t.start not in self.used and not self._aside(t) for t in things
               if t.start == t.mention.start):
            return None
        return list(self.stated)

    def _renamed(self, thing: _Thing) -> bool:
        """A mention whose last word an earlier mention of other things ends with: "had a salad out of the blue
        salad bowl and left the bowl in the sink" may mean the same bowl, whatever the words alone fit."""
        head = thing.mention.words.split()[-1:]
        return thing.start == thing.mention.start and any(
            m.end <= thing.start and m.words.split()[-1:] == head and not set(m.candidates) & set(
                thing.mention.candidates) for m in self.mentions if m.candidates)

    def _counted(self, mention: Mention) -> bool:
        """A plural mention whose words say which things it names: "both" for exactly two, "all" or "every" for a
        few ("the plates" with three in the house does not say which)."""
        before = [w for w in self.words[max(0, mention.start - 2):mention.start] if w != "the"]
        word = before[-1] if before else ""
        if word not in self.lexicon.all_words and each_of(self.words, mention, self.lexicon.all_words):
            word = "both" if "both" in self.words[mention.end:mention.end + 7] else "all"  # "... are both off now"
        count = len(mention.candidates)
        return (word == "both" and count == 2) or (word in self.lexicon.all_words - {"both"} and count <= _FEW)

    def _clauses(self, stops: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
        """The clauses; one that is only more things ("cleaned the teapot and the salad bowl": no verb or state word
        of its own, no pronoun) belongs to the clause before it."""
        states = self.lexicon.state_words
        out: list[tuple[int, int]] = []
        split = clauses(self.words, stops)
        lead = False
        """Whether the clauses so far are only things named one after another, with their verb to come."""
        placing = self.placing
        named = placing | {i for m in self.mentions for i in range(m.start, m.end)}
        for start, end in split:
            span = range(start, end)
            # a place after things listed may say where all of them are ("all the lights and taps in the
            # bathroom"): a clause with one is only more things when nothing before it is a group
            grouped = bool(out) and any(m.plural for m in self.mentions if out[-1][0] <= m.start < start)
            placed = set() if grouped else placing
            bare = all(self.words[i] in _DETERMINERS | self.lexicon.all_words or i in named - (placing - placed)
                       for i in span) and not any(self.sign_words[i] in states for i in span if i not in placed)
            listed = bool(out) and (self._more_to_move(out[-1], start, end) or self._verb_alone(out[-1]) or all(
                self.sign_words[i] in states or self.words[i] in ("again", "then") for i in span)  # "on | and off"
                or self._only_where_to(out[-1], start, end))
            if out and ((bare and any(start <= m.start < end for m in self.mentions)) or lead or listed):
                out[-1] = (out[-1][0], end)  # "... and the salad bowl"; "the cup and the bowl have been washed"
            else:
                out.append((start, end))
            lead = len(out) == 1 and bare
        return out

    def _only_where_to(self, before: tuple[int, int], start: int, end: int) -> bool:
        """A clause that only says where the thing moved before it went: "moved the book off the shelf | and onto
        her dresser" (a word of direction, then one place and nothing else)."""
        if self.words[start] not in _TOWARDS or not any(
                self.words[i] in self.lexicon.moves and self._is_verb(i) for i in range(*before)):
            return False
        places = [m for m in self.mentions if start < m.start < end and m.qualifies is None]
        named = {i for m in self.mentions for i in range(m.start, m.end)}
        return len(places) == 1 and all(i in named | self.placing or self.words[i] in _DETERMINERS
                                        for i in range(start + 1, end))

    def _verb_alone(self, clause: tuple[int, int]) -> bool:
        """A clause that ends with a state word and names no thing but a person: "Jessica opened | and closed the
        fridge" (its thing comes in the next clause)."""
        start, end = clause
        states = self.lexicon.state_words
        return self.sign_words[end - 1] in states and not any(
            start <= m.start < end and self._kind(m) != "person" for m in self.mentions)

    def _more_to_move(self, before: tuple[int, int], start: int, end: int) -> bool:
        """A clause that only names one more thing for the verb of moving or taking before it, and where they go or
        come from: "put the black cup | and the purple plate in the dishwasher", "grabbed the bread off the island |
        and the eggs out of the fridge" (no verb, no state word, no word of being)."""
        first = next((m for m in self.mentions if start <= m.start < end), None)
        verbs = self.lexicon.moves | (frozenset() if self.request else self.lexicon.takes)  # ("take the pizza to
        # Michael and the energy drink to Jessica": two requests)
        moving = any(self.words[i] in verbs and self._is_verb(i) for i in range(*before))
        return moving and first is not None and all(w in _DETERMINERS for w in self.words[start:first.start]) and (
            self._kind(first) == "item") and not any(
            self._is_verb(i) or (self.words[i] in self.lexicon.state_words and not self._preposition(i)
                                 and not from_a_place(self.words, i)) or self.words[i] in _BE
            for i in range(start, end))

    def _preposition(self, i: int) -> bool:
        """"on" of "on the counter": a word of place before a thing, not a state."""
        after = self.words[i + 1] if i + 1 < len(self.words) else ""
        return self.words[i] in _TO and (after in _DETERMINERS or any(m.start == i + 1 for m in self.mentions))

    def _coordinated(self, things: list[_Thing]) -> bool:
        """Things named one after another, joined only by "and" ("the grey teapot and the salad bowl", "the lamp in
        bedroom 1 and the desk lamp": a place that says which thing is part of its name)."""
        ordered = sorted(things, key=lambda t: t.start)
        pairs = list(pairwise(ordered))
        return len(ordered) > 1 and all(
            all(self.words[i] in _DETERMINERS | self.lexicon.all_words | {"and"} or i in self.placing
                for i in range(a.end, b.start)) and ("and" in self.words[a.end:b.start] or (
                    k < len(pairs) - 1 and a.end - 1 in self.stops)) for k, (a, b) in enumerate(pairs))  # "A, B and C"

    def _aside(self, thing: _Thing) -> bool:
        """A thing that needs no change of its own: one named in an aside ("..., not the small one on the other
        desk"), where something came from, what a person carries, or the place where a thing named before it
        already is ("is ringing on the side table")."""
        return thing.start in self.aside or is_source(self.words, thing.start) or self._carried(thing) or (
            thing.mention in self.mentions and is_where_it_is(self.words, thing.mention, self.mentions, self.graph,
                                                              self.rules))

    def _carried(self, thing: _Thing) -> bool:
        return thing.mention in self.mentions and is_carried(self.words, thing.mention, self.mentions, self.graph)

    # ---- what the words name --------------------------------------------------------------------------------
    def _kind(self, mention: Mention) -> str:
        kinds = {self._kind_of(n) for n in mention.candidates}
        return kinds.pop() if len(kinds) == 1 else "mixed"

    def _kind_of(self, name: str) -> str:
        type_ = self.graph.entity_type(name) or ""
        for kind in ("person", "room", "item", "receptacle"):
            if self.domain.is_subtype(type_, kind):
                return kind
        return "other"

    def _things_in(self, start: int, end: int) -> list[_Thing] | None:
        """The things of a clause in text order, pronouns standing for the last fitting thing before them; None
        when a pronoun has nothing before it."""
        out = [t for t in self.things if start <= t.start < end]
        for i in range(start, end):
            word = self.words[i]
            if i in self.aside:
                continue  # "..., nobody was watching it anyway": a comment, its pronoun stands for nothing new
            if word == "me" and self.request:
                if self.speaker is None:
                    return None  # "bring me ...": who is asking is not known
                out.append(_Thing(i, i + 1, Mention(i, i + 1, "me", (self.speaker,)), "person"))
                continue
            if word in ("him", "her") and i + 1 < end and (self.words[i + 1] in _DETERMINERS or any(
                    m.start == i + 1 for m in self.mentions)) and i > 0 and self.words[i - 1] in self.lexicon.gives:
                people = [t for t in self.things if t.start < i and t.kind == "person"]
                others = [t for t in people if t.mention.candidates != people[-1].mention.candidates] if people else []
                if others:  # "Sarah came in and Jessica gave her the book": the one named before the giver
                    out.append(_Thing(i, i + 1, others[-1].mention, "person"))
                elif people and i > 1 and self.words[i - 2] in _SOMEONE_ELSE:
                    out.append(_Thing(i, i + 1, people[-1].mention, "person"))  # "Jessica came in and I handed her
                    # the bottle": the giver is no one the memory knows, the one named is who has it now
                continue
            if word in _THING_PRONOUNS | _PERSON_PRONOUNS:
                kinds = ("person",) if word in _PERSON_PRONOUNS else ("receptacle",) if (
                    word == "it" and i > 0 and self.words[i - 1] in _TO) else ("item",)  # "put the avocado in it"
                earlier = [t for t in self.things if t.start < i and t.kind in kinds]
                if word == "it" and kinds == ("item",):  # "took the milk out of the fridge and closed it": the
                    named = self.things + [_Thing(m.start, m.end, m, self._kind(m)) for m in self.mentions
                                           if m.qualifies is not None and m.candidates]  # "out of fridge 2"
                    stated = self._fits_said_state(start, end, sorted(
                        (t for t in named if t.start < i and t.kind in ("item", "receptacle", "other")),
                        key=lambda t: t.start))  # "turned on the tap, rinsed the cup and turned it off": the tap
                    earlier = stated or earlier
                eaten = [t for t in self.things if t.start < i and t.kind == "item" and self._edible(t)]
                if i > 0 and self.words[i - 1] in _EATS and eaten:  # "fried the carrot in the pan and ate it"
                    earlier = eaten
                if not earlier and word == "it":  # "the kitchen tap was running, somebody turned it off": a device
                    earlier = [t for t in self.things if t.start < i and t.kind == "other"][-1:]
                if not earlier and word in _PERSON_PRONOUNS:  # "Emily's phone rang and she answered it": the one
                    earlier = [_Thing(m.start, m.end, m, "person") for m in self.mentions  # whose it is
                               if m.qualifies is not None and m.start < i and m.candidates
                               and self._kind(m) == "person"][-1:]
                if not earlier:
                    if word in _PERSON_PRONOUNS:
                        continue  # "she was reading": who, not what changed
                    return None
                out.append(_Thing(i, i + 1, earlier[-1].mention, earlier[-1].kind))
        return sorted(out, key=lambda t: t.start)

    def _edible(self, thing: _Thing) -> bool:
        """Whether a thing is one to eat or drink (the domain's food and drink types)."""
        type_ = self.graph.entity_type(thing.mention.candidates[0]) or ""
        return any(self.domain.has_type(k) and self.domain.is_subtype(type_, k) for k in ("food", "drink"))

    def _fits_said_state(self, start: int, end: int, things: list[_Thing]) -> list[_Thing]:
        """Of `things`, those that a state word of the clause fits (none when the clause has no state word)."""
        out = []
        for thing in things:
            type_ = self.graph.entity_type(thing.mention.candidates[0]) or ""
            for predicate, signs in self.lexicon.states.items():
                declared = self.domain.predicate(predicate)
                if declared is not None and declared.arity == 1 and self.domain.is_subtype(
                        type_, declared.types[0]) and signs_in(self.sign_words, start, end, signs):
                    out.append(thing)
                    break
        return out

    def _is_verb(self, i: int) -> bool:
        """A verb the reader knows; "has" and "have" only when a thing follows ("has the book", not "has been
        washed", "has left")."""
        word = self.words[i]
        if word not in self.verbs or (i > 0 and self.words[i - 1] in ("by", "a")) or i in self.aside:
            return False  # "washed it by hand", "gave her a hand", "..., nobody got to it in time"
        if any(m.start <= i < m.end for m in self.mentions):
            return False  # a word of a thing's name: "the reading lamp"
        after = self.words[i + 1] if i + 1 < len(self.words) else ""
        if word in ("has", "have", "having"):
            return after in _DETERMINERS | {"some"} or any(m.start == i + 1 for m in self.mentions)  # "has Jessica's
            # book", "having some cheese"
        # "the glass got washed", "got switched off": a passive, nobody took anything
        return not (word in ("got", "get", "gets") and (after in self.lexicon.state_words or after.endswith("ed")))

    # ---- states -------------------------------------------------------------------------------------------
    def _states(self, things: list[_Thing], start: int, end: int) -> list[Stated] | None:
        """The state literals of a clause; None when a state word is left that fits no thing, fits one both
        ways, or fits several things of the clause ("switched off the lamp by the TV")."""
        found: list[Stated] = []
        words_used: set[int] = set()
        self.stateful = []
        for predicate, signs in self.lexicon.states.items():
            declared = self.domain.predicate(predicate)
            truth = signs_in(self.sign_words, start, end, signs)
            if declared is None or declared.arity != 1 or not truth:
                continue
            fitting = {t.mention.start: t for t in things if self.domain.is_subtype(
                self.graph.entity_type(t.mention.candidates[0]) or "", declared.types[0])}
            if len(truth) > 1:
                truth = self._last_of_a_row(start, end, signs)  # "opened and closed the fridge": closed
            if len(truth) != 1 or (len(fitting) > 1 and not self._coordinated(list(fitting.values()))):
                return None
            said = {i for i in range(start, end) if signs_in(self.sign_words, i, i + 1, signs)}
            listed = [*self.stateful, *fitting.values()]
            row = [t for t in things if t.kind != "person"]  # "the bathroom light, the kitchen tap and the telly"
            in_row = {t.start for t in listed} <= {t.start for t in row} and self._coordinated(row)
            if fitting and said & words_used and (any(t.mention.plural for t in listed) or not (
                    self._coordinated(listed) or in_row)):
                return None  # one word for two things' states ("switched off the lamp next to the TV"), unless
                # they are listed ("turned on the mirror light and the bathroom tap"); groups: `kinds_at` of requests
            sign = truth.pop()
            for thing in fitting.values():
                names = thing.mention.candidates if thing.mention.plural else thing.mention.candidates[:1]
                found += [Stated(Fact(predicate, (n,)), sign) for n in names if self.domain.is_subtype(
                    self.graph.entity_type(n) or "", declared.types[0])]
                self.used.add(thing.mention.start)
                self.stateful.append(thing)
                words_used |= said
        every_sign = self.lexicon.state_words
        if any(i not in words_used and signs_in(self.sign_words, i, i + 1, {True: every_sign})
               for i in range(start, end)):
            return None
        self._add(found)
        return found

    def _last_of_a_row(self, start: int, end: int, signs: dict[bool, frozenset[str]]) -> set[bool]:
        """The sign of the last of a clause's words for one state when they follow each other joined only by "and"
        or "then" ("opened and closed", "turned it on and off again"): the last word stands; else both signs."""
        said = [i for i in range(start, end) if signs_in(self.sign_words, i, i + 1, signs)]
        joined = all(set(self.words[a + 1:b]) and set(self.words[a + 1:b]) <= {"and", "then", "it", "them"}
                     for a, b in pairwise(said))
        return signs_in(self.sign_words, said[-1], said[-1] + 1, signs) if said and joined else {True, False}

    def _answered(self, start: int, end: int, subject: _Thing | None) -> bool:
        """"Sarah answered the phone": the phone stops ringing (a state word) and Sarah has it now; without who
        answered ("the phone was answered") only the state. False when the one who answered cannot have it."""
        if self.request or subject is None or not any(self.words[i] in self.lexicon.answers
                                                      for i in range(start, end)):
            return True
        for thing in (t for t in self.stateful if t.kind == "item"):
            said = thing.mention.candidates[0]
            if not self._place(thing, subject, giver=subject):
                return False
            held = [n for n in thing.mention.candidates if n in self.settled]
            if held and held[0] != said:  # "answered the blue phone": the one she has, of two ringing
                self.stated = [Stated(Fact(s.fact.predicate, tuple(held[0] if a == said else a for a in s.fact.args)),
                                      s.true) for s in self.stated]
        return True

    # ---- verbs --------------------------------------------------------------------------------------------
    def _verb(self, verb: int, end: int, things: list[_Thing], subject: _Thing | None, has_state: bool) -> bool:
        """Read the clause's verb; False when it cannot be read plainly."""
        word = self.words[verb]
        after = [t for t in things if t.start > verb]
        if word in self.lexicon.goes:
            room = next((t for t in after if t.kind == "room" and not is_source(self.words, t.start)), None)
            people = [t for t in things if t.kind == "person" and t.start < verb]
            who = people if len(people) > 1 and self._coordinated(people) else [subject]  # "Sarah and Jessica went"
            left = [t for t in after if t.kind == "room" and is_source(self.words, t.start)]
            if room is None and left and subject is not None and not self.request and len(after) == len(left):
                self.used.update(t.start for t in left)  # "came out of bathroom 3 (and went ...)": where she was,
                return True  # no change of its own
            return subject is not None and room is not None and all(self._place(p, room) for p in who if p)
        if word in self.lexicon.gives:
            person = next((t for t in after if t.kind == "person"  # not "she" of "the book she was holding"
                           and (subject is None or t.mention is not subject.mention)), None)
            thing = next((t for t in after if t.kind == "item"), None)
            return person is not None and thing is not None and self._place(thing, person, giver=subject)
        thing = next((t for t in after if t.kind in ("item", "person") and t is not subject
                      and not is_source(self.words, t.start)), None)
        if word in ("left", "leaves") and not self.request and after and after[0].kind == "room" and (
                after[0].start == verb + 1 or self.words[verb + 1:after[0].start] in (["the"], ["his"], ["her"])):
            self.used.add(after[0].start)  # "Jessica left the kitchen (and went to ...)": where she was, no
            return True  # change of its own; what she did next says where she is
        if self.request:
            return self._asked(after, has_state)
        if word in self.lexicon.takes:  # "Sarah has Jessica's book": the book, not Jessica
            thing = next((t for t in after if t.kind == "item" and not is_source(self.words, t.start)), None)
            to = self._destination(after, thing, _TOWARDS)
            if to is not None and to.kind != "room":  # "took the book from the shelf to the desk": moved there
                return all(self._place(t, to, giver=subject) for t in self._listed(thing, after) if t.start < to.start)
            if subject is None or thing is None or not all(self._place(t, subject) for t in self._listed(thing, after)):
                return False
            if word in PICK_WORDS and "up" in self.words[verb + 1:min(end, thing.end + 2)]:
                self._add(self._picked_up(thing))  # "picked up the ringing phone": answered it
            return True
        where = self._destination(after, thing)
        if thing is not None and where is None and not has_state and thing.kind == "item" and any(
                is_source(self.words, m.start) for m in self.mentions if verb < m.start < end):
            return True  # "brought the grey plate down from bedroom 3 (and put it in the sink)": where it went is
            # for a later clause to say; `read` needs the thing placed by then
        if thing is None or where is None:
            return has_state  # "left the tap running": the state is what it says
        listed = self._listed(thing, after) if thing.kind == "item" else [thing]
        return all(self._place(t, where, giver=subject) for t in listed if t.start < where.start)  # of alike
        # things, the one the mover has; "put the cup and the plate in the sink": both

    def _listed(self, thing: _Thing, after: list[_Thing]) -> list[_Thing]:
        """`thing` and the items named right after it, joined by "and" ("took the sparkling water and the soup
        can")."""
        out = [thing]
        for t in after:
            if t.start <= out[-1].start:
                continue
            gap = range(out[-1].end, t.start)
            if t.kind != "item" or not all(self.words[i] in _DETERMINERS | self.lexicon.all_words | {"and"} or (
                    i in self.placing) for i in gap) or not ("and" in self.words[out[-1].end:t.start] or (
                    out[-1].end - 1 in self.stops)):
                break
            out.append(t)
        while len(out) > 1 and not self._coordinated(out):  # "A, B" with no "and": not a list
            out.pop()
        return out

    def _picked_up(self, thing: _Thing) -> list[Stated]:
        """A phone picked up while it rings (in memory, or as the text says) is answered: it stops ringing."""
        out = []
        for predicate, signs in self.lexicon.states.items():
            declared = self.domain.predicate(predicate)
            if declared is None or declared.arity != 1 or not signs.get(False, frozenset()) & self.lexicon.answers:
                continue
            name = thing.mention.candidates[0]
            fact = Fact(predicate, (name,))
            if self.domain.is_subtype(self.graph.entity_type(name) or "", declared.types[0]) and (
                    self.graph.has_fact(fact) or Stated(fact, True) in self.stated):
                out.append(Stated(fact, False))
        return out

    def _asked(self, after: list[_Thing], has_state: bool) -> bool:
        """A request's verb of moving, taking or giving: "bring me the X" / "give Jessica the X" (the person has
        it), "put the X on the Y" / "take the X to the Y" (it is there); "take the X" alone is a step towards a
        later clause ("... and put it back on the shelf")."""
        items = [t for t in after if t.kind == "item" and not is_source(self.words, t.start)]
        if not items or any(t.mention.plural for t in items):
            return has_state
        thing = items[0]
        person = next((t for t in after if t.kind == "person" and t.start < thing.start), None)
        where = person or self._destination(after, thing)
        if where is None:
            return True  # a step; the thing must still be placed by another clause (checked at the end)
        listed = [t for t in self._listed(thing, after) if t.start < where.start or person is not None]
        return all(self._place(t, where) for t in listed)  # "put the teapot and the mug in the dishwasher"

    def _destination(self, after: list[_Thing], thing: _Thing | None, direction: frozenset[str] = _TO,
                     ) -> _Thing | None:
        """The place after the moved thing that a word of `direction` introduces ("in the sink", "to Sarah")."""
        if thing is None:
            return None
        for t in after:
            if t.start <= thing.start or t.kind not in ("receptacle", "person", "room"):
                continue
            i = t.start - 1  # the mention, or a pronoun for it ("put the avocado in it")
            while i > thing.start and self.words[i] in _DETERMINERS | _FILLERS | {"other"}:
                i -= 1
            if self.words[i] in direction:
                return t
        return None

    def _being(self, things: list[_Thing], start: int, end: int) -> bool:
        """``the mug is in the dishwasher now``, ``she's in the bathroom``: where a thing or person is now."""
        for k, thing in enumerate(things[:-1]):
            where = things[k + 1]
            between = [self.words[i] for i in range(thing.end, where.start)  # "the novel in the office is now on"
                       if self.words[i] not in _DETERMINERS and i not in self.placing]
            to = _TO | {"with"} if where.kind == "person" else _TO  # "the novel is still with Jessica"
            be = _BE | (_OUGHT if self.request else frozenset())  # asked: "the wine bottle should really be in ..."
            if between and between[0] in be and between[-1] in to and all(w in be | to | _FILLERS | {"both", "all"}
                                                                           for w in between):
                before = len(self.stated)
                group = [thing]
                while thing.kind == "person" and len(group) <= k and things[k - len(group)].kind == "person" and (
                        self._coordinated([things[k - len(group)], *group])):
                    group.insert(0, things[k - len(group)])  # "Michael and Jessica are both in the living room"
                if not all(self._place(one, where, being=True) for one in group):
                    return False
                # "still" says nothing moved: read only when memory has it so (else the text and memory disagree)
                return "still" not in between or all(not s.is_change(self.graph) for s in self.stated[before:])
        return False

    def _place(self, thing: _Thing, where: _Thing, *, giver: _Thing | None = None, being: bool = False) -> bool:
        """`thing` is now at `where`: the one fact a rule of exactly one place allows between them. Of alike
        things, the one the giver (or mover) has; of alike places said without a place of their own ("in the sink"), the
        one in the room of the thing; with `being` ("the wine bottle is on the counter"), a thing already there
        (the words describe it rather than report a move)."""
        if thing.mention.plural:  # "left them in the kitchen sink": each of a few named things
            if being or self.request or len(thing.mention.candidates) > _FEW:
                return False  # "give me a hand with the dishes", "put all the mugs away": the model reads it
            return all(self._place(_Thing(thing.start, thing.end, replace(thing.mention, candidates=(n,),
                                                                             plural=False), thing.kind), where)
                       for n in thing.mention.candidates)
        options = list(thing.mention.candidates)
        if giver is not None and len(options) > 1:
            held = [n for n in options if self.graph.has_fact(Fact("has", (giver.mention.candidates[0], n)))]
            options = held if len(held) == 1 else options
            self.settled.update(held if len(held) == 1 else ())
        place = self._nearest(where, options[0], options, being=being)
        for rule in self.rules.rules:
            if rule.max != 1 or not rule.min:
                continue
            facts = [f for n in options for f in places_for(n, rule, {place}, self.graph, self.domain)]
            if facts:
                if not (being and len(options) > 1 and any(self.graph.has_fact(f) for f in facts)):
                    self._add([Stated(facts[0], True)])
                self.used.update({thing.mention.start, where.mention.start})
                self.read_any = True
                return True
        return False

    def _nearest(self, where: _Thing, thing: str, options: Sequence[str] = (), *, being: bool = False) -> str:
        """The place meant by words that fit several places ("the sink"): the one sharing a room with the thing,
        when the text says nothing more and exactly one does; said of where it is (`being`: "the blue serving dish
        is still on the counter"), the one it is at, when it is at one."""
        mention = where.mention
        if len(mention.broader) < 2 or any(m.qualifies == self.mentions.index(mention) for m in self.mentions):
            return mention.candidates[0]
        at = [n for n in mention.broader if any(n in f.args for o in (*options, thing)
                                                for f in self.graph.facts_of(o))] if being else []
        if len(at) == 1:
            self.settled.add(at[0])
            return at[0]
        if not BACK_WORDS.isdisjoint(self.words):  # "put the ham back in the fridge": the fridge it was in (of
            # alike things, the one any of them was in)
            was = [n for n in mention.broader if any(n in f.args for o in (*options, thing)
                                                     for f in self.graph.former_facts(o))]
            if len(was) == 1:
                self.settled.add(was[0])
                return was[0]
        rooms = places_of(self.graph, self.rules, thing)
        near = [n for n in mention.broader if places_of(self.graph, self.rules, n) & rooms]
        if len(near) != 1:
            return mention.candidates[0]
        self.settled.add(near[0])
        return near[0]

    def _add(self, literals: list[Stated]) -> None:
        """Add literals in text order; a later one about the same fact stands ("the phone rang and Jessica answered
        it": it is no longer ringing)."""
        facts = {s.fact for s in literals}
        self.stated = [s for s in self.stated if s.fact not in facts or s in literals]
        self.stated += [s for s in literals if s not in self.stated]
        self.read_any = self.read_any or bool(literals)
