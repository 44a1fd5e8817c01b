"""Round trip of pddlgym's problems: PDDL init -> graph -> triplets -> graph -> PDDL -> the same atoms.

Every domain file shipped in the pddlgym wheel is tried; the ones unified-planning parses must
round-trip their problems exactly, the others must fail with DomainError. The expected objects
and atoms come from a small s-expression reader below, independent of unified-planning.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from importlib.util import find_spec
from pathlib import Path

import pytest

from l3mp.domain import Domain, Fact, fact_from_triplet, fact_to_triplet
from l3mp.errors import DomainError, ProblemError
from l3mp.world.graph import WorldGraph
from l3mp.world.pddl_io import graph_from_problem, problem_to_pddl
from tests.helpers import init_atoms

PDDL_DIR = Path(find_spec("pddlgym").submodule_search_locations[0]) / "pddl"
DOMAIN_NAMES = sorted(p.stem for p in PDDL_DIR.glob("*.pddl"))

KNOWN_GOOD = {
    "gripper", "manygripper", "manylogistics", "depot", "manyferry", "manymiconic", "hiking",
    "newspapers", "easynewspapers", "trapnewspapers", "maze", "fridge", "blocks_medium",
    "generated_blocks", "quantifiedblocks2", "quantifiedblocks3", "manyblocksnopiles",
    "manyblockssmallpiles", "hanoi_operator_actions", "equalityblocks2", "movie",
    *(f"searchandrescue_level{i}" for i in range(1, 8)), "slidetile", "snake", "tsp", "visit_all",
}  # fmt: skip
KNOWN_BAD = {"ferry", "blocks"}

# pddlgym problems that unified-planning cannot read, so they raise ProblemError: footwear's all name
# an object "home" like a predicate of the domain; meetpass's put :goal before :init; spannerlearning's
# are named by a number, e.g. (problem 4).
UNREADABLE = {
    "footwear": "Name home already defined",
    "meetpass": "Expected ':init'",
    "spannerlearning": r"Expected W.*found '\d+'",
}


DOMAIN_ONLY = {
    "backup_depot", "manyblockssmallpilesnoclear", "manyblockssmallpilesnoclearhand", "manyblockssmallpilesnohand",
    "searchandrescue",
}


@cache
def discovered() -> tuple[dict[str, Domain], dict[str, str]]:
    """pddlgym's domains that load (name -> Domain) and those that do not (name -> error message)."""
    parsing, failing = {}, {}
    for name in DOMAIN_NAMES:
        try:
            parsing[name] = Domain.from_file(PDDL_DIR / f"{name}.pddl")
        except DomainError as exc:
            failing[name] = str(exc)
    return parsing, failing


def problem_files(name: str) -> list[Path]:
    """The problems of a domain (train and test sets), smallest first."""
    files = [*PDDL_DIR.glob(f"{name}/*.pddl"), *PDDL_DIR.glob(f"{name}_test/*.pddl")]
    return sorted(files, key=lambda p: (p.stat().st_size, p.name))


def chosen_problems(name: str) -> list[Path]:
    """The problems a domain round-trips: its smallest one, or with L3MP_PDDLGYM_ALL=1 all up to 30 kB.

    A cap, because unified-planning is slow: it needs 0.1-0.5 s to read even a small problem (most
    of it re-reading the domain, which it does each time) and a round trip reads twice; all ~1,500
    files take hours (manyferry's largest, 1.1 MB, take minutes each). One problem per domain keeps
    this module near half a minute and still exercises every predicate of the domain that its
    problems use, since pddlgym's problems of a domain all use the same predicates.
    """
    files = problem_files(name)
    if os.environ.get("L3MP_PDDLGYM_ALL"):
        return [p for p in files if p.stat().st_size <= 30_000]
    return files[:1]


# ---- an s-expression reader for the expected objects and atoms ------------------------------
def sexp(text: str) -> list:
    """The first s-expression of `text` as nested lists of lowercase tokens (comments dropped)."""
    stack: list[list] = [[]]
    for token in re.findall(r"[()]|[^\s()]+", re.sub(r";[^\n]*", "", text.lower())):
        if token == "(":
            stack.append([])
        elif token == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token)
    return stack[0][0]


def section(tree: list, key: str) -> list:
    return next((part[1:] for part in tree if isinstance(part, list) and part and part[0] == key), [])


def typed_names(tokens: list[str]) -> dict[str, str]:
    """``a b - t c`` -> {a: t, b: t, c: object}."""
    out, pending = {}, []
    it = iter(tokens)
    for token in it:
        if token == "-":
            out.update(dict.fromkeys(pending, next(it)))
            pending = []
        else:
            pending.append(token)
    return out | dict.fromkeys(pending, "object")


