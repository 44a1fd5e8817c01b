"""Other words people use for things of the home, read as the words of the memory's labels before grounding.

- A phrase of the lexicon's ``sayings`` (``big light: overhead light``) is read as its label words when the home
  has a thing whose label holds them and none whose label holds the phrase said: in a home whose main light is
  the "overhead light", "the big light" is that light; in a home with a lamp labelled "big light" nothing changes.
- "the water" in words of running or switching ("left the water running", "turned off the water", "the water's
  on") is the tap (the faucet), when the home has a faucet: nobody switches a drink. "the water bottle" and "a
  glass of water" are left alone.

- "michaels phone" is Michael's phone, when the home has a person named Michael (`read_possessives`).
- "the door" after a thing with a door is named ("opened the fridge, took the milk and didn't bother closing the
  door"; "loaded the dishwasher and left the door open") is that thing, when the text names one such thing only
  (`read_doors`).

Each change is returned as a (said, read as) pair, so that results can say what was read as what, like the
misspelt words of `l3mp.retrieval.spelling`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_SWITCHED_WATER = re.compile(
    r"\b(?P<before>(?:left|leave|leaves|leaving|turned|turn|turns|turning|switched|switch|shut|ran|run|running|put)"
    r"\s+(?:on\s+|off\s+)?(?:the|a)\s+)(?P<water>water)\b(?=\s+(?:running|on|off|in|at|back|again)\b|\s*(?:$|[,.;!?])"
    r"|\s+(?:and|but|then|so)\b)"
    r"|\b(?P<det>the)\s+(?P<water2>water)(?=(?:\s+(?:is|was|has\s+been|had\s+been)|['\u2019]s)\s+(?:still\s+|now\s+)?"
    r"(?:running|on|off)\b)",
    re.IGNORECASE)
""""the water" as the tap: after a verb of running or switching, or before "is running / on / off"."""
TAP = "tap"


def read_sayings(text: str, labels: Iterable[str], sayings: Mapping[str, str], has_faucet: bool
                 ) -> tuple[str, tuple[tuple[str, str], ...]]:
    """`text` with other words for things of the home read as their labels' words (see the module docstring), and
    the (said, read as) pairs in the order found. `labels` are the home's labels and the words of its things' names
    (lower case), `sayings` the lexicon's phrase -> label words."""
    said_labels = [f" {label.lower()} " for label in labels]
    changed: list[tuple[str, str]] = []
    for phrase, meant in sayings.items():
        pattern = re.compile(rf"\b{re.escape(phrase)}\b", re.IGNORECASE)
        if not pattern.search(text):
            continue
        if any(f" {phrase} " in label for label in said_labels) or not any(
                f" {meant} " in label for label in said_labels):
            continue
        text = pattern.sub(meant, text)
        changed.append((phrase, meant))
    if has_faucet:
        found = _SWITCHED_WATER.search(text)
        if found is not None:
            text = _SWITCHED_WATER.sub(lambda m: f"{m['before']}{TAP}" if m["before"] is not None
                                       else f"{m['det']} {TAP}", text)
            changed.append(("water", TAP))
    return text, tuple(changed)


_DOOR = re.compile(r"\b(?:the|its)\s+doors?\b(?!\s+of\b)", re.IGNORECASE)


def read_doors(text: str, openable: Iterable[str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """`text` with "the door" (or "its door") read as the one thing with a door named before it: `openable` are the
    words that name such things in this home (the lexicon's words of their types and their labels' nouns). Left
    as it is when no such thing is named before it, or words of two different ones are. "The fridge door" (the word
    of such a thing right before "door") is the fridge."""
    words = sorted(set(openable), key=len, reverse=True)
    if words:
        own = re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")(?:['\u2019]s)?\s+doors?\b", re.IGNORECASE)
        if own.search(text):
            said_so = [(m[0], m[1]) for m in own.finditer(text)]
            return own.sub(lambda m: m[1], text), tuple(said_so)
    found = _DOOR.search(text)
    if found is None:
        return text, ()
    before = tokens_of(text[:found.start()])
    said = []
    for word in before:
        if word in openable and word not in said:
            said.append(word)
    if len(said) != 1:
        return text, ()
    return text[:found.start()] + f"the {said[0]}" + text[found.end():], (("the door", f"the {said[0]}"),)


def tokens_of(text: str) -> list[str]:
    """The lower-case words of `text`."""
    return re.findall(r"[a-z]+", text.lower())


def read_possessives(text: str, people: Iterable[str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """`text` with a person's name said with "s" and no apostrophe ("michaels phone") read as the possessive
    ("michael's phone"); `people` are the names of the home's people (lower case)."""
    changed = []
    for name in people:
        pattern = re.compile(rf"\b({re.escape(name)})s\b(?!['\u2019])", re.IGNORECASE)
        if pattern.search(text):
            text = pattern.sub(lambda m: f"{m[1]}'s", text)
            changed.append((f"{name}s", f"{name}'s"))
    return text, tuple(changed)
