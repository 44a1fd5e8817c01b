"""unified-planning problems built from the world graph (or a subgraph of it) and a PDDL goal."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import unified_planning.model as upm
from unified_planning.model import FNode
from unified_planning.plans import ActionInstance

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.errors import ProblemError
from l3mp.world.graph import WorldGraph

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_QUANTIFIERS = ("forall", "exists")
_CONNECTIVES = ("and", "or", "not", "imply", "=", *_QUANTIFIERS)

SExpr = str | list["SExpr"]


def build_problem(
    domain: Domain,
    graph: WorldGraph,
    *,
    entities: Iterable[str] | None = None,
    goal: FNode | str,
    name: str = "task",
) -> upm.Problem:
    """The planning problem of `domain` over `entities` of `graph` (all if None) with `goal`.

    Objects: the entities, the domain constants, every object the goal names and, for each type
    a goal quantifies over, every entity of that type together with the entities its facts
    mention. Init: the graph's facts among those objects (closed world: all else is false).
    `goal` is a PDDL formula such as ``(and (on cup_1 table_1) (forall (?l - light) (not (light_on ?l))))``
    or a unified-planning expression. A goal naming an unknown object or predicate, or an
    object of the wrong type, raises ProblemError.
    """
    table = _Objects(domain, graph)
    scope = {table.get(n).name for n in (graph.entities() if entities is None else entities)}
    scope |= set(domain.constants)
    goal_exp = _GoalParser(domain, table).parse(goal) if isinstance(goal, str) else _checked_goal(goal, table)
    mentioned, quantified = _goal_objects(goal_exp)
    scope |= mentioned
    for type_ in quantified:
        scope |= _with_neighbours(graph, _entities_of_type(domain, graph, type_))
    problem = domain.up_problem.clone()
    problem.name = name
    problem.add_objects(table.get(n) for n in sorted(scope - set(domain.constants)))
    for fact in sorted(graph.facts_within(scope)):
        problem.set_initial_value(_atom(domain, table, fact), True)
    problem.add_goal(goal_exp)
    return problem


def full_state_problem(
    domain: Domain, graph: WorldGraph, goal: FNode | str, *, name: str = "full_state"
) -> upm.Problem:
    """The planning problem over the whole graph (every entity, every fact)."""
    return build_problem(domain, graph, entities=None, goal=goal, name=name)


def action_instance(problem: upm.Problem, text: str) -> ActionInstance:
    """The ground action ``(name arg ...)`` of `problem`; ProblemError naming what does not fit."""
    words = action_words(text)
    if not problem.has_action(words[0]):
        raise ProblemError(f"action {text.strip()}: the domain has no action {words[0]!r}; its actions are: "
                           f"{', '.join(sorted(a.name for a in problem.actions))}")
    action = problem.action(words[0])
    args = words[1:]
    if len(args) != len(action.parameters):
        signature = " ".join(f"?{p.name} - {type_name(p.type)}" for p in action.parameters)
        raise ProblemError(f"action {text.strip()}: {action.name} takes {len(action.parameters)} argument(s), "
                           f"as in ({action.name} {signature})")
    objects = []
    for arg, param in zip(args, action.parameters, strict=True):
        if not problem.has_object(arg):
            raise ProblemError(f"action {text.strip()}: unknown object {arg!r} (not in the problem)")
        obj = problem.object(arg)
        if not param.type.is_compatible(obj.type):
            raise ProblemError(f"action {text.strip()}: {arg} is {_a(type_name(obj.type))}, but parameter "
                               f"?{param.name} of {action.name} must be {_a(type_name(param.type))}")
        objects.append(obj)
    return ActionInstance(action, objects)


def action_text(step: ActionInstance) -> str:
    """A ground action as PDDL, e.g. ``(move the_robot kitchen_1 bathroom_1)``."""
    return "(" + " ".join([step.action.name, *(p.object().name for p in step.actual_parameters)]) + ")"


def action_words(text: str) -> list[str]:
    """The name and arguments of a ground action ``(name arg ...)``, lowercased; ProblemError if not so written."""
    tree = _sexpr(text, what="action")
    if not isinstance(tree, list) or not tree or not all(isinstance(w, str) for w in tree):
        raise ProblemError(f"an action is written (name arg ...), e.g. (move the_robot kitchen_1 hall_1); got {text!r}")
    return [str(w) for w in tree]


class _Objects:
    """unified-planning objects of graph entities and domain constants, made on first use."""

    def __init__(self, domain: Domain, graph: WorldGraph) -> None:
        self._domain = domain
        self._graph = graph
        self._made: dict[str, upm.Object] = {o.name: o for o in domain.up_problem.all_objects}

    def get(self, name: str) -> upm.Object:
        if name in self._made:
            return self._made[name]
        type_ = self._graph.entity_type(name)
        if type_ is None:
            raise ProblemError(f"unknown object {name!r}: it is neither an entity of the world graph nor a "
                               f"constant of domain {self._domain.name}")
        self._made[name] = upm.Object(name, _up_type(self._domain, type_, f"entity {name}"))
        return self._made[name]

    def type_of(self, name: str) -> str:
        return type_name(self.get(name).type)


def _up_type(domain: Domain, type_: str, what: str) -> upm.Type:
    problem = domain.up_problem
    if not problem.has_type(type_):
        raise ProblemError(f"{what} has type {type_!r}, which domain {domain.name} does not declare; "
                           f"use one of: {', '.join(sorted(t.name for t in problem.user_types))}")
    return problem.user_type(type_)


def type_name(type_: upm.Type) -> str:
    """The name of a unified-planning user type (``light``, not ``light - device``)."""
    return type_.name  # type: ignore[attr-defined]


def _atom(domain: Domain, table: _Objects, fact: Fact) -> FNode:
    predicate = domain.predicate(fact.predicate)
    if predicate is None or predicate.arity != len(fact.args):
        raise ProblemError(f"graph fact {fact} does not fit domain {domain.name}: "
                           + (f"use {predicate.signature()}" if predicate else f"no predicate {fact.predicate}"))
    return domain.up_problem.fluent(fact.predicate)(*(table.get(a) for a in fact.args))


def _entities_of_type(domain: Domain, graph: WorldGraph, type_: str) -> set[str]:
    return {e for e in graph.entities() if domain.is_subtype(graph.entity_type(e) or "", type_)}


def _with_neighbours(graph: WorldGraph, names: set[str]) -> set[str]:
    """`names` and every entity that a fact of one of them mentions."""
    out = set(names)
    for name in names:
        for fact in graph.facts_of(name):
            out.update(fact.args)
    return out


def _walk(exp: FNode) -> Iterator[FNode]:
    yield exp
    for arg in exp.args:
        yield from _walk(arg)


def _goal_objects(goal: FNode) -> tuple[set[str], set[str]]:
    """The names of the objects a goal mentions and of the types it quantifies over."""
    objects, types = set(), set()
    for node in _walk(goal):
        if node.is_object_exp():
            objects.add(node.object().name)
        elif node.is_forall() or node.is_exists():
            types.update(type_name(v.type) for v in node.variables())
    return objects, types


def _checked_goal(goal: FNode, table: _Objects) -> FNode:
    """A goal given as an expression: boolean, and every object it names is the graph's, with its type."""
    if not goal.type.is_bool_type():
        raise ProblemError(f"the goal {goal} is not a condition (its type is {goal.type})")
    for node in _walk(goal):
        if node.is_object_exp():
            obj = node.object()
            if table.type_of(obj.name) != type_name(obj.type):
                raise ProblemError(f"goal object {obj.name} has type {type_name(obj.type)} but the world graph "
                                   f"says {table.type_of(obj.name)}")
    return goal


