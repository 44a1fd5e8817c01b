"""PDDL problems to and from the world graph: :objects are entities, true :init atoms are facts."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import accumulate
from pathlib import Path

from l3mp.domain.pddl_domain import ROOT_TYPE, Domain, is_pddl_name
from l3mp.domain.triplets import Fact
from l3mp.errors import FormatError, ProblemError
from l3mp.world.graph import WorldGraph
from l3mp.world.jsondoc import MAX_INPUT_BYTES, decode_utf8

MAX_PROBLEM_BYTES = MAX_INPUT_BYTES
"""Largest PDDL problem file read."""


def graph_from_problem(
    domain: Domain, problem_path_or_text: str | Path, *, is_text: bool = False
) -> WorldGraph:
    """The world graph of a PDDL problem of `domain`: its objects and constants, and its true init atoms."""
    if is_text:
        text, source = str(problem_path_or_text), "<string>"
    else:
        source = str(problem_path_or_text)
        try:
            with open(source, "rb") as f:
                data = f.read(MAX_PROBLEM_BYTES + 1)
        except OSError as exc:
            raise ProblemError(f"cannot read PDDL problem file {source}: {exc.strerror}") from exc
        if len(data) > MAX_PROBLEM_BYTES:
            raise ProblemError(f"PDDL problem file {source} is larger than {MAX_PROBLEM_BYTES} bytes")
        try:
            text = decode_utf8(data, f"PDDL problem file {source}")
        except FormatError as exc:
            raise ProblemError(str(exc)) from None
    problem = _parse(domain, text, source)
    graph = WorldGraph()
    for obj in problem.all_objects:
        graph.add_entity(obj.name, obj.type.name)  # an untyped domain's objects have UP's type "object"
    for fact in _true_atoms(problem, source):
        graph.add_fact(fact)
    return graph


def problem_to_pddl(
    domain: Domain,
    graph: WorldGraph,
    *,
    entities: Iterable[str] | None = None,
    facts: Iterable[Fact] | None = None,
    goal: str | None = None,
    problem_name: str = "state",
) -> str:
    """A PDDL problem of `domain` holding the whole graph or the subgraph chosen by `entities` and/or `facts`.

    `entities` keeps the facts all of whose arguments are among them; `facts` keeps exactly those
    facts (each must hold in the graph) and the entities they mention; both: the union. Domain
    constants are never declared in :objects. `goal` is a PDDL goal such as ``(on book1 table1)``;
    None writes the empty goal ``(and)``. Names and types are checked against the domain so that the
    text parses back (with the original domain file) to exactly the same objects and atoms;
    anything that would not raises ProblemError.
    """
    objects, chosen = _selection(graph, entities, facts)
    if not is_pddl_name(problem_name) or problem_name in _keywords():
        raise ProblemError(
            f"problem name {problem_name!r} is not a usable PDDL name (letters, digits, _ and -)"
        )
    checker = _Checker(domain, graph)
    for name in objects:
        checker.check_entity(name)
    for fact in chosen:
        checker.check_fact(fact)
    constants = domain.constants
    declared = sorted((n for n in objects if n not in constants), key=lambda n: (graph.entity_type(n), n))
    return _render(domain.name, problem_name, [(n, graph.entity_type(n)) for n in declared], chosen, goal)


class _Checker:
    """Checks that entities and facts of a graph can be written as a problem of a domain."""

    def __init__(self, domain: Domain, graph: WorldGraph) -> None:
        self._domain = domain
        self._graph = graph
        self._constants = domain.constants
        self._declarable = {t.name for t in domain.up_problem.user_types}
        self._reserved = set(domain.types) | set(domain.predicates) | set(domain.actions) | _keywords()

    def check_entity(self, name: str) -> None:
        type_ = self._graph.entity_type(name)
        if type_ is None:
            raise ProblemError(f"entity {name!r} is not in the graph; export only entities the graph holds")
        if name in self._constants:
            if type_ != self._constants[name]:
                raise ProblemError(
                    f"entity {name} has type {type_} but domain {self._domain.name} declares the constant "
                    f"{name} - {self._constants[name]}; give the entity the constant's type"
                )
            return
        if not is_pddl_name(name):
            raise ProblemError(
                f"entity name {name!r} is not a PDDL name: use lowercase letters, digits, _ and -, "
                "starting with a letter"
            )
        if name in self._reserved:
            raise ProblemError(
                f"entity name {name!r} is a PDDL keyword or a type, predicate or action name of domain "
                f"{self._domain.name}; PDDL tools cannot read it as an object, so rename the entity"
            )
        if type_ not in self._declarable:
            raise ProblemError(
                f"entity {name} has type {type_!r}, which domain {self._domain.name} does not declare; "
                f"use one of: {', '.join(sorted(self._declarable))}"
            )

    def check_fact(self, fact: Fact) -> None:
        pred = self._domain.predicate(fact.predicate)
        if pred is None:
            raise ProblemError(f"fact {fact}: domain {self._domain.name} has no predicate {fact.predicate}")
        if pred.arity != len(fact.args):
            raise ProblemError(
                f"fact {fact}: {fact.predicate} takes {pred.arity} argument(s), as in {pred.signature()}"
            )
        for arg, (param, type_) in zip(fact.args, pred.params, strict=True):
            actual = self._graph.entity_type(arg)
            if actual is None or not self._domain.is_subtype(actual, type_):
                raise ProblemError(
                    f"fact {fact}: argument {param} must be a {type_} (see {pred.signature()}), "
                    f"but {arg} is {'not in the graph' if actual is None else 'a ' + actual}"
                )


def _keywords() -> frozenset[str]:
    """PDDL keywords: unified-planning's writer renames objects called so, other planners misread them."""
    from unified_planning.io.pddl_writer import GENERAL_PDDL_KEYWORDS

    return frozenset(GENERAL_PDDL_KEYWORDS) | {ROOT_TYPE}


