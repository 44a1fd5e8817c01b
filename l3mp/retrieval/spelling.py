"""Misspelt words read as the words of the home ("jessca turnd the kichen tap" -> "jessica turned the kitchen tap").

A person typing to the robot, or a speech recogniser, leaves out a letter, doubles one or swaps two. Every later
step matches words exactly (grounding, the plain reading, the checks of a model's answer), so one such word sends
a plain report to the slow model, or leaves a request's thing unfound. `respell` reads a word as a known word of
the home when it is exactly one edit away from that word and from no other, and only then:

- the known words are the home's own: its entities' names and labels and the domain lexicon's words
  (`Lexicon.words`, `Lexicon.type_words`, state and verb words);
- a word that is itself known, short (fewer than `MIN_LENGTH` letters, but for a swap of two neighbours in a word of
  `MIN_SWAP_LENGTH`), a known word with an ending ("lamps",
  "switching"), a stop word, or a real word the lexicon lists as near a known one (`Lexicon.not_misspelt`:
  "beside" is not "bedside") is never changed;
- the edit is a letter left out ("kichen"), two neighbours swapped ("kicthen") or a letter doubled ("kittchen");
  two known words one edit away leave the word as it is; a doubled letter left out before "-ed" or "-ing"
  ("grabed") is read as the known word ("grabbed") even though "grab" with an ending would fit too. A changed or
  an added letter is not read as a typo: too many real words are one such edit from a word of the home ("could"
  and "cold", "flight" and "light").

What was changed is returned, so that a result can say how it read the text. Digits and punctuation are kept; a
word written with a capital keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MIN_LENGTH = 5
"""Shorter words are never respelt by a letter left out or doubled: "pan"/"pen", "cup"/"cap" are both words too
often."""
MIN_SWAP_LENGTH = 4
"""Four-letter words are respelt by two neighbours swapped only ("trun" -> "turn", "lmap" -> "lamp"); shorter ones
never."""
_WORD = re.compile(r"[A-Za-z]+")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
_ENDINGS = ("s", "es", "ed", "d", "ing", "er", "ers", "ly", "'s")


def respell(text: str, known: Iterable[str], keep: Iterable[str] = ()) -> tuple[str, tuple[tuple[str, str], ...]]:
    """`text` with each misspelt word read as the one known word it is one edit from (see the module docstring),
    and the (word, read as) pairs, in text order."""
    words = {w.lower() for w in known if w}
    kept = {w.lower() for w in keep}
    out: list[str] = []
    changed: list[tuple[str, str]] = []
    last = 0
    for match in _WORD.finditer(text):
        word = match.group()
        fixed = _respelt(word.lower(), words, kept)
        if fixed is None:
            continue
        out.append(text[last:match.start()])
        out.append(fixed.capitalize() if word[0].isupper() else fixed)
        changed.append((word, fixed))
        last = match.end()
    if not changed:
        return text, ()
    out.append(text[last:])
    return "".join(out), tuple(changed)


def _respelt(word: str, known: set[str], keep: set[str]) -> str | None:
    if len(word) < MIN_SWAP_LENGTH or word in known or word in keep:
        return None
    doubled = {word[:i] + word[i] + word[i:] for i in range(1, len(word))} & known
    if len(doubled) == 1 and word.endswith(("ed", "ing")):  # "grabed": grabbed (not an ending on "grab")
        return next(iter(doubled))
    if _inflected(word, known):
        return None
    near = (_typos_of(word) if len(word) >= MIN_LENGTH else _swaps_of(word)) & known
    return next(iter(near)) if len(near) == 1 else None


def _swaps_of(word: str) -> set[str]:
    """`word` with two neighbours swapped back ("trun" -> "turn"), for words too short for the other typos."""
    return {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)} - {word}


def _inflected(word: str, known: set[str]) -> bool:
    """A known word with an ending, or a known word's stem ("lamps", "switching", "clean" of "cleaned")."""
    for ending in _ENDINGS:
        stem = word[: -len(ending)]
        if ending == "d" and not stem.endswith("e"):
            continue  # "closed" is "close" + "d"; "turnd" is no form of "turn"
        if word.endswith(ending) and (stem in known or stem + "e" in known):
            return True
        if word + ending in known:
            return True
    return word.endswith("ies") and word[:-3] + "y" in known


def _typos_of(word: str) -> set[str]:
    """The words `word` is a typo of: one letter put back where it was left out ("kichen"), two neighbours swapped
    back ("kicthen"), or a doubled letter made single ("kittchen")."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + c + b for a, b in splits for c in _ALPHABET}
    out |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    out |= {a + b[1:] for a, b in splits if a and b and a[-1] == b[0]}
    out.discard(word)
    return out
