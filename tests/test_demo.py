"""Tests of the main job (l3mp/demo.py): it runs to completion, says what it does, and fails loudly."""

from __future__ import annotations

import io
import tempfile

import pytest

from l3mp import cli, demo
from l3mp.domain.triplets import Fact
from l3mp.ros import protocol as m
from l3mp.world.delta import Delta
from l3mp.world.model import WorldModel
from tests.helpers import household, household_rules
from tests.llm.scripted_server import ScriptedServer, reply

HEADERS = ("1. A generated house", "2. The ROS 2 nodes", "3. Perception", "4. Natural-language updates",
           "5. A task", "6. What changed", "7. Restart", "8. A picture")
"""The sections of the main job, which goes through the ROS 2 nodes."""
IN_PROCESS_HEADERS = ("1. A generated house", "2. Perception", "3. Natural-language updates", "4. A task",
                      "5. What changed", "6. Restart", "7. A picture")


WITHOUT_LLM = tuple(step for step in demo.STEPS if step is not demo.nl_updates)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """One full run of `l3mp demo --dir DIR` (the console command, through the ROS 2 nodes, with the embedded LLM),
    with its output."""
    directory = tmp_path_factory.mktemp("demo")
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdout", out)
        code = cli.main(["--no-fsync", "demo", "--dir", str(directory)])
    return code, out.getvalue(), directory


