"""Tests of the ``l3mp`` command (l3mp/cli.py), run in-process except for one real console run."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from unified_planning.io import PDDLReader

from l3mp import cli
from l3mp.domain import Domain, Fact
from l3mp.report import iso
from l3mp.world.delta import Delta
from l3mp.world.graph import WorldGraph
from l3mp.world.model import WorldModel
from l3mp.world.store import Store
from tests.helpers import DOMAIN_FILE, house_delta, household, household_rules

SEED = 3
EXPORT_PROBLEM = """
(define (problem tiny) (:domain household)
  (:objects kitchen hall - room  table1 - table  mug1 - dish  lamp1 - light)
  (:init (in_room the_robot kitchen) (hand_empty the_robot) (in_room table1 kitchen)
         (on mug1 table1) (in_room lamp1 hall) (light_on lamp1) (dirty mug1))
  (:goal (and)))
"""


@pytest.fixture(autouse=True)
def parse_the_domain_once(monkeypatch):
    """In-process runs reuse the parsed household domain (parsing it costs about half a second)."""
    parse, parsed = Domain.from_file.__func__, household()

    def from_file(cls, path):
        return parsed if Path(path).resolve() == DOMAIN_FILE.resolve() else parse(cls, path)

    monkeypatch.setattr(Domain, "from_file", classmethod(from_file))


class Run:
    """Calls ``l3mp --store <store> --no-fsync ...`` in-process and keeps what it printed."""

    def __init__(self, capsys, store: Path) -> None:
        self.capsys, self.store = capsys, store
        self.out = self.err = ""

    def __call__(self, *argv: str, store: bool = True) -> int:
        prefix = ["--store", str(self.store), "--no-fsync"] if store else []
        code = cli.main([*prefix, *argv])
        self.out, self.err = self.capsys.readouterr()
        return code


@pytest.fixture
def run(capsys, tmp_path) -> Run:
    return Run(capsys, tmp_path / "world")


@pytest.fixture(scope="module")
def house_template(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("template") / "world"
    assert cli.main(["--store", str(path), "--no-fsync", "init", "--house", str(SEED)]) == 0
    return path


@pytest.fixture
def house(run, house_template) -> Run:
    """`run` on a copy of a store initialised with the generated house."""
    shutil.copytree(house_template, run.store)
    return run


def open_store(path: Path) -> WorldModel:
    return WorldModel.open(household(), path, rules=household_rules(), read_only=True)


def graph_of(path: Path) -> WorldGraph:
    with open_store(path) as model:
        return model.graph


def graph_on_disk(path: Path) -> dict:
    with open_store(path) as model:
        return {"graph": model.graph.to_json(), "last_seq": model.last_seq}


def write_json(path: Path, data: object) -> str:
    path.write_text(json.dumps(data))
    return str(path)


def a_light(path: Path, *, on: bool) -> str:
    with open_store(path) as model:
        graph = model.graph
        return sorted(n for n in graph.entities()
                      if graph.entity_type(n) == "light" and graph.has_fact(Fact("light_on", (n,))) == on)[0]


def parse_problem(text: str):
    return PDDLReader().parse_problem_string(DOMAIN_FILE.read_text(), text)


def true_atoms(problem) -> set[str]:
    """The true initial atoms of a unified-planning problem, as ``light_on(lamp1)``."""
    return {str(atom) for atom, value in problem.initial_values.items() if value.is_true()}


# ---- init -----------------------------------------------------------------------------------
def test_init_from_a_house_is_one_verified_import_record(house):
    with open_store(house.store) as model:
        record = model.store.record(1)
        assert model.last_seq == 1
        assert (record.source, record.input) == ("import", f"generated house seed={SEED} scale=1.0")
        assert model.verifier.check_state(model.graph) == []
        assert model.graph.entity_count() > 50
        assert model.graph.entity_attrs("the_robot")["type"] == "robot"


def test_init_prints_the_record_and_counts(run):
    assert run("init", "--house", "1", "--scale", "0.5") == 0
    assert "#1" in run.out and "import" in run.out and "seed=1 scale=0.5" in run.out
    assert "entities" in run.out and "facts" in run.out


def test_init_refuses_a_store_with_records_unless_forced(house):
    before = graph_on_disk(house.store)
    assert house("init", "--house", "4") == 1
    assert "--force" in house.err and "Traceback" not in house.err
    assert graph_on_disk(house.store) == before
    assert house("init", "--house", "4", "--force") == 0
    aside = Path(house.out.split("moved the old store aside to ")[1].splitlines()[0])
    assert graph_on_disk(aside) == before
    with open_store(house.store) as model:
        assert model.last_seq == 1 and "seed=4" in model.store.record(1).input


def test_init_refuses_a_directory_that_is_not_a_store(run):
    run.store.mkdir()
    (run.store / "notes.txt").write_text("mine")
    assert run("init", "--house", "1", "--force") == 1
    assert "not an l3mp store" in run.err
    assert (run.store / "notes.txt").exists()


def test_init_from_a_pddl_problem(run, tmp_path):
    problem = tmp_path / "tiny.pddl"
    problem.write_text(EXPORT_PROBLEM)
    assert run("init", "--problem", str(problem)) == 0
    with open_store(run.store) as model:
        assert Fact("on", ("mug1", "table1")) in model.graph
        assert model.graph.fact_count() == 7
        assert model.store.record(1).input == f"PDDL problem {problem}"


def test_init_from_graph_json_round_trips_an_export(house, tmp_path):
    out = tmp_path / "graph.json"
    assert house("export", "--out", str(out)) == 0
    other = Run(house.capsys, tmp_path / "other")
    assert other("init", "--graph", str(out)) == 0
    assert graph_of(other.store) == graph_of(house.store)


def test_init_of_an_invalid_state_is_rejected_and_writes_no_record(run, tmp_path):
    graph = {"format": "l3mp.graph/1",
             "entities": {"kitchen": {"type": "room"}, "mug": {"type": "dish"}, "the_robot": {"type": "robot"}},
             "facts": [["the_robot", "in_room", "kitchen"], ["the_robot", "hand_empty", True]]}
    assert run("init", "--graph", write_json(tmp_path / "g.json", graph)) == 1
    assert "delta rejected" in run.err and "'mug' would have 0 fact(s)" in run.err
    assert not run.store.exists()  # a failed init leaves no store behind (issue 17)


@pytest.mark.parametrize("argv", [["init"], ["init", "--scale", "2", "--graph", "x.json"],
                                  ["init", "--house", "1", "--problem", "p.pddl"]])
def test_init_usage_errors(run, argv):
    assert run(*argv) == 2
    assert run.err.count("\n") == 1 and "error" in run.err


# ---- reading --------------------------------------------------------------------------------
def test_show_summarises_and_groups_facts_by_entity(house):
    assert house("show") == 0
    lines = house.out.splitlines()
    assert lines[0].startswith("domain:   household")
    assert any(line.startswith("last:     #1") and "import" in line for line in lines)
    robot = lines.index("the_robot (robot)")
    assert "    hand_empty" in lines[robot + 1:robot + 3]


def test_show_json_is_the_graph(house):
    assert house("show", "--json") == 0
    assert WorldGraph.from_json(json.loads(house.out)) == graph_of(house.store)


def test_facts_filters(house):
    assert house("facts", "--entity", "the_robot") == 0
    assert "(hand_empty the_robot)" in house.out.splitlines()
    assert house("facts", "--predicate", "in_room", "--type", "person") == 0
    assert house.out and all(line.startswith("(in_room ") for line in house.out.splitlines())
    assert house("facts", "--predicate", "light_on", "--json") == 0
    assert all(t[1:] == ["light_on", True] for t in json.loads(house.out))


@pytest.mark.parametrize(("argv", "hint"), [(["facts", "--predicate", "lite_on"], "closest predicates: light_on"),
                                            (["facts", "--type", "lights"], "closest types: light"),
                                            (["facts", "--entity", "the_robt"], "closest entities: the_robot"),
                                            (["entities", "--type", "lightt"], "closest types: light")])
def test_unknown_names_are_usage_errors_with_suggestions(house, argv, hint):
    assert house(*argv) == 2
    assert hint in house.err and house.err.count("\n") == 1


def test_entities_by_type(house):
    assert house("entities", "--type", "fixture") == 0
    types = {line.split()[1] for line in house.out.splitlines()}
    assert types and types <= {"table", "counter", "shelf", "sink", "fridge", "cupboard", "dishwasher", "light",
                               "faucet", "tv"}
    assert house("entities", "--json") == 0
    assert json.loads(house.out)["the_robot"]["type"] == "robot"


def test_check_passes_on_a_valid_store(house):
    assert house("check") == 0
    assert house.out.startswith("ok:")


def test_reading_a_missing_store_says_how_to_create_one(run):
    assert run("show") == 1
    assert "no store at" in run.err and "l3mp init" in run.err


def test_global_options_may_follow_the_subcommand(house, capsys):
    assert cli.main(["facts", "--entity", "the_robot", "--store", str(house.store)]) == 0
    assert "(hand_empty the_robot)" in capsys.readouterr().out


def test_store_defaults_to_l3mp_store_then_xdg_data_home(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("L3MP_STORE", str(tmp_path / "env"))
    assert cli.main(["--no-fsync", "init", "--house", "1"]) == 0
    assert (tmp_path / "env" / "meta.json").exists()
    monkeypatch.delenv("L3MP_STORE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert cli.main(["--no-fsync", "init", "--house", "1"]) == 0
    assert (tmp_path / "xdg" / "l3mp" / "world" / "meta.json").exists()


# ---- apply ----------------------------------------------------------------------------------
def test_apply_accepted_prints_and_journals_the_record(house, tmp_path):
    light = a_light(house.store, on=True)
    delta = write_json(tmp_path / "d.json", {"remove": [[light, "light_on", True]]})
    assert house("apply", delta, "--source", "nl", "--input", "lights off", "--ref", "u1") == 0
    assert house.out.splitlines()[0].startswith("#2") and f"- (light_on {light})" in house.out
    with open_store(house.store) as model:
        record = model.store.record(2)
        assert (record.source, record.input, record.ref) == ("nl", "lights off", "u1")
        assert Fact("light_on", (light,)) not in model.graph


def test_apply_rejected_prints_every_violation_and_changes_nothing(house, tmp_path):
    before = graph_on_disk(house.store)
    delta = write_json(tmp_path / "d.json", {"add": [["the_robot", "in", "kitchen_1"], ["lamp_9", "light_on", True]]})
    assert house("apply", delta, "--source", "nl") == 1
    assert "delta rejected (2 problem(s))" in house.err
    assert "unknown predicate 'in'" in house.err and "unknown entity 'lamp_9'" in house.err
    assert graph_on_disk(house.store) == before


def test_apply_dry_run_shows_the_effective_delta_and_changes_nothing(house, tmp_path):
    before = graph_on_disk(house.store)
    light = a_light(house.store, on=False)
    delta = write_json(tmp_path / "d.json", {"add": [[light, "light_on", True]]})
    assert house("apply", delta, "--dry-run") == 0
    assert "would change" in house.out and f"+ (light_on {light})" in house.out
    assert graph_on_disk(house.store) == before


def test_apply_reads_stdin(house, monkeypatch):
    light = a_light(house.store, on=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"add": [[light, "light_on", True]]})))
    assert house("apply", "-") == 0
    assert f"+ (light_on {light})" in house.out


def test_applying_a_fact_that_already_holds_makes_no_record(house, tmp_path):
    light = a_light(house.store, on=True)
    assert house("apply", write_json(tmp_path / "d.json", {"add": [[light, "light_on", True]]})) == 0
    assert "no change" in house.out
    assert graph_on_disk(house.store)["last_seq"] == 1


@pytest.mark.parametrize(("text", "message"), [
    ('{"add": [', "is not valid JSON: Expecting value at line 1 column 10"),
    ('{"added": []}', "unknown delta key(s) ['added']"),
    ('{"add": [["a", "on"]]}', "'add'[0]: a triplet must be a list"),
    ('[1, 2]', "a delta must be a JSON object"),
])
def test_malformed_deltas_are_usage_errors(house, tmp_path, text, message):
    before = graph_on_disk(house.store)
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert house("apply", str(path)) == 2
    assert message in house.err and house.err.count("\n") == 1
    assert graph_on_disk(house.store) == before


def test_a_missing_input_file_is_a_usage_error(house, tmp_path):
    assert house("apply", str(tmp_path / "nope.json")) == 2
    assert "cannot read" in house.err and "No such file" in house.err


# ---- perceive -------------------------------------------------------------------------------
def test_perceive_one_batch(house, tmp_path):
    light = a_light(house.store, on=False)
    batch = {"observation_id": "cam-1", "triplets": [[light, "light_on", True]]}
    assert house("perceive", write_json(tmp_path / "p.json", batch)) == 0
    assert "batch 1 (cam-1): #2" in house.out and f"+ (light_on {light})" in house.out


def test_perceive_a_list_of_batches_each_on_top_of_the_one_before(house, tmp_path):
    with open_store(house.store) as model:
        surfaces = sorted(n for n in model.graph.entities() if model.domain.is_subtype(
            model.graph.entity_type(n), "surface"))
    batches = [
        {"observation_id": "cam-1", "entities": {"red_mug": {"type": "dish", "label": "red mug"}},
         "triplets": [["red_mug", "on", surfaces[0]]]},
        {"observation_id": "cam-2", "triplets": [["red_mug", "on", surfaces[1]]]},
    ]
    assert house("perceive", write_json(tmp_path / "p.json", batches)) == 0
    assert "batch 1 (cam-1): #2" in house.out and "batch 2 (cam-2): #3" in house.out
    with open_store(house.store) as model:
        assert set(model.graph.facts(entity="red_mug")) == {Fact("on", ("red_mug", surfaces[1]))}
        assert model.graph.entity_attrs("red_mug")["label"] == "red mug"


def test_a_rejected_batch_does_not_stop_the_others(house, tmp_path):
    light = a_light(house.store, on=False)
    batches = [{"observation_id": "bad", "triplets": [["ghost_1", "light_on", True]]},
               {"observation_id": "both", "triplets": [[light, "light_on", True], [light, "light_on", False]]},
               {"observation_id": "good", "triplets": [[light, "light_on", True]]}]
    assert house("perceive", write_json(tmp_path / "p.json", batches)) == 1
    assert "batch 1 (bad): rejected" in house.err and "unknown entity 'ghost_1'" in house.err
    assert "batch 2 (both): rejected" in house.err and "both true and false" in house.err
    assert "batch 3 (good): #2" in house.out


def test_malformed_perception_names_the_batch(house, tmp_path):
    assert house("perceive", write_json(tmp_path / "p.json", [{"triplets": []}, {"seen": []}])) == 2
    assert "batch 2: unknown perception key(s) ['seen']" in house.err


# ---- import ---------------------------------------------------------------------------------
def test_import_merges_the_facts_among_the_files_entities(house, tmp_path):
    with open_store(house.store) as model:
        graph = model.graph
        item = sorted(f.args[0] for f in graph.facts(predicate="on"))[0]
        place = next(iter(graph.facts(predicate="on", entity=item))).args[1]
        other = sorted(f.args[0] for f in graph.facts(predicate="in_room")
                       if graph.entity_type(f.args[0]) == "shelf" and f.args[0] != place)[0]
        before = graph.fact_count()
    part = graph.subgraph({item, place, other})
    part.remove_fact(Fact("on", (item, place)))
    part.add_fact(Fact("on", (item, other)))
    assert house("import", write_json(tmp_path / "part.json", part.to_json())) == 0
    assert f"- (on {item} {place})" in house.out and f"+ (on {item} {other})" in house.out
    with open_store(house.store) as model:
        assert model.graph.fact_count() == before
        assert model.store.record(2).source == "import"
    assert house("import", str(tmp_path / "part.json")) == 0
    assert "no change" in house.out


def test_import_replace_makes_the_store_hold_exactly_the_file(house, tmp_path):
    problem = tmp_path / "tiny.pddl"
    problem.write_text(EXPORT_PROBLEM)
    assert house("import", str(problem), "--replace") == 0
    with open_store(house.store) as model:
        assert set(model.graph.entities()) == {"kitchen", "hall", "table1", "mug1", "lamp1", "the_robot"}
        assert model.graph.fact_count() == 7


def test_import_of_an_unknown_kind_of_file_is_a_usage_error(house, tmp_path):
    (tmp_path / "state.txt").write_text("x")
    assert house("import", str(tmp_path / "state.txt")) == 2
    assert "*.pddl" in house.err


# ---- export ---------------------------------------------------------------------------------
def test_export_pddl_of_the_whole_graph_parses(house):
    assert house("export", "--goal", "(and (light_on overhead_light_1))") == 0
    problem = parse_problem(house.out)
    assert len(problem.all_objects) == graph_of(house.store).entity_count()  # the_robot is a constant
    assert "light_on" in str(problem.goals)


def test_export_pddl_of_a_subgraph(house):
    assert house("export", "--entity", "the_robot", "--depth", "1") == 0
    problem = parse_problem(house.out)
    graph = graph_of(house.store)
    around = graph.neighborhood(["the_robot"], 1)
    assert {o.name for o in problem.all_objects} == around
    assert true_atoms(problem) == {f"{f.predicate}({', '.join(f.args)})" for f in graph.facts_within(around)}


def test_export_json_of_a_subgraph_to_a_file(house, tmp_path):
    out = tmp_path / "part.json"
    assert house("export", "--entity", "kitchen_1", "--depth", "2", "--out", str(out)) == 0
    part = WorldGraph.from_json(json.loads(out.read_text()))
    with open_store(house.store) as model:
        around = model.graph.neighborhood(["kitchen_1"], 2)
        assert set(part.entities()) == around
        assert set(part.facts()) == model.graph.facts_within(around)


def test_export_json_with_a_goal_is_a_usage_error(house):
    assert house("export", "--format", "json", "--goal", "(and)") == 2


# ---- history --------------------------------------------------------------------------------
class Clock:
    """A fake clock for WorldModel: returns `now`, which the test sets."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def timed(run) -> Run:
    """A store with records at t=1000 (import), 2000 (nl: lamp1 off), 3000 (plan: robot moves)."""
    clock = Clock()
    model = WorldModel(household(), household_rules(), store=Store(run.store, fsync=False), clock=clock)
    with model:
        model.apply(house_delta(), source="import", input="small house")
        clock.now = 2000.0
        model.apply(Delta.from_json({"remove": [["lamp1", "light_on", True]]}), source="nl",
                    input="Alice turned off the lamp", ref="u1")
        clock.now = 3000.0
        model.apply(Delta.from_json({"remove": [["the_robot", "in_room", "kitchen"]],
                                     "add": [["the_robot", "in_room", "living_room"]]}),
                    source="plan", input="(move the_robot kitchen living_room)", ref="task-1")
    return run