def _selection(
    graph: WorldGraph, entities: Iterable[str] | None, facts: Iterable[Fact] | None
) -> tuple[set[str], list[Fact]]:
    """The objects and the facts to write, sorted facts included."""
    if entities is None and facts is None:
        return set(graph.entities()), _sorted_facts(graph.facts())
    objects: set[str] = set()
    chosen: set[Fact] = set()
    if entities is not None:
        objects.update(entities)
        chosen.update(graph.facts_within(objects))
    if facts is not None:
        for fact in facts:
            if fact not in graph:
                raise ProblemError(
                    f"fact {fact} does not hold in the graph; export only facts the graph holds"
                )
            chosen.add(fact)
            objects.update(fact.args)
    return objects, _sorted_facts(chosen)


def _sorted_facts(facts: Iterable[Fact]) -> list[Fact]:
    return sorted(facts, key=lambda f: (f.predicate, f.args))


def _render(
    domain_name: str, problem_name: str, objects: list[tuple[str, str]], facts: list[Fact], goal: str | None
) -> str:
    """The problem text: one :objects line per type, one :init line per atom."""
    lines = [f"(define (problem {problem_name})", f" (:domain {domain_name})", " (:objects"]
    by_type: dict[str, list[str]] = {}
    for name, type_ in objects:
        by_type.setdefault(type_, []).append(name)
    lines.extend(f"   {' '.join(names)} - {type_}" for type_, names in by_type.items())
    lines.append(" )")
    lines.append(" (:init")
    lines.extend(f"   {fact}" for fact in facts)
    lines.append(" )")
    lines.append(f" (:goal {_goal_text(goal)})")
    lines.append(")")
    return "\n".join(lines) + "\n"


def _goal_text(goal: str | None) -> str:
    if goal is None or not goal.strip():
        return "(and)"
    text = goal.strip()
    depths = list(accumulate({"(": 1, ")": -1}.get(ch, 0) for ch in text))
    if not text.startswith("(") or depths[-1] != 0 or 0 in depths[:-1]:
        raise ProblemError(f"goal {goal!r} is not one parenthesised PDDL formula, e.g. (on book1 table1)")
    return text


def _parse(domain: Domain, text: str, source: str):
    """The unified-planning problem of `text` with `domain`; ProblemError with the parser's reason."""
    from unified_planning.io import PDDLReader

    try:
        return PDDLReader().parse_problem_string(domain.text, text)
    except Exception as exc:  # unified-planning raises many unrelated types
        message = f"undeclared name {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc).strip()
        first = message.splitlines()[0] if message else type(exc).__name__
        raise ProblemError(
            f"cannot read PDDL problem {source} with domain {domain.name}: {type(exc).__name__}: {first}"
        ) from exc


def _true_atoms(problem, source: str) -> set[Fact]:
    """The atoms set true in the problem's :init; ProblemError for numeric or timed initial values."""
    if problem.timed_effects:
        raise ProblemError(f"PDDL problem {source}: timed initial literals are not supported")
    atoms = set()
    for fluent_exp, value in problem.explicit_initial_values.items():
        if not value.is_bool_constant():
            raise ProblemError(
                f"PDDL problem {source}: {fluent_exp} = {value} is not a boolean fact; "
                "the world graph holds only boolean predicates"
            )
        if value.is_true():
            atoms.add(Fact(fluent_exp.fluent().name, tuple(a.object().name for a in fluent_exp.args)))
    return atoms
