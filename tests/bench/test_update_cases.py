"""The hand-written update benchmark (l3mp/bench/cases/updates.yaml, and its held-out splits HOLDOUT in
updates-holdout.yaml, HOLDOUT2 to HOLDOUT19 in updates-holdout2.yaml ... updates-holdout19.yaml) is well-formed and
right about its houses.

No LLM: every gold delta is checked against its generated house with the project's verifier.
"""

from __future__ import annotations

from collections import Counter

import pytest

from l3mp.bench import goal_suite
from l3mp.bench.handwritten import HELD_OUT, HOLDOUT2, HOLDOUT3, HOLDOUT4, SPLITS, cases_file, holdout_name
from l3mp.bench.update_suite import CATEGORIES, case_graph, case_world, cases_resource, load_benchmark
from l3mp.domain.paths import ROBOT

BENCH = load_benchmark()
CHANGES = [c for c in BENCH.cases if c.outcome == "change"]
LOCATION = {"on": 0, "inside": 0, "has": 1, "holding": 1}
"""Where the item is among the arguments of each place fact."""
OTHER_SEEDS = {1, 3, 5, 7, 11, 17}
"""Houses of the other suites and of the main job (the evaluation, speech, planning, retrieval, graph, faults)."""
GOALS_HOLDOUT3_SEEDS = {81, 85}
"""Houses the goals benchmark's HOLDOUT3 was written on (checked here too, so that the update splits keep away from
them even while the goals file is still a placeholder)."""
GOALS_HOLDOUT4_SEEDS = {97, 98, 99}
"""The seeds kept for the goals benchmark's HOLDOUT4 (its writer took two of them)."""
GOALS_HOLDOUT5_SEEDS = set(range(116, 124))
"""The seeds kept for the goals benchmark's HOLDOUT5."""
GOALS_HOLDOUT6_SEEDS = {132, 133}
"""The houses the goals benchmark's HOLDOUT6 was written on."""
GOALS_HOLDOUT7_SEEDS = {135, 136}
"""The houses the goals benchmark's HOLDOUT7 was written on."""
GOALS_HOLDOUT8_SEEDS = {139, 140}
"""The houses the goals benchmark's HOLDOUT8 was written on."""
GOALS_HOLDOUT9_SEEDS = {144, 145}
"""The houses the goals benchmark's HOLDOUT9 was written on."""
GOALS_HOLDOUT10_SEEDS = {148, 149}
"""The houses the goals benchmark's HOLDOUT10 was written on."""
GOALS_HOLDOUT11_SEEDS = {152, 153}
"""The houses the goals benchmark's HOLDOUT11 was written on."""
GOALS_HOLDOUT12_SEEDS = {156, 157}
"""The houses the goals benchmark's HOLDOUT12 was written on."""
GOALS_HOLDOUT13_SEEDS = {160, 161}
"""The houses the goals benchmark's HOLDOUT13 was written on."""
GOALS_HOLDOUT14_SEEDS = {164, 165}
"""The houses the goals benchmark's HOLDOUT14 was written on."""
GOALS_HOLDOUT15_SEEDS = {168, 169}
"""The houses the goals benchmark's HOLDOUT15 was written on."""
GOALS_HOLDOUT16_SEEDS = {172, 173}
"""The houses the goals benchmark's HOLDOUT16 was written on."""
GOALS_HOLDOUT17_SEEDS = {176, 177}
"""The houses the goals benchmark's HOLDOUT17 was written on."""
GOALS_HOLDOUT18_SEEDS = {180, 181}
"""The houses the goals benchmark's HOLDOUT18 was written on."""
GOALS_HOLDOUT19_SEEDS = {184, 185}
"""The houses the goals benchmark's HOLDOUT19 was written on."""


def test_the_cases_files_are_package_data():
    assert cases_resource().is_file()
    assert {HOLDOUT2, HOLDOUT3, HOLDOUT4} <= set(HELD_OUT), HELD_OUT
    for split in HELD_OUT:
        assert cases_file(holdout_name("updates.yaml", split)).is_file(), split
        assert {c.split for c in BENCH.cases} >= {split}, f"no {split} case is loaded"


def test_ids_are_unique_and_splits_use_disjoint_houses():
    ids = [c.id for c in BENCH.cases]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    houses = {split: {c.house for c in BENCH.cases if c.split == split} for split in SPLITS}
    assert not houses["dev"] & houses["test"]
    seeds = {split: {BENCH.houses[h] for h in keys} for split, keys in houses.items()}
    assert not seeds["dev"] & seeds["test"]
    assert len(seeds["dev"]) >= 2 and len(seeds["test"]) >= 4
    assert not {1, 7} & set(BENCH.houses.values()), "seeds 1 and 7 are the evaluation's and the main job's houses"
    # each held-out split: houses of its own, in no other split of either benchmark (nor the other benchmark's split
    # of the same name) and in no other suite
    goals = goal_suite.load_benchmark()
    goal_seeds = set(goals.houses.values()) | {c.seed for c in goals.cases}
    for held in HELD_OUT:
        others = set().union(*(seeds[s] for s in SPLITS if s != held))
        taken = (others | goal_seeds | GOALS_HOLDOUT3_SEEDS | GOALS_HOLDOUT4_SEEDS | GOALS_HOLDOUT5_SEEDS
                 | GOALS_HOLDOUT6_SEEDS | GOALS_HOLDOUT7_SEEDS | GOALS_HOLDOUT8_SEEDS | GOALS_HOLDOUT9_SEEDS
                 | GOALS_HOLDOUT10_SEEDS | GOALS_HOLDOUT11_SEEDS
                 | GOALS_HOLDOUT12_SEEDS | GOALS_HOLDOUT13_SEEDS
                 | GOALS_HOLDOUT14_SEEDS | GOALS_HOLDOUT15_SEEDS
                 | GOALS_HOLDOUT16_SEEDS | GOALS_HOLDOUT17_SEEDS
                 | GOALS_HOLDOUT18_SEEDS | GOALS_HOLDOUT19_SEEDS | OTHER_SEEDS)
        assert len(seeds[held]) >= 2 and not seeds[held] & taken, (held, seeds[held])
        assert not seeds[held] & {c.seed for c in goals.split(held)}, f"the goals {held} has other houses"
        assert all(c.id.startswith("h") for c in BENCH.split(held)), held


