"""End-to-end tests of the evaluation runner and `l3mp eval`: a short seeded episode for all six variants with the
simulated LLM, outputs (JSON, CSV, table, figures), checkpoints and resuming, perception updates."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from l3mp_sim.evaluation import EvalConfig, EvaluationError, checkpoint_path, evaluate, run_variant, schedule
from l3mp_sim.report import PAPER_TABLE
from l3mp_sim.simulated_llm import ErrorModel, SimulatedLLM
from l3mp_sim.simulator import SimConfig

from l3mp.cli import main
from l3mp.domain.triplets import fact_from_triplet
from l3mp.updates import VARIANTS
from tests.helpers import household

PNG = b"\x89PNG\r\n\x1a\n"


def test_short_episode_for_all_six_variants(tmp_path: Path) -> None:
    config = EvalConfig(sim=SimConfig(seed=1), events=4, tasks_every=4)
    llm = SimulatedLLM(household(), ErrorModel(), seed=1)
    document = evaluate(config, llm, llm.describe(), tmp_path, progress=False)
    assert list(document["summary"]) == list(VARIANTS)
    for variant, records in document["runs"].items():
        assert [r["kind"] for r in records] == ["change"] * 4 + ["task"]
        summary = document["summary"][variant]
        assert summary["changes"] == 4 and summary["tasks"] == 1
        # verified variants read plain reports without the LLM (l3mp.updates.reading), and a plain request's goal
        # is read without it too (l3mp.planning.request); unverified variants ask it about every change
        assert 0 <= summary["state_change_success"] <= 100 and summary["llm_calls"] >= (
            0 if variant.endswith("_V") else 4)
        task = records[-1]
        assert task["gold_plan"] and task["full_state_seconds"] > 0
        assert task["success"] == (task["execution"] is not None and task["execution"]["status"] == "completed"
                                   and task["valid_in_truth"])
        truth = {str(fact_from_triplet(t)[0]) for t in document["initial_truth"]["facts"]}
        for record in records:  # the ground truth after every change and plan execution
            truth = (truth - set(record["truth_changes"]["remove"])) | set(record["truth_changes"]["add"])
        final = json.loads(checkpoint_path(tmp_path, variant).read_text())["sim"]["truth"]["facts"]
        assert truth == {str(fact_from_triplet(t)[0]) for t in final}
        assert "(:goal" in task["gold_problem"]
    calls = {v: s["llm_calls"] for v, s in document["summary"].items()}
    # R+ asks the LLM to select entities; R^S asks for a query graph only when the text's mentions do not ground
    assert calls["R+"] > calls["R-"] and calls["R^S"] >= calls["R-"]
    assert document["llm"]["provider"] == "simulated" and "error_model" in document["llm"]
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["summary"] == document["summary"] and saved["paper"]["table_i"]["R^S_V"]["plans"] == 90.0
    with (tmp_path / "results.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 6 * 5 and {r["variant"] for r in rows} == set(VARIANTS)
    table = (tmp_path / "table.md").read_text()
    assert document["llm"]["name"] in table
    for variant, (changes, plans) in PAPER_TABLE.items():
        row = next(line for line in table.splitlines() if line.startswith(f"| {variant} |"))
        assert f"| {changes:g} | {plans:g} |" in row
    for figure in ("fig2_cumulative.png", "fig3_planning_time.png", "fig4_tokens.png"):
        assert (tmp_path / figure).read_bytes().startswith(PNG)


def test_no_errors_and_full_context_record_every_change(tmp_path: Path) -> None:
    config = EvalConfig(sim=SimConfig(seed=2, perception_prob=0.3, new_item_prob=0.5), events=10, tasks_every=5,
                        variants=("R-_V",))
    llm = SimulatedLLM(household(), ErrorModel.parse("none"))
    records = run_variant("R-_V", config, llm, llm.describe(), tmp_path)
    changes = [r for r in records if r["kind"] == "change"]
    assert {r["channel"] for r in changes} == {"nl", "perception"}
    assert all(r["success"] and r["graph_match"] for r in changes), [r["text"] for r in changes if not r["success"]]
    assert all(r["success"] and r["goal_correct"] for r in records if r["kind"] == "task")


def test_an_interrupted_run_resumes_exactly(tmp_path: Path) -> None:
    config = EvalConfig(sim=SimConfig(seed=3), events=6, tasks_every=3, variants=("R+_V",))
    llm = SimulatedLLM(household(), ErrorModel(wrong_entity=0.2), seed=3)
    whole = run_variant("R+_V", config, llm, llm.describe(), tmp_path / "whole")

    class Stop(Exception):
        pass

    def stop_after_three(record: dict) -> None:
        if record["index"] == 3:
            raise Stop

    with pytest.raises(Stop):
        run_variant("R+_V", config, llm, llm.describe(), tmp_path / "cut", on_step=stop_after_three)
    saved = json.loads(checkpoint_path(tmp_path / "cut", "R+_V").read_text())
    assert len(saved["records"]) == 3
    resumed = run_variant("R+_V", config, llm, llm.describe(), tmp_path / "cut")
    assert len(resumed) == len(schedule(config)) == 8

    def essence(records: list[dict]) -> list:
        return [(r["text"], r["success"], r["graph_match"], r["tokens"]) for r in records]

    assert essence(resumed) == essence(whole)
    other = EvalConfig(sim=SimConfig(seed=4), events=6, tasks_every=3, variants=("R+_V",))
    with pytest.raises(EvaluationError, match="other settings"):
        run_variant("R+_V", other, llm, llm.describe(), tmp_path / "cut")


def test_bad_settings_are_refused() -> None:
    with pytest.raises(EvaluationError, match="unknown variant"):
        EvalConfig(variants=("R*",))
    with pytest.raises(EvaluationError):
        EvalConfig(events=0)


def test_l3mp_eval_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    argv = ["eval", "--out", str(out), "--events", "3", "--tasks-every", "0", "--variants", "R-,R-_V",
            "--errors", "malformed=0.5", "--no-progress", "--seed", "5"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "| R- |" in printed and "| R-_V |" in printed and "malformed=0.5" in printed
    assert main(argv) == 1
    assert "--resume" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0
    (out / "table.md").unlink()
    cut = json.loads(checkpoint_path(out, "R-_V").read_text())
    cut["records"] = cut["records"][:1]
    checkpoint_path(out, "R-_V").write_text(json.dumps(cut))
    capsys.readouterr()
    assert main([*argv, "--report-only"]) == 0
    assert "R- 3 of 3, R-_V 1 of 3" in capsys.readouterr().out and (out / "table.md").is_file()
    checkpoint_path(out, "R-_V").write_text("{")  # a damaged checkpoint is named, for a run and for a report
    assert main([*argv, "--resume"]) == 1 and "cannot read checkpoint" in capsys.readouterr().err
    assert main([*argv, "--report-only"]) == 1 and "cannot read checkpoint" in capsys.readouterr().err
    assert main(["eval", "--out", str(tmp_path / "empty"), "--report-only"]) == 1
    assert main(["eval", "--out", str(tmp_path / "x"), "--errors", "oops=1"]) == 1
    capsys.readouterr()
    assert main(["eval", "--out", str(tmp_path / "x"), "--multi", "2"]) == 1
    assert "multi_event_prob must be between 0 and 1" in capsys.readouterr().err
