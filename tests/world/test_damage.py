"""Damage containment in the world model: a damaged record costs itself and what depends on it, never the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from l3mp.errors import StoreError
from l3mp.world.delta import Delta
from l3mp.world.model import WorldModel
from l3mp.world.store import acknowledge_damage
from tests.helpers import F, house_delta, household, verifier

CHANGES = [  # records 2..7 after the house (record 1)
    Delta(add=(F("light_on", "lamp2"),)),
    Delta(add=(F("tv_on", "tv1"),)),
    Delta(remove=(F("on", "book1", "table1"),), add=(F("on", "book1", "shelf1"),)),  # 4: the one damaged
    Delta(remove=(F("dirty", "mug1"),)),
    Delta(remove=(F("on", "book1", "shelf1"),), add=(F("on", "book1", "counter1"),)),  # 6: depends on 4
    Delta(remove=(F("inside", "milk1", "fridge1"),), add=(F("on", "milk1", "counter1"),)),
]


def canonical(graph_json: dict) -> tuple:
    """Everything a graph JSON says, independent of the order of its facts."""
    facts = sorted(zip((json.dumps(f) for f in graph_json["facts"]), graph_json["since"], strict=True))
    return graph_json["entities"], facts


def build(path: Path, **options) -> dict:
    """A store of the house and CHANGES; the graph JSON after each record (index = record number)."""
    graphs = {}
    with WorldModel.open(household(), path, fsync=False, **options) as model:
        model.apply(house_delta(), source="import")
        graphs[1] = canonical(model.graph.to_json())
        for delta in CHANGES:
            seq = model.apply(delta, source="nl").seq
            graphs[seq] = canonical(model.graph.to_json())
    return graphs


def damage_record(path: Path, seq: int, *, changes: int) -> None:
    """Change `changes` bytes of record `seq`'s payload (one: repairable; two: not)."""
    for segment in sorted(path.glob("journal-*.log")):
        data = bytearray(segment.read_bytes())
        at = data.find(b'{"seq":%d,' % seq)
        if at >= 0:
            for i in range(changes):
                data[at + 20 + 15 * i] ^= 0x01
            segment.write_bytes(bytes(data))
            return
    raise AssertionError(f"record {seq} not found")


def test_a_damaged_record_costs_only_itself_and_the_records_that_depended_on_it(tmp_path: Path) -> None:
    build(tmp_path)
    damage_record(tmp_path, 4, changes=2)
    with WorldModel.open(household(), tmp_path, fsync=False) as model:
        graph = model.graph
        assert model.last_seq == 7 and model.held == [6]
        assert graph.has_fact(F("on", "book1", "table1")) and not graph.has_fact(F("on", "book1", "counter1"))
        assert graph.has_fact(F("tv_on", "tv1")) and not graph.has_fact(F("dirty", "mug1"))  # 3 and 5 kept
        assert graph.has_fact(F("on", "milk1", "counter1"))  # 7 kept: it did not depend on 4
        assert verifier().check_state(graph) == []
        [damage] = model.damage()
        assert damage.lost == range(4, 5) and any("held back" in w and "#6" in w for w in model.warnings)
        assert model.apply(Delta(add=(F("light_on", "lamp1"),)) if not graph.has_fact(F("light_on", "lamp1"))
                           else Delta(remove=(F("light_on", "lamp1"),)), source="nl").seq == 8  # never #4 again
        after = model.graph.to_json()
    with WorldModel.open(household(), tmp_path, fsync=False) as again:  # the same graph every time
        assert canonical(again.graph.to_json()) == canonical(after) and again.last_seq == 8 and again.held == [6]


def test_one_changed_byte_costs_nothing(tmp_path: Path) -> None:
    graphs = build(tmp_path)
    damage_record(tmp_path, 4, changes=1)
    with WorldModel.open(household(), tmp_path, fsync=False) as model:
        assert canonical(model.graph.to_json()) == graphs[7] and model.held == []
        [damage] = model.damage()
        assert damage.repaired and damage.lost == range(0)


def test_a_snapshot_after_the_damage_is_the_starting_point(tmp_path: Path) -> None:
    graphs = build(tmp_path, snapshot_every=3)  # snapshots after records 3 and 6, three segments
    assert len(list(tmp_path.glob("journal-*.log"))) == 3
    damage_record(tmp_path, 2, changes=2)
    with WorldModel.open(household(), tmp_path, fsync=False) as model:
        assert canonical(model.graph.to_json()) == graphs[7] and model.held == [] and model.last_seq == 7
        assert [d.lost for d in model.damage()] == [range(2, 3)]
        assert sorted(p.name for p in tmp_path.iterdir() if ".corrupt" in p.name or ".torn" in p.name) == []


def test_history_replays_across_damage_as_recovery_does(tmp_path: Path) -> None:
    build(tmp_path)
    damage_record(tmp_path, 4, changes=2)
    with WorldModel.open(household(), tmp_path, fsync=False) as model:
        times = {r.seq: r.time for r in model.store.records()}
        assert 4 not in times
        past = model.history.graph_at(times[7])
        assert canonical(past.to_json()) == canonical(model.graph.to_json())


def test_damage_is_reported_until_a_person_acknowledges_it(tmp_path: Path) -> None:
    build(tmp_path)
    damage_record(tmp_path, 4, changes=2)
    with WorldModel.open(household(), tmp_path, fsync=False, read_only=True) as model:
        keys = [d.key for d in model.damage()]
        assert len(keys) == 1
    acknowledge_damage(tmp_path, keys)
    with WorldModel.open(household(), tmp_path, fsync=False) as model:
        assert model.damage() == [] and model.held == [6]  # acknowledged: still held, no longer reported


def test_a_journal_without_meta_json_is_refused(tmp_path: Path) -> None:
    build(tmp_path)
    (tmp_path / "meta.json").unlink()
    with pytest.raises(StoreError, match=r"meta\.json is missing.*records 1\.\.7"):
        WorldModel.open(household(), tmp_path, fsync=False)
