"""A typed PDDL domain loaded with unified-planning: types, constants, predicates, actions."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from l3mp.cachedir import cache_dir
from l3mp.errors import DomainError
from l3mp.files import write_text_atomic

log = logging.getLogger(__name__)

ROOT_TYPE = "object"
SCHEMA_FORMAT = "l3mp.domain-schema/2"
# names PDDL tools read as syntax; no entity may be called so
PDDL_KEYWORDS = frozenset({
    "define", "domain", "problem", "and", "or", "not", "imply", "exists", "forall", "when", "either",
    "object", "at", "over", "start", "end", "all", "increase", "decrease", "assign", "scale-up", "scale-down",
})
_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_REQUIREMENTS = re.compile(r"\(\s*:requirements([^)]*)\)", re.IGNORECASE)


def is_pddl_name(name: str) -> bool:
    """True when `name` is a valid (lowercase) PDDL name."""
    return bool(_NAME.fullmatch(name))


@dataclass(frozen=True)
class Predicate:
    """A predicate of the domain: its name and typed parameters."""

    name: str
    params: tuple[tuple[str, str], ...]

    @property
    def arity(self) -> int:
        return len(self.params)

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(t for _, t in self.params)

    def signature(self) -> str:
        """PDDL-style signature, e.g. ``(on ?i - item ?s - surface)``."""
        params = " ".join(f"?{n} - {t}" for n, t in self.params)
        return f"({self.name}{' ' + params if params else ''})"


_CONNECTIVES = frozenset({"and", "not", "forall", "when", "exists", "or", "increase", "decrease", "imply"})
"""Heads of effect lists that are no predicate."""


@dataclass(frozen=True)
class ActionSchema:
    """An action of the domain: its name and typed parameters."""

    name: str
    params: tuple[tuple[str, str], ...]


class Domain:
    """A PDDL domain: the schema every world-state fact must follow.

    Load with `Domain.from_file` or `Domain.from_string`; anything unified-planning
    cannot parse raises DomainError with the parser's explanation.
    """

    def __init__(self, *, text: str, source: str = "<string>", use_cache: bool = True) -> None:
        self._text = text
        self._source = source
        self._up = None
        schema = _cached_schema(self.sha256) if use_cache else None
        if schema is None:
            self._up = _parse(text, source)
            schema = _schema_of(self._up, text, source)
            if use_cache:
                _store_schema(self.sha256, schema)
        self._name = schema["name"]
        self._parents: dict[str, str | None] = dict(schema["types"])
        self._constants: dict[str, str] = dict(schema["constants"])
        self._predicates = {n: Predicate(n, tuple(map(tuple, ps))) for n, ps in schema["predicates"].items()}
        self._actions = {n: ActionSchema(n, tuple(map(tuple, ps))) for n, ps in schema["actions"].items()}
        self._requirements = frozenset(schema["requirements"])
        self._object_declared = bool(schema["object_declared"])

    @classmethod
    def from_file(cls, path: str | Path) -> Domain:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise DomainError(f"cannot read PDDL domain file {path}: {exc.strerror}") from exc
        return cls(text=text, source=str(path))

    @classmethod
    def from_string(cls, text: str) -> Domain:
        return cls(text=text)

    @property
    def name(self) -> str:
        return self._name

    @property
    def source(self) -> str:
        return self._source

    @property
    def text(self) -> str:
        return self._text

    @cached_property
    def changeable(self) -> tuple[frozenset[str], frozenset[str]]:
        """(predicates some action's effect makes true, predicates some action's effect makes false), read from the
        ``:effect`` parts of the domain's text: a goal that asks for a fact no action can bring about ("make the
        phone ring", "make the mug dirty") cannot be planned whatever the state."""
        adds: set[str] = set()
        deletes: set[str] = set()
        text = re.sub(r";[^\n]*", "", self._text).lower()
        for found in re.finditer(r":effect\s*(?=\()", text):
            stack: list[str] = []  # the head of each open list
            i = found.end()
            while i < len(text):
                if text[i] == "(":
                    head = re.match(r"\(\s*([^\s()]*)", text[i:])
                    name = head.group(1) if head else ""
                    if name and name not in _CONNECTIVES and not name.startswith("?"):
                        (deletes if stack and stack[-1] == "not" else adds).add(name)
                    stack.append(name)
                elif text[i] == ")":
                    stack.pop()
                    if not stack:
                        break
                i += 1
        return frozenset(adds), frozenset(deletes)

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self._text.encode("utf-8")).hexdigest()

    @property
    def up_problem(self):
        """The unified-planning problem holding this domain (no objects, no init); parsed on first use."""
        if self._up is None:
            self._up = _parse(self._text, self._source)
        return self._up

    @property
    def requirements(self) -> frozenset[str]:
        """Declared requirement flags, lowercase without the colon (``typing``, ...)."""
        return self._requirements

    @property
    def types(self) -> dict[str, str | None]:
        """Every type name mapped to its parent (``object`` maps to None)."""
        return dict(self._parents)

    @property
    def constants(self) -> dict[str, str]:
        """Domain constants mapped to their type."""
        return dict(self._constants)

    @property
    def predicates(self) -> dict[str, Predicate]:
        return dict(self._predicates)

    @property
    def actions(self) -> dict[str, ActionSchema]:
        return dict(self._actions)

    def reserved_names(self) -> frozenset[str]:
        """Names no entity may take: PDDL keywords and the domain's types, predicates and actions."""
        return PDDL_KEYWORDS | set(self._parents) | set(self._predicates) | set(self._actions)

    def predicate(self, name: str) -> Predicate | None:
        return self._predicates.get(name)

    def has_type(self, name: str) -> bool:
        """True for a type entities may have: declared types (``object`` only if declared, or untyped)."""
        return name in self._parents and (name != ROOT_TYPE or self._object_declared)

    def is_subtype(self, sub: str, sup: str) -> bool:
        """True when `sub` equals `sup` or descends from it."""
        return sup in self._ancestors.get(sub, ())

    def subtypes(self, name: str) -> frozenset[str]:
        """`name` and every type that descends from it."""
        return self._descendants.get(name, frozenset())

    def leaf_types(self, name: str) -> list[str]:
        """The most specific types under `name` (for messages listing valid choices)."""
        subs = self.subtypes(name)
        return sorted(t for t in subs if not any(self._parents.get(o) == t for o in subs))

    @cached_property
    def _ancestors(self) -> dict[str, frozenset[str]]:
        result = {}
        for t in self._parents:
            chain, cur = [], t
            while cur is not None and cur not in chain:
                chain.append(cur)
                cur = self._parents.get(cur)
            result[t] = frozenset(chain)
        return result

    @cached_property
    def _descendants(self) -> dict[str, frozenset[str]]:
        down: dict[str, set[str]] = {t: set() for t in self._parents}
        for t, ancestors in self._ancestors.items():
            for a in ancestors:
                down[a].add(t)
        return {t: frozenset(s) for t, s in down.items()}

    def __repr__(self) -> str:
        return f"Domain({self._name!r}, {len(self._predicates)} predicates, {len(self._parents)} types)"