class _GoalParser:
    """Parses a PDDL goal formula into a unified-planning expression over the domain and the graph."""

    def __init__(self, domain: Domain, table: _Objects) -> None:
        self._domain = domain
        self._table = table
        self._em = domain.up_problem.environment.expression_manager

    def parse(self, text: str) -> FNode:
        tree = _sexpr(text)
        if isinstance(tree, list) and tree and tree[0] == ":goal":
            if len(tree) != 2:
                raise ProblemError(f"(:goal ...) must hold exactly one formula: {text.strip()}")
            tree = tree[1]
        return self._formula(tree, {})

    def _formula(self, node: SExpr, scope: dict[str, upm.Variable]) -> FNode:
        if not isinstance(node, list) or not node or not isinstance(node[0], str):
            raise ProblemError(f"expected a formula such as (on cup_1 table_1), got {_show(node)}")
        head, args = node[0], node[1:]
        if head in _QUANTIFIERS:
            return self._quantified(head, args, scope)
        if head == "=":
            if len(args) != 2:
                raise ProblemError(f"(= ...) compares two objects: {_show(node)}")
            return self._em.Equals(*(self._term(a, node, scope)[0] for a in args))
        parts = [self._formula(a, scope) for a in args] if head in _CONNECTIVES else []
        if head in ("and", "or"):
            return self._em.And(parts) if head == "and" else self._em.Or(parts)
        if head in ("not", "imply"):
            count = 1 if head == "not" else 2
            if len(parts) != count:
                raise ProblemError(f"({head} ...) takes {count} formula(s): {_show(node)}")
            return self._em.Not(*parts) if head == "not" else self._em.Implies(*parts)
        return self._atom(head, args, node, scope)

    def _quantified(self, head: str, args: list[SExpr], scope: dict[str, upm.Variable]) -> FNode:
        if len(args) != 2 or not isinstance(args[0], list):
            raise ProblemError(f"expected ({head} (?x - type) formula), got {_show([head, *args])}")
        variables = self._variables(head, args[0])
        body = self._formula(args[1], {**scope, **{f"?{v.name}": v for v in variables}})
        return (self._em.Forall if head == "forall" else self._em.Exists)(body, *variables)

    def _variables(self, head: str, decl: list[SExpr]) -> list[upm.Variable]:
        names: list[str] = []
        variables: list[upm.Variable] = []
        items = iter(decl)
        for item in items:
            if item == "-":
                type_ = next(items, None)
                if not isinstance(type_, str) or not names:
                    raise ProblemError(f"({head} ...): write the variables as (?a ?b - type ...), not {_show(decl)}")
                up_type = _up_type(self._domain, type_, f"quantified variable {names[0]}")
                variables += [upm.Variable(n[1:], up_type, self._em.environment) for n in names]
                names = []
            elif isinstance(item, str) and item.startswith("?") and len(item) > 1:
                names.append(item)
            else:
                raise ProblemError(f"({head} ...): {_show(item)} is not a variable such as ?l")
        if names or not variables:
            raise ProblemError(f"({head} ...): give every variable a type, e.g. ({head} (?l - light) ...)")
        return variables

    def _atom(self, head: str, args: list[SExpr], node: list, scope: dict[str, upm.Variable]) -> FNode:
        predicate = self._domain.predicate(head)
        if predicate is None:
            raise ProblemError(f"goal {_show(node)}: domain {self._domain.name} has no predicate {head!r}; "
                               f"its predicates are: {', '.join(sorted(self._domain.predicates))}")
        if len(args) != predicate.arity:
            raise ProblemError(f"goal {_show(node)}: {head} takes {predicate.arity} argument(s), "
                               f"as in {predicate.signature()}")
        terms = []
        for arg, expected in zip(args, predicate.types, strict=True):
            term, actual = self._term(arg, node, scope)
            if not self._domain.is_subtype(actual, expected):
                raise ProblemError(f"goal {_show(node)}: {arg} is {_a(actual)}, but {head} needs {_a(expected)} "
                                   f"there (see {predicate.signature()})")
            terms.append(term)
        return self._domain.up_problem.fluent(head)(*terms)

    def _term(self, arg: SExpr, node: list, scope: dict[str, upm.Variable]) -> tuple[FNode, str]:
        """An argument as an expression, and its type."""
        if not isinstance(arg, str):
            raise ProblemError(f"goal {_show(node)}: {_show(arg)} is not an object name or ?variable")
        if not arg.startswith("?"):
            return self._em.ObjectExp(self._table.get(arg)), self._table.type_of(arg)
        if arg not in scope:
            raise ProblemError(f"goal {_show(node)}: variable {arg} is not bound by a forall or exists")
        return self._em.VariableExp(scope[arg]), type_name(scope[arg].type)


def _sexpr(text: str, *, what: str = "goal") -> SExpr:
    """One parenthesised expression, lowercased, as nested lists; ';' starts a comment."""
    tokens = _TOKEN.findall(re.sub(r";[^\n]*", "", text).lower())
    stack: list[list[SExpr]] = [[]]
    for token in tokens:
        if token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) == 1:
                raise ProblemError(f"{what} has an unmatched ')': {text.strip()}")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token)
    if len(stack) != 1:
        raise ProblemError(f"{what} is missing {len(stack) - 1} closing parenthesis(es): {text.strip()}")
    if len(stack[0]) != 1 or not isinstance(stack[0][0], list):
        raise ProblemError(f"the {what} must be one parenthesised expression, got: {text.strip()!r}")
    return stack[0][0]


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _show(node: SExpr) -> str:
    return node if isinstance(node, str) else "(" + " ".join(_show(n) for n in node) + ")"