def expected(domain: Domain, text: str) -> tuple[dict[str, str], set[Fact]]:
    """Objects (constants included) with their types, and the true init atoms, of a problem text."""
    tree = sexp(text)
    objects = typed_names(section(tree, ":objects")) | domain.constants
    atoms = {Fact(a[0], tuple(a[1:])) for a in section(tree, ":init") if a[0] != "not"}
    return objects, atoms


def types_of(graph: WorldGraph) -> dict[str, str | None]:
    return {n: graph.entity_type(n) for n in graph.entities()}


def through_triplets(graph: WorldGraph) -> WorldGraph:
    """A new graph made from the JSON triplets of `graph`'s facts."""
    triplets = json.loads(json.dumps([fact_to_triplet(f) for f in graph.facts()]))
    out = WorldGraph()
    for name, type_ in types_of(graph).items():
        out.add_entity(name, type_)
    for triplet in triplets:
        fact, truth = fact_from_triplet(triplet)
        assert truth
        out.add_fact(fact)
    return out


# ---- discovery ----------------------------------------------------------------------------
def test_the_known_good_domains_parse_and_the_others_raise_domain_error():
    parsing, failing = discovered()
    assert set(parsing) | set(failing) == set(DOMAIN_NAMES)
    assert set(parsing) >= KNOWN_GOOD, sorted(KNOWN_GOOD - set(parsing))
    assert set(failing) >= KNOWN_BAD
    for name, message in failing.items():
        assert message.startswith(f"cannot load PDDL domain {PDDL_DIR / name}.pddl: "), message
        assert "\n" not in message


def test_the_round_trip_covers_zero_ary_and_three_ary_predicates():
    parsing, _ = discovered()
    for name, predicate, arity in [
        ("movie", "counter-at-other-than-two-hours", 0),
        ("searchandrescue_level1", "conn", 3),
        ("slidetile", "at", 3),
    ]:
        assert parsing[name].predicate(predicate).arity == arity
        _, atoms = expected(parsing[name], chosen_problems(name)[0].read_text(encoding="utf-8"))
        assert Fact(predicate, ()) in atoms if arity == 0 else any(a.predicate == predicate for a in atoms)


# ---- round trip ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", DOMAIN_NAMES)
def test_problems_round_trip_exactly(name):
    domain = discovered()[0].get(name)
    if domain is None:  # a domain unified-planning rejects must fail with a clear DomainError, not a traceback
        assert discovered()[1][name].startswith("cannot load PDDL domain "), discovered()[1][name]
        return
    problems = chosen_problems(name)
    if name in DOMAIN_ONLY:  # pddlgym ships these domains without problem files: loading is all there is
        assert not problems
        return
    assert problems, f"pddlgym ships no problem file for {name}"
    for path in problems:
        if name in UNREADABLE:
            with pytest.raises(ProblemError, match=UNREADABLE[name]):
                graph_from_problem(domain, path)
        else:
            round_trip(domain, path)


def round_trip(domain: Domain, path: Path) -> None:
    """Problem file -> graph -> JSON triplets -> graph -> problem text -> graph: same objects and atoms."""
    objects, atoms = expected(domain, path.read_text(encoding="utf-8"))
    graph = graph_from_problem(domain, path)
    assert types_of(graph) == objects, path
    assert set(graph.facts()) == atoms, path
    copy = through_triplets(graph)
    assert copy == graph
    exported = problem_to_pddl(domain, copy, problem_name=path.stem)
    back = graph_from_problem(domain, exported, is_text=True)
    assert types_of(back) == objects, path
    assert set(back.facts()) == atoms, path
    assert problem_to_pddl(domain, back, problem_name=path.stem) == exported


def test_init_atoms_of_an_export_are_the_original_atoms():
    domain = discovered()[0]["searchandrescue_level1"]
    path = chosen_problems("searchandrescue_level1")[0]
    _, atoms = expected(domain, path.read_text(encoding="utf-8"))
    assert init_atoms(domain, problem_to_pddl(domain, graph_from_problem(domain, path))) == atoms


def test_an_entity_named_like_a_predicate_is_not_exported():
    domain = discovered()[0]["footwear"]
    graph = WorldGraph()
    graph.add_entity("home", "place")
    graph.add_fact(Fact("home", ("home",)))
    with pytest.raises(ProblemError, match="'home' is a PDDL keyword or a type, predicate or action name"):
        problem_to_pddl(domain, graph)
