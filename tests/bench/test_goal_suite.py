"""The ``goals`` benchmark suite: its scoring of real `TaskPlanner` results, its rows and its options.

The LLM is the simulated one (a test tool that answers from the oracle it is given, here without injected errors):
told the gold goal it writes the gold goal; told another goal it writes that one. A pipeline answer the planner
cannot give yet (asked back, impossible, already satisfied) is a `PlanResult` with an ``outcome``, as the lead's
pipeline will return it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import yaml

from l3mp.bench.goal_suite import (
    ASKED,
    ENV_CASES,
    ENV_IDS,
    ENV_LLMS,
    ENV_PLANNER,
    ENV_RETRIEVAL,
    ENV_SPLIT,
    ENV_TIMEOUT,
    IMPOSSIBLE,
    NO_GOAL,
    PLANNED,
    SATISFIED,
    case_world,
    literal_of,
    load_benchmark,
    options,
    request,
    result_outcome,
    run_case,
    score,
    simulated_llm_module,
    summary,
)
from l3mp.bench.handwritten import select
from l3mp.bench.update_suite import household
from l3mp.errors import FormatError, L3mpError
from l3mp.planning.goal import Literal
from l3mp.planning.pipeline import PlanResult
from tests.bench.support import quick_suite


def one_literal(goal: str | None) -> str | None:
    """A goal of one literal, with or without an ``and`` around it (the pipeline writes either)."""
    return goal[5:-1] if goal and goal.startswith("(and (") and goal.count("(") - goal.count("(not") == 2 else goal


BENCH = {c.id: c for c in load_benchmark().cases}


def llm():
    module = simulated_llm_module()
    return module.SimulatedLLM(household(), module.ErrorModel.parse("none"), seed=0)


@dataclass
class AnsweredResult(PlanResult):
    """A `PlanResult` that carries the pipeline's own answer (what `result_outcome` reads first)."""

    outcome: str = ""
    question: str | None = None


def answered(case_id: str, outcome: str, **fields) -> tuple:
    case = BENCH[case_id]
    return case, case_world(case).graph, AnsweredResult(case.text, "invalid_goal", outcome=outcome, **fields)


def test_the_gold_goal_planned_is_right_on_both_counts():
    # two goals: a book taken from Jessica to the shelf, a lamp off
    scored = run_case(BENCH["d21-08"], llm(), read_requests=False)
    assert scored.answer == PLANNED and scored.goal_right and scored.plan_right and not scored.wrong_plan
    assert scored.plan and any(step.startswith("(take_from_person") for step in scored.plan)
    assert scored.prompt_tokens > 0 and scored.completion_tokens > 0
    assert scored.seconds >= scored.planner_seconds > 0


def test_an_equivalent_form_counts_as_the_gold_goal():
    case = BENCH["d23-16"]  # all the lights in living room 2: both named, or only the one that is on
    scored = run_case(case, llm(), oracle_goal=case.also[0], read_requests=False)
    assert one_literal(scored.goal) == "(not (light_on floor_lamp_1))"
    assert scored.goal_right and scored.plan_right and not scored.wrong_plan


def test_another_goal_planned_is_a_wrong_plan():
    case = BENCH["d21-01"]  # "bring me the ripe banana", said by Sarah; the LLM says Jessica
    wrong = (Literal("has", ("jessica", "ripe_banana_1"), False),)
    # the words mend that goal: "bring me" said by Sarah brings the one thing to her, so the plan is the right one
    mended = run_case(case, llm(), oracle_goal=wrong, read_requests=False)
    assert mended.answer == PLANNED and mended.goal_right and mended.plan_right and not mended.wrong_plan
    assert "the request brings it to sarah" in mended.reason
    # the same goal planned as given (a pipeline that did not check it) scores as a wrong plan
    scored = planned("d21-01", "(has jessica ripe_banana_1)")
    assert scored.answer == PLANNED and one_literal(scored.goal) == "(has jessica ripe_banana_1)"
    assert not scored.goal_right and not scored.plan_right and scored.wrong_plan
    numbers = summary([scored])
    assert (numbers["goal_right"], numbers["plan_right"], numbers["wrong_plan"], numbers["asked"]) == (0, 0, 100, 0)
    assert numbers["asked_on_ask"] is None and numbers["impossible_recognised"] is None


def planned(case_id: str, goal: str):
    """The case planned from a given goal (what a pipeline that did not ask or refuse would have planned)."""
    from l3mp.planning.pipeline import TaskPlanner
    from l3mp.retrieval import FullRetriever

    case = BENCH[case_id]
    world = case_world(case)
    result = TaskPlanner(world, None, FullRetriever()).plan(case.text, goal=goal)
    return score(case, world.graph, result, 1.0)


