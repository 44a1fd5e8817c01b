"""Verification of a proposed delta against the domain, its rules and the current graph.

`Verifier.check` reports every violation at once, each with a message written so that
a person, or an LLM re-prompted with it, can fix the delta. On success it returns the
effective delta: entity removals cascaded to their facts, no-op additions dropped.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from l3mp.domain.pddl_domain import Domain, Predicate, is_pddl_name
from l3mp.domain.rules import CardinalityRule, RuleSet
from l3mp.domain.triplets import WORLD, Fact
from l3mp.errors import FormatError
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.graph import WorldGraph
from l3mp.world.jsondoc import MAX_NAME_CHARS, check_text, shown

MAX_LISTED = 8


@dataclass(frozen=True)
class Violation:
    """One problem with a delta: a machine-readable code and an actionable message."""

    code: str
    message: str
    fact: Fact | None = None
    entity: str | None = None

    def to_json(self) -> dict:
        out = {"code": self.code, "message": self.message}
        if self.fact is not None:
            out["fact"] = str(self.fact)
        if self.entity is not None:
            out["entity"] = self.entity
        return out


@dataclass(frozen=True)
class Verdict:
    """The outcome of a check: violations, or the effective delta to apply."""

    violations: tuple[Violation, ...]
    effective: Delta

    @property
    def ok(self) -> bool:
        return not self.violations


class Verifier:
    """Checks deltas for one domain and its rules."""

    def __init__(self, domain: Domain, rules: RuleSet | None = None) -> None:
        self._domain = domain
        self._rules = rules or RuleSet()

    @property
    def domain(self) -> Domain:
        return self._domain

    @property
    def rules(self) -> RuleSet:
        return self._rules

    def check(self, graph: WorldGraph, delta: Delta, *, allow_new_entities: bool) -> Verdict:
        """Verify `delta` against `graph`; never changes the graph."""
        run = _Check(self._domain, self._rules, graph, delta, allow_new_entities)
        return run.verdict()

    def check_state(self, graph: WorldGraph) -> list[Violation]:
        """Every violation of the domain and rules by the graph as a whole (constants included)."""
        names = dict.fromkeys([*self._domain.constants, *graph.entities()])
        as_delta = Delta(
            add=tuple(graph.facts()),
            entities={n: EntitySpec(self._domain.constants.get(n) or graph.entity_type(n) or "") for n in names},
        )
        run = _Check(self._domain, self._rules, WorldGraph(), as_delta, True, whole_state=True)
        return list(run.verdict().violations)


class _Check:
    """One verification run (keeps the bookkeeping of a single delta together)."""

    def __init__(
        self, domain: Domain, rules: RuleSet, graph: WorldGraph, delta: Delta, allow_new: bool,
        *, whole_state: bool = False,
    ) -> None:
        self.domain, self.rules, self.graph, self.delta = domain, rules, graph, delta
        self.allow_new = allow_new
        self.whole_state = whole_state
        self.violations: list[Violation] = []
        self.new_entities: dict[str, EntitySpec] = {}
        self.gone_entities: set[str] = set()
        self.unsure: set[str] = set()  # entities named by malformed facts: their rule counts are unknown

    def verdict(self) -> Verdict:
        self._check_new_entities()
        self._check_removed_entities()
        removals = self._check_removals()
        additions = self._check_additions(removals)
        cascaded = {f for e in self.gone_entities for f in self.graph.facts_of(e)} - set(removals)
        removals = removals + sorted(cascaded)
        self._check_rules(removals, additions)
        effective = Delta(
            remove=tuple(removals),
            add=tuple(additions),
            entities=dict(self.new_entities),
            remove_entities=tuple(sorted(self.gone_entities)),
        )
        return Verdict(tuple(self.violations), effective)

    def _fail(self, code: str, message: str, *, fact: Fact | None = None, entity: str | None = None) -> None:
        self.violations.append(Violation(code, message, fact, entity))

    # ---- entities -------------------------------------------------------------------
    def _check_new_entities(self) -> None:
        for name, spec in self.delta.entities.items():
            existing = self.domain.constants.get(name) or self.graph.entity_type(name)
            if self.whole_state and name in self.domain.constants:
                self.new_entities[name] = spec
                continue
            if existing is not None:
                if existing != spec.type:
                    self._fail(
                        "entity_type_conflict",
                        f"entity '{name}' already exists with type {existing}; it cannot be redeclared "
                        f"as {spec.type} (use another name, or remove the entity first)",
                        entity=name,
                    )
                continue
            if not self.allow_new:
                self._fail(
                    "entity_creation_forbidden",
                    f"'{name}' is not in the graph and this update may not create entities "
                    "(only perception can); refer to an existing entity instead"
                    + self._suggest_entities(name, spec.type),
                    entity=name,
                )
            elif len(name) > MAX_NAME_CHARS or not is_pddl_name(name):
                self._fail(
                    "bad_name",
                    f"{shown(name)} is not a valid entity name: start with a letter, then letters, digits, _ or - "
                    f"(at most {MAX_NAME_CHARS} characters)",
                    entity=name,
                )
            elif (problem := _text_problem(spec)) is not None:
                self._fail("bad_label", f"entity '{name}': {problem}", entity=name)
            elif name in self.domain.reserved_names():
                self._fail(
                    "bad_name",
                    f"'{name}' cannot name an entity: it is a PDDL keyword or a type, predicate or action of domain "
                    f"{self.domain.name}; use e.g. '{name}_1'",
                    entity=name,
                )
            elif not self.domain.has_type(spec.type):
                self._fail(
                    "unknown_type",
                    f"entity '{name}' has unknown type '{spec.type}' (domain {self.domain.name}); "
                    + closest_names(spec.type, self.domain.types, label="valid types"),
                    entity=name,
                )
            else:
                self.new_entities[name] = spec

    def _check_removed_entities(self) -> None:
        for name in self.delta.remove_entities:
            if name in self.domain.constants:
                self._fail("constant_removal", f"'{name}' is a constant of the domain and cannot be removed",
                           entity=name)
            elif name in self.delta.entities:
                self._fail("contradiction", f"entity '{name}' is both created and removed in this delta",
                           entity=name)
                self.unsure.add(name)
            elif not self.graph.has_entity(name):
                self._fail("unknown_entity", f"cannot remove entity '{name}': it is not in the graph"
                           + self._suggest_entities(name, None), entity=name)
            else:
                self.gone_entities.add(name)

    # ---- facts ----------------------------------------------------------------------
    def _check_removals(self) -> list[Fact]:
        out: list[Fact] = []
        for fact in dict.fromkeys(self.delta.remove):
            if not self._well_formed(fact, removing=True):
                continue
            if not self.graph.has_fact(fact):
                self._fail("missing_fact", f"cannot remove {fact}: it is not in the graph" + self._present_like(fact),
                           fact=fact)
                continue
            out.append(fact)
        return out

    def _check_additions(self, removals: list[Fact]) -> list[Fact]:
        removed = set(removals)
        out: list[Fact] = []
        for fact in dict.fromkeys(self.delta.add):
            if not self._well_formed(fact, removing=False):
                continue
            if fact in removed:
                self._fail("contradiction", f"{fact} is both removed and added in this delta; keep only one",
                           fact=fact)
                self.unsure.update(fact.args)
                continue
            gone = [a for a in fact.args if a in self.gone_entities]
            if gone:
                self._fail("contradiction", f"cannot add {fact}: entity '{gone[0]}' is removed in this delta",
                           fact=fact)
                continue
            if not self.graph.has_fact(fact):
                out.append(fact)
        return out

    def _well_formed(self, fact: Fact, *, removing: bool) -> bool:
        if self._conforms(fact, removing=removing):
            return True
        self.unsure.update(fact.args)
        return False

    def _conforms(self, fact: Fact, *, removing: bool) -> bool:
        pred = self.domain.predicate(fact.predicate)
        if pred is None:
            self._fail("unknown_predicate", f"unknown predicate '{fact.predicate}' in {fact}; "
                       + closest_names(fact.predicate, self.domain.predicates, label="valid predicates"), fact=fact)
            return False
        if len(fact.args) != pred.arity:
            self._fail("wrong_arity", f"{fact} has {len(fact.args)} argument(s) but {pred.signature()} takes "
                       f"{pred.arity}; as a triplet write {_triplet_shape(pred)}", fact=fact)
            return False
        ok = True
        for i, (arg, (param, want)) in enumerate(zip(fact.args, pred.params, strict=True)):
            have = self._type_of(arg)
            if have is None or (removing and not self.graph.has_entity(arg)):
                self._fail("unknown_entity", f"{fact}: unknown entity '{arg}'" + self._suggest_entities(arg, want),
                           fact=fact, entity=arg)
                ok = False
                continue
            if not self.domain.is_subtype(have, want):
                self._fail(
                    "wrong_type",
                    f"{fact}: argument {i + 1} (?{param}) of {pred.signature()} must be a {want}"
                    f"{_kinds(self.domain, want)}, but '{arg}' is a {have}"
                    + self._suggest_entities(None, want),
                    fact=fact, entity=arg,
                )
                ok = False
        return ok

    # ---- rules ----------------------------------------------------------------------
    def _check_rules(self, removals: list[Fact], additions: list[Fact]) -> None:
        removed = set(removals)
        touched: dict[tuple[CardinalityRule, str], list[Fact]] = {}  # (rule, entity) -> facts it adds
        for fact, adding in [(f, False) for f in removals] + [(f, True) for f in additions]:
            for rule in self.rules.for_predicate(fact.predicate):
                for key in rule.keys_of(fact.predicate, fact.args):
                    new = touched.setdefault((rule, key), [])
                    if adding:
                        new.append(fact)
        for name, spec in self.new_entities.items():
            for rule in self.rules.rules:
                if rule.min > 0 and self._rule_covers_type(rule, spec.type):
                    touched.setdefault((rule, name), [])
        for (rule, key), new in touched.items():
            if key in self.gone_entities or key in self.unsure:
                continue
            kept = [f for f in self._counted(rule, key) if f not in removed]
            self._check_bounds(rule, key, kept, new)

    def _check_bounds(self, rule: CardinalityRule, key: str, kept: list[Fact], new: list[Fact]) -> None:
        count = len(kept) + len(new)
        if rule.max is not None and count > rule.max:
            if kept:
                existing = ", ".join(str(f) for f in sorted(kept)[:MAX_LISTED])
                hint = f"conflicts with existing fact(s) {existing}; remove them in the same delta"
            else:
                hint = "this delta adds " + ", ".join(str(f) for f in new) + "; keep at most " + str(rule.max)
            self._fail("rule_violation",
                       f"{', '.join(str(f) for f in new) or key} breaks {rule.describe()}: {hint}",
                       fact=new[0] if new else None, entity=key)
        elif count < rule.min:
            shape = " or ".join(self._pattern(p, a, key) for p, a in rule.members)
            self._fail("rule_violation",
                       f"after this delta '{key}' would have {count} fact(s) like {shape}, but {rule.describe()}; "
                       "add the new fact in the same delta", entity=key)

    def _counted(self, rule: CardinalityRule, key: str) -> list[Fact]:
        return [f for f in self.graph.facts_of(key) if key in rule.keys_of(f.predicate, f.args)]

    def _rule_covers_type(self, rule: CardinalityRule, type_: str) -> bool:
        for pred, arg in rule.members:
            p = self.domain.predicate(pred)
            if p is not None and self.domain.is_subtype(type_, p.types[arg]):
                return True
        return False

    def _pattern(self, predicate: str, position: int, key: str) -> str:
        params = self.domain.predicate(predicate).params
        args = [key if i == position else f"?{name}" for i, (name, _) in enumerate(params)]
        return "(" + " ".join((predicate, *args)) + ")"

    # ---- helpers --------------------------------------------------------------------
    def _type_of(self, name: str) -> str | None:
        if name in self.domain.constants:
            return self.domain.constants[name]
        if name in self.new_entities:
            return self.new_entities[name].type
        if self.allow_new and name in self.delta.entities and self.graph.entity_type(name) is None:
            spec = self.delta.entities[name]
            return spec.type if self.domain.has_type(spec.type) else None
        return self.graph.entity_type(name)

    def _entities_of(self, type_: str | None) -> list[str]:
        names = list(dict.fromkeys([*self.domain.constants, *self.graph.entities()]))
        if type_ is None:
            return names
        return [n for n in names if self.domain.is_subtype(self._type_of(n) or "", type_)]

    def _suggest_entities(self, name: str | None, type_: str | None) -> str:
        pool = self._entities_of(type_)
        if not pool:
            return f" (the graph has no entity of type {type_})" if type_ else ""
        what = f"entities of type {type_}" if type_ else "entities"
        return "; " + closest_names(name, pool, label=what, cutoff=0.5, listed=MAX_LISTED)

    def _present_like(self, fact: Fact) -> str:
        if not fact.args:
            return ""
        subject = fact.args[0] if fact.args[0] != WORLD else None
        similar = sorted(self.graph.facts(predicate=fact.predicate, entity=subject))[:MAX_LISTED] if subject else []
        if similar:
            return "; the graph has " + ", ".join(str(f) for f in similar)
        return f"; the graph has no ({fact.predicate} {subject} ...) fact"


def _text_problem(spec: EntitySpec) -> str | None:
    """Why an entity's label or description cannot be shown on one line (None: it can)."""
    for key, text in (("label", spec.label), ("description", spec.description)):
        if text is not None:
            try:
                check_text(text, key)
            except FormatError as exc:
                return str(exc)
    return None


