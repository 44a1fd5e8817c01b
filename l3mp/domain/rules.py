"""World-state rules declared per domain (a YAML file next to the PDDL domain).

A rule counts, for one entity, the facts of a group of predicates in which that
entity appears at a given argument position, and bounds the count. Examples::

    rules:
      - name: item-location
        says: an item is in exactly one place
        count:
          - {predicate: on, arg: 0}
          - {predicate: holding, arg: 1}
        min: 1
        max: 1

``max: 1`` makes a relation functional (or several relations mutually exclusive);
``min`` is enforced for every entity whose counted facts a delta touches, so a
delta cannot leave an item with no place at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from l3mp.domain.pddl_domain import Domain
from l3mp.errors import DomainError


@dataclass(frozen=True)
class CardinalityRule:
    """Bounds on how many counted facts one entity may have."""

    name: str
    says: str
    members: tuple[tuple[str, int], ...]
    min: int = 0
    max: int | None = None

    def keys_of(self, predicate: str, args: tuple[str, ...]) -> list[str]:
        """The entities a fact is counted for under this rule (none if the rule ignores it)."""
        return [args[arg] for pred, arg in self.members if pred == predicate and arg < len(args)]

    def describe(self) -> str:
        return f"rule '{self.name}': {self.says}"


class RuleSet:
    """The rules of one domain, indexed by predicate."""

    def __init__(self, rules: Iterable[CardinalityRule] = ()) -> None:
        self._rules = tuple(rules)
        self._by_predicate: dict[str, list[CardinalityRule]] = {}
        for rule in self._rules:
            for pred in {p for p, _ in rule.members}:
                self._by_predicate.setdefault(pred, []).append(rule)

    @property
    def rules(self) -> tuple[CardinalityRule, ...]:
        return self._rules

    def for_predicate(self, predicate: str) -> list[CardinalityRule]:
        return self._by_predicate.get(predicate, [])

    def __len__(self) -> int:
        return len(self._rules)

    @classmethod
    def for_domain(cls, domain: Domain, path: str | Path | None = None) -> RuleSet:
        """Load `path`, or ``<domain>.rules.yaml`` next to the domain file if it exists."""
        if path is None:
            candidate = Path(domain.source).with_suffix(".rules.yaml")
            if not candidate.is_file():
                return cls()
            path = candidate
        return cls.from_file(path, domain)

    @classmethod
    def from_file(cls, path: str | Path, domain: Domain) -> RuleSet:
        import yaml

        try:
            data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise DomainError(f"cannot read rules file {path}: {exc.strerror}") from exc
        except yaml.YAMLError as exc:
            raise DomainError(f"rules file {path} is not valid YAML: {exc}") from exc
        return cls.from_data(data, domain, source=str(path))

    @classmethod
    def from_data(cls, data: object, domain: Domain, *, source: str = "<rules>") -> RuleSet:
        if data is None:
            return cls()
        if not isinstance(data, dict) or not isinstance(data.get("rules", []), list):
            raise DomainError(f"{source}: expected a mapping with a list under 'rules'")
        return cls(_parse_rule(r, domain, source) for r in data.get("rules", []))


def _parse_rule(raw: object, domain: Domain, source: str) -> CardinalityRule:
    if not isinstance(raw, dict) or "name" not in raw or "count" not in raw:
        raise DomainError(f"{source}: each rule needs 'name' and 'count'; got {raw!r}")
    name = str(raw["name"])
    where = f"{source}, rule '{name}'"
    if not isinstance(raw["count"], list):
        raise DomainError(f"{where}: 'count' must be a list of {{predicate: ..., arg: ...}} entries")
    members = []
    for m in raw["count"]:
        if not isinstance(m, dict) or "predicate" not in m:
            raise DomainError(f"{where}: each 'count' entry needs 'predicate' (and 'arg'); got {m!r}")
        if isinstance(m["predicate"], bool):
            raise DomainError(
                f"{where}: YAML read a predicate name as the boolean {m['predicate']}; "
                'quote predicate names such as "on" or "off"'
            )
        pred = domain.predicate(str(m["predicate"]).lower())
        if pred is None:
            raise DomainError(f"{where}: predicate '{m['predicate']}' is not in domain {domain.name}")
        arg = m.get("arg", 0)
        if not _is_int(arg) or not 0 <= arg < pred.arity:
            raise DomainError(
                f"{where}: 'arg' of {pred.name} must be an argument index 0..{pred.arity - 1}; got {arg!r}"
            )
        members.append((pred.name, arg))
    if not members:
        raise DomainError(f"{where}: 'count' lists no predicate")
    low = raw.get("min", 0)
    high = raw.get("max")
    if not _is_int(low) or low < 0 or (high is not None and (not _is_int(high) or high < max(low, 1))):
        raise DomainError(f"{where}: need integers 0 <= min <= max (max >= 1 or absent); got min={low!r} max={high!r}")
    return CardinalityRule(
        name=name, says=str(raw.get("says", name)), members=tuple(members), min=low, max=high
    )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
