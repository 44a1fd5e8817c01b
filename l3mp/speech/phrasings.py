"""How people say a domain's requests: the phrasings of ``<domain>.speech.yaml``, checked against the domain.

A phrasing is written in a small JSGF-like notation: words, ``(a | b)`` alternatives, ``[x]`` optional parts and
``{type}`` slots (any entity of a PDDL type). One phrasing becomes both a JSGF rule (for the recogniser) and a
regular expression (to tell which phrasing, and so which route, a transcript is).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from l3mp.domain.pddl_domain import Domain
from l3mp.errors import DomainError

TASK, UPDATE, QUESTION = "task", "update", "question"
KINDS = (TASK, UPDATE, QUESTION)
"""What a spoken request is: a task for the planner, a report for the world model, a question."""
_TOKEN = re.compile(r"\{[a-z_][a-z0-9_]*\}|[()\[\]|]|[a-z']+")
_AGENTS = ("robot", "room")
"""Parameter types that are never a task's object (the robot does it, the room is where)."""


@dataclass(frozen=True)
class Phrasing:
    """One way to say a request of a kind (tasks also name the domain action they are carried out by)."""

    kind: str
    text: str
    tokens: tuple[str, ...]
    action: str | None = None

    @property
    def slots(self) -> tuple[str, ...]:
        """The types of its slots, in order."""
        return tuple(t[1:-1] for t in self.tokens if t.startswith("{"))

    def first_words(self) -> frozenset[str]:
        """The words it can open with: its first word, or the first word of each alternative of an opening group."""
        first = self.tokens[0]
        if first != "(":
            return frozenset() if first in "[|" or first.startswith("{") else frozenset({first})
        out, depth = set(), 0
        for previous, token in zip(self.tokens, self.tokens[1:], strict=False):
            depth += {"(": 1, ")": -1}.get(previous, 0)
            if depth == 0:
                break
            if depth == 1 and previous in "(|" and token not in "([|" and not token.startswith("{"):
                out.add(token)
        return frozenset(out)

    def render(self, word: Callable[[str], str], slot: Callable[[str], str], optional: tuple[str, str],
               group: tuple[str, str] = ("(", ")")) -> str:
        """The phrasing in another notation: `word` and `slot` render its words and slots, `optional` and `group`
        the brackets of ``[x]`` and ``(a | b)``."""
        brackets = {"[": optional[0], "]": optional[1], "(": group[0], ")": group[1], "|": "|"}
        out = [slot(t[1:-1]) if t.startswith("{") else brackets.get(t) or word(t) for t in self.tokens]
        return "".join(out)


@dataclass(frozen=True)
class Phrasings:
    """A domain's phrasings by kind, the words that may open a task, and the types said with their room."""

    phrasings: tuple[Phrasing, ...]
    task_prefix: tuple[str, ...] = ()
    qualified_by_room: tuple[str, ...] = ()

    @property
    def slot_types(self) -> frozenset[str]:
        return frozenset(t for p in self.phrasings for t in p.slots)

    @classmethod
    def for_domain(cls, domain: Domain) -> Phrasings:
        """The phrasings shipped beside the domain file (``<domain>.speech.yaml``); DomainError if there are none."""
        return _load(domain.source, domain)


@lru_cache(maxsize=8)
def _load(source: str, domain: Domain) -> Phrasings:
    import yaml

    path = Path(source).with_suffix(".speech.yaml")
    if not path.is_file():
        raise DomainError(f"no speech phrasings for domain {domain.name}: write {path} (see "
                          "domains/household.speech.yaml)")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise DomainError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise DomainError(f"{path}: expected a mapping with 'task', 'steps', 'update' and 'question'")
    return parse(data, domain, str(path))


def parse(data: dict, domain: Domain, where: str = "speech phrasings") -> Phrasings:
    """Phrasings from their YAML mapping, checked against `domain` (every problem in one DomainError)."""
    problems: list[str] = []
    out: list[Phrasing] = []
    tasks = data.get("task") or {}
    steps = set(data.get("steps") or ())
    if not isinstance(tasks, dict):
        raise DomainError(f"{where}: 'task' must map domain actions to lists of phrasings")
    for action, texts in tasks.items():
        schema = domain.actions.get(str(action))
        if schema is None:
            problems.append(f"task phrasings for {action!r}, which is not an action of domain {domain.name}")
            continue
        for text in _texts(texts, f"task {action}", problems):
            phrasing = _phrasing(TASK, text, domain, problems, action=schema.name)
            if phrasing is not None:
                _check_object(phrasing, [t for _, t in schema.params if t not in _AGENTS], domain, problems)
                out.append(phrasing)
    missing = sorted(set(domain.actions) - set(tasks) - steps)
    if missing:
        problems.append(f"action(s) {', '.join(missing)} have no phrasings: add them under 'task' or list them "
                        "under 'steps'")
    for kind in (UPDATE, QUESTION):
        for text in _texts(data.get(kind), kind, problems):
            phrasing = _phrasing(kind, text, domain, problems)
            if phrasing is not None:
                out.append(phrasing)
    qualified = tuple(str(t) for t in data.get("qualified_by_room") or ())
    problems += [f"qualified_by_room: {t!r} is not a type of domain {domain.name}" for t in qualified
                 if not domain.has_type(t)]
    if problems:
        raise DomainError(f"{where}: " + "; ".join(problems))
    prefix = tuple(" ".join(_TOKEN.findall(str(p).lower())) for p in data.get("task_prefix") or ())
    return Phrasings(tuple(out), prefix, qualified)


def _texts(value: object, what: str, problems: list[str]) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"{what}: expected a list of phrasings (strings)")
        return []
    return value


def _phrasing(kind: str, text: str, domain: Domain, problems: list[str], *, action: str | None = None
              ) -> Phrasing | None:
    lowered = text.lower()
    tokens = tuple(_TOKEN.findall(lowered))
    if "".join(tokens) != re.sub(r"\s+", "", lowered):
        problems.append(f"{text!r}: only words, ( | ), [ ] and {{type}} slots may appear")
        return None
    depth: list[str] = []
    for token in tokens:
        if token in "([":
            depth.append(token)
        elif token in ")]" and (not depth or depth.pop() != {")": "(", "]": "["}[token]):
            problems.append(f"{text!r}: unbalanced brackets")
            return None
    if depth:
        problems.append(f"{text!r}: unbalanced brackets")
        return None
    phrasing = Phrasing(kind, text, tokens, action)
    unknown = [t for t in phrasing.slots if not domain.has_type(t)]
    if unknown:
        problems.append(f"{text!r}: {', '.join(unknown)} is not a type of domain {domain.name}")
        return None
    return phrasing


def _check_object(phrasing: Phrasing, objects: list[str], domain: Domain, problems: list[str]) -> None:
    """A task's phrasing names the object of its action: a slot of the type of its first parameter that is not
    the robot or a room (the room itself for actions that only take rooms)."""
    wanted = objects[0] if objects else "room"
    if not any(domain.is_subtype(slot, wanted) or domain.is_subtype(wanted, slot) for slot in phrasing.slots):
        problems.append(f"{phrasing.text!r} (action {phrasing.action}) names no {{{wanted}}}, the thing the action "
                        "is done to")
