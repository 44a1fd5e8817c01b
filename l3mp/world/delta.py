"""A delta: the facts to remove and add, and entities to create or delete, as one unit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from l3mp.domain.triplets import Fact, fact_from_triplet, fact_to_triplet
from l3mp.errors import FormatError
from l3mp.world.jsondoc import check_count, check_name, check_strings, check_text, shown

if TYPE_CHECKING:
    from l3mp.domain.pddl_domain import Domain
    from l3mp.world.graph import WorldGraph

_KEYS = {"remove", "add", "entities", "remove_entities"}
_ENTITY_KEYS = {"type", "label", "description"}


@dataclass(frozen=True)
class EntitySpec:
    """A new entity: its PDDL type, and optional human words for it."""

    type: str
    label: str | None = None
    description: str | None = None

    def attrs(self) -> dict[str, str]:
        return {k: v for k, v in (("label", self.label), ("description", self.description)) if v}


@dataclass(frozen=True)
class Delta:
    """Removals are applied before additions; entity removal cascades to its facts."""

    remove: tuple[Fact, ...] = ()
    add: tuple[Fact, ...] = ()
    entities: dict[str, EntitySpec] = field(default_factory=dict)
    remove_entities: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        return not (self.remove or self.add or self.entities or self.remove_entities)

    def size(self) -> int:
        return len(self.remove) + len(self.add) + len(self.entities) + len(self.remove_entities)

    def to_json(self) -> dict:
        """Delta JSON (README, "Delta JSON"); empty sections are left out."""
        out: dict = {}
        if self.remove:
            out["remove"] = [list(fact_to_triplet(f)) for f in self.remove]
        if self.add:
            out["add"] = [list(fact_to_triplet(f)) for f in self.add]
        if self.entities:
            out["entities"] = {n: {"type": s.type, **s.attrs()} for n, s in self.entities.items()}
        if self.remove_entities:
            out["remove_entities"] = list(self.remove_entities)
        return out

    @classmethod
    def from_json(cls, data: object) -> Delta:
        """Parse delta JSON; any malformation raises FormatError naming the bad part."""
        if not isinstance(data, dict):
            raise FormatError(f"a delta must be a JSON object with keys {sorted(_KEYS)}; got {type(data).__name__}")
        unknown = set(data) - _KEYS
        if unknown:
            raise FormatError(f"unknown delta key(s) {shown(sorted(unknown))}; valid keys are {sorted(_KEYS)}")
        check_count([*_list(data.get("remove", [])), *_list(data.get("add", []))], "a delta")
        return cls(
            remove=_facts(data.get("remove", []), "remove"),
            add=_facts(data.get("add", []), "add"),
            entities=parse_entities(data.get("entities", {})),
            remove_entities=parse_names(data.get("remove_entities", []), "remove_entities"),
        )


def parse_entities(raw: object) -> dict[str, EntitySpec]:
    """Parse ``{"name": {"type": ..., "label": ...}}``."""
    if not isinstance(raw, dict):
        raise FormatError("'entities' must be an object mapping entity names to {\"type\": ...}")
    out = {}
    for name, spec in raw.items():
        check_name(name, "'entities'")
        if not isinstance(spec, dict) or not isinstance(spec.get("type"), str) or not spec["type"]:
            raise FormatError(f"entity {name!r} needs an object with a non-empty string 'type'")
        extra = set(spec) - _ENTITY_KEYS
        if extra:
            raise FormatError(f"entity {name!r}: unknown key(s) {shown(sorted(extra))}; valid: {sorted(_ENTITY_KEYS)}")
        check_name(spec["type"], f"entity {name!r}: 'type'")
        for key in ("label", "description"):
            if spec.get(key) is not None:
                if not isinstance(spec[key], str):
                    raise FormatError(f"entity {name!r}: '{key}' must be a string")
                check_text(spec[key], f"entity {name!r}: '{key}'")
        out[name.lower()] = EntitySpec(spec["type"].lower(), spec.get("label") or None, spec.get("description") or None)
    return out


def parse_triplet(triplet: object, where: str, *, allow_false: bool = False) -> tuple[Fact, bool]:
    """`fact_from_triplet` after checking that its names are bounded and printable (so that its errors, which
    quote the triplet, stay short)."""
    check_strings(triplet, where)
    try:
        return fact_from_triplet(triplet, allow_false=allow_false)
    except FormatError as exc:
        raise FormatError(f"{where}: {exc}") from None


def _facts(raw: object, key: str) -> tuple[Fact, ...]:
    if not isinstance(raw, list):
        raise FormatError(f"'{key}' must be a list of triplets")
    return tuple(parse_triplet(triplet, f"'{key}'[{i}]")[0] for i, triplet in enumerate(raw))


def _list(raw: object) -> list:
    return raw if isinstance(raw, list) else []


def parse_names(raw: object, key: str) -> tuple[str, ...]:
    """A JSON list of entity names (lowercased); FormatError naming `key` otherwise."""
    if not isinstance(raw, list) or not all(isinstance(n, str) and n for n in raw):
        raise FormatError(f"'{key}' must be a list of entity names")
    return tuple(check_name(n, f"'{key}'").lower() for n in raw)


def state_delta(domain: Domain, current: WorldGraph, target: WorldGraph, *, replace: bool) -> Delta:
    """The delta from `current` to `target`'s state.

    With `replace` the result holds exactly `target` (other entities are removed, domain
    constants excepted); otherwise `target` decides only the facts among its own entities,
    and everything else in `current` stays.
    """
    wanted = set(target.facts())
    have = set(current.facts())
    scope = have if replace else current.facts_within(target.entities())
    gone = [n for n in current.entities() if not target.has_entity(n) and n not in domain.constants] if replace else []
    return Delta(
        remove=tuple(sorted(scope - wanted)),
        add=tuple(sorted(wanted - have)),
        entities={n: entity_spec(target, n) for n in target.entities()
                  if current.entity_type(n) != target.entity_type(n)},
        remove_entities=tuple(sorted(gone)),
    )


def entity_spec(graph: WorldGraph, name: str) -> EntitySpec:
    """How `graph` declares entity `name` (type, label, description)."""
    attrs = graph.entity_attrs(name)
    return EntitySpec(attrs["type"], attrs.get("label"), attrs.get("description"))
