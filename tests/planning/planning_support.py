"""Shared pieces of the planning tests: generated houses as graphs, pddlgym problems, plan checking."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

from l3mp_sim.house import ROBOT, generate_house
from unified_planning.engines import ValidationResultStatus
from unified_planning.io import PDDLReader
from unified_planning.model import Problem
from unified_planning.plans import SequentialPlan
from unified_planning.shortcuts import PlanValidator

from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.graph import WorldGraph

LIGHTS_AND_FAUCETS_OFF = "(and (forall (?l - light) (not (light_on ?l))) (forall (?f - faucet) (not (faucet_on ?f))))"
"""The paper's quantified goal (section V-A): turn off all lights and faucets."""


FEATURES = """(define (domain feat)
 (:requirements :strips :typing :negative-preconditions :equality :conditional-effects
                :universal-preconditions :existential-preconditions :disjunctive-preconditions)
 (:types loc ball)
 (:predicates (at ?b - ball ?l - loc) (lit ?l - loc) (robot-at ?l - loc) (painted ?b - ball) (done))
 (:action move :parameters (?a - loc ?b - loc)
   :precondition (and (robot-at ?a) (not (= ?a ?b)))
   :effect (and (not (robot-at ?a)) (robot-at ?b)))
 (:action paint-all :parameters (?l - loc)
   :precondition (and (robot-at ?l) (exists (?b - ball) (at ?b ?l)))
   :effect (forall (?b - ball) (when (at ?b ?l) (painted ?b))))
 (:action light :parameters (?l - loc)
   :precondition (or (robot-at ?l) (lit ?l))
   :effect (lit ?l))
 (:action finish :parameters (?l - loc)
   :precondition (forall (?b - ball) (imply (at ?b ?l) (painted ?b)))
   :effect (done)))"""
"""A small domain using every condition and effect kind the LAPKT engine declares."""


@cache
def _house(seed: int, target_entities: int | None) -> WorldGraph:
    return generate_house(seed=seed, target_entities=target_entities).to_graph()


def house_graph(seed: int = 6, target_entities: int | None = None) -> WorldGraph:
    """A fresh copy of the graph of a generated house (the robot included)."""
    return _house(seed, target_entities).copy()


def import_delta(graph: WorldGraph) -> Delta:
    """The delta that creates `graph` in an empty household world model."""
    entities = {n: EntitySpec(graph.entity_type(n) or "") for n in graph.entities() if n != ROBOT}
    return Delta(add=tuple(graph.facts()), entities=entities)


def tasks(graph: WorldGraph) -> dict[str, str]:
    """The three household tasks of the tests: switch everything off, wash a dish, give food to a person."""
    dish = sorted(f.args[0] for f in graph.facts(predicate="dirty"))[0]
    person = first_of(graph, "person")
    food = first_of(graph, "food")
    return {
        "lights-and-faucets-off": LIGHTS_AND_FAUCETS_OFF,
        "wash-dish": f"(and (not (dirty {dish})))",
        "give-food": f"(and (has {person} {food}))",
    }


def first_of(graph: WorldGraph, type_: str) -> str:
    """The alphabetically first entity of a type."""
    return sorted(e for e in graph.entities() if graph.entity_type(e) == type_)[0]


def pddlgym_dir() -> Path:
    spec = importlib.util.find_spec("pddlgym")
    assert spec is not None and spec.submodule_search_locations, "the pddlgym wheel is not installed"
    return Path(next(iter(spec.submodule_search_locations))) / "pddl"


def pddlgym_problem(name: str, index: int = 0) -> Problem:
    """The `index`-th problem (sorted by file name) of a pddlgym domain, parsed by unified-planning."""
    root = pddlgym_dir()
    problems = sorted((root / name).glob("*.pddl"))
    return PDDLReader().parse_problem(str(root / f"{name}.pddl"), str(problems[index]))


def assert_valid(problem: Problem, plan: SequentialPlan) -> None:
    """unified-planning's own validator accepts `plan` for `problem`."""
    result = PlanValidator(problem_kind=problem.kind).validate(problem, plan)
    assert result.status == ValidationResultStatus.VALID, f"invalid plan ({result.reason}): {plan}"
