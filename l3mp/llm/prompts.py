"""Building blocks of prompts that depend only on the domain: its predicates and types, worked examples, and
the triplet schema (entities and facts are laid out by `l3mp.llm.contract` and `l3mp.retrieval.context`)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import WORLD
from l3mp.errors import DomainError


def describe_predicates(domain: Domain) -> str:
    """One line per predicate: PDDL signature and the triplet it is written as."""
    lines = []
    for pred in sorted(domain.predicates.values(), key=lambda p: p.name):
        if pred.arity == 0:
            shape = f'["{WORLD}", "{pred.name}", true]'
        elif pred.arity == 1:
            shape = f'["<{pred.types[0]}>", "{pred.name}", true]'
        elif pred.arity == 2:
            shape = f'["<{pred.types[0]}>", "{pred.name}", "<{pred.types[1]}>"]'
        else:
            rest = ", ".join(f'"<{t}>"' for t in pred.types[1:])
            shape = f'["<{pred.types[0]}>", "{pred.name}", [{rest}]]'
        lines.append(f"{pred.signature()}  as  {shape}")
    return "\n".join(lines)


def describe_types(domain: Domain) -> str:
    """The type hierarchy, one ``child - parent`` pair per line (leaves first)."""
    pairs = sorted((t, p) for t, p in domain.types.items() if p is not None)
    return ", ".join(f"{t} is a {p}" for t, p in pairs)


def triplet_schema(domain: Domain, entities: Iterable[str]) -> dict:
    """JSON schema of one triplet whose names are constrained to `entities` and the domain's predicates."""
    names = sorted(set(entities))
    subjects = names + ([WORLD] if any(p.arity == 0 for p in domain.predicates.values()) else [])
    entity = {"type": "string", "enum": names} if names else {"type": "string"}
    objects = [entity, {"type": "boolean", "enum": [True]}]
    if any(p.arity > 2 for p in domain.predicates.values()):
        objects.append({"type": "array", "items": entity})
    return {
        "type": "object",
        "properties": {
            "subject": {"type": "string", "enum": subjects} if subjects else {"type": "string"},
            "relation": {"type": "string", "enum": sorted(domain.predicates)},
            "object": {"anyOf": objects},
        },
        "required": ["subject", "relation", "object"],
        "additionalProperties": False,
    }


def triplet_from_answer(item: object) -> object:
    """``{"subject", "relation", "object"}`` -> ``[s, p, o]`` (anything else is returned unchanged,
    so that the delta parser reports it)."""
    if isinstance(item, dict) and set(item) == {"subject", "relation", "object"}:
        return [item["subject"], item["relation"], item["object"]]
    return item


@lru_cache(maxsize=16)
def load_examples(domain_source: str) -> dict:
    """Worked examples for a domain: ``<domain>.examples.yaml`` next to the domain file, or {}."""
    import yaml

    path = Path(domain_source).with_suffix(".examples.yaml")
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise DomainError(f"cannot read worked examples {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise DomainError(f"{path}: expected a mapping of prompt kinds to examples")
    return data