def records_listed(out: str) -> list[int]:
    return [int(line.split()[0][1:]) for line in out.splitlines() if line.startswith("#")]


@pytest.mark.parametrize(("argv", "seqs"), [
    ([], [1, 2, 3]),
    (["--since", "1500"], [2, 3]),
    (["--until", "2500"], [1, 2]),
    (["--since", iso(2000), "--until", iso(2000)], [2]),
    (["--source", "plan"], [3]),
    (["--entity", "lamp1"], [1, 2]),
    (["--since", "-1d"], []),
])
def test_history_changes_in_a_window(timed, argv, seqs):
    assert timed("history", "changes", *argv) == 0
    assert records_listed(timed.out) == seqs


def test_history_changes_json_is_the_records(timed):
    assert timed("history", "changes", "--since", "1500", "--json") == 0
    records = json.loads(timed.out)
    assert [(r["seq"], r["source"], r["time"]) for r in records] == [(2, "nl", 2000.0), (3, "plan", 3000.0)]
    assert records[0]["delta"] == {"remove": [["lamp1", "light_on", True]]}


def test_history_entity_says_when_and_why_each_fact_became_true(timed):
    assert timed("history", "entity", "the_robot") == 0
    lines = timed.out.splitlines()
    moved = lines.index("(in_room the_robot living_room)")
    assert lines[moved + 1] == (f"    since {iso(3000)}: record #3, plan \"(move the_robot kitchen living_room)\""
                                " [task-1]")
    hand = lines.index("(hand_empty the_robot)")
    assert lines[hand + 1].startswith(f"    since {iso(1000)}: record #1, import \"small house\"")