def test_a_goal_that_misses_part_of_the_gold_but_a_plan_that_reaches_it_is_plan_right_only():
    # "turn off the overhead light in bedroom 1, but leave the bedside lamp on", planned from a given goal without
    # the lamp (the LLM path now adds the kept lamp itself, so the given-goal path stands in for a goal that misses it)
    scored = planned("d21-12", "(not (light_on overhead_light_3))")
    assert scored.answer == PLANNED and one_literal(scored.goal) == "(not (light_on overhead_light_3))"
    assert not scored.goal_right  # the lamp to keep on is part of the gold goal
    assert scored.plan_right and not scored.wrong_plan  # a plan for the light alone leaves the lamp on


def test_planning_a_candidate_of_an_ask_case_is_wrong():
    scored = planned("d21-04", "(not (ringing blue_cordless_phone_1))")  # one of the two ringing phones
    assert scored.answer == PLANNED
    assert not scored.goal_right and not scored.plan_right and scored.wrong_plan and not scored.asked


def test_an_impossible_case_planned_anyway_is_wrong_and_a_failure_is_not_recognition():
    scored = planned("d21-11", "(tv_on tv_1)")  # "the TV in the kitchen": the house's one TV is elsewhere
    assert scored.answer == PLANNED and scored.wrong_plan and not scored.goal_right
    unplanned = score(*answered("d21-11", NO_GOAL), 1.0)
    assert not unplanned.goal_right and not unplanned.plan_right and not unplanned.wrong_plan
    assert summary([unplanned])["impossible_recognised"] == 0


def test_with_the_plain_reading_the_pipeline_asks_and_says_satisfied_itself():
    asked = run_case(BENCH["d21-04"], llm())  # "Can you answer the phone?": two phones ring
    assert asked.answer == ASKED and asked.goal_right and asked.question and asked.prompt_tokens == 0
    done = run_case(BENCH["d21-09"], llm())  # "Make sure the fridge is closed." (it is)
    assert done.answer == SATISFIED and done.goal_right and done.plan_right and not done.wrong_plan
    assert summary([asked, done])["without_model"] == 100


def test_the_pipelines_own_answers_are_scored_against_the_gold_outcome():
    ask = score(*answered("d21-04", ASKED, question="Which phone, the blue cordless phone or the smartphone?"), 1.0)
    assert ask.asked and ask.goal_right and ask.plan_right and not ask.wrong_plan
    assert ask.question and ask.to_json()["question"] == ask.question
    needless = score(*answered("d21-03", ASKED), 1.0)
    assert needless.asked and not needless.goal_right
    impossible = score(*answered("d21-11", IMPOSSIBLE), 1.0)
    assert impossible.goal_right and impossible.plan_right
    satisfied = score(*answered("d21-09", SATISFIED), 1.0)
    assert satisfied.goal_right and satisfied.plan_right
    numbers = summary([ask, needless, impossible, satisfied])
    assert numbers["asked"] == 50 and numbers["asked_on_ask"] == 100
    assert numbers["asked_needlessly"] == pytest.approx(100 / 3) and numbers["impossible_recognised"] == 100
    assert numbers["goal_right"] == 75


def test_result_outcome_reads_the_answer_or_the_status():
    case = BENCH["d21-03"]
    assert result_outcome(AnsweredResult(case.text, "invalid_goal", outcome=ASKED)) == ASKED
    assert result_outcome(PlanResult(case.text, "invalid_goal")) == NO_GOAL
    assert result_outcome(PlanResult(case.text, "timeout", goal="(and (tv_on tv_1))")) == "no_plan"
    assert result_outcome(AnsweredResult(case.text, "error", outcome="made-up")) == NO_GOAL


def test_the_speaker_is_a_keyword_or_said_in_the_text():
    case = BENCH["d21-01"]
    assert request(case, True) == (case.text, {"speaker": "sarah"})
    assert request(case, False) == (f'Sarah says: "{case.text}"', {})
    assert request(BENCH["d21-03"], False) == (BENCH["d21-03"].text, {})


def test_literals_are_read_in_the_three_forms_and_nothing_else():
    assert literal_of("(on  book_1 shelf_1 )") == Literal("on", ("book_1", "shelf_1"), False)
    assert literal_of("(not (light_on lamp_1))") == Literal("light_on", ("lamp_1",), True)
    assert literal_of("(forall (?l - light) (not (light_on ?l)))") == Literal("light_on", ("ALL_light",), True)
    for bad in ("(and (a b))", "light_on lamp_1", "(light_on ?y)", "(not (light_on (lamp_1)))"):
        with pytest.raises(FormatError):
            literal_of(bad)


