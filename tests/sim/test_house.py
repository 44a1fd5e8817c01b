"""Tests of the random household generator (``l3mp_sim.house``, source ``sim/house.py``)."""

from __future__ import annotations

import importlib.util
import re
import sys
import time
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from unified_planning.engines import PlanGenerationResultStatus
from unified_planning.io import PDDLReader
from unified_planning.shortcuts import OneshotPlanner, PlanValidator, get_environment

ROOT = Path(__file__).resolve().parents[2]
DOMAIN_PATH = ROOT / "domains" / "household.pddl"

try:
    from l3mp_sim import house
except ImportError:
    _spec = importlib.util.spec_from_file_location("l3mp_sim_house", ROOT / "sim" / "house.py")
    assert _spec is not None and _spec.loader is not None
    house = importlib.util.module_from_spec(_spec)
    sys.modules[_spec.name] = house  # dataclasses look their module up while being built
    _spec.loader.exec_module(house)

get_environment().credits_stream = None

ITEM_TYPES = {"food", "drink", "dish", "book", "phone"}
LOCATION_PREDICATES = {"on": 0, "inside": 0, "holding": 1, "has": 1}
NAME = re.compile(r"[a-z][a-z0-9_]*")
SOLVED = {
    PlanGenerationResultStatus.SOLVED_SATISFICING,
    PlanGenerationResultStatus.SOLVED_OPTIMALLY,
}


@cache
def domain_problem():
    """The domain parsed alone: fluents, user types and the constant ``the_robot``."""
    return PDDLReader().parse_problem(str(DOMAIN_PATH))


def is_subtype(domain, type_name: str, ancestor) -> bool:
    """Whether a user type is ``ancestor`` or below it, following ``father`` links."""
    current = domain.user_type(type_name)
    while current is not None:
        if current == ancestor:
            return True
        current = current.father
    return False


def descends_from(domain, type_name: str, ancestor_name: str) -> bool:
    return is_subtype(domain, type_name, domain.user_type(ancestor_name))


def rule_violations(h) -> list[str]:
    """Every way a house breaks the world-state rules (empty when it keeps them)."""
    domain = domain_problem()
    problems = []
    places: Counter[str] = Counter()
    rooms: dict[str, list[str]] = {}
    faucet_sinks: dict[str, list[str]] = {}
    hand = 0
    for predicate, args in h.facts:
        if predicate in LOCATION_PREDICATES:
            places[args[LOCATION_PREDICATES[predicate]]] += 1
        if predicate == "in_room":
            rooms.setdefault(args[0], []).append(args[1])
        if predicate == "faucet_of":
            faucet_sinks.setdefault(args[0], []).append(args[1])
        if (predicate, args[0]) in {("hand_empty", "the_robot"), ("holding", "the_robot")}:
            hand += 1
    for name, info in h.entities.items():
        if info.type in ITEM_TYPES and places[name] != 1:
            problems.append(f"item {name} is in {places[name]} places")
        locatable = descends_from(domain, info.type, "locatable")
        if locatable and len(rooms.get(name, [])) != 1:
            problems.append(f"{name} is in rooms {rooms.get(name)}")
        if info.type == "faucet":
            sinks = faucet_sinks.get(name, [])
            if len(sinks) != 1:
                problems.append(f"faucet {name} belongs to sinks {sinks}")
            elif rooms.get(name) != rooms.get(sinks[0]):
                problems.append(f"faucet {name} is not in the room of {sinks[0]}")
    if hand != 1:
        problems.append(f"the robot has {hand} hand facts")
    return problems


def type_errors(h) -> list[str]:
    """Facts whose predicate is not in the domain or whose args have the wrong types."""
    domain = domain_problem()
    errors = []
    for name, info in h.entities.items():
        if not NAME.fullmatch(name):
            errors.append(f"bad name {name!r}")
        if not domain.has_type(info.type):
            errors.append(f"{name} has unknown type {info.type}")
    for predicate, args in h.facts:
        if not domain.has_fluent(predicate):
            errors.append(f"unknown predicate {predicate}")
            continue
        signature = domain.fluent(predicate).signature
        if len(signature) != len(args):
            errors.append(f"({predicate} {' '.join(args)}) has the wrong arity")
            continue
        for arg, parameter in zip(args, signature, strict=True):
            info = h.entities.get(arg)
            if info is None:
                errors.append(f"({predicate} ...) names unknown entity {arg}")
            elif not is_subtype(domain, info.type, parameter.type):
                errors.append(f"({predicate} ...): {arg} is a {info.type}, not {parameter.type}")
    return errors


def solve(h, goal: str):
    """Write the house with a goal, parse it with unified-planning and run Fast Downward."""
    text = house.house_to_pddl_problem(h, goal=goal)
    problem = PDDLReader().parse_problem_string(DOMAIN_PATH.read_text(), text)
    with OneshotPlanner(name="fast-downward") as planner:
        result = planner.solve(problem)
    assert result.status in SOLVED, result.status
    with PlanValidator(problem_kind=problem.kind) as validator:
        assert validator.validate(problem, result.plan).status.name == "VALID"
    return result.plan


def names_of(h, type_name: str) -> list[str]:
    return [name for name, info in h.entities.items() if info.type == type_name]


def true_facts(h, predicate: str) -> list[tuple[str, ...]]:
    return [args for pred, args in h.facts if pred == predicate]


@pytest.fixture(scope="module")
def default_house():
    return house.generate_house(seed=7)


# ------------------------------------------------------------------ determinism and sizes


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"rooms": 3}, {"scale": 2.5}, {"target_entities": 700}],
)
def test_same_seed_gives_same_house(kwargs):
    assert house.generate_house(seed=11, **kwargs) == house.generate_house(seed=11, **kwargs)


