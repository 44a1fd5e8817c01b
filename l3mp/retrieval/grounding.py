"""Grounding a text's mentions to entities of the graph, without an LLM.

A mention is a noun of the text that names entities: a word of an entity's label ("mug" for the red
mug, "milk" for the milk carton) or a word the domain's lexicon gives its type ("tap" for a faucet,
"lamp" for a light). Words before the noun that describe entities narrow it ("red mug", "kitchen
table"), and so does a place after it ("the light in the bathroom", "the mug from the desk"). What
remains is the mention's candidates: one entity when the text singles it out, several when it does
not; the caller decides (the state may tell them apart, or it asks back).

Labels and places are read from the graph (``label`` attribute, ``in_room``-like and location facts);
the lexicon (``<domain>.lexicon.yaml`` beside the domain file) lists each type's words, the words
that mean "all of them", and the types an update must change when it mentions them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from itertools import pairwise, takewhile
from pathlib import Path

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.domain.triplets import Fact
from l3mp.errors import DomainError
from l3mp.retrieval import sayings, spelling
from l3mp.world.graph import WorldGraph

_TOKEN = re.compile(r"[a-z0-9]+|'s\b")
STOPWORDS = frozenset({
    "a", "an", "the", "this", "that", "these", "those", "his", "her", "their", "my", "our", "your", "its", "some",
    "any", "of", "in", "on", "at", "from", "to", "into", "onto", "inside", "out", "off", "up", "down", "by",
    "near", "with", "and", "or", "then", "now", "is", "was", "are", "were", "be", "been", "has", "had", "have",
    "it", "he", "she", "they", "them", "him", "me", "i", "we", "you", "'s",
})
"""Words that never describe an entity (they end a noun phrase's run of describing words)."""
QUALIFIERS = frozenset({"in", "from", "inside", "at", "of", "on", "by", "near", "'s", "with", "next", "beside",
                        "where"})
"""Words after a noun that introduce the place that tells alike entities apart ("with", "next to", "beside", "where
the X is": what is on or in it)."""
_BESIDE = frozenset({"with", "next", "beside", "where", "by", "near"})
_ASPECT = frozenset({"started", "start", "starts", "starting", "began", "begin", "begins", "kept", "keep", "keeps",
                     "stopped", "finished", "is", "was", "were", "are", "am", "'s", "been", "be"})
"""Words after which a word in -ing is a verb ("started reading it"), not a word of a thing's label."""
_ASKING = frozenset({"turn", "switch", "bring", "fetch", "grab", "wash", "close", "open", "answer", "please",
                     "could", "would"})
"""Words of asking the robot that a typo may hide ("trun on the lamp", "plesae"), beside the lexicon's words."""
LABEL_NOUN, TYPE_WORD, OTHER_WORD = 3, 2, 1
"""How strongly a word names an entity: the noun of its label ("mug" of "red mug"), a word of its type from the
lexicon ("tap" for a faucet), another word of its label ("milk" of "milk carton")."""
_POSSESSIVE = frozenset({"his", "her", "their", "my", "our", "your"})
_THIRD_PERSON = frozenset({"his", "her", "their"})
"""Possessives of someone named before ("my" is the speaker's, "your" the robot's)."""
_NEW = frozenset({"new", "another"})
_TO = frozenset({"to", "into", "onto", "inside", "under", "over"})
_MODALS = frozenset({"can", "could", "will", "would", "should", "may", "might", "must", "shall"})
_SUBJECTS = frozenset({"someone", "somebody", "anyone", "anybody", "you", "u", "ya", "i", "we", "they", "he", "she",
                       "it"})
_DETERMINERS = frozenset({"the", "a", "an", "some", "'s", "this", "that", "these", "those"}) | _POSSESSIVE
CLAUSE_BREAKS = frozenset({"and", "then", "but", "so", "while", "after", "before"})
"""Words that start a new clause ("took the cup and went out")."""
_AFTERWORDS = frozenset({"again", "too", "still", "now", "all", "night", "day", "long", "as", "well", "today",
                         "instead",
                         "tonight", "overnight", "lol"})
"""Words after a state word that say nothing of which thing or where ("left the fridge open again")."""
_NUMBER = re.compile(r"\d+")
_ORDINALS = {"first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5"}
_PLACE = re.compile(r"\s(?:in|on|at)\s|\sof the\s")
MAX_DESCRIBING = 3
"""Describing words looked at before a noun."""
QUALIFIER_REACH = 4
"""Tokens after the preposition within which the qualifying place's noun must start."""


@dataclass(frozen=True)
class Lexicon:
    """Words for types (a type's words also name its subtypes' entities) and the words for "all"."""

    type_words: dict[str, frozenset[str]] = field(default_factory=dict)
    all_words: frozenset[str] = frozenset()
    covered: frozenset[str] = frozenset()
    """Types whose mention an update must change (see `l3mp.updates.meaning.problems`)."""
    states: dict[str, dict[bool, frozenset[str]]] = field(default_factory=dict)
    """Unary predicate -> the words that say it now holds (True) or stopped (False)."""
    moves: frozenset[str] = frozenset()
    """Verbs of moving something: a place after the thing they move is where it went."""
    takes: frozenset[str] = frozenset()
    """Verbs of a person taking something: the person now has it."""
    gives: frozenset[str] = frozenset()
    """Verbs of giving: the person it is given to now has it."""
    goes: frozenset[str] = frozenset()
    """Verbs of a person going somewhere: the room after them is where the person is now."""
    answers: frozenset[str] = frozenset()
    """Words of answering a phone (a state word too): the one who answers now has the thing."""
    makes: frozenset[str] = frozenset()
    """Verbs of making food or drink: what "made (herself) a ..." is, is new (no thing of the home), and no action of
    the robot makes it."""
    words: frozenset[str] = frozenset()
    """Other words of reports and requests that a misspelt word may be read as (`l3mp.retrieval.spelling`)."""
    not_misspelt: frozenset[str] = frozenset()
    """Real words one edit from a known word, never read as it ("beside" is not "bedside")."""
    sayings: dict[str, str] = field(default_factory=dict)
    """Other words for things of the home -> the words of their labels ("big light" -> "overhead light"; see
    `l3mp.retrieval.sayings`)."""

    @cached_property
    def state_words(self) -> frozenset[str]:
        """Every word of `states`, either sign."""
        return frozenset().union(*(w for signs in self.states.values() for w in signs.values()))

    @classmethod
    def for_domain(cls, domain: Domain) -> Lexicon:
        return _lexicon(domain.source)


@lru_cache(maxsize=16)
def _lexicon(domain_source: str) -> Lexicon:
    import yaml

    path = Path(domain_source).with_suffix(".lexicon.yaml")
    if not path.is_file():
        return Lexicon()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        types = {str(t): frozenset(str(w).lower() for w in words) for t, words in (data.get("types") or {}).items()}
        states = {str(p): {bool(k): frozenset(str(w).lower() for w in v) for k, v in signs.items()}
                  for p, signs in (data.get("states") or {}).items()}
        return Lexicon(types, frozenset(str(w).lower() for w in data.get("all") or ()),
                       frozenset(str(t) for t in data.get("covered") or ()), states,
                       *(frozenset(str(w).lower() for w in data.get(key) or ())
                         for key in ("moves", "takes", "gives", "goes", "answers", "makes", "words", "not_misspelt")),
                       {str(k).lower(): str(v).lower() for k, v in (data.get("sayings") or {}).items()})
    except (OSError, yaml.YAMLError, AttributeError, TypeError) as exc:
        raise DomainError(f"cannot read the lexicon {path}: {exc}; it needs 'types: {{type: [words]}}', "
                          "'all: [words]', 'covered: [types]', 'states: {predicate: {true: [words], false: [words]}}', "
                          "'moves|takes|gives|goes|answers|makes: [verbs]', 'words|not_misspelt: [words]', "
                          "'sayings: {phrase: label words}'"
                          ) from None


@dataclass(frozen=True)
class Mention:
    """Words of the text that name entities, and the entities they may name (best first group)."""

    start: int
    end: int
    words: str
    candidates: tuple[str, ...]
    alternatives: tuple[str, ...] = ()
    """The candidates before a place after the noun narrowed them (it may be where something goes, not where
    it is); equal to `candidates` when no place narrowed them."""
    plural: bool = False
    """The text means all of them ("all the lights", "both mugs", "the lamps")."""
    qualifies: int | None = None
    """Index (in the mention list) of the mention this one only locates ("the kitchen" in "the light in the
    kitchen"), else None."""
    broader: tuple[str, ...] = ()
    """Everything the words could name before a label said in full singled one out ("the sink" is labelled so,
    but the kitchen sink is a sink too): where a thing said to be "in the sink" may be."""
    by_label: bool = False
    """Only its label said in full singled the candidates out of `broader` ("the phone" is the one labelled
    "phone"); no place or owner said which."""

    @property
    def entity(self) -> str | None:
        """The one entity the mention names, if the text singles it out."""
        return self.candidates[0] if len(self.candidates) == 1 else None


def unexplained(text: str, mentions: Iterable[Mention]) -> list[str]:
    """Words right after a determiner ("the", "a", "her", "'s") that no mention covers: nouns the grounding did not
    find ("the red mug" when no label says mug), so a caller knows the text names more than was grounded."""
    words = tokens(text)
    return [words[i] for i in unexplained_at(text, mentions)]


def unexplained_at(text: str, mentions: Iterable[Mention]) -> list[int]:
    """Where the words of `unexplained` are (indexes into `tokens(text)`)."""
    words = tokens(text)
    covered = {i for m in mentions for i in range(m.start, m.end)}
    out = []
    for i in range(1, len(words)):
        if words[i - 1] in _DETERMINERS and i not in covered and words[i] not in STOPWORDS and not any(
                j in covered for j in range(i, min(len(words), i + MAX_DESCRIBING + 1))):
            out.append(i)
    return out


_RELATIVE = frozenset({"that", "which"})
_RELATIVE_BE = frozenset({"'s", "is", "was", "were", "are"})


def _relative_state(words: list[str], end: int) -> bool:
    """Whether a mention ending at `end` is followed by "that's / which was <word>" ("the cupboard that's open")."""
    return end + 2 < len(words) and words[end] in _RELATIVE and words[end + 1] in _RELATIVE_BE


def outside_mentions(words: list[str], mentions: Iterable[Mention]) -> list[str]:
    """`words` with those of the mentions blanked: a state word that says which thing is meant ("the clean wine
    glass", "the cupboard that was open") is part of its mention, not a report of its state."""
    inside = {i for m in mentions for i in range(m.start, m.end)} | {
        m.end + 2 for m in mentions if _relative_state(words, m.end)}
    return ["" if i in inside else w for i, w in enumerate(words)]


def noun_phrase_of(label: str) -> str:
    """A label without the place it names: "faucet of the kitchen sink in kitchen 1" -> "faucet"."""
    return _PLACE.split(label.lower(), maxsplit=1)[0]


def pauses(text: str) -> frozenset[int]:
    """The indexes of the tokens of `text` (`tokens`) that a comma, stop or other pause follows: the words of one
    mention never span one."""
    said = text.lower().replace("\u2019", "'")
    found = list(_TOKEN.finditer(said))
    return frozenset(k for k, (a, b) in enumerate(pairwise(found))
                     if any(c in ",.;:!?()" for c in said[a.end():b.start()]))


def tokens(text: str) -> list[str]:
    """Lowercase words of `text`, with the possessive ``'s`` as a token of its own."""
    return _TOKEN.findall(text.lower().replace("\u2019", "'"))


def token_spans(text: str) -> list[tuple[int, int]]:
    """Where in `text` each of its `tokens` is (start, end character offsets)."""
    return [m.span() for m in _TOKEN.finditer(text.lower().replace("\u2019", "'"))]


_CARRIED_TO = re.compile(
    r"\b(?:brought|took|carried|fetched|taken|carries|carrying|brings|bringing)\s+(?P<what>it|them|(?:the|his|her|their|my|"
    r"our)\s+(?:[a-z]+\s+){0,3}?[a-z]+(?:\s+(?:from|off|out\s+of)\s+(?:the\s+)?(?:[a-z]+\s+){0,2}?[a-z]+(?:\s+\d+)?)?)"
    r"(?P<aside>\s*,\s*not\s+(?:the|that)\s+[a-z -]{1,30}?,)?"
    r"\s+(?:through\s+|over\s+|back\s+|down\s+|up\s+|along\s+|out\s+)?(?:in)?to\s+(?:the\s+)?"
    r"(?P<room>[a-z]+(?:\s+[a-z]+)?(?:\s+\d+)?)(?=\s*(?:$|[,.;!?]|and\b|then\b|so\b|with\b|for\b))", re.IGNORECASE)
""""brought the wine through to the dining room", "took the water from the table into the living room", "brought them
through to the living room", "carried the wine bottle, not the half-empty one, through to the living room"."""
_ROOM_WHERE = re.compile(
    r"\b(?P<to>in|into|to)\s+(?:the\s+)?(?P<room>(?:[a-z]+\s+)?[a-z]+(?:\s+\d+)?)\s+where\s+(?P<what>the\s+(?:[a-z]+\s+){0,2}?[a-z]+?)"
    r"(?:\s+is|['\u2019]s)\s+(?:still\s+)?(?P<state>on|off|running|open|closed|ringing|dirty)\b", re.IGNORECASE)
""""in the bathroom where the tap's running": which bathroom (`Grounder.respell`)."""


_ROOM_ONE_IS_IN = re.compile(
    r"\bthe\s+(?P<room>[a-z]+(?:\s+room)?)\s+(?:that\s+|where\s+)?(?P<who>[a-z]+)(?:['\u2019]s|\s+is|\s+was|\s+are)\s+"
    r"(?:still\s+|now\s+|currently\s+|sitting\s+|staying\s+)?in\b(?!\s+(?:the|a|an|his|her|their|my|there|here)\b)",
    re.IGNORECASE)
""""the bathroom she's in now": the room that person is in (`Grounder._room_one_is_in`)."""
_ONE_IS_IN_THE_ROOM = re.compile(
    r"\b(?P<who>[A-Za-z]+)(?:['\u2019]s|\s+is)\s+(?:still\s+|now\s+|currently\s+)?(?:in|sitting\s+in|at)\s+the\s+"
    r"(?P<room>[a-z]+(?:\s+room)?)\b(?!\s+\d)", re.IGNORECASE)
""""Jessica's still in the bathroom": the bathroom she is in (not "went to the bathroom": a move says where to)."""
ONE_PERSON_WORDS = frozenset({"she", "he"})
"""Words for one person named before."""
_PERSON_WORDS = ONE_PERSON_WORDS | {"they"}
_SOMEONE_IN_A_ROOM = re.compile(
    r"\b(?P<who>the\s+(?:guy|man|woman|lady|girl|boy|kid|person)|whoever(?:['\u2019]s|\s+is)?(?:\s+(?:up|down|over|"
    r"out))?)\s+in\s+(?P<room>(?:the\s+)?[a-z]+(?:\s+room)?(?:\s+\d)?)\b(?!\s+(?:is|was|has|'s)\b)", re.IGNORECASE)
"""'the guy in the living room', 'whoever's up in bedroom 2': the one person the memory has in that room."""

_THE_ONE_WITH = re.compile(
    r"\b(?P<thing>(?:the|that|this|her|his|my|their|our)\s+[a-z]+(?:\s+[a-z]+)?)(?P<where>\s+(?:in|at)\s+(?:(?:the|her|"
    r"his|my|their|our)\s+)?[a-z]+(?:\s+room)?(?:\s+\d)?)?\s*,\s*(?:the|that)\s+one\s+with\s+(?P<with>(?:the|a|an|her|his|my|"
    r"their|some)\s+(?:[a-z]+\s+){0,3}?(?:on|in|inside)\s+it)\b", re.IGNORECASE)
"""'the desk in her room, the one with the water bottle on it': said as 'the desk with the water bottle on it in
her room', so that what is on it says which desk (not which room)."""

ROOM_KINDS = ("living room", "dining room", "laundry room", "bedroom", "bathroom", "kitchen", "office", "garage",
              "hallway")
"""The kinds of room people name a room of the home by ("bedroom 2", "the living room")."""
ROOM_WORDS = "(?:" + "|".join(kind.replace(" ", r"\s+") for kind in ROOM_KINDS) + ")"
"""A kind of room, as a regular expression."""
_ROOM_NOUNS = frozenset({kind.split()[-1] for kind in ROOM_KINDS} | {"lounge", "hall"})
_AFTER_A_NOUN = frozenset({"back", "through", "away", "over", "around", "round", "too", "again", "here", "there"})
"""Words that may follow a noun ("brought the wine through", "put the milk back"): a word of a label before them
is the noun said, not a word describing one."""


@dataclass
class _Entity:
    name: str
    heads: dict[str, int]
    """Word -> how strongly it names the entity (`LABEL_NOUN`, `TYPE_WORD`, `OTHER_WORD`)."""
    describing: frozenset[str]
    places: frozenset[str]
    """Entities that locate it: its room, its receptacle or holder, and their rooms."""
    numbers: frozenset[str] = frozenset()
    """Numbers of its label's noun phrase ("kitchen 2")."""
    noun_phrase: list[str] = field(default_factory=list)
    """The words of its label's noun phrase, numbers left out."""
    states: frozenset[tuple[str, bool]] = frozenset()
    """(state predicate, whether it holds) for each state of the lexicon that its type has."""
    kind: str = ""
    """``person`` (what "her X" can belong to), ``room`` (where someone went), else empty."""
    type_: str = ""
    """Its type in the domain."""
    named: tuple[str, ...] = ()
    """The content words of its name ("hardcover_atlas_1": hardcover, atlas), whatever its label says."""
    labelled_number: bool = False
    """Whether its number is its label's ("dresser 2"), not only its name's ("kitchen_island_3")."""


_COLOURS = frozenset({"red", "orange", "yellow", "green", "blue", "purple", "pink", "black", "white", "grey", "gray",
                      "brown", "gold", "silver"})
_TO_DO = frozenset({"drink", "eat", "read", "snack", "cook", "watch", "play", "sip"})
"""Words that are verbs after "to" at a clause's end ("took it back out to the garage to drink"), whatever thing of
the home they also name."""


class Grounder:
    """Finds the mentions of a text among a graph's entities (see the module docstring)."""

    def __init__(self, domain: Domain, rules: RuleSet | None = None, lexicon: Lexicon | None = None) -> None:
        self._domain = domain
        self._rules = rules if rules is not None else RuleSet.for_domain(domain)
        self._lexicon = lexicon if lexicon is not None else Lexicon.for_domain(domain)

    @property
    def lexicon(self) -> Lexicon:
        return self._lexicon

    @property
    def domain(self) -> Domain:
        return self._domain

    def respell(self, text: str, graph: WorldGraph) -> tuple[str, tuple[tuple[str, str], ...]]:
        """`text` with its misspelt words read as words of the home: the graph's names and labels and the
        lexicon's words (`l3mp.retrieval.spelling`), and other words for things of the home read as their labels'
        words (`l3mp.retrieval.sayings`: "the big light", "left the water running"); and what was read as what."""
        lex = self._lexicon
        known = set(lex.words) | lex.all_words | lex.state_words | lex.moves | lex.takes | lex.gives | lex.goes
        known |= lex.answers | {w for words in lex.type_words.values() for w in words} | _ASKING
        labels = []
        for name in graph.entities():
            known.update(tokens(name.replace("_", " ")))
            labels.append(" ".join(tokens(str(graph.entity_attrs(name).get("label") or ""))))
            known.update(labels[-1].split())
        text, respelt = spelling.respell(text, known, STOPWORDS | QUALIFIERS | lex.not_misspelt)
        faucet = self._domain.has_type("faucet") and any(
            self._domain.is_subtype(graph.entity_type(n) or "", "faucet") for n in graph.entities())
        names = [" ".join(tokens(re.sub(r"_\d+$", "", n).replace("_", " "))) for n in graph.entities()]
        text, said = sayings.read_sayings(text, labels + names, lex.sayings, faucet)  # (a thing's name says what it
        # is as well as its label: "the eggs" are the egg carton that perception labelled "box")
        people = [lab for n, lab in zip(graph.entities(), labels, strict=True) if self._domain.is_subtype(
            graph.entity_type(n) or "", "person") and lab.isalpha()] if self._domain.has_type("person") else []
        text, whose = sayings.read_possessives(text, people)
        said += whose
        text, door = sayings.read_doors(text, self._openable_words(graph))
        ones = [m for m in _THE_ONE_WITH.finditer(text) if m["thing"].split()[-1].lower() not in _ROOM_NOUNS]
        said += tuple((m[0], f"{m['thing']} with {m['with']}{m['where'] or ''}") for m in ones)
        for m in reversed(ones):  # (not a room: "the fridge in the second kitchen, the one with the juice in it")
            text = f"{text[:m.start()]}{m['thing']} with {m['with']}{m['where'] or ''}{text[m.end():]}"
        text, where = self._room_where(text, graph)
        text, theirs = self._room_one_is_in(text, graph)
        where += theirs
        text, carried = self._carried_to_a_room(text, graph)
        text, someone = self._person_in_a_room(text, graph)
        return text, respelt + said + door + where + carried + someone

    def _person_in_a_room(self, text: str, graph: WorldGraph) -> tuple[str, tuple[tuple[str, str], ...]]:
        """"The guy in the living room just drank ...", "whoever's up in bedroom 2 picked up ...": said by the
        name of the one person the memory has in the one room the words name; as it is otherwise (no such room,
        nobody or several people there)."""
        if not (self._domain.has_type("room") and self._domain.has_type("person")):
            return text, ()
        changed: list[tuple[str, str]] = []

        def said(m: re.Match) -> str:
            words = set(tokens(m["room"])) - STOPWORDS
            rooms = [r for r in graph.entities() if self._domain.is_subtype(graph.entity_type(r) or "", "room")
                     and words == set(tokens(str(graph.entity_attrs(r).get("label") or r.replace("_", " "))))]
            if len(rooms) != 1:
                return m[0]
            there = [n for n in graph.entities() if self._domain.is_subtype(graph.entity_type(n) or "", "person")
                     and graph.has_fact(Fact("in_room", (n, rooms[0])))]
            if len(there) != 1:
                return m[0]
            new = str(graph.entity_attrs(there[0]).get("label") or there[0]).capitalize()
            changed.append((m[0], new))
            return new

        return _SOMEONE_IN_A_ROOM.sub(said, text), tuple(changed)

    def _carried_to_a_room(self, text: str, graph: WorldGraph) -> tuple[str, tuple[tuple[str, str], ...]]:
        """"Jess brought the wine through to the dining room": she took it and went there (a room is no place to
        put a thing down in; the one who carries it is in the room and has it); said so, as "took the wine and went
        to the dining room". Left as it is when the words after "to" are not the label of a room."""
        if not self._domain.has_type("room"):
            return text, ()
        rooms = {" ".join(tokens(str(graph.entity_attrs(r).get("label") or r.replace("_", " "))))
                 for r in graph.entities() if self._domain.is_subtype(graph.entity_type(r) or "", "room")}
        changed: list[tuple[str, str]] = []

        def said(m: re.Match) -> str:
            if " ".join(tokens(m["room"])) not in rooms:
                return m[0]
            new = f"took {m['what']}{m['aside'] or ''} and went to the {m['room']}"
            changed.append((m[0], new))
            return new

        return _CARRIED_TO.sub(said, text), tuple(changed)

    def _room_where(self, text: str, graph: WorldGraph) -> tuple[str, tuple[tuple[str, str], ...]]:
        """"he's in the bathroom where the tap's running": of the rooms the words fit, the one where a thing of the
        noun said is in the state said (bathroom 2, whose tap runs), said by its label; the text as it is when no
        room or more than one fits so."""
        found = _ROOM_WHERE.search(text)
        if found is None or not self._domain.has_type("room"):
            return text, ()
        said = set(tokens(found["room"])) - STOPWORDS
        rooms = [r for r in graph.entities() if self._domain.is_subtype(graph.entity_type(r) or "", "room")
                 and said <= set(tokens(str(graph.entity_attrs(r).get("label") or r.replace("_", " "))))]
        state = found["state"].lower()
        signs = {(p, truth) for p, by_sign in self._lexicon.states.items() for truth, words in by_sign.items()
                 if state in words}
        noun = tokens(found["what"])[-1]
        fitting = []
        for room in rooms:
            things = [e for e in graph.entities() if room in places_of(graph, self._rules, e)
                      and noun in self._describe(graph, e).heads]
            if any(graph.has_fact(Fact(p, (e,))) == truth for e in things for p, truth in signs
                   if (d := self._domain.predicate(p)) is not None and d.arity == 1
                   and self._domain.is_subtype(graph.entity_type(e) or "", d.types[0])):
                fitting.append(room)
        if len(rooms) < 2 or len(fitting) != 1:
            return text, ()
        label = str(graph.entity_attrs(fitting[0]).get("label") or fitting[0].replace("_", " "))
        said_so = f"{found['to']} the {label}"
        return text[:found.start()] + said_so + text[found.end():], ((found[0], said_so),)

    def _room_one_is_in(self, text: str, graph: WorldGraph) -> tuple[str, tuple[tuple[str, str], ...]]:
        """"the shelf in the bathroom she's in now", "Jessica's still in the bathroom": of the rooms the words fit,
        the one the person is in (a pronoun: the one person the text names), said by its label; as it is when the
        person or the room is not known so."""
        if not (self._domain.has_type("room") and self._domain.has_type("person")):
            return text, ()
        people = {" ".join(tokens(str(graph.entity_attrs(n).get("label") or n))): n for n in graph.entities()
                  if self._domain.is_subtype(graph.entity_type(n) or "", "person")}
        named = [n for lab, n in people.items() if re.search(rf"\b{re.escape(lab)}\b", text, re.IGNORECASE)]
        changed: list[tuple[str, str]] = []

        def said(m: re.Match) -> str:
            who = m["who"].lower()
            person = people.get(who) or (named[0] if who in _PERSON_WORDS and len(named) == 1 else None)
            words = set(tokens(m["room"])) - STOPWORDS
            rooms = [r for r in graph.entities() if self._domain.is_subtype(graph.entity_type(r) or "", "room")
                     and words <= set(tokens(str(graph.entity_attrs(r).get("label") or r.replace("_", " "))))]
            if person is None or len(rooms) < 2:
                return m[0]
            there = [r for r in rooms if graph.has_fact(Fact("in_room", (person, r)))]
            if len(there) != 1:
                return m[0]
            label = str(graph.entity_attrs(there[0]).get("label") or there[0].replace("_", " "))
            new = m[0].replace(m["room"], label, 1)
            changed.append((m[0], new))
            return new

        text = _ROOM_ONE_IS_IN.sub(said, text)
        return _ONE_IS_IN_THE_ROOM.sub(said, text), tuple(changed)

    def _openable_words(self, graph: WorldGraph) -> frozenset[str]:
        """Words that name a thing with a door in this home ("fridge", "dishwasher", "pantry"): the lexicon's words
        of the types `is_open` takes and the last word of each such thing's label."""
        declared = self._domain.predicate("is_open")
        if declared is None or declared.arity != 1:
            return frozenset()
        kind = declared.types[0]
        words = {w for t, said in self._lexicon.type_words.items() if self._domain.is_subtype(t, kind) for w in said}
        for name in graph.entities():
            if self._domain.is_subtype(graph.entity_type(name) or "", kind):
                label = tokens(str(graph.entity_attrs(name).get("label") or name.replace("_", " ")))
                noun = [w for w in takewhile(lambda w: w not in ("in", "of", "on", "at"), label)
                        if not w.isdigit()]
                words.update(noun[-1:])  # "pantry" of "pantry in the kitchen"
        return frozenset(words)

    def ground(self, text: str, graph: WorldGraph, entities: Iterable[str] | None = None, *,
               speaker: str | None = None) -> tuple[Mention, ...]:
        """The mentions of `text`, in text order, grounded among `entities` (default: every entity); `speaker`: who
        said it, whose things "my X" are."""
        names = sorted(graph.entities()) if entities is None else sorted(n for n in set(entities)
                                                                        if graph.has_entity(n))
        table = [self._describe(graph, n) for n in names]
        vocabulary = _Vocabulary(table)
        words = tokens(text)
        here = self._speakers_room(graph, speaker)
        pre = {i: (here,) for i, word in enumerate(words) if word == "here" and here is not None}
        pre.update(self._own_rooms(graph, words, speaker))
        stops = pauses(text)
        found, narrowed = self._scan(words, vocabulary, pre, stops)  # "the desk lamp in here", said by Sarah
        there = _there_rooms(words, found, self._domain, graph, self._rules)
        if there:  # "leave the overhead light there on", "ran in there": the room named before
            found, narrowed = self._scan(words, vocabulary, {**pre, **there}, stops)
        ordered = sorted(found.values(), key=lambda m: m.start)
        ordered = _possessives(ordered, words, vocabulary, narrowed, speaker)
        ordered = _the_other(ordered, words, vocabulary)
        ordered = _the_one(ordered, words, vocabulary, narrowed)
        ordered = _named_before(ordered, words, narrowed)
        ordered = _in_the_room_gone_to(ordered, words, vocabulary, self._lexicon.goes)
        ordered = _not_in_the_room_named(ordered, words, vocabulary, self._lexicon.moves | self._lexicon.takes
                                         | self._lexicon.gives)
        ordered = _a_word_for_others(ordered, words, vocabulary)
        lex = self._lexicon
        ordered = _in_the_room_after(ordered, words, vocabulary, narrowed, stops,
                                     lex.moves | lex.takes | lex.gives | lex.goes)
        ordered = _this_one_here(_renarrow(ordered, vocabulary, narrowed), words, vocabulary, here, speaker)
        _where_it_is_then_where_to(ordered, words, vocabulary, narrowed)
        ordered = _renarrow(_next_to_them(ordered, words, vocabulary, speaker), vocabulary, narrowed)
        return tuple(_link_qualifiers(ordered, narrowed))

    def _scan(self, words: list[str], vocabulary: _Vocabulary, pre: dict[int, tuple[str, ...]],
              stops: frozenset[int] = frozenset()) -> tuple[dict[int, Mention], dict[int, int]]:
        """Mentions found from the last word back, with `pre` (word index -> entities: "here", "there") fixed."""
        found = {i: Mention(i, i + 1, words[i], names, names, broader=names) for i, names in pre.items()}
        consumed: set[int] = set(pre)
        narrowed: dict[int, int] = {}
        for i in range(len(words) - 1, -1, -1):
            if i in consumed:
                continue
            mention = self._mention(words, i, vocabulary, found, consumed, narrowed, stops)
            if mention is not None:
                found[i] = mention
        return found, narrowed

    def _own_rooms(self, graph: WorldGraph, words: list[str], speaker: str | None) -> dict[int, tuple[str, ...]]:
        """"my room" (said by `speaker`), "Sarah's room", "his room" (the person named last before it): the bedroom
        the person is in (word index -> room); for "room", also a room of theirs called a room ("living room 2"). The
        memory keeps no owner of rooms; a person in a bedroom is taken to be in their own. Nothing when the person
        is in another room, or is not known."""
        out: dict[int, tuple[str, ...]] = {}

        def person(name: str | None) -> bool:
            return name is not None and graph.has_entity(name) and self._domain.is_subtype(
                graph.entity_type(name) or "", "person")

        for i, word in enumerate(words):
            if word not in ("room", "bedroom") or i == 0:
                continue
            owner = speaker if words[i - 1] == "my" else words[i - 2] if words[i - 1] == "'s" and i > 1 else None
            if words[i - 1] in ("his", "her", "their") and word == "room":  # ("his bedroom light": a light)
                owner = next((w for w in reversed(words[:i - 1]) if person(w)), None)
            if not person(owner):
                continue
            room = self._speakers_room(graph, owner)
            said = tokens(str(graph.entity_attrs(room).get("label") or room)) if room is not None else []
            if "bedroom" in said or (word == "room" and "room" in said):
                out[i] = (room,)
        return out

    def _contents(self, scored: dict[str, int], vocabulary: _Vocabulary) -> dict[str, int]:
        """Of the things a word of their labels names (not their noun), those to eat or drink when there are some
        and others ("the wine": the wine bottle, not the wine glasses; "the juice": the juice box, not the juice
        glass): the word says what is in them."""
        kinds = [k for k in ("food", "drink") if self._domain.has_type(k)]
        types = {e.name: e.type_ for e in vocabulary.entities if e.name in scored}
        edible = {n: v for n, v in scored.items() if any(self._domain.is_subtype(types.get(n, ""), k) for k in kinds)}
        return edible if edible and len(edible) < len(scored) else scored

    def _speakers_room(self, graph: WorldGraph, speaker: str | None) -> str | None:
        if speaker is None or not graph.has_entity(speaker) or not self._domain.has_type("room"):
            return None
        rooms = [p for p in places_of(graph, self._rules, speaker)
                 if self._domain.is_subtype(graph.entity_type(p) or "", "room")]
        return rooms[0] if len(rooms) == 1 else None

    # ---- one noun -------------------------------------------------------------------------
    def _mention(self, words: list[str], i: int, vocabulary: _Vocabulary, found: dict[int, Mention],
                 consumed: set[int], narrowed: dict[int, int], stops: frozenset[int] = frozenset(),
                 ) -> Mention | None:
        head = vocabulary.known(words[i])
        scored = {e.name: e.heads[head] for e in vocabulary.entities if head in e.heads}
        after = words[i + 1] if i + 1 < len(words) else None
        if words[i] in _MODALS and after in _SUBJECTS and not (i > 0 and any(
                words[i - 1] in e.describing for e in vocabulary.entities if e.name in scored)):
            return None  # "can someone get it": a verb, not the soda can ("the soda can she was holding" is one)
        if words[i] in _MODALS and i > 0 and words[i - 1] in _SUBJECTS - {"it"}:
            return None  # "I can barely see": a verb
        if (i > 0 and words[i - 1] in _NEW) or (i > 1 and words[i - 2] in _NEW):
            return None  # "a new toaster", "another mug": not a thing the memory has
        if after == "one" or (scored and max(scored.values()) == OTHER_WORD and after is not None and (
                after not in STOPWORDS | _AFTER_A_NOUN) and not _NUMBER.fullmatch(after)):
            return None  # "red" of "red mug" is not a noun, whatever the mug turns out to be; "the small one"
        if not scored:
            return None
        if max(scored.values()) == OTHER_WORD and words[i] == head + "s" and head in _COLOURS:
            return None  # "a bag of oranges": a colour of the orange notebook is never said in the plural
        if made_a(words, i, self._lexicon.makes):
            return None  # "made himself a tea": a new drink, not the tea box nor the iced tea
        if max(scored.values()) == OTHER_WORD:  # "the wine": the wine bottle, not the wine glasses
            scored = self._contents(scored, vocabulary)
        if words[i].endswith("ing") and max(scored.values()) == OTHER_WORD and i > 0 and words[i - 1] in _ASPECT:
            return None  # "started reading it", "is sipping": a verb, not the reading lamp
        if i > 0 and words[i - 1] == "to" and head == words[i] and (len(_best(scored)) > 1 or (
                words[i] in _TO_DO and (after is None or after in STOPWORDS - {"of", "in", "on"}))) and not (
                after is not None and _NUMBER.fullmatch(after)):
            return None  # "took the milk out of the fridge to drink", "took it out to the garage to drink": a verb
        by_name = {e.name: e for e in vocabulary.entities}
        if after == "of" and i + 2 < len(words):  # "bag of oranges" is not the bag of rice
            of = vocabulary.known(words[i + 2])
            scored = {n: s for n, s in scored.items() if "of" not in by_name[n].noun_phrase
                      or of in by_name[n].noun_phrase} if of not in STOPWORDS else scored
            if not scored:
                return None
        start, describing = i, []
        for j in range(i - 1, max(-1, i - 1 - MAX_DESCRIBING), -1):
            word = words[j]
            if word in STOPWORDS or j in consumed or j in found or j in stops:
                break  # "... in bedroom 1, Michael wants to sleep": not Michael's "bedroom 1"
            word = _ORDINALS.get(word, word)
            if not any(word in by_name[n].describing or word in by_name[n].numbers for n in scored):
                break
            describing.append(word)
            start = j
        for k, word in enumerate(describing):
            of_a_place = _NUMBER.fullmatch(word) and k + 1 < len(describing)  # "the bedroom 3 light": 3 is the room's
            narrower = {n: s for n, s in scored.items() if word in by_name[n].describing or (
                word in by_name[n].numbers and not of_a_place)}
            if narrower:
                scored = narrower
        if describing and len(_best(scored)) > 1:  # "the kitchen counter": the counter in the kitchen, not the
            own = {n for n in _best(scored) if words[i] in by_name[n].noun_phrase}  # kitchen island (a counter by
            other = {n for n in _best(scored) if n not in own and set(describing) & set(by_name[n].noun_phrase)
                     and not any(w.endswith(words[i]) for w in by_name[n].noun_phrase)}  # (a smartphone is a phone)
            if own and other:  # type, whose own words use "kitchen" for another kind of thing)
                scored = {n: v for n, v in scored.items() if n not in other}
        end = i + 1
        if after is not None and _NUMBER.fullmatch(after):  # "kitchen 2", "bedroom 1"
            numbered = {n: v for n, v in scored.items() if after in by_name[n].numbers}
            room, nth = _nth_in_the_room(scored, int(after), words, i + 2, found, by_name)
            if nth is not None and not any(room in by_name[n].places and by_name[n].labelled_number
                                           for n in numbered):
                numbered = {nth: scored[nth]}  # "the kitchen island 1 in kitchen 2": kitchen 2's first island (a
                # number only the names have counts the alike things of the room said)
            if numbered:
                scored, end = numbered, i + 2
        said_start = start
        state = start - 1
        if state >= 0 and state not in consumed and state not in found and (
                state == 0 or words[state - 1] in _DETERMINERS | self._lexicon.all_words):
            signs = {(p, truth) for p, by_sign in self._lexicon.states.items() for truth, said_words in by_sign.items()
                     if words[state] in said_words}
            fitting = {n: scored[n] for n in _best(scored) if signs & by_name[n].states}
            if fitting:  # "the clean wine glass": which glass, not that it was washed
                scored, start = fitting, state
        if _relative_state(words, end):  # "the cupboard that's open": which cupboard, not that it was opened
            signs = {(p, truth) for p, by_sign in self._lexicon.states.items() for truth, said_words in by_sign.items()
                     if words[end + 2] in said_words}
            scored = {n: scored[n] for n in _best(scored) if signs & by_name[n].states} or scored
        before = [w for w in words[max(0, start - 2):start] if w != "the"]
        plural = (bool(before) and before[-1] in self._lexicon.all_words) or (head != words[i] and not all(
            head in by_name[n].noun_phrase[:-1] or words[i] in by_name[n].noun_phrase for n in _best(scored)))
        # ("the crackers": the cracker box, "the chips": the bag of chips; not "the dishes", "the mugs")
        broader = _best(scored)
        said = [w for w in words[said_start:end] if not _NUMBER.fullmatch(w)]
        exact = {n: v for n, v in scored.items() if by_name[n].noun_phrase == said}
        by_label = bool(exact) and len(_best(scored)) > 1 and not (
            start > 0 and words[start - 1] in ("a", "an")) and not any(  # "left a bowl in the sink": any bowl
            n not in exact and list(by_name[n].named) == said for n in _best(scored))  # (one named "hardcover atlas"
        # but labelled "thing" by perception is as much "the hardcover atlas" as the one labelled so)
        unlabelled = scored
        if by_label:  # "the bowl" is the one labelled "bowl", before the salad bowl
            scored = exact
        alternatives = _best(scored)
        of = found.get(i + 2) if after == "of" else None
        if of is not None and set(of.candidates) & set(scored):  # "the bag of chips from the counter": one thing
            del found[i + 2]
            consumed.update(range(start, of.end))
            kept = tuple(n for n in of.candidates if n in scored)
            return Mention(start, of.end, " ".join(words[start:of.end]), kept,
                           tuple(n for n in of.alternatives if n in scored) or kept, plural,
                           broader=tuple(n for n in broader if n in set(of.broader) | set(of.candidates)) or kept)
        place = self._place(words, i, found)
        at = i + 2 if i + 1 < len(words) and _NUMBER.fullmatch(words[i + 1]) else i + 1
        if place is not None and (not self._moved(words, start, vocabulary) or self._left_in_state(words, place, stops)
                                  or (words[at] == "from" and (len(place.candidates) == 1 or len(
                                      [n for n in _best(scored) if by_name[n].places & set(place.candidates)]) == 1))):
            # "put the soup can from the pantry on the counter": where it came from says which (of several
            # bookshelves, "from the bookshelf" says which when one of the things is on a bookshelf)
            pool = set(place.candidates) | set(place.alternatives) | set(place.broader)
            with_ = words[at] in _BESIDE
            if with_:  # "the kitchen island with the lemon", "the counter next to the orange": the one it is on
                pool = {p for n in place.candidates if n in by_name for p in by_name[n].places}
                narrower = {n: s for n, s in scored.items() if n in pool}
            else:  # the places the words name first ("from the cupboard": not the pantry, a cupboard too)
                narrower = {n: s for n, s in scored.items() if by_name[n].places & set(place.candidates)}
                if not narrower and by_label and (place.end - 1) in narrowed:  # "the notebook off the bookshelf in
                    # the office": the one there, before the one labelled "notebook" on another bookshelf (the
                    # place's own words said which bookshelf)
                    narrower = {n: s for n, s in unlabelled.items() if by_name[n].places & set(place.candidates)}
                    scored = unlabelled if narrower else scored
                narrower = narrower or {n: s for n, s in scored.items() if by_name[n].places & pool}
                if not narrower and by_label:  # "the shelf in bathroom 3": not the one labelled "shelf" elsewhere
                    narrower = {n: s for n, s in unlabelled.items() if by_name[n].places & set(place.candidates)}
                    scored = unlabelled if narrower else scored
            if narrower and (len(_best(scored)) > 1 or set(_best(narrower)) == set(_best(scored))):
                scored = narrower  # narrowed, or it says where the thing already is: the place only describes
                narrowed[end - 1] = place.start
                by_label = False
                where = set().union(*(by_name[n].places for n in _best(scored))) & pool
                if where and set(place.candidates) != where and not with_:
                    found[_key_of(found, place)] = replace(place, candidates=tuple(sorted(where)))
        consumed.update(range(start, end))
        return Mention(start, end, " ".join(words[start:end]), _best(scored), alternatives, plural, broader=broader,
                       by_label=by_label)

    def _moved(self, words: list[str], start: int, vocabulary: _Vocabulary) -> bool:
        """Whether the noun is what a verb of moving moves ("put the mug in the sink": the sink is where it went,
        not which mug): the verb comes before it in its clause with no other noun between."""
        for j in range(start - 1, -1, -1):
            if words[j] in CLAUSE_BREAKS or words[j] in QUALIFIERS or words[j] in _TO or vocabulary.known(
                    words[j]) in vocabulary.heads:
                return False  # "left it on the coffee table in living room 1": the table is not what was moved
            if words[j] in self._lexicon.moves:
                return True
        return False

    def _left_in_state(self, words: list[str], place: Mention, stops: frozenset[int] = frozenset()) -> bool:
        """"left the cupboard in the laundry room open": a state word that ends the clause (or comes before a
        pause: "..., honestly") after the place says how the thing was left, so the place says which thing it is,
        not where it went."""
        at = place.end
        after = at + 1
        while after < len(words) and words[after] in _AFTERWORDS and after - 1 not in stops:  # "open again"
            after += 1
        if at >= len(words):
            return False
        ends = after >= len(words) or words[after] in CLAUSE_BREAKS or after - 1 in stops
        return ends and any(
            words[at] in said for by_sign in self._lexicon.states.values() for said in by_sign.values())

    def _place(self, words: list[str], i: int, found: dict[int, Mention]) -> Mention | None:
        """The mention of a place right after the noun (``in the kitchen``, ``'s``-less ``of the sink``)."""
        if i + 1 < len(words) and _NUMBER.fullmatch(words[i + 1]):
            i += 1
        if i + 1 < len(words) and words[i + 1] in ("here", "there") and i + 1 in found:
            return found[i + 1]  # "the bookshelf here", "the light there"
        if i + 2 < len(words) and words[i + 1] in ("up", "down", "over") and words[i + 2] in ("on", "in", "at", "by"):
            i += 1  # "the phone up on the dresser", "the lamp over by the sofa"
        off = i + 2 < len(words) and ((words[i + 1] == "off" and words[i + 2] in _DETERMINERS) or (
            words[i + 1] == "out" and words[i + 2] == "of"))  # "off the shelf", "out of fridge 2"
        if i + 1 >= len(words) or (words[i + 1] not in QUALIFIERS and not off):
            return None
        for k in range(i + 2, min(len(words), i + 2 + QUALIFIER_REACH)):
            for mention in found.values():
                if mention.start == k and not (mention.end < len(words) and words[mention.end] == "'s"):
                    return mention  # "on Michael's desk": the desk, not Michael
        return None

    # ---- entities -----------------------------------------------------------------------
    def _describe(self, graph: WorldGraph, name: str) -> _Entity:
        attrs = graph.entity_attrs(name)
        label = str(attrs.get("label") or attrs.get("description") or re.sub(r"_?\d+$", "", name).replace("_", " "))
        noun_phrase = tokens(noun_phrase_of(label))
        content = [w for w in noun_phrase if w not in STOPWORDS and not _NUMBER.fullmatch(w)]
        heads: dict[str, int] = {}
        for word in content:
            heads[word] = OTHER_WORD
        type_ = graph.entity_type(name) or ""
        for ancestor in self._ancestors(type_):
            for word in self._lexicon.type_words.get(ancestor, ()):
                heads[word] = LABEL_NOUN if word == ancestor or word in content else TYPE_WORD  # "light" names
                # any light; "the cordless" the phone labelled "cordless phone" before the other phones
        if content:
            heads[content[-1]] = LABEL_NOUN
            if "of" in noun_phrase:  # "bag of rice": the bag and the rice
                heads[content[0]] = LABEL_NOUN
        named = [w for w in tokens(name.replace("_", " ")) if w not in STOPWORDS and not _NUMBER.fullmatch(w)]
        if named and named != content:  # a name says what a wrong or vague label does not ("grey_mug_1": "bowl")
            heads.setdefault(named[-1], LABEL_NOUN)
        places = places_of(graph, self._rules, name)
        describing = (set(tokens(label)) | set(named)) - STOPWORDS
        for place in places:
            describing |= set(tokens(str(graph.entity_attrs(place).get("label") or place.replace("_", " "))))
        numbers = frozenset(w for w in noun_phrase if _NUMBER.fullmatch(w)) or frozenset(
            w for w in tokens(name.replace("_", " "))[-1:] if _NUMBER.fullmatch(w))  # "dresser 2" is dresser_2
        states = frozenset((p, graph.has_fact(Fact(p, (name,)))) for p in self._lexicon.states
                           if (d := self._domain.predicate(p)) is not None and d.arity == 1
                           and self._domain.is_subtype(type_, d.types[0]))
        kind = next((k for k in ("person", "room") if self._domain.has_type(k) and self._domain.is_subtype(type_, k)),
                    "")
        return _Entity(name, heads, frozenset(describing - STOPWORDS), frozenset(places), numbers,
                       [w for w in noun_phrase if not _NUMBER.fullmatch(w)], states, kind, type_, tuple(named),
                       any(_NUMBER.fullmatch(w) for w in noun_phrase))

    def _ancestors(self, type_: str) -> list[str]:
        out = []
        while type_:
            out.append(type_)
            type_ = self._domain.types.get(type_) or ""
        return out


class _Vocabulary:
    """The words of a set of entities: nouns (with plural forms resolved) and describing words."""

    def __init__(self, entities: list[_Entity]) -> None:
        self.entities = entities
        self.heads = {w for e in entities for w in e.heads}
        self.describing = {w for e in entities for w in e.describing}

    def known(self, word: str) -> str:
        """`word` as a known noun (singular), or `word` itself."""
        if word in self.heads:
            return word
        for suffix, repl in (("ies", "y"), ("ves", "f"), ("es", ""), ("s", "")):
            if word.endswith(suffix) and word[: -len(suffix)] + repl in self.heads:
                return word[: -len(suffix)] + repl
        return word


def _key_of(found: dict[int, Mention], mention: Mention) -> int:
    return next(k for k, m in found.items() if m is mention)


def _best(scored: dict[str, int]) -> tuple[str, ...]:
    if not scored:
        return ()
    top = max(scored.values())
    return tuple(sorted(n for n, s in scored.items() if s == top))


def places_of(graph: WorldGraph, rules: RuleSet, name: str) -> set[str]:
    """What locates an entity: the other arguments of the facts that a functional rule counts for it (its room,
    its receptacle, who holds it), then what locates those (their rooms)."""
    def direct(entity: str) -> set[str]:
        out: set[str] = set()
        for fact in graph.facts_of(entity):
            for rule in rules.for_predicate(fact.predicate):
                if rule.max == 1 and entity in rule.keys_of(fact.predicate, fact.args):
                    out.update(a for a in fact.args if a != entity)
        return out

    first = direct(name)
    return first.union(*(direct(p) for p in first))


_GONE_IN = frozenset({"ran", "went", "came", "go", "going", "rushed", "dashed", "hurried", "walked", "popped", "nipped",
                      "headed", "run", "come"})
"""Words before "in there" that say someone went there ("ran in there")."""


FOR_SOMEONE = frozenset({"himself", "herself", "themselves", "myself", "me", "him", "her", "them", "us", "everyone"})
"""Who something is made or done for, between the verb and the thing ("made himself a tea", "make me a coffee")."""


def made_a(words: Sequence[str], i: int, makes: frozenset[str]) -> bool:
    """Whether the word at `i` follows a verb of `makes` (`Lexicon.makes`), someone it is for and "a", "an", "some"
    or "another" ("made himself a tea", "brewed a coffee", "make me some toast")."""
    j = i - 1
    if j < 1 or words[j] not in ("a", "an", "some", "another"):
        return False
    j -= 1
    if words[j] in FOR_SOMEONE and j > 0:
        j -= 1
    return words[j] in makes


def _there_rooms(words: list[str], found: dict[int, Mention], domain: Domain, graph: WorldGraph,
                 rules: RuleSet | None = None) -> dict[int, tuple[str, ...]]:
    """Each "there" that points back at a room ("in there", "the light there"; not "there is ..."): the last room
    named before it, when the words named exactly one; with no room named, "in there" after one thing named is its
    room ("the office phone rang, michael ran in there")."""
    out: dict[int, tuple[str, ...]] = {}
    for i, word in enumerate(words):
        if word != "there" or i == 0 or (i + 1 < len(words) and words[i + 1] in {"is", "are", "was", "were", "'s"}):
            continue
        rooms = [m for m in found.values() if m.end <= i and m.entity is not None and domain.has_type("room")
                 and domain.is_subtype(graph.entity_type(m.entity) or "", "room")]
        if rooms:
            out[i] = (max(rooms, key=lambda m: m.start).entity,)
            continue
        things = [m for m in found.values() if m.end <= i and m.entity is not None and not domain.is_subtype(
            graph.entity_type(m.entity) or "", "person")]
        if rules is not None and words[i - 1] in ("in", "into") and i > 1 and (words[i - 2] in _GONE_IN or any(
                m.end == i - 1 for m in found.values())) and things:  # ("ran in there", "the big light in there";
            # not "there's a new bike in there"); things named before in one room ("the phone on the side table")
            around = {n for t in things for n in places_of(graph, rules, t.entity) if domain.is_subtype(
                graph.entity_type(n) or "", "room")}
            if len(around) == 1:
                out[i] = (around.pop(),)
    return out


def _the_other(mentions: list[Mention], words: list[str], vocabulary: _Vocabulary) -> list[Mention]:
    """``moved the energy drink to the other coffee table``: of two alike things, the one that is not where a thing
    named before it is; or the one not named before ("the fridge in kitchen 1 ... the other kitchen")."""
    by_name = {e.name: e for e in vocabulary.entities}
    out = list(mentions)
    for k, mention in enumerate(out):
        if mention.start == 0 or words[mention.start - 1] != "other" or len(mention.candidates) != 2:
            continue
        named = next((m.entity for m in reversed(out[:k]) if m.entity in mention.candidates), None)
        if named is not None:  # "the fridge in kitchen 1 and ... the other kitchen's dishwasher": not kitchen 1
            other = tuple(n for n in mention.candidates if n != named)
            out[k] = replace(mention, candidates=other, alternatives=other, broader=other, by_label=False)
            continue
        for earlier in reversed(out[:k]):
            if earlier.entity is None or earlier.entity not in by_name:
                continue
            where = by_name[earlier.entity].places & set(mention.candidates)
            if len(where) == 1:
                other = tuple(n for n in mention.candidates if n not in where)
                out[k] = replace(mention, candidates=other, alternatives=other, broader=other, by_label=False)
                break
    return out


def _the_one(mentions: list[Mention], words: list[str], vocabulary: _Vocabulary,
             narrowed: dict[int, int]) -> list[Mention]:
    """``the other one``, ``the grey one``, ``the small one``: one of the things named just before ("moved the
    magazine off its side table onto the other one": the other side table), of those its noun fits: the nearest
    earlier mention whose things, with the words before "one", leave exactly one (not the one it named, after
    "other"), or with the place said right after it ("the light in bedroom 1 ... the one in the living room"): that
    place then only locates it (in `narrowed`, head -> place)."""
    by_name = {e.name: e for e in vocabulary.entities}
    taken = {i for m in mentions for i in range(m.start, m.end)}
    out = list(mentions)
    for i, word in enumerate(words):
        if word != "one" or i in taken or i == 0:
            continue
        start = i
        while start > 0 and words[start - 1] not in STOPWORDS and start - 1 not in taken and i - start < MAX_DESCRIBING:
            start -= 1
        if start == 0 or words[start - 1] not in _DETERMINERS:
            continue  # "one of the mugs", "no one": not a thing named again
        said = words[start:i]
        other = bool(_OTHER_WORDS & set(said))
        said = [w for w in said if w not in _OTHER_WORDS]
        for earlier in reversed([m for m in out if m.end <= start and m.qualifies is None]):
            head = vocabulary.known(earlier.words.split()[-1])  # "the purple album ... the grey one": any album;
            kind = () if other else tuple(  # "its side table ... the other one": one alike
                e.name for e in vocabulary.entities if e.heads.get(head, 0) >= TYPE_WORD)
            pool = [n for n in dict.fromkeys((*earlier.broader, *earlier.alternatives, *earlier.candidates, *kind))
                    if n in by_name]
            fits = [n for n in pool if all(w in by_name[n].describing for w in said)
                    and not (other and earlier.entity == n)]
            alike = [n for n in fits if n in (*earlier.broader, *earlier.alternatives)]
            fits = alike if len(alike) == 1 and said and not other else fits  # "the serving dish ..., the blue one":
            # the blue serving dish, not any blue dish
            where = None if said or other or any(m.end == start - 1 for m in out) else _place_after(
                out, words, i + 1)  # (not "the purple textbook, the one on the side table": the same thing again)
            if where is not None:  # "turned off the light in bedroom 1 and switched the one in the living room
                fits = [n for n in kind if by_name[n].places & set(where.candidates)]  # on": one of its kind there
            if other and earlier.entity is None:
                fits = []
            if len(fits) == 1 and (said or other or where is not None):
                one = (fits[0],)
                before = [k for k, m in enumerate(out) if m.end <= start]
                aside = start > 1 and (words[start - 2] in _ASIDE or (  # "not the other one", "next to the ..."
                    words[start - 2] == "to" and start > 2 and words[start - 3] in ("next", "close")))
                out.append(Mention(start, i + 1, " ".join(words[start:i + 1]), one, one, broader=one,
                                   qualifies=max(before, key=lambda k: out[k].end) if aside and before else None))
                if where is not None:
                    narrowed[i] = where.start
                break
            if other and len(pool) > 1:
                break  # "the other one" is the other of the nearest alike things, or nothing said plainly
    return sorted(out, key=lambda m: m.start)


def _place_after(mentions: list[Mention], words: list[str], at: int) -> Mention | None:
    """The mention of the place named right after word `at` ("in the living room", "on the desk"), or None."""
    if at + 1 >= len(words) or words[at] not in ("in", "on", "at") or words[at + 1] in ("here", "there"):
        return None  # ("the one in here": read with the speaker's room, `_this_one_here`)
    start = at + 1 + (at + 1 < len(words) and words[at + 1] in _DETERMINERS)
    return next((m for m in mentions if m.start == start and m.qualifies is None), None)


_ASIDE = frozenset({"beside", "near", "by", "with", "not", "than"})
"""Words before "the other one" that make it say which thing or place is meant, not a thing that changed."""


_ON_THE_WAY_TO = frozenset({"to", "into", "in", "the", "through", "over", "up", "down", "back", "across", "straight",
                            "off", "upstairs", "downstairs", "right"})
"""Words between a verb of going and the room gone to ("went through to the living room")."""


def _gone_to(words: list[str], start: int, goes: frozenset[str]) -> bool:
    """Whether a verb of going comes before word `start` with only `_ON_THE_WAY_TO` words between (at most four)."""
    i = start - 1
    while i >= 0 and start - i <= 4 and words[i] in _ON_THE_WAY_TO:
        i -= 1
    return i >= 0 and words[i] in goes


def _in_the_room_gone_to(mentions: list[Mention], words: list[str], vocabulary: _Vocabulary,
                         goes: frozenset[str]) -> list[Mention]:
    """"Michael came into kitchen 2 and opened the fridge": of alike things named after someone went to a room
    (one room, right after the verb), the ones in that room."""
    by_name = {e.name: e for e in vocabulary.entities}
    out = list(mentions)
    room: str | None = None
    for k, mention in enumerate(out):
        if len(mention.candidates) == 1 and _gone_to(words, mention.start, goes) and (
                mention.candidates[0] in by_name and by_name[mention.candidates[0]].kind == "room"):
            room = mention.candidates[0]
            continue
        if room is None or len(mention.candidates) < 2 or mention.plural or mention.qualifies is not None or any(
                m.qualifies == k for m in out):
            continue
        there = tuple(n for n in mention.candidates if n in by_name and room in by_name[n].places)
        if there and len(there) < len(mention.candidates):
            out[k] = replace(mention, candidates=there, alternatives=there, by_label=False)
    return out


def _not_in_the_room_named(mentions: list[Mention], words: list[str], vocabulary: _Vocabulary,
                           movers: frozenset[str]) -> list[Mention]:
    """"The wall lamp in hallway 2" when the one labelled "wall lamp" is in hallway 1 and hallway 2 has a light
    labelled only "light": the room named says another thing than the words, so both fit (the reading asks which)
    instead of the one whose label the words match. Not after a verb of moving in the clause ("put the mug in the
    kitchen": where it went)."""
    by_name = {e.name: e for e in vocabulary.entities}
    out = list(mentions)
    for k, mention in enumerate(out):
        if mention.plural or mention.qualifies is not None or not mention.candidates or any(
                by_name.get(n) is None or by_name[n].kind for n in mention.candidates):
            continue
        j = mention.end + 1 if words[mention.end:mention.end + 1] == ["in"] else None
        j = j + 1 if j is not None and words[j:j + 1] == ["the"] else j
        room = next((m for m in out if m.start == j and len(m.candidates) == 1
                     and by_name.get(m.candidates[0]) is not None and by_name[m.candidates[0]].kind == "room"), None)
        if room is None or any(room.candidates[0] in by_name[n].places for n in mention.candidates):
            continue
        start = max([i + 1 for i in range(mention.start) if words[i] in _CLAUSE_ENDS] or [0])
        if movers & set(words[start:mention.start]):
            continue
        head = words[mention.end - 1]
        there = tuple(n for n, e in by_name.items() if room.candidates[0] in e.places and e.heads.get(
            head, 0) >= TYPE_WORD and not e.kind)
        if there:
            both = tuple(dict.fromkeys((*mention.candidates, *there)))
            out[k] = replace(mention, candidates=both, alternatives=both, by_label=False)
    return out


_CLAUSE_ENDS = frozenset({"and", "then", "but", "so"})


def _a_word_for_others(mentions: list[Mention], words: list[str], vocabulary: _Vocabulary) -> list[Mention]:
    """"The small bag of chips" when the bag of chips is not small and the small one's label is only "object" (a
    poor perception label): the word left before the mention describes other things named by the mention's
    words too, so they fit as well (the reading asks which) instead of the one whose label the rest matches."""
    by_name = {e.name: e for e in vocabulary.entities}
    taken = {i for m in mentions for i in range(m.start, m.end)}
    out = list(mentions)
    for k, mention in enumerate(out):
        before = mention.start - 1
        if before < 0 or before in taken or mention.plural or not mention.candidates or words[before] in STOPWORDS:
            continue
        word = words[before]
        if _NUMBER.fullmatch(word) or any(by_name.get(n) is None or word in by_name[n].describing
                                          for n in mention.candidates):
            continue
        said = [w for w in mention.words.split() if w not in STOPWORDS]
        others = tuple(e.name for e in vocabulary.entities if word in e.describing and not e.kind and all(
            w in e.describing or w in e.heads for w in said) and e.name not in mention.candidates)
        if others:
            both = (*mention.candidates, *others)
            out[k] = replace(mention, candidates=both, alternatives=both, by_label=False)
    return out


def _named_before(mentions: list[Mention], words: list[str], narrowed: dict[int, int]) -> list[Mention]:
    """``had a salad out of the blue salad bowl and left the bowl in the sink``: "the bowl" (several bowls, nothing
    else said of it; or one labelled just "bowl") is the one thing named before by longer words ending the same
    way, or by the same words said of one ("the tap in bathroom 2 ... the tap")."""
    out = list(mentions)
    for k, mention in enumerate(out):
        pool = mention.broader if mention.by_label else mention.candidates  # "the wine glass": one is labelled so
        if len(pool) < 2 or mention.plural or mention.end - 1 in narrowed or mention.start == 0 or (
                words[mention.start - 1] not in ("the", "that", "this")):
            continue
        said = mention.words.split()
        earlier = [m for m in out[:k] if m.entity in pool and m.qualifies is None
                   and m.words.split()[-len(said):] == said
                   and (len(m.words.split()) > len(said) or len(m.candidates) == 1)]  # "the tap in bathroom 2 ...
        # turned the tap back off": the same words, narrowed to one by what was said of it then
        if {m.entity for m in earlier} and len({m.entity for m in earlier}) == 1 and not _OTHER_WORDS & set(
                words[earlier[-1].start:mention.start]):
            one = (earlier[-1].entity,)
            out[k] = replace(mention, candidates=one, alternatives=one, by_label=False)
    return out


_OTHER_WORDS = frozenset({"other", "another", "different", "second"})


def _possessives(mentions: list[Mention], words: list[str], vocabulary: _Vocabulary,
                 narrowed: dict[int, int], speaker: str | None = None) -> list[Mention]:
    """``Jessica's phone``: the possessor qualifies the thing, and picks it among alike ones when it can; ``her
    book``: the nearest earlier mention that has (or holds, or is where) one of the books picks it."""
    by_name = {e.name: e for e in vocabulary.entities}
    out = list(mentions)

    def owned(thing: Mention, owner: Mention) -> tuple[str, ...]:
        """What the owner has (or holds, or is where) of the candidates, else of every thing the words may name
        ("her phone" is the smartphone she has, though "phone" says the phones best); else, when the words name
        several things, the candidates where the owner is."""
        direct = tuple(n for n in thing.candidates if by_name[n].places & set(owner.candidates)) or tuple(
            n for n in thing.broader if n in by_name and by_name[n].places & set(owner.candidates))
        if direct or len(thing.candidates) < 2:
            return direct
        around = set().union(*(by_name[o].places for o in owner.candidates if o in by_name))
        return tuple(n for n in thing.candidates if by_name[n].places & around)

    def alike(thing: Mention) -> bool:
        return len(thing.candidates) > 1 or len(thing.broader) > 1

    for k, thing in enumerate(out):  # "my phone", said by Sarah: the one Sarah has, or the one in her room
        if speaker in by_name and thing.start > 0 and words[thing.start - 1] == "my" and alike(thing):
            mine = owned(thing, Mention(thing.start - 1, thing.start, "my", (speaker,)))
            if mine:
                out[k] = replace(thing, candidates=mine, alternatives=mine, by_label=False)
    for k in range(1, len(out)):
        owner, thing = out[k - 1], out[k]
        if owner.end + 1 == thing.start and words[owner.end] == "'s":
            narrowed[thing.end - 1] = owner.start
            mine = owned(thing, owner) if alike(thing) else ()
            if mine:
                out[k] = replace(thing, candidates=mine, alternatives=mine, by_label=False)
        elif thing.start > 0 and words[thing.start - 1] == "its" and len(thing.candidates) > 1:
            for earlier in reversed(out[:k]):  # "the magazine off its side table": the one the magazine is on
                mine = tuple(n for n in thing.candidates if earlier.entity in by_name and n in by_name[
                    earlier.entity].places)
                if mine:
                    out[k] = replace(thing, candidates=mine, alternatives=mine, by_label=False)
                    break
        elif thing.start > 0 and words[thing.start - 1] in _THIRD_PERSON and not alike(thing) and (
                held := _held_by_the_one_before(out[:k], thing, words, vocabulary)):
            out[k] = replace(thing, candidates=held, alternatives=held, broader=held, by_label=False)
        elif thing.start > 0 and words[thing.start - 1] in _THIRD_PERSON and alike(thing):
            people = [m for m in reversed(out[:k]) if len(m.candidates) == 1 and m.entity in by_name
                      and by_name[m.entity].kind == "person"]
            holders = {p.entity: held for p in people if (held := tuple(
                n for n in (*thing.candidates, *thing.broader) if n in by_name
                and p.entity in by_name[n].places))}  # "gave Sarah her comic book": the one Jessica has
            if len(holders) == 1:
                mine = tuple(dict.fromkeys(next(iter(holders.values()))))
                out[k] = replace(thing, candidates=mine, alternatives=mine, by_label=False)
                continue
            for earlier in people:  # "her phone": else the nearest person named before that has one about them
                mine = owned(thing, earlier)
                if mine:
                    out[k] = replace(thing, candidates=mine, alternatives=mine, by_label=False)
                    break
    return out


def _held_by_the_one_before(before: list[Mention], thing: Mention, words: list[str], vocabulary: _Vocabulary,
                            ) -> tuple[str, ...]:
    """"Michael put his water down" when Michael has a water bottle and something else is labelled "water": the
    thing the person named last before it has that its noun names in any way (by a word of its label or name), when
    they have exactly one such and none of the candidates."""
    by_name = {e.name: e for e in vocabulary.entities}
    person = next((m.entity for m in reversed(before) if len(m.candidates) == 1 and m.entity in by_name
                   and by_name[m.entity].kind == "person"), None)
    if person is None or any(person in by_name[n].places for n in thing.candidates if n in by_name):
        return ()
    noun = words[thing.end - 1]
    held = tuple(e.name for e in vocabulary.entities if person in e.places and e.kind == "" and (
        noun in e.heads or noun in e.named or noun in e.describing))
    return held if len(held) == 1 else ()


_UNTIL_THE_ROOM = 6
"""The most words between a thing and the room after it that says where it is ("the tap's going full blast in
bathroom 2")."""


def _this_one_here(mentions: list[Mention], words: list[str], vocabulary: _Vocabulary, here: str | None,
                   speaker: str | None = None) -> list[Mention]:
    """"this tv is driving me nuts" (said by someone in a room): of alike things, the ones in the speaker's room;
    "I'm done with this soda" said by someone who holds one of them: that one."""
    if here is None and speaker is None:
        return mentions
    by_name = {e.name: e for e in vocabulary.entities}
    out = list(mentions)
    for k, mention in enumerate(out):
        if len(mention.candidates) < 2 or mention.plural or not mention.start or words[mention.start - 1] not in (
                "this", "these"):
            continue
        held = tuple(n for n in mention.candidates if speaker is not None and n in by_name
                     and speaker in by_name[n].places)
        there = held or tuple(n for n in mention.candidates if here is not None and n in by_name
                              and here in by_name[n].places)
        if there and len(there) < len(mention.candidates):
            out[k] = replace(mention, candidates=there, alternatives=there, by_label=False)
    return out


_NEXT_TO = (["next", "to"], ["beside"], ["near"], ["by"], ["in", "front", "of"], ["behind"])


def _next_to_them(mentions: list[Mention], words: list[str], vocabulary: _Vocabulary, speaker: str | None,
                  ) -> list[Mention]:
    """"the bookshelf next to her", "the coffee table in front of him", "the lamp beside me": of alike things, the
    ones in the room of that person (the one person named before it; "me" is the speaker)."""
    by_name = {e.name: e for e in vocabulary.entities}
    out = list(mentions)
    for k, mention in enumerate(out):
        if len(mention.candidates) < 2 or mention.plural:
            continue
        lead = next((len(n) for n in _NEXT_TO if words[mention.end:mention.end + len(n)] == n), 0)
        who = words[mention.end + lead] if lead and mention.end + lead < len(words) else ""
        if who == "me":
            person = speaker
        elif who in ("her", "him", "them"):
            people = {n for m in out[:k] for n in m.candidates if n in by_name and by_name[n].kind == "person"}
            person = next(iter(people)) if len(people) == 1 else None
        else:
            continue
        rooms = by_name[person].places if person in by_name else frozenset()
        there = tuple(n for n in mention.candidates if n in by_name and by_name[n].places & rooms)
        if rooms and len(there) == 1:
            out[k] = replace(mention, candidates=there, alternatives=there, by_label=False)
    return out


def _in_the_room_after(mentions: list[Mention], words: list[str], vocabulary: _Vocabulary, narrowed: dict[int, int],
                       stops: frozenset[int], verbs: frozenset[str]) -> list[Mention]:
    """"The tap's going full blast in bathroom 2", "the phone is ringing in the bedroom", "the phone was going off on
    his nightstand": of alike things, the ones in the one room (or on or in the one place, after an -ing word) named
    next in the clause, when no verb of moving, taking, giving or going in the clause makes the room where something
    went (and no other thing is named between). The room then only says which thing is meant (`narrowed`)."""
    by_name = {e.name: e for e in vocabulary.entities}
    out = list(mentions)
    for k, mention in enumerate(out[:-1]):
        room = out[k + 1]
        if len(mention.candidates) < 2 or mention.plural or narrowed.get(mention.end - 1, -1) > mention.start or len(
                room.candidates) != 1 or room.start in narrowed.values() or by_name.get(
                room.candidates[0]) is None or by_name[room.candidates[0]].kind == "person":
            continue
        between = words[mention.end:room.start]
        start = max([i + 1 for i in range(mention.start) if words[i] in _CLAUSE_ENDS or i in stops] or [0])
        into = ("in",) if by_name[room.candidates[0]].kind == "room" else ("in", "on")  # "... on his nightstand"
        if len(into) > 1 and not any(w.endswith("ing") for w in between):
            continue  # "the mug is on the counter": where it is now, not which mug
        if not set(between) - {"in", "the"} or len(between) > _UNTIL_THE_ROOM or (
                between[-1] not in into and not (len(between) > 1 and between[-2] in into and between[-1] in (
                    "the", "his", "her", "their", "my", "our"))) or (
                _CLAUSE_ENDS & set(between)) or any(mention.end - 1 <= i < room.start - 1 for i in stops):
            continue
        if verbs & set(words[start:room.start]):
            continue  # "put the book down in bedroom 1"; also "left the light on in the bedroom" (a request's
            # reading of that takes "on" as what is asked for, so which light stays to be asked)
        there = tuple(n for n in mention.candidates if n in by_name and room.candidates[0] in by_name[n].places)
        if there and len(there) < len(mention.candidates):
            out[k] = replace(mention, candidates=there, alternatives=there, by_label=False)
            narrowed[mention.end - 1] = room.start
    return out


def _nth_in_the_room(scored: dict[str, int], nth: int, words: list[str], at: int, found: dict[int, Mention],
                     by_name: dict[str, _Entity]) -> tuple[str, str | None]:
    """The room said right after a numbered thing ("the kitchen island 1 in kitchen 2", read from the end, so already
    found), and the thing that is the `nth` of the alike things there (in the order of their names); None for it
    when no one room follows or the room has fewer alike things."""
    if words[at:at + 1] != ["in"]:
        return "", None
    room = found.get(at + 2) if words[at + 1:at + 2] == ["the"] else found.get(at + 1)
    if room is None or len(room.candidates) != 1 or room.candidates[0] not in by_name or by_name[
            room.candidates[0]].kind != "room":
        return "", None
    name = room.candidates[0]
    there = sorted((n for n in scored if n in by_name and name in by_name[n].places), key=_name_order)
    return name, there[nth - 1] if 1 <= nth <= len(there) else None


def _name_order(name: str) -> tuple[str, int]:
    """"kitchen_island_2" before "kitchen_island_10"."""
    stem, _, number = name.rpartition("_")
    return (stem, int(number)) if number.isdigit() else (name, 0)


_PLACING = frozenset({"on", "in", "into", "onto", "inside", "to"})


def _where_it_is_then_where_to(mentions: list[Mention], words: list[str], vocabulary: _Vocabulary,
                               narrowed: dict[int, int]) -> None:
    """"put the water bottle on the shelf in the garage on the kitchen table in kitchen 1": of two places said one
    after the other after a thing, the first, where the thing is now, says which thing (it only locates it, in
    `narrowed`); the second is where it goes."""
    by_name = {e.name: e for e in vocabulary.entities}
    starts = {m.start: m for m in mentions}
    for thing in mentions:
        if thing.qualifies is not None or thing.end - 1 in narrowed or not thing.candidates:
            continue
        first = _place_after(mentions, words, thing.end)
        if first is None or any(by_name[n].kind == "room" for n in first.candidates if n in by_name) or not any(
                set(first.candidates) & by_name[n].places for n in thing.candidates if n in by_name):
            continue  # (not a room: "left the mug in the kitchen on the table" says where in the kitchen)
        after = first.end
        room = _place_after(mentions, words, after)  # ("on the shelf in the garage": the shelf's room)
        if room is not None and words[after] == "in" and all(
                set(room.candidates) & by_name[n].places for n in first.candidates if n in by_name):
            after = room.end
        then = after + 1 + (after + 1 < len(words) and words[after + 1] in _DETERMINERS)
        if after < len(words) and words[after] in _PLACING and then in starts and starts[then].qualifies is None:
            narrowed[thing.end - 1] = first.start


def _renarrow(mentions: list[Mention], vocabulary: _Vocabulary, narrowed: dict[int, int]) -> list[Mention]:
    """A place settled after the thing that stands in it ("the smartphone on Michael's desk": the desk is Michael's
    only once the possessive is read) settles the thing too."""
    by_name = {e.name: e for e in vocabulary.entities}
    out = list(mentions)
    for head, place_start in narrowed.items():
        k = next((i for i, m in enumerate(out) if m.end - 1 == head), None)
        place = next((m for m in out if m.start == place_start), None)
        if k is None or place is None or len(out[k].candidates) < 2:
            continue
        mine = tuple(n for n in out[k].candidates if n in by_name and by_name[n].places & set(place.candidates))
        if mine and len(mine) < len(out[k].candidates):
            out[k] = replace(out[k], candidates=mine, by_label=False)
    return out


def _link_qualifiers(mentions: list[Mention], narrowed: dict[int, int]) -> list[Mention]:
    """Mark each mention that only locates another one (``the kitchen`` in ``the light in the kitchen``)."""
    at = {m.start: k for k, m in enumerate(mentions)}
    by_head = {m.end - 1: k for k, m in enumerate(mentions)}
    out = list(mentions)
    for head, place_start in narrowed.items():
        k = at[place_start]
        out[k] = replace(out[k], qualifies=by_head[head])
    for k, m in enumerate(out):  # "Michael's room": Michael says which room, the room does not locate Michael
        q = m.qualifies
        if q is not None and out[q].qualifies == k and out[q].start < m.start:
            out[k] = replace(m, qualifies=None)
    return out
