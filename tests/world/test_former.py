"""What held before: each change record's removals are recalled per entity (`WorldGraph.former_facts`), live, after
a restart from the journal, in copies, and not after an undone record; and "put X back in the fridge" with two
fridges settles on the one X came out of (requests and reports), where without that memory it asks which."""

from __future__ import annotations

import pytest

from l3mp.planning.request import GOAL, read_request
from l3mp.retrieval import make_retriever
from l3mp.updates import NLUpdater
from l3mp.updates.updater import APPLIED
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.graph import FORMER_KEPT
from l3mp.world.model import WorldModel
from l3mp.world.store import Store
from tests.helpers import F, house_model, household, household_rules
from tests.test_update_reading import _NoModel


def _two_fridges(model: WorldModel) -> WorldModel:
    """The small house with a second fridge, in the living room."""
    model.apply(Delta(add=(F("in_room", "fridge2", "living_room"),), entities={"fridge2": EntitySpec("fridge")}),
                source="import")
    return model


def test_a_removed_fact_is_recalled_for_each_argument_newest_first():
    model = house_model()
    model.apply(Delta(remove=(F("inside", "milk1", "fridge1"),), add=(F("on", "milk1", "counter1"),)),
                source="perception")
    model.apply(Delta(remove=(F("on", "milk1", "counter1"),), add=(F("on", "milk1", "table1"),)),
                source="perception")
    graph = model.graph
    assert graph.former_facts("milk1") == [F("on", "milk1", "counter1"), F("inside", "milk1", "fridge1")]
    assert graph.former_facts("fridge1") == [F("inside", "milk1", "fridge1")]
    assert graph.former_facts("milk1", predicate="inside") == [F("inside", "milk1", "fridge1")]
    assert graph.former_facts("book1") == []
    copy = graph.copy()
    model.apply(Delta(remove=(F("on", "milk1", "table1"),), add=(F("on", "milk1", "shelf1"),)), source="perception")
    assert copy.former_facts("milk1")[0] == F("on", "milk1", "counter1")  # a copy does not follow the original
    assert model.graph.former_facts("milk1")[0] == F("on", "milk1", "table1")


def test_only_the_newest_few_are_kept_per_entity():
    model = house_model()
    for n in range(2 * (FORMER_KEPT + 3)):  # lamp1 is on: every other change turns it off
        light = F("light_on", "lamp1")
        model.apply(Delta(remove=(light,)) if n % 2 == 0 else Delta(add=(light,)), source="perception")
    assert len(model.graph.former_facts("lamp1")) == FORMER_KEPT


def test_after_a_restart_the_journal_since_the_snapshot_is_recalled(tmp_path):
    model = house_model(store=Store(tmp_path, fsync=False))
    model.apply(Delta(remove=(F("inside", "milk1", "fridge1"),), add=(F("has", "alice", "milk1"),)),
                source="perception")
    model.close()
    with WorldModel.open(model.domain, tmp_path, rules=model.verifier.rules, fsync=False) as again:
        assert again.graph.former_facts("milk1") == [F("inside", "milk1", "fridge1")]
        assert again.graph.has_fact(F("has", "alice", "milk1"))


def test_a_record_undone_because_journaling_failed_is_not_recalled(tmp_path, monkeypatch):
    model = house_model(store=Store(tmp_path, fsync=False))

    def broken(records):
        raise OSError("disk full")

    monkeypatch.setattr(model.store, "append", broken)
    with pytest.raises(OSError):
        model.apply(Delta(remove=(F("inside", "milk1", "fridge1"),), add=(F("has", "alice", "milk1"),)),
                    source="perception")
    assert model.graph.has_fact(F("inside", "milk1", "fridge1"))
    assert model.graph.former_facts("milk1") == []


# ---- "back": the memory of where it was ------------------------------------------------------------------------
def _house7() -> WorldModel:
    """The main job's house (seed 7): fridges in kitchen 1, kitchen 2 and the garage; the ham in kitchen 2's."""
    from l3mp_sim.house import house_graph

    from l3mp.world.delta import state_delta

    world = WorldModel(household(), household_rules())
    world.apply(state_delta(household(), world.graph, house_graph(7), replace=True), source="import")
    return world


def _ham_to_kitchen_1(world: WorldModel) -> WorldModel:
    world.apply(Delta(remove=(F("inside", "ham_1", "fridge_2"),), add=(F("on", "ham_1", "kitchen_table_1"),)),
                source="perception")
    return world


def _request(model: WorldModel, text: str):
    return read_request(text, model.graph, model.domain, model.verifier.rules)


def test_put_it_back_in_the_fridge_is_the_fridge_it_came_out_of():
    world = _ham_to_kitchen_1(_house7())
    read = _request(world, "put the ham back in the fridge")
    assert read is not None and read.outcome == GOAL and read.goal == "(inside ham_1 fridge_2)", read
    # without "back": the fridge of the room it is in (kitchen 1), as before
    near = _request(world, "put the ham in the fridge")
    assert near is not None and near.goal == "(inside ham_1 fridge_1)", near


def test_where_the_memory_recalls_it_in_several_the_room_it_is_in_settles_it():
    world = _ham_to_kitchen_1(_house7())
    world.apply(Delta(remove=(F("on", "ham_1", "kitchen_table_1"),), add=(F("inside", "ham_1", "fridge_1"),)),
                source="perception")
    world.apply(Delta(remove=(F("inside", "ham_1", "fridge_1"),), add=(F("on", "ham_1", "kitchen_table_1"),)),
                source="perception")
    read = _request(world, "put the ham back in the fridge")  # it was in both kitchens' fridges: the nearer one
    assert read is not None and read.goal == "(inside ham_1 fridge_1)", read


@pytest.mark.parametrize(("text", "fridge"), [
    ("Jessica put the ham back in the fridge", "fridge_2"),  # the fridge it came out of (kitchen 2)
    ("Jessica put the ham in the fridge", "fridge_1"),  # no "back": the fridge of the room it is in (kitchen 1)
])
def test_a_report_of_putting_it_back_settles_the_fridge_too(text, fridge):
    world = _ham_to_kitchen_1(_house7())
    llm = _NoModel()
    result = NLUpdater(world, llm, make_retriever("search", llm=llm, domain=world.domain)).update(text)
    assert result.outcome == APPLIED, (result.outcome, result.reason, result.question)
    assert world.graph.has_fact(F("inside", "ham_1", fridge))
