"""The ``updates`` benchmark suite: its rows, and its scoring of real `NLUpdater` results.

The LLM is the simulated one (a test tool that answers from the oracle it is given): told the gold delta it
applies the gold delta; told another valid delta it applies that one; with every answer cut off it declines.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
import yaml

from l3mp.bench.handwritten import (
    HELD_OUT,
    HOLDOUT,
    HOLDOUT2,
    SPLITS,
    cases_file,
    detail_rows,
    holdout_name,
    run_split,
    split_about,
    write_held_out_details,
    write_test_details,
)
from l3mp.bench.update_suite import (
    ENV_CASES,
    ENV_IDS,
    ENV_SPLIT,
    load_benchmark,
    options,
    result_outcome,
    run_case,
    simulated_llm_module,
    summary,
)
from l3mp.domain.triplets import Fact
from l3mp.errors import FormatError, L3mpError
from l3mp.world.delta import Delta
from tests.bench.support import quick_suite

BENCH = {c.id: c for c in load_benchmark().cases}


def llm(errors: str = "none"):
    module = simulated_llm_module()
    from l3mp.bench.update_suite import household

    return module.SimulatedLLM(household(), module.ErrorModel.parse(errors), seed=0)


def test_the_gold_delta_applied_is_exact():
    case = BENCH["d21-40"]  # three facts: fridge opened, salad taken out
    scored = run_case(case, llm(), "R-_V", read_text=False)
    assert scored.outcome == "applied" and scored.applied
    assert scored.exact and not scored.wrong_applied and not scored.declined_or_asked
    assert set(scored.applied_remove) == set(case.remove) and set(scored.applied_add) == set(case.add)
    assert scored.hits() == (3, 3, 3)
    assert scored.prompt_tokens > 0 and scored.completion_tokens > 0 and scored.seconds > 0
    assert scored.model_calls == 1 and summary([scored])["without_model"] == 0


def test_a_plain_report_read_without_the_model_scores_like_any_other():
    case = BENCH["d21-40"]  # "Sarah opened the fridge and took out the salad.": plain enough to read
    scored = run_case(case, llm("malformed=1"), "R-_V")  # a model answer would be cut off: none is asked for
    assert scored.exact and scored.model_calls == 0 and scored.prompt_tokens == 0
    assert summary([scored])["without_model"] == 100


def test_another_valid_delta_applied_is_wrong_but_applied():
    # "Sarah took the orange magazine off the wall shelf and put it on the nightstand in bedroom 3": the LLM
    # says Sarah has it. Variant R- (no verification), as meaning checks may rightly refuse such a delta.
    case = BENCH["d21-04"]
    other = Delta(remove=(Fact("on", ("orange_magazine_1", "wall_shelf_1")),),
                  add=(Fact("has", ("sarah", "orange_magazine_1")),))
    scored = run_case(case, llm(), "R-", oracle_delta=other)
    assert scored.applied and set(scored.applied_add) == set(other.add)
    assert not scored.exact and scored.wrong_applied and not scored.declined_or_asked
    assert scored.hits() == (1, 2, 2)  # the removal is right, the addition is not
    numbers = summary([scored])
    assert (numbers["exact"], numbers["wrong_applied"], numbers["precision"], numbers["recall"]) == (0, 100, 50, 50)


def test_anything_applied_on_a_none_case_is_wrong():
    case = BENCH["d21-28"]  # "The cupboard in the kitchen is open." (it is): nothing changes
    assert case.outcome == "none"
    closed = Delta(remove=(Fact("is_open", ("cupboard_1",)),))
    scored = run_case(case, llm(), "R-", oracle_delta=closed)
    assert scored.applied and scored.wrong_applied and not scored.exact
    assert scored.hits() == (0, 1, 0)
    assert summary([scored])["recall"] is None  # no gold facts: recall is undefined, not 100 %


def test_a_decline_on_a_change_case_is_declined_not_wrong():
    case = BENCH["d21-03"]
    scored = run_case(case, llm("malformed=1"), "R-_V", read_text=False)  # every answer is cut off mid-JSON
    assert scored.outcome == "declined" and not scored.applied
    assert scored.declined_or_asked and not scored.exact and not scored.wrong_applied
    assert scored.hits() == (0, 0, 1)
    assert scored.reason


def test_without_an_outcome_field_applied_means_accepted_with_a_delta():
    empty = SimpleNamespace(delta=Delta())
    full = SimpleNamespace(delta=Delta(add=(Fact("light_on", ("lamp_1",)),)))
    assert result_outcome(SimpleNamespace(accepted=True, record=SimpleNamespace(**vars(full)))) == "applied"
    assert result_outcome(SimpleNamespace(accepted=True, record=SimpleNamespace(**vars(empty)))) == "no_change"
    assert result_outcome(SimpleNamespace(accepted=True, record=None)) == "no_change"
    assert result_outcome(SimpleNamespace(accepted=False, record=None)) == "declined"
    assert result_outcome(SimpleNamespace(outcome="asked", accepted=False, record=None)) == "asked"


@pytest.mark.slow
def test_the_quick_suite_reports_rows_overall_and_per_category(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_IDS, "d21-04,d21-25,t04-02")
    monkeypatch.setenv(ENV_CASES, str(tmp_path / "cases.json"))
    rows = quick_suite("updates", tmp_path)
    tag = "simulated_R^S_V_all"
    for key in ("exact", "precision", "recall", "wrong_applied", "declined_or_asked", "seconds_p50", "seconds_p95",
                "prompt_tokens", "completion_tokens"):
        assert f"{tag}_{key}" in rows, key
        assert rows[f"{tag}_{key}"]["target"] is None  # a simulated LLM is never held to the targets
    assert "SIMULATED LLM" in rows[f"{tag}_exact"]["notes"]
    assert rows[f"{tag}_exact"]["notes"].count("3 case(s)") == 1
    assert f"{tag}_cat:switch_exact" in rows and f"{tag}_cat:new_item_exact" in rows
    assert rows[f"{tag}_dev_cases"]["value"] == 2 and '"id":"d21-25"' in rows[f"{tag}_dev_cases"]["notes"]
    assert rows[f"{tag}_test_cases"]["value"] == 1
    saved = (tmp_path / "cases.json").read_text(encoding="utf-8")
    assert '"t04-02"' in saved and "d21-25" not in saved


# ---- the HOLDOUT split (its own cases file, its own per-case results) ------------------------------------------
def _cases_file(path, houses, cases):
    path.write_text(yaml.safe_dump({"houses": houses, "cases": cases}), encoding="utf-8")


def _raw(case_id: str, split: str, house: str) -> dict:
    return {"id": case_id, "split": split, "house": house, "categories": ["no_change"],
            "text": "The lights are as they were.", "gold": {"outcome": "none"}}


def test_the_holdout_cases_come_from_the_sibling_file_with_its_own_houses(tmp_path):
    _cases_file(tmp_path / "updates.yaml", {"a": 21}, [_raw("d-01", "dev", "a"), _raw("t-01", "test", "a")])
    _cases_file(tmp_path / "updates-holdout.yaml", {"b": 31}, [_raw("h-01", "holdout", "b")])
    bench = load_benchmark(tmp_path / "updates.yaml")
    assert bench.houses == {"a": 21, "b": 31}
    assert [(c.id, c.split, c.seed) for c in bench.split(HOLDOUT)] == [("h-01", "holdout", 31)]
    assert len(bench.split("all")) == 3
    _cases_file(tmp_path / "updates-holdout.yaml", {"b": 31}, [_raw("h-01", "holdout", "a")])
    with pytest.raises(FormatError, match="h-01: house 'a' is not in 'houses'"):  # no borrowing the main houses
        load_benchmark(tmp_path / "updates.yaml")


@pytest.mark.parametrize(("main", "held", "message"), [
    ([_raw("h-01", "holdout", "a")], [], "h-01: split holdout belongs in updates-holdout.yaml"),
    ([], [_raw("t-01", "test", "a")], "t-01: split test belongs in updates.yaml"),
])
def test_a_holdout_case_lives_only_in_the_holdout_file(tmp_path, main, held, message):
    _cases_file(tmp_path / "updates.yaml", {"a": 21}, main)
    _cases_file(tmp_path / "updates-holdout.yaml", {"a": 21}, held)
    with pytest.raises(FormatError, match=message):
        load_benchmark(tmp_path / "updates.yaml")


def test_the_two_files_may_not_give_a_house_two_seeds(tmp_path):
    _cases_file(tmp_path / "updates.yaml", {"a": 21}, [])
    _cases_file(tmp_path / "updates-holdout.yaml", {"a": 31}, [])
    with pytest.raises(FormatError, match="other seeds"):
        load_benchmark(tmp_path / "updates.yaml")


def test_the_packaged_benchmark_reads_the_holdout_file():
    held = yaml.safe_load(cases_file(holdout_name("updates.yaml")).read_text(encoding="utf-8"))
    bench = load_benchmark()
    assert held["houses"].items() <= bench.houses.items()
    assert [c["id"] for c in held["cases"]] == [c.id for c in bench.split(HOLDOUT)]


def test_the_holdout_split_is_an_option_and_tags_its_rows():
    assert options(False, {ENV_SPLIT: "holdout"}).split == "holdout"
    assert options(True, {}).split == "all" and options(False, {}).split == "test"
    with pytest.raises(L3mpError, match="dev, test, holdout, holdout2, holdout3, holdout4, holdout5, holdout6, "
                                        "holdout7, holdout8, holdout9, holdout10, holdout11, holdout12, "
                                        "holdout13, holdout14, holdout15, holdout16, holdout17, holdout18, "
                                        "holdout19 or all"):
        options(False, {ENV_SPLIT: "heldout"})
    cases = [SimpleNamespace(split="holdout"), SimpleNamespace(split="test")]
    assert run_split("test", cases[:1], ("h-01",)) == "holdout"  # chosen by id in a run whose split is test
    assert run_split("test", cases, ("h-01", "t-01")) == "ids"
    assert run_split("test", cases[1:], ("t-01",)) == "test"
    assert run_split("holdout", cases[:1], ()) == "holdout"
    assert "HOLDOUT: only reported" in split_about("holdout") and split_about("test") == "split test"


def test_holdout_per_case_results_go_to_their_own_file_never_into_the_rows(tmp_path):
    def scored(case_id, split):
        return SimpleNamespace(case=SimpleNamespace(split=split), to_json=lambda: {"id": case_id})

    results = [scored("d-01", "dev"), scored("t-01", "test"), scored("h-01", "holdout")]
    test_details: dict = {}
    holdout_details: dict = {}
    out = tmp_path / "updates-cases.json"
    rows = {m.name: m for m in detail_rows("llm_x_all", results, unit="cases", cases_out=out, env_key=ENV_CASES,
                                           test_details=test_details, holdout_details=holdout_details)}
    assert set(rows) == {"llm_x_all_dev_cases", "llm_x_all_test_cases", "llm_x_all_holdout_cases"}
    assert "h-01" not in rows["llm_x_all_dev_cases"].notes and "t-01" not in rows["llm_x_all_dev_cases"].notes
    assert str(tmp_path / "updates-cases-holdout.json") in rows["llm_x_all_holdout_cases"].notes
    assert holdout_details == {HOLDOUT: {"llm_x_all": [{"id": "h-01"}]}}
    assert test_details == {"llm_x_all": [{"id": "t-01"}]}
    write_test_details(out, suite="updates", quick=False, details=test_details)
    write_held_out_details(out, suite="updates", quick=False, details=holdout_details)
    assert not (tmp_path / "updates-cases-holdout2.json").exists()
    held = json.loads((tmp_path / "updates-cases-holdout.json").read_text(encoding="utf-8"))
    assert held["runs"] == {"llm_x_all": [{"id": "h-01"}]} and "HOLDOUT" in held["note"]
    assert "h-01" not in out.read_text(encoding="utf-8")
    with pytest.raises(L3mpError, match="HOLDOUT"):  # a suite that has no place for them may not drop them in
        list(detail_rows("q", results, unit="cases", cases_out=out, env_key=ENV_CASES, test_details={}))


# ---- the HOLDOUT2 split (written 2026-11-24 before that day's tuning: a file, houses and results of its own) ------
def test_the_held_out_splits_are_holdout_to_holdout19_each_with_a_sibling_file():
    assert HELD_OUT == (HOLDOUT, HOLDOUT2, "holdout3", "holdout4", "holdout5", "holdout6", "holdout7",
                        "holdout8", "holdout9", "holdout10", "holdout11", "holdout12", "holdout13",
                        "holdout14", "holdout15", "holdout16", "holdout17", "holdout18", "holdout19")
    assert tuple(SPLITS) == ("dev", "test", *HELD_OUT)
    assert holdout_name("updates.yaml", HOLDOUT2) == "updates-holdout2.yaml"
    assert holdout_name("goals.yaml") == "goals-holdout.yaml"
    with pytest.raises(ValueError):
        holdout_name("updates.yaml", "test")


def test_the_holdout2_cases_come_from_their_own_sibling_file(tmp_path):
    _cases_file(tmp_path / "updates.yaml", {"a": 21}, [_raw("d-01", "dev", "a"), _raw("t-01", "test", "a")])
    _cases_file(tmp_path / "updates-holdout.yaml", {"b": 31}, [_raw("h-01", "holdout", "b")])
    _cases_file(tmp_path / "updates-holdout2.yaml", {"c": 41}, [_raw("k-01", "holdout2", "c")])
    bench = load_benchmark(tmp_path / "updates.yaml")
    assert bench.houses == {"a": 21, "b": 31, "c": 41}
    assert [(c.id, c.split, c.seed) for c in bench.split(HOLDOUT2)] == [("k-01", "holdout2", 41)]
    assert [c.id for c in bench.split(HOLDOUT)] == ["h-01"] and [c.id for c in bench.split("test")] == ["t-01"]
    assert len(bench.split("all")) == 4
    _cases_file(tmp_path / "updates-holdout2.yaml", {"c": 41}, [_raw("k-01", "holdout2", "b")])
    with pytest.raises(FormatError, match="k-01: house 'b' is not in 'houses'"):  # no borrowing HOLDOUT's houses
        load_benchmark(tmp_path / "updates.yaml")


@pytest.mark.parametrize(("main", "held", "held2", "message"), [
    ([_raw("k-01", "holdout2", "a")], [], [], "k-01: split holdout2 belongs in updates-holdout2.yaml"),
    ([], [_raw("k-01", "holdout2", "a")], [], "k-01: split holdout2 belongs in updates-holdout2.yaml"),
    ([], [], [_raw("h-01", "holdout", "a")], "h-01: split holdout belongs in updates-holdout.yaml"),
    ([], [], [_raw("t-01", "test", "a")], "t-01: split test belongs in updates.yaml"),
    ([], [], [_raw("d-01", "dev", "a")], "d-01: split dev belongs in updates.yaml"),
])
def test_a_holdout2_case_lives_only_in_the_holdout2_file(tmp_path, main, held, held2, message):
    _cases_file(tmp_path / "updates.yaml", {"a": 21}, main)
    _cases_file(tmp_path / "updates-holdout.yaml", {"a": 21}, held)
    _cases_file(tmp_path / "updates-holdout2.yaml", {"a": 21}, held2)
    with pytest.raises(FormatError, match=message):
        load_benchmark(tmp_path / "updates.yaml")


def test_the_holdout2_file_may_not_give_a_house_another_seed(tmp_path):
    _cases_file(tmp_path / "updates.yaml", {"a": 21}, [])
    _cases_file(tmp_path / "updates-holdout2.yaml", {"a": 41}, [])
    with pytest.raises(FormatError, match="other seeds"):
        load_benchmark(tmp_path / "updates.yaml")


def test_the_packaged_benchmark_reads_the_holdout2_file():
    held = yaml.safe_load(cases_file(holdout_name("updates.yaml", HOLDOUT2)).read_text(encoding="utf-8"))
    bench = load_benchmark()
    assert held["houses"].items() <= bench.houses.items()
    assert [c["id"] for c in held["cases"]] == [c.id for c in bench.split(HOLDOUT2)]
    # never among the TEST, DEV or HOLDOUT cases; like HOLDOUT, among the cases of ``all`` (a quick run's default)
    ids = {c["id"] for c in held["cases"]}
    for split in ("dev", "test", HOLDOUT):
        assert not ids & {c.id for c in bench.split(split)}, split
    assert ids <= {c.id for c in bench.split("all")}


def test_the_holdout2_split_is_an_option_and_tags_its_rows():
    assert options(False, {ENV_SPLIT: "holdout2"}).split == "holdout2"
    cases = [SimpleNamespace(split="holdout2"), SimpleNamespace(split="test"), SimpleNamespace(split="holdout")]
    assert run_split("test", cases[:1], ("k-01",)) == "holdout2"  # chosen by id in a run whose split is test
    assert run_split("holdout", cases[:1], ("k-01",)) == "holdout2"
    assert run_split("test", cases[:2], ("k-01", "t-01")) == "ids"
    assert run_split("test", [cases[0], cases[2]], ("k-01", "h-01")) == "ids"  # HOLDOUT2 never passes for HOLDOUT
    assert run_split("test", cases[2:], ("h-01",)) == "holdout"
    assert run_split("holdout2", cases[:1], ()) == "holdout2"
    assert "HOLDOUT2: only reported" in split_about("holdout2")


def test_holdout2_per_case_results_go_to_their_own_file_never_into_the_rows(tmp_path):
    def scored(case_id, split):
        return SimpleNamespace(case=SimpleNamespace(split=split), to_json=lambda: {"id": case_id})

    results = [scored("d-01", "dev"), scored("t-01", "test"), scored("h-01", "holdout"), scored("k-01", "holdout2")]
    test_details: dict = {}
    holdout_details: dict = {}
    out = tmp_path / "updates-cases.json"
    rows = {m.name: m for m in detail_rows("llm_x_all", results, unit="cases", cases_out=out, env_key=ENV_CASES,
                                           test_details=test_details, holdout_details=holdout_details)}
    assert set(rows) == {"llm_x_all_dev_cases", "llm_x_all_test_cases", "llm_x_all_holdout_cases",
                         "llm_x_all_holdout2_cases"}
    assert "k-01" not in rows["llm_x_all_dev_cases"].notes
    assert str(tmp_path / "updates-cases-holdout2.json") in rows["llm_x_all_holdout2_cases"].notes
    assert holdout_details == {HOLDOUT: {"llm_x_all": [{"id": "h-01"}]}, HOLDOUT2: {"llm_x_all": [{"id": "k-01"}]}}
    write_test_details(out, suite="updates", quick=False, details=test_details)
    write_held_out_details(out, suite="updates", quick=False, details=holdout_details)
    held2 = json.loads((tmp_path / "updates-cases-holdout2.json").read_text(encoding="utf-8"))
    held = json.loads((tmp_path / "updates-cases-holdout.json").read_text(encoding="utf-8"))
    assert held2["runs"] == {"llm_x_all": [{"id": "k-01"}]} and "HOLDOUT2" in held2["note"]
    assert held["runs"] == {"llm_x_all": [{"id": "h-01"}]}
    assert "k-01" not in out.read_text(encoding="utf-8")
    with pytest.raises(L3mpError, match="HOLDOUT2"):
        list(detail_rows("q", results[3:], unit="cases", cases_out=out, env_key=ENV_CASES, test_details={}))