@pytest.mark.slow
def test_the_main_job_runs_to_completion(session):
    code, out, directory = session
    assert code == 0
    positions = [out.index(header) for header in HEADERS]
    assert positions == sorted(positions)
    assert (directory / "kitchen.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert f"the store and the picture are in {directory}" in out


@pytest.mark.slow
def test_the_main_job_goes_through_the_ros_nodes(session):
    _, out, directory = session
    assert "l3mp-ros-bringup --ros-args --params-file" in out and "nodes up (pid" in out
    for topic in (m.WORLD_MODEL_PERCEPTION, m.WORLD_MODEL_APPLY, m.WORLD_MODEL_NL_UPDATE, m.PLANNER_TASK):
        assert f"ros2 topic pub --once {topic} std_msgs/msg/String" in out
    assert "/executor/result: completed" in out and "stopped cleanly" in out
    assert "world_model" in (directory / "ros-nodes.log").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_main_job_says_which_llm_and_what_is_not_there_yet(session):
    _, out, _ = session
    assert "LLM: embedded:qwen2.5-coder-1.5b-instruct-q4_k_m" in out and demo.PLAN_NOTE in out
    assert out.count("variant R^S_V") == 2 and out.count("tokens: ") == 2


@pytest.mark.slow
def test_the_task_is_a_request_with_its_speaker_and_its_goal_is_checked_against_what_it_means(session):
    _, out, _ = session
    assert '"speaker\\": \\"jessica\\"' in out and 'Jessica says: "Bring me the red mug, please."' in out
    assert "goal: (has jessica red_mug) (read from the request, no LLM)" in out
    assert "the goal is what the request means: (has jessica red_mug)" in out


@pytest.mark.slow
def test_a_hallucinated_delta_meets_the_verifiers_messages(session):
    _, out, _ = session
    assert "unknown predicate 'in'" in out and "unknown entity 'kitchen_tap'" in out


@pytest.mark.slow
def test_the_store_left_behind_holds_the_whole_session(session):
    _, out, directory = session
    with WorldModel.open(household(), directory / "world", rules=household_rules(), read_only=True) as model:
        records = [model.store.record(seq) for seq in range(1, model.last_seq + 1)]
        sources = [r.source for r in records]
        assert sources[0] == "import" and sources[1:3] == ["perception", "perception"]
        nl = [r for r in records if r.source == "nl"]
        assert len(nl) <= 2 and all(r.ref in ("utterance-1", "utterance-2") for r in nl)
        assert sources[-1] == "plan" and "valid: the" in out
        assert model.verifier.check_state(model.graph) == []
        assert "identical to the graph before the restart" in out
        assert model.graph.has_entity("red_mug")


@pytest.mark.parametrize("seed", [1, 2, 11])
def test_the_story_fits_other_houses(seed):
    out = io.StringIO()
    assert demo.main_job(seed=seed, fsync=False, steps=WITHOUT_LLM[:-1], out=out) == 0, out.getvalue()


@pytest.fixture
def scripted_llm(monkeypatch):
    """The scripted OpenAI-compatible server (a TEST DOUBLE for a paid API) as the LLM of this process and of the
    node processes it starts: it answers every call with JSON of no useful shape, so every NL update fails."""
    with ScriptedServer(default=reply('{"nothing": []}')) as server:
        monkeypatch.setenv("L3MP_LLM_PROVIDER", "compatible")
        monkeypatch.setenv("L3MP_LLM_BASE_URL", server.url)
        monkeypatch.setenv("L3MP_LLM_MODEL", "scripted")
        yield server


@pytest.mark.parametrize(("steps", "headers"), [(None, HEADERS), (demo.STEPS, IN_PROCESS_HEADERS)],
                         ids=["through-ros", "in-process"])
def test_both_paths_run_to_completion_when_the_llm_fails_every_update(tmp_path, scripted_llm, steps, headers):
    """The LLM fails every call; the main job's two updates are plain reports, read without it, and applied."""
    out = io.StringIO()
    assert demo.main_job(tmp_path, fsync=False, steps=steps, out=out) == 0, out.getvalue()
    text = out.getvalue()
    assert [text.index(h) for h in headers] == sorted(text.index(h) for h in headers)
    assert text.count("\napplied") == 2 and "LLM: compatible:scripted" in text
    assert not scripted_llm.requests, "a plain report was sent to the LLM"
    with WorldModel.open(household(), tmp_path / "world", rules=household_rules(), read_only=True) as model:
        sources = [model.store.record(seq).source for seq in range(1, model.last_seq + 1)]
        bathroom_light_on = model.graph.has_fact(Fact("light_on", ("overhead_light_4",)))
    assert sources[:3] == ["import", "perception", "perception"] and sources.count("nl") == 2
    assert sources[-1] == "plan" and not bathroom_light_on


def test_nodes_that_do_not_start_fail_the_job(tmp_path, monkeypatch, capsys):
    from l3mp.ros import launcher, session

    def unknown_domain(path, params):
        return launcher.write_params(path, {**params, "world_model": {**params["world_model"], "domain": "nowhere"}})

    monkeypatch.setattr(session, "START_S", 5.0)
    monkeypatch.setattr(session, "write_params", unknown_domain)
    assert demo.main_job(tmp_path, fsync=False, steps=demo.ros_steps()[:2], out=io.StringIO()) == 1
    err = capsys.readouterr().err
    assert "failed at step 2" in err and "no shipped domain named 'nowhere'" in err


def test_a_temporary_directory_is_removed_unless_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert demo.main_job(fsync=False, steps=demo.STEPS[:1], out=io.StringIO()) == 0
    assert list(tmp_path.iterdir()) == []
    out = io.StringIO()
    assert demo.main_job(fsync=False, keep=True, steps=demo.STEPS[:1], out=out) == 0
    [kept] = tmp_path.iterdir()
    assert (kept / "world" / "meta.json").exists() and str(kept) in out.getvalue()


def test_an_earlier_store_in_the_directory_is_moved_aside(tmp_path):
    for _ in range(2):
        assert demo.main_job(tmp_path, fsync=False, steps=demo.STEPS[:1], out=io.StringIO()) == 0
    assert sorted(p.name.split("-")[0] for p in tmp_path.iterdir()) == ["world", "world.old"]


def test_anything_unexpected_fails_the_job(tmp_path, capsys):
    def broken(session: demo.Session) -> None:
        session.world.apply(Delta.from_json({"add": [["nobody", "light_on", True]]}), source="user")

    assert demo.main_job(tmp_path, fsync=False, steps=(demo.import_house, broken), out=io.StringIO()) == 1
    assert "failed at step 1" in capsys.readouterr().err