def test_history_at_gives_the_graph_of_that_time(timed):
    assert timed("history", "at", "1500", "--json") == 0
    then = WorldGraph.from_json(json.loads(timed.out))
    assert Fact("light_on", ("lamp1",)) in then and Fact("in_room", ("the_robot", "kitchen")) in then
    assert timed("history", "at", iso(2500), "--pddl") == 0
    atoms = true_atoms(parse_problem(timed.out))
    assert "light_on(lamp1)" not in atoms and "in_room(the_robot, kitchen)" in atoms
    assert timed("history", "at", "2500") == 0
    assert timed.out.startswith(f"the graph at {iso(2500)} (after record #2)")


def test_bad_times_are_usage_errors(timed):
    assert timed("history", "at", "last tuesday") == 2
    assert "ISO 8601" in timed.err and timed.err.count("\n") == 1


@pytest.mark.parametrize(("text", "expected"), [
    ("-10m", 10_000 - 600), ("-2h", 10_000 - 7200), ("-1d", 10_000 - 86400), ("-30s", 9970), ("-1.5h", 4600),
    ("1234.5", 1234.5), ("1970-01-01T01:00:00+00:00", 3600), ("1970-01-01T02:00+01:00", 3600),
])
def test_parse_time(text, expected):
    assert cli.parse_time(text, 10_000) == expected