def test_different_seeds_give_different_houses():
    houses = [house.generate_house(seed=seed) for seed in range(5)]
    assert len({tuple(h.facts) for h in houses}) == 5


def test_default_house_is_about_the_papers_size():
    sizes, rooms = [], []
    for seed in range(30):
        h = house.generate_house(seed=seed)
        sizes.append(len(h.entities))
        rooms.append(len(names_of(h, "room")))
    assert set(rooms) <= {6, 7, 8}
    assert 60 <= sum(sizes) / len(sizes) <= 120
    assert min(sizes) >= 45 and max(sizes) <= 170


def test_rooms_and_scale():
    assert len(names_of(house.generate_house(seed=1, rooms=1), "room")) == 1
    assert len(names_of(house.generate_house(seed=1, rooms=12), "room")) == 12
    small = sum(len(house.generate_house(seed=s).entities) for s in range(5))
    big = sum(len(house.generate_house(seed=s, scale=10).entities) for s in range(5))
    assert 7 <= big / small <= 13


@pytest.mark.parametrize("target", [150, 1000, 10_000])
def test_target_entities(target):
    start = time.perf_counter()
    h = house.generate_house(seed=3, target_entities=target)
    elapsed = time.perf_counter() - start
    assert abs(len(h.entities) - target) <= 0.05 * target
    assert elapsed < 2.0
    assert not rule_violations(h)


def test_bad_arguments():
    with pytest.raises(ValueError):
        house.generate_house(seed=0, rooms=0)
    with pytest.raises(ValueError):
        house.generate_house(seed=0, scale=0)
    with pytest.raises(ValueError):
        house.generate_house(seed=0, rooms=5, target_entities=100)


# ------------------------------------------------------------------ rules and types


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    rooms=st.none() | st.integers(min_value=1, max_value=10),
)
def test_every_house_keeps_the_rules_and_types(seed, rooms):
    h = house.generate_house(seed=seed, rooms=rooms)
    assert not rule_violations(h)
    assert not type_errors(h)
    assert h.facts == sorted(set(h.facts))
    assert h.entities["the_robot"].type == "robot"
    assert ("hand_empty", ("the_robot",)) in h.facts
    assert true_facts(h, "dirty") and names_of(h, "food") and names_of(h, "person")


@pytest.mark.parametrize("kwargs", [{"scale": 3}, {"target_entities": 40}, {"target_entities": 2}])
def test_bigger_and_smaller_houses_keep_the_rules(kwargs):
    h = house.generate_house(seed=5, **kwargs)
    assert not rule_violations(h)
    assert not type_errors(h)


def test_rule_checker_catches_a_broken_house(default_house):
    dish = true_facts(default_house, "dirty")[0][0]
    broken = house.House(
        entities=default_house.entities,
        facts=[*default_house.facts, ("holding", ("the_robot", dish))],
    )
    assert len(rule_violations(broken)) == 2  # the dish in two places, the hand twice


def test_labels_are_human_words(default_house):
    entities = default_house.entities
    assert re.fullmatch(r"kitchen( 1)?", entities["kitchen_1"].label)
    rooms = Counter(name.rsplit("_", 1)[0] for name in names_of(default_house, "room"))
    for name in names_of(default_house, "room"):
        kind = name.rsplit("_", 1)[0]
        words = kind.replace("_", " ")
        expected = words if rooms[kind] == 1 else f"{words} {name.rsplit('_', 1)[1]}"
        assert entities[name].label == expected
    lights = [info.label for info in entities.values() if info.type == "light"]
    assert any(label.startswith("overhead light in ") for label in lights)
    for name, info in entities.items():
        assert info.label and "_" not in info.label, name


def test_kitchen_has_its_appliances(default_house):
    placed = true_facts(default_house, "in_room")
    in_kitchen = {thing for thing, room in placed if room == "kitchen_1"}
    types = {default_house.entities[name].type for name in in_kitchen}
    assert {"counter", "fridge", "cupboard", "dishwasher", "sink", "faucet", "light"} <= types


# ------------------------------------------------------------------ PDDL and planning


def test_pddl_problem_parses(default_house):
    text = house.house_to_pddl_problem(default_house, problem_name="test_house")
    assert "the_robot -" not in text
    problem = PDDLReader().parse_problem_string(DOMAIN_PATH.read_text(), text)
    assert {o.name for o in problem.all_objects} == set(default_house.entities)
    parsed = {
        (fluent.fluent().name, tuple(str(arg) for arg in fluent.args))
        for fluent, value in problem.explicit_initial_values.items()
        if value.bool_constant_value()
    }
    assert parsed == set(default_house.facts)


def test_fast_downward_turns_everything_off(default_house):
    assert true_facts(default_house, "light_on") or true_facts(default_house, "faucet_on")
    goal = (
        "(and (forall (?l - light) (not (light_on ?l)))"
        " (forall (?f - faucet) (not (faucet_on ?f))))"
    )
    plan = solve(default_house, goal)
    switched = {a.action.name for a in plan.actions}
    assert switched <= {"move", "turn_off_light", "turn_off_faucet"}


def test_fast_downward_washes_a_dirty_dish(default_house):
    dish = true_facts(default_house, "dirty")[0][0]
    plan = solve(default_house, f"(not (dirty {dish}))")
    assert "wash_dish" in {a.action.name for a in plan.actions}


def test_fast_downward_brings_food_to_a_person(default_house):
    had = {args[1] for args in true_facts(default_house, "has")}
    food = next(name for name in names_of(default_house, "food") if name not in had)
    person = names_of(default_house, "person")[0]
    plan = solve(default_house, f"(has {person} {food})")
    assert plan.actions[-1].action.name == "give"