def _parse(text: str, source: str):
    from unified_planning.io import PDDLReader

    try:
        return PDDLReader().parse_problem_string(text)
    except Exception as exc:  # unified-planning raises many unrelated types
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DomainError(f"cannot load PDDL domain {source}: {type(exc).__name__}: {first}") from exc


def _schema_of(problem, text: str, source: str) -> dict:
    """What l3mp needs of a parsed domain, as JSON (cached by the domain text's sha256)."""
    types: dict[str, str | None] = {ROOT_TYPE: None}
    for t in problem.user_types:
        if t.name != ROOT_TYPE:
            types[t.name] = t.father.name if t.father is not None else ROOT_TYPE
    predicates = {}
    for f in problem.fluents:
        if not f.type.is_bool_type():
            raise DomainError(
                f"{source}: fluent '{f.name}' is numeric or object-valued; l3mp's world graph holds only "
                "boolean predicates"
            )
        predicates[f.name] = [[p.name, _type_name(p.type)] for p in f.signature]
    return {
        "format": SCHEMA_FORMAT,
        "object_declared": any(t.name == ROOT_TYPE for t in problem.user_types) or not problem.user_types,
        "name": _declared_name(text) or (problem.name or "domain"),
        "types": types,
        "constants": {o.name: _type_name(o.type) for o in problem.all_objects},
        "predicates": predicates,
        "actions": {a.name: [[p.name, _type_name(p.type)] for p in a.parameters] for a in problem.actions},
        "requirements": sorted(_requirements(text)),
    }


def _schema_path(sha256: str) -> Path:
    return cache_dir() / "domains" / f"{sha256}.json"


def _cached_schema(sha256: str) -> dict | None:
    try:
        data = json.loads(_schema_path(sha256).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == SCHEMA_FORMAT else None


def _store_schema(sha256: str, schema: dict) -> None:
    """Best effort: a read-only or full cache only costs the next process a re-parse."""
    path = _schema_path(sha256)
    try:
        write_text_atomic(path, json.dumps(schema))
    except OSError as exc:
        log.debug("cannot cache the domain schema in %s: %s", path, exc)


def _type_name(t) -> str:
    return t.name if getattr(t, "is_user_type", lambda: False)() else ROOT_TYPE


def _declared_name(text: str) -> str | None:
    m = re.search(r"\(\s*domain\s+([^\s)]+)\s*\)", _strip_comments(text), re.IGNORECASE)
    return m.group(1).lower() if m else None


def _requirements(text: str) -> frozenset[str]:
    m = _REQUIREMENTS.search(_strip_comments(text))
    if not m:
        return frozenset()
    return frozenset(r.lstrip(":").lower() for r in m.group(1).split())


def _strip_comments(text: str) -> str:
    return re.sub(r";[^\n]*", "", text)
