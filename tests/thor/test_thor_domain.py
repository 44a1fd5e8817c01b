"""The thor domain and its rules load, cover every iTHOR object type, and plan on a real scene."""

from __future__ import annotations

from l3mp.domain.rules import RuleSet
from l3mp.planning import full_state_problem, plan, validate_plan
from l3mp.thor.naming import FIXTURE, ITEM, pddl_type
from l3mp.thor.scenes import scene_names, scene_objects
from tests.thor.support import session, thor_domain


def test_domain_and_rules_load():
    domain = thor_domain()
    assert domain.name == "thor"
    assert {"goto", "pickup", "put_in_open", "open", "toggle_on", "slice", "wash", "heat_in_microwave",
            "heat_on_stove", "cool_in_fridge", "fill_with_coffee"} <= set(domain.actions)
    rules = {r.name: r for r in RuleSet.for_domain(domain).rules}
    assert rules["agent-hand"].min == rules["agent-hand"].max == 1
    assert rules["thing-place"].max == 1 and rules["thing-place"].min == 0


def test_every_ithor_object_type_has_its_own_domain_type_in_the_right_group():
    domain = thor_domain()
    seen = {}
    for scene in scene_names():
        for obj in scene_objects(scene):
            seen[obj["objectType"]] = (pddl_type(domain, obj), bool(obj["pickupable"]))
    assert len(seen) > 100
    fallbacks = sorted(t for t, (type_, _) in seen.items() if type_ in (ITEM, FIXTURE))
    assert fallbacks == []
    for object_type, (type_, pickupable) in seen.items():
        assert domain.is_subtype(type_, ITEM if pickupable else FIXTURE), object_type


def test_plans_with_the_projects_planner_on_a_real_kitchen():
    s = session("FloorPlan1")
    graph = s.world.graph
    goal = "(and (in apple_1 fridge_1) (not (is_open fridge_1)))"
    outcome = plan(full_state_problem(thor_domain(), graph, goal), planner="lapkt", timeout_s=60)
    assert outcome.solved, outcome.message
    assert validate_plan(thor_domain(), graph, outcome.plan, goal).valid
    names = [step.split()[0].strip("(") for step in outcome.plan]
    assert names.index("open") < names.index("put_in_open") < names.index("close")


def test_a_plan_that_skips_opening_the_fridge_is_invalid():
    s = session("FloorPlan1")
    bad = ["(goto the_robot " + s.executor.at + " apple_1)", "(pickup the_robot apple_1 counter_top_2)",
           "(goto the_robot apple_1 fridge_1)", "(put_in_open the_robot apple_1 fridge_1)"]
    verdict = validate_plan(thor_domain(), s.world.graph, bad, "(in apple_1 fridge_1)")
    assert not verdict.valid and verdict.failed_step == 3
    assert "(is_open fridge_1)" in verdict.unsatisfied
