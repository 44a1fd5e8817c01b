"""Ground atoms (facts) and their lossless one-to-one encoding as triplets.

The encoding, by predicate arity:

- unary   ``(p a)``          <-> ``(a, p, True)``
- binary  ``(p a b)``        <-> ``(a, p, b)``
- 0-ary   ``(p)``            <-> ``("@world", p, True)``  (``@world`` can never be a PDDL name)
- n-ary   ``(p a b c ...)``  <-> ``(a, p, [b, c, ...])``  (object is the list of the other arguments)

Closed world: a false atom has no triplet, so ``(a, p, False)`` means "remove (p a)"
only where a caller explicitly allows it (see `fact_from_triplet`). There, a fact with two or more
arguments is denied with a fourth element: ``(a, p, b, False)`` means "remove (p a b)" (and
``(a, p, [b, c], False)`` "remove (p a b c)"); ``(a, p, b, True)`` is the same as ``(a, p, b)``.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from l3mp.errors import FormatError

WORLD = "@world"
_NAME = re.compile(r"[^\s()@;\"']+")  # a name as far as the syntax goes; the verifier checks the rest

Triplet = tuple[str, str, Any]


class Fact(NamedTuple):
    """A ground atom: predicate name and argument entity names (all lowercase)."""

    predicate: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return "(" + " ".join((self.predicate, *self.args)) + ")"


def fact_to_triplet(fact: Fact) -> Triplet:
    """Encode a fact as a triplet (see the module docstring)."""
    args = fact.args
    if len(args) == 0:
        return (WORLD, fact.predicate, True)
    if len(args) == 1:
        return (args[0], fact.predicate, True)
    if len(args) == 2:
        return (args[0], fact.predicate, args[1])
    return (args[0], fact.predicate, list(args[1:]))


def triplet_with_truth(fact: Fact, truth: bool) -> list:
    """A fact and its truth as a perception triplet: the triplet, with ``False`` in the object's place for a
    false 0-ary or unary fact, or a fourth element ``False`` for a false fact with two or more arguments."""
    triplet = list(fact_to_triplet(fact))
    if truth:
        return triplet
    if len(fact.args) <= 1:
        return [triplet[0], triplet[1], False]
    return [*triplet, False]


def fact_from_triplet(triplet: Any, *, allow_false: bool = False) -> tuple[Fact, bool]:
    """Decode a triplet into ``(fact, truth)``.

    `truth` is False only with `allow_false`, for ``(s, p, False)`` (a 0-ary or unary fact) or
    ``(s, p, o, False)`` (a fact with two or more arguments). Names are lowercased (PDDL is
    case-insensitive). Raises FormatError on a malformed triplet.
    """
    if isinstance(triplet, list | tuple) and len(triplet) == 4:
        return _with_truth(triplet, allow_false)
    if not isinstance(triplet, list | tuple) or len(triplet) != 3:
        raise FormatError(
            f"a triplet must be a list [subject, relation, object]; got {triplet!r}"
        )
    subject, predicate, obj = triplet
    if not isinstance(subject, str) or not (subject == WORLD or _NAME.fullmatch(subject)):
        raise FormatError(
            f"triplet subject must be an entity name (no spaces or brackets); got {subject!r} in {triplet!r}"
        )
    if not isinstance(predicate, str) or not _NAME.fullmatch(predicate):
        raise FormatError(f"triplet relation must be a predicate name (no spaces or brackets); got {predicate!r} "
                          f"in {triplet!r}")
    predicate = predicate.lower()
    subject = subject.lower()
    if obj is True or obj is False:
        if obj is False and not allow_false:
            raise FormatError(
                f"{list(triplet)!r}: the graph is closed-world, a false fact is simply absent; "
                "put the fact (with true) in the removals instead"
            )
        args = () if subject == WORLD else (subject,)
        return Fact(predicate, args), bool(obj)
    if subject == WORLD:
        raise FormatError(f"{list(triplet)!r}: '{WORLD}' only takes 0-ary facts written as ['{WORLD}', p, true]")
    if isinstance(obj, str) and obj.lower() in ("true", "false"):
        raise FormatError(f"{list(triplet)!r}: write the JSON boolean {obj.lower()}, not the string \"{obj}\"")
    if isinstance(obj, str) and _NAME.fullmatch(obj):
        return Fact(predicate, (subject, obj.lower())), True
    if isinstance(obj, list | tuple) and len(obj) >= 2 and all(isinstance(a, str) and _NAME.fullmatch(a) for a in obj):
        return Fact(predicate, (subject, *(a.lower() for a in obj))), True
    raise FormatError(
        f"{list(triplet)!r}: the object must be true (unary fact), an entity name (binary fact) "
        "or a list of at least two entity names (fact with 3 or more arguments)"
    )


def _with_truth(triplet: list | tuple, allow_false: bool) -> tuple[Fact, bool]:
    """``[s, p, o, truth]``: a fact with two or more arguments and its truth (where false facts are allowed)."""
    *head, truth = triplet
    if not allow_false:
        raise FormatError(f"a triplet must be a list [subject, relation, object]; got {list(triplet)!r} "
                          "([subject, relation, object, false], a fact no longer true, is only for perception batches)")
    if truth is not True and truth is not False:
        raise FormatError(f"{list(triplet)!r}: the 4th element of [subject, relation, object, false] must be the "
                          "JSON boolean false (or true)")
    if head[2] is True or head[2] is False:
        raise FormatError(f"{list(triplet)!r}: a 0-ary or unary fact is denied with 3 elements, "
                          f"[{head[0]!r}, {head[1]!r}, false]; the 4th element is for facts with an object")
    fact, _ = fact_from_triplet(head)
    return fact, truth