# ---- render, bench, usage -------------------------------------------------------------------
def test_render_png_and_svg(house, tmp_path):
    png, svg = tmp_path / "kitchen.png", tmp_path / "kitchen.svg"
    assert house("render", str(png), "--entity", "kitchen_1") == 0
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and f"wrote {png}" in house.out
    assert house("render", str(svg), "--entity", "kitchen_1", "--depth", "1") == 0
    assert ET.parse(svg).getroot().tag.endswith("svg")


def test_render_refuses_a_huge_graph(house, tmp_path):
    assert house("render", str(tmp_path / "all.png"), "--max-nodes", "20") == 1
    assert "--entity NAME --depth N" in house.err and house.err.count("\n") == 1
    assert not (tmp_path / "all.png").exists()
    assert house("render", str(tmp_path / "all.jpg")) == 2


def test_bench_delegates_to_the_benchmark_runner(run, monkeypatch):
    import l3mp.bench

    calls = []
    monkeypatch.setattr(l3mp.bench, "run", lambda suites, *, quick, json_path: calls.append((suites, quick,
                                                                                             json_path)) or 0)
    assert run("bench", "graph", "--quick", "--json", "out.json") == 0
    assert calls == [(["graph"], True, "out.json")]


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["history"], ["apply"], ["render", "x.png", "--depth", "two"]])
def test_usage_errors_are_one_line_and_exit_2(run, argv):
    assert run(*argv, store=False) == 2
    assert run.err.count("\n") == 1 and run.err.startswith("l3mp")