@pytest.mark.parametrize(("change", "message"), [
    ({"gold": {"outcome": "goal"}}, "goal: a non-empty list"),
    ({"gold": {"outcome": "ask", "reading": ["(tv_on ?x)"], "words": ["tv"], "candidates": ["tv_1"]}},
     "at least two candidates"),
    ({"gold": {"outcome": "impossible", "absent": ["oven"]}}, "says why"),
    ({"gold": {"outcome": "goal", "goal": ["(tv_on tv_1)"], "why": "x"}}, "takes only"),
    ({"before": [{"move": []}]}, "before: a change"),
    ({"split": "train"}, "split must be"),
    ({"categories": ["made_up"]}, "categories must be"),
])
def test_a_malformed_case_is_a_format_error_naming_it(tmp_path, change, message):
    case = {"id": "x-01", "split": "dev", "house": "h", "categories": ["open"], "text": "Open it.",
            "gold": {"outcome": "goal", "goal": ["(is_open fridge_1)"]}, **change}
    path = tmp_path / "goals.yaml"
    path.write_text(yaml.safe_dump({"houses": {"h": 21}, "cases": [case]}), encoding="utf-8")
    with pytest.raises(FormatError, match=message) as error:
        load_benchmark(path)
    assert "x-01" in str(error.value)


def test_options_come_from_the_environment_and_bad_values_are_errors():
    quick = options(True, {})
    assert (quick.split, quick.llms, quick.retrievals, quick.planner, quick.cases_out) == (
        "all", ("simulated",), ("search",), "lapkt", None)
    full = options(False, {ENV_RETRIEVAL: "full,search", ENV_TIMEOUT: "5", ENV_PLANNER: "fast-downward"})
    assert (full.split, full.llms, full.retrievals, full.timeout_s, full.planner) == (
        "test", ("configured", "simulated"), ("full", "search"), 5.0, "fast-downward")
    assert options(False, {ENV_SPLIT: "holdout"}).split == "holdout"
    assert options(False, {ENV_SPLIT: "holdout2"}).split == "holdout2"
    for env in ({ENV_SPLIT: "train"}, {ENV_LLMS: "gpt"}, {ENV_RETRIEVAL: "R^S"}, {ENV_TIMEOUT: "soon"},
                {ENV_TIMEOUT: "0"}, {ENV_PLANNER: "pyperplan"}):
        with pytest.raises(L3mpError):
            options(False, env)


@pytest.mark.slow
def test_the_quick_suite_reports_rows_overall_and_per_category(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_IDS, "d21-04,d21-13,t04-12")
    monkeypatch.setenv(ENV_CASES, str(tmp_path / "cases.json"))
    rows = quick_suite("goals", tmp_path)
    tag = "simulated_search_ids"
    for key in ("goal_right", "plan_right", "wrong_plan", "asked", "asked_on_ask", "asked_needlessly",
                "impossible_recognised", "seconds_p50", "seconds_p95", "seconds_no_planner_p50",
                "seconds_no_planner_p95", "prompt_tokens", "completion_tokens"):
        assert f"{tag}_{key}" in rows, key
        assert rows[f"{tag}_{key}"]["target"] is None  # a simulated LLM is never held to the targets
    assert "SIMULATED LLM" in rows[f"{tag}_goal_right"]["notes"] and "3 case(s)" in rows[f"{tag}_goal_right"]["notes"]
    assert rows[f"{tag}_asked_on_ask"]["value"] == 100  # "Can you answer the phone?" with two phones ringing
    assert f"{tag}_cat:ambiguous_goal_right" in rows and f"{tag}_cat:moved_plan_right" in rows
    assert rows[f"{tag}_dev_cases"]["value"] == 2 and '"id":"d21-13"' in rows[f"{tag}_dev_cases"]["notes"]
    assert rows[f"{tag}_test_cases"]["value"] == 1
    saved = (tmp_path / "cases.json").read_text(encoding="utf-8")
    assert '"t04-12"' in saved and "d21-13" not in saved


def test_cases_are_selected_by_split_or_by_known_ids():
    cases = list(BENCH.values())
    assert {c.split for c in select(cases, "dev", (), ENV_IDS)} == {"dev"}
    assert [c.id for c in select(cases, "dev", ("t04-01", "d21-01"), ENV_IDS)] == ["d21-01", "t04-01"]
    with pytest.raises(L3mpError, match="unknown case id"):
        select(cases, "all", ("d21-01", "zz-99"), ENV_IDS)