def closest_names(
    word: str | None, names: Iterable[str], *, label: str, cutoff: float = 0.4, listed: int | None = None
) -> str:
    """A hint for a name that is not known: ``closest <label>: a, b`` (up to five names like `word`), else
    ``<label>: `` and the names (the first `listed` of them, and how many more)."""
    pool = sorted(names)
    close = difflib.get_close_matches(word, pool, n=5, cutoff=cutoff) if word else []
    if close:
        return f"closest {label}: {', '.join(close)}"
    shown = pool if listed is None else pool[:listed]
    more = f" (and {len(pool) - len(shown)} more)" if len(pool) > len(shown) else ""
    return f"{label}: {', '.join(shown)}{more}"


def _kinds(domain: Domain, type_: str) -> str:
    leaves = domain.leaf_types(type_)
    return f" ({', '.join(leaves)})" if leaves and leaves != [type_] else ""


def _triplet_shape(pred: Predicate) -> str:
    if pred.arity == 0:
        return f"['{WORLD}', '{pred.name}', true]"
    if pred.arity == 1:
        return f"['<{pred.types[0]}>', '{pred.name}', true]"
    if pred.arity == 2:
        return f"['<{pred.types[0]}>', '{pred.name}', '<{pred.types[1]}>']"
    rest = ", ".join(f"'<{t}>'" for t in pred.types[1:])
    return f"['<{pred.types[0]}>', '{pred.name}', [{rest}]]"