def test_help_exits_0(run):
    assert run("--help", store=False) == 0
    assert "history" in run.out and "render" in run.out


def test_the_console_entry_runs_as_a_real_process(tmp_path):
    store = tmp_path / "world"
    result = subprocess.run([sys.executable, "-m", "l3mp.cli", "--store", str(store), "--no-fsync", "init",
                             "--house", "2"], capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    assert "created store" in result.stdout and result.stderr == ""
    assert graph_on_disk(store)["last_seq"] == 1


@pytest.mark.parametrize(("flag", "in_process"), [([], False), (["--in-process"], True)])
def test_demo_runs_through_the_nodes_unless_told_to_stay_in_process(monkeypatch, flag, in_process):
    """The CLI only routes: which step list `l3mp demo` hands to the main job (the job itself is tested in
    tests/test_demo.py; the main job is replaced here by a recorder, so nothing runs)."""
    from l3mp import demo

    calls = []
    monkeypatch.setattr(demo, "main_job", lambda *args, **kwargs: calls.append(kwargs) or 0)
    assert cli.main(["demo", "--seed", "3", *flag]) == 0
    [kwargs] = calls
    assert kwargs["seed"] == 3
    assert (kwargs["steps"] is demo.STEPS) is in_process
    assert (kwargs["steps"] is None) is not in_process