def test_counts_outcomes_and_category_coverage():
    dev, test = BENCH.split("dev"), BENCH.split("test")
    assert len(dev) >= 50 and len(test) >= 150 and len(BENCH.cases) >= 200
    for split, cases, least in (("dev", dev, 2), ("test", test, 8)):
        counts = Counter(cat for c in cases for cat in c.categories)
        thin = {cat: counts[cat] for cat in CATEGORIES if counts[cat] < least}
        assert not thin, f"{split}: categories with fewer than {least} cases: {thin}"
        outcomes = Counter(c.outcome for c in cases)
        assert outcomes["none"] and outcomes["ask"], (split, outcomes)
    quiet = sum(c.outcome != "change" for c in test) / len(test)
    assert 0.10 <= quiet <= 0.15, f"{quiet:.1%} of TEST are none/ask outcomes (want 10-15 %)"


@pytest.mark.parametrize("split", HELD_OUT)
def test_each_held_out_split_covers_every_category_on_each_of_its_houses(split):
    held = BENCH.split(split)
    assert len(held) >= 60
    counts = Counter(cat for c in held for cat in c.categories)
    thin = {cat: counts[cat] for cat in CATEGORIES if counts[cat] < 2}
    assert not thin, f"{split}: categories with fewer than 2 cases: {thin}"
    outcomes = Counter(c.outcome for c in held)
    assert outcomes["none"] >= 4 and outcomes["ask"] >= 3, outcomes
    quiet = (outcomes["none"] + outcomes["ask"]) / len(held)
    most = 0.21 if split == "holdout15" else 0.20  # HOLDOUT15's brief asked each writer for 5 or 6 none and 3 ask
    # cases of 44: 18 of 88 (20.5 %); no blind case is dropped to fit
    assert 0.10 <= quiet <= most, f"{quiet:.1%} of {split} are none/ask outcomes (want 10-{most:.0%})"
    per_house = Counter(c.house for c in held)
    assert len(per_house) >= 2 and min(per_house.values()) >= 25, per_house


def test_ask_cases_are_ambiguous_and_none_cases_name_what_they_are():
    for case in BENCH.cases:
        if case.outcome == "ask":
            assert "ambiguous" in case.categories, case.id
        if "ambiguous" in case.categories:
            assert case.outcome == "ask", case.id
        if case.outcome == "none":
            assert set(case.categories) & {"no_change", "question", "injection", "new_item"}, case.id


@pytest.mark.parametrize("case", BENCH.cases, ids=lambda c: c.id)
def test_labels_name_existing_entities_and_change_their_label(case):
    if not case.labels:
        return
    graph = case_graph(case)
    plain = case_graph(type(case)(**{**case.__dict__, "labels": {}}))
    for name, label in case.labels.items():
        assert graph.entity_attrs(name)["label"] == label
        assert plain.entity_attrs(name)["label"] != label, f"{case.id}: {name} already has the label {label!r}"
    assert "labels" in case.categories


@pytest.mark.parametrize("case", CHANGES, ids=lambda c: c.id)
def test_every_gold_delta_is_complete_and_verifies_in_its_house(case):
    world = case_world(case)
    graph = world.graph
    delta = case.gold_delta()
    assert not delta.is_empty(), f"{case.id}: a change with an empty delta (use outcome none)"
    assert not set(delta.remove) & set(delta.add), case.id
    assert len(set(delta.remove)) == len(delta.remove) and len(set(delta.add)) == len(delta.add), case.id
    for fact in (*delta.remove, *delta.add):
        for name in fact.args:
            assert graph.has_entity(name), f"{case.id}: {name} is not in house {case.house}"
    for fact in delta.remove:
        assert graph.has_fact(fact), f"{case.id}: removes {fact}, which is not true in the house"
    for fact in delta.add:
        assert not graph.has_fact(fact), f"{case.id}: adds {fact}, which is already true"
    verdict = world.verify(delta, source="nl")
    assert verdict.ok, f"{case.id}: {[v.message for v in verdict.violations]}"
    assert set(verdict.effective.remove) == set(delta.remove) and set(verdict.effective.add) == set(delta.add), \
        f"{case.id}: the verifier would apply another delta: {verdict.effective}"
    assert ROBOT not in {a for f in (*delta.remove, *delta.add) for a in f.args}, "people's events never move the robot"
    # an item that gets a new place loses its old one (the rules would catch a second place; this checks the
    # gold names the old place the memory has)
    for fact in delta.add:
        if fact.predicate in LOCATION:
            item = fact.args[LOCATION[fact.predicate]]
            old = [f for f in graph.facts_of(item) if f.predicate in LOCATION and f.args[LOCATION[f.predicate]] == item]
            assert set(old) <= set(delta.remove), f"{case.id}: {item} gets {fact} but keeps {old}"
