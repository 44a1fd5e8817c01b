"""The compiled action path of ActionEffects agrees with unified-planning's simulator (the reference path).

Random ground actions, well-formed or not (wrong arity, wrong argument types, unknown objects, inapplicable
ones), in random states of generated houses (household domain) and of pddlgym problems are run through both
paths; their unsatisfied literals, deltas and errors must be the same. The one intended difference: a ground
action whose preconditions contradict each other or whose effects delete and add the same atom is an invalid
grounding for unified-planning, while the compiled path follows PDDL (its false literals; deletions before
additions, so such an atom ends up true).
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from l3mp.domain.paths import domain_path
from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.errors import ProblemError
from l3mp.planning.execute import ActionEffects
from l3mp.world.graph import WorldGraph
from l3mp.world.pddl_io import graph_from_problem
from tests.planning.planning_support import FEATURES, house_graph, pddlgym_dir

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
GHOST = "ghost_1"
"""A name that is no entity or constant of any domain here."""


@cache
def domain(name: str) -> Domain:
    return Domain.from_file(domain_path("household") if name == "household" else pddlgym_dir() / f"{name}.pddl")


@cache
def both(name: str) -> tuple[ActionEffects, ActionEffects]:
    """The default (compiled) ActionEffects of a domain and the simulator-only one."""
    return ActionEffects(domain(name)), ActionEffects(domain(name), compile_schemas=False)


@cache
def _pddlgym_graph(name: str, index: int) -> WorldGraph:
    return graph_from_problem(domain(name), sorted((pddlgym_dir() / name).glob("*.pddl"))[index])


def start_graph(name: str, variant: int) -> WorldGraph:
    return house_graph(seed=variant) if name == "household" else _pddlgym_graph(name, variant).copy()


def of_type(dom: Domain, graph: WorldGraph, type_: str) -> list[str]:
    names = [*graph.entities(), *dom.constants]
    kinds = {**{n: graph.entity_type(n) or "" for n in graph.entities()}, **dom.constants}
    return sorted(n for n in set(names) if dom.is_subtype(kinds[n], type_))


def draw_state(data: st.DataObject, dom: Domain, graph: WorldGraph) -> None:
    """Remove and add random facts (well-typed ones) so that many actions become applicable or not."""
    facts = sorted(graph.facts())
    for fact in data.draw(st.lists(st.sampled_from(facts), max_size=6), label="removed") if facts else []:
        graph.remove_fact(fact)
    predicates = sorted(dom.predicates.values(), key=lambda p: p.name)
    for _ in range(data.draw(st.integers(0, 6), label="added")):
        predicate = data.draw(st.sampled_from(predicates))
        pools = [[n for n in of_type(dom, graph, t) if graph.has_entity(n)] for t in predicate.types]
        if all(pools):
            graph.add_fact(Fact(predicate.name, tuple(data.draw(st.sampled_from(p)) for p in pools)))


def draw_action(data: st.DataObject, reference: ActionEffects, dom: Domain, graph: WorldGraph, name: str
                ) -> str:
    """A ground action of `name`: often one found applicable among random well-typed ones, else arguments
    mostly well-typed and related to the earlier ones, sometimes any entity (maybe of a wrong type), an unknown
    name, or a wrong number of arguments."""
    mode = data.draw(st.sampled_from(["force", "search", "random"]), label="mode")
    rng = random.Random(data.draw(st.integers(0, 2**16), label="rng"))
    if mode == "force":
        return forced(dom, graph, name, rng)
    found = applicable(reference, dom, graph, name, rng) if mode == "search" else None
    if found is not None:
        return found
    schema = dom.up_problem.action(name)
    everything = sorted({*graph.entities(), *dom.constants})
    args: list[str] = []
    for param in schema.parameters:
        fitting = of_type(dom, graph, param.type.name)
        how = data.draw(st.sampled_from(["related"] * 3 + ["typed"] * 3 + ["any", "unknown"]))
        pool = {"related": related(graph, args, fitting), "typed": fitting, "any": everything, "unknown": [GHOST]}
        args.append(data.draw(st.sampled_from(pool[how] or everything)))
    arity = data.draw(st.sampled_from(["exact"] * 8 + ["fewer", "more"]))
    if arity == "fewer" and args:
        args.pop()
    elif arity == "more":
        args.append(everything[0])
    return "(" + " ".join([name, *args]) + ")"


def related(graph: WorldGraph, args: list[str], fitting: list[str]) -> list[str]:
    """The `fitting` names that share a fact with one of `args` (all of them when none does)."""
    near = {a for chosen in args for f in graph.facts_of(chosen) for a in f.args}
    return sorted(near & set(fitting)) or fitting


def applicable(reference: ActionEffects, dom: Domain, graph: WorldGraph, name: str, rng: random.Random) -> str | None:
    """A ground action of `name` applicable in `graph` (by the reference path) among random related, well-typed
    candidates; None if none is found."""
    schema = dom.up_problem.action(name)
    pools = [of_type(dom, graph, p.type.name) for p in schema.parameters]
    if not all(pools):
        return None
    seen: set[str] = set()
    for _ in range(200):
        args: list[str] = []
        for pool in pools:
            args.append(rng.choice(related(graph, args, pool) if rng.random() < 0.7 else pool))
        action = "(" + " ".join([name, *args]) + ")"
        if action not in seen and len(seen) < 8:
            seen.add(action)
            if not reference.unsatisfied(graph, action):
                return action
    return None


def forced(dom: Domain, graph: WorldGraph, name: str, rng: random.Random) -> str:
    """A random well-typed ground action of `name` whose precondition atoms are first made true in `graph` (and
    the negated ones false), so that it is applicable unless its equalities or literals contradict each other."""
    schema = dom.up_problem.action(name)
    args: list[str] = []
    for param in schema.parameters:
        pool = [n for n in of_type(dom, graph, param.type.name) if graph.has_entity(n) or n in dom.constants]
        args.append(rng.choice(related(graph, args, pool)))
    binding = dict(zip((p.name for p in schema.parameters), args, strict=True))
    todo = list(schema.preconditions)
    while todo:
        node = todo.pop()
        positive = not node.is_not()
        atom = node if positive else node.arg(0)
        if atom.is_and():
            todo.extend(atom.args)
        elif atom.is_fluent_exp():
            fact = Fact(atom.fluent().name, tuple(binding[a.parameter().name] if a.is_parameter_exp()
                                                  else a.object().name for a in atom.args))
            (graph.add_fact if positive else graph.remove_fact)(fact)
    return "(" + " ".join([name, *args]) + ")"


def outcome(effects: ActionEffects, graph: WorldGraph, action: str) -> tuple:
    try:
        false = effects.unsatisfied(graph, action)
    except ProblemError as exc:
        return ("error", str(exc))
    try:
        return ("applies", false, effects.delta(graph, action))
    except ProblemError as exc:
        return ("inapplicable", false, str(exc))


def check_agreement(data: st.DataObject, name: str, variants: int, first: str | None, kinds: Counter) -> None:
    """Random states and actions; counts the reference outcomes in `kinds` (applies, inapplicable, conflict,
    error)."""
    dom = domain(name)
    fast, slow = both(name)
    graph = start_graph(name, data.draw(st.integers(0, variants - 1), label="variant"))
    draw_state(data, dom, graph)
    names = sorted(a.name for a in dom.up_problem.actions)
    for step in range(data.draw(st.integers(1, 3), label="steps")):
        name_ = first if step == 0 and first else data.draw(st.sampled_from(names))
        action = draw_action(data, slow, dom, graph, name_)
        got, expected = outcome(fast, graph, action), outcome(slow, graph, action)
        kinds[expected[0] if expected[0] != "inapplicable" or expected[1] else "conflict"] += 1
        if expected[0] == "inapplicable" and (not expected[1] or expected[1][0].startswith(f"{action} cannot")):
            assert got[0] == "inapplicable" and got[1], f"{action}: invalid grounding for unified-planning: {got}"
        else:
            assert got == expected, action
        if got[0] == "applies":
            for fact in got[2].remove:
                graph.remove_fact(fact)
            for fact in got[2].add:
                graph.add_fact(fact)


def run_agreement(name: str, variants: int, first: str | None, examples: int) -> Counter:
    kinds: Counter = Counter()

    @settings(SETTINGS, max_examples=examples)
    @given(data=st.data())
    def agree(data):
        check_agreement(data, name, variants, first, kinds)

    agree()
    return kinds


@pytest.mark.parametrize("action", sorted(a.name for a in domain("household").up_problem.actions))
def test_household_actions_agree_with_the_simulator(action):
    kinds = run_agreement("household", variants=3, first=action, examples=20)
    assert kinds["applies"] >= 2 and kinds["inapplicable"] >= 2 and kinds["error"] >= 2, kinds


@pytest.mark.parametrize("name", ["gripper", "equalityblocks2"])
def test_pddlgym_actions_agree_with_the_simulator(name):
    kinds = run_agreement(name, variants=2, first=None, examples=40)
    assert kinds["applies"] >= 5 and kinds["inapplicable"] >= 5 and kinds["error"] >= 5, kinds


def test_an_atom_deleted_and_added_ends_up_true():
    graph = _pddlgym_graph("gripper", 0).copy()
    room = next(f.args[0] for f in graph.facts(predicate="at-robby"))
    for effects in both("gripper"):
        assert effects.unsatisfied(graph, f"(move {room} {room})") == []
        assert effects.delta(graph, f"(move {room} {room})").is_empty()


def test_false_equalities_and_contradictions_are_listed_as_literals():
    graph = house_graph(seed=0)
    room = next(f.args[1] for f in graph.facts(predicate="in_room", entity="the_robot"))
    assert both("household")[0].unsatisfied(graph, f"(move the_robot {room} {room})") == [
        f"(not (in_room the_robot {room}))"]
    feat = Domain.from_string(FEATURES)
    small = WorldGraph()
    small.add_entity("l1", "loc")
    small.add_fact(Fact("robot-at", ("l1",)))
    assert ActionEffects(feat).unsatisfied(small, "(move l1 l1)") == ["(not (= l1 l1))"]
    with pytest.raises(ProblemError, match=r"\(move l1 l1\) is not applicable: \(not \(= l1 l1\)\)"):
        ActionEffects(feat).delta(small, "(move l1 l1)")
