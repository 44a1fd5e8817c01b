"""The operations questions run: facts with their records, neighbours, paths, history, the past, selections."""

from __future__ import annotations

import pytest

from l3mp.domain.triplets import Fact
from l3mp.questions import Memory, Selection
from tests.helpers import household, household_rules
from tests.questions.support import at, episode


@pytest.fixture
def memory(tmp_path):
    world = episode(tmp_path / "store")
    yield Memory(world.graph, household(), household_rules(), world.history)
    world.close()


def test_facts_of_names_the_record_that_made_each_fact_true(memory):
    stories = {s.fact: s for s in memory.facts_of("grey_mug_1")}
    placed = stories[Fact("on", ("grey_mug_1", "kitchen_table_1"))]
    assert (placed.seq, placed.time, placed.source) == (4, at(31), "nl")
    assert placed.input.startswith("The fridge was shut")
    assert stories[Fact("dirty", ("grey_mug_1",))].seq == 1


def test_neighbours_grow_with_depth_and_stop_at_the_cap(memory):
    one, two = memory.neighbours("grey_mug_1", 1), memory.neighbours("grey_mug_1", 2)
    assert one == {"kitchen_table_1"}
    assert {"kitchen_1", "plate_1"} <= two and one < two
    assert memory.neighbours("grey_mug_1", 99) == memory.neighbours("grey_mug_1", 3)


def test_path_follows_facts_between_two_entities(memory):
    chain = memory.path("grey_mug_1", "jessica")
    assert chain[0] == Fact("on", ("grey_mug_1", "kitchen_table_1"))
    assert chain[-1] == Fact("in_room", ("jessica", "kitchen_1"))
    assert memory.path("grey_mug_1", "grey_mug_1") == []
    assert memory.path("grey_mug_1", "no_such_thing") is None


def test_history_of_lists_the_records_that_touched_an_entity(memory):
    assert [r.seq for r in memory.history_of("grey_mug_1")] == [1, 2, 4]
    assert [r.seq for r in memory.history_of("fridge_1")] == [1, 3, 4]


def test_the_memory_at_a_time_is_the_graph_as_it_was_then(memory):
    then = memory.at(at(25))
    assert then.seq == 3 and then.time == at(25)
    assert then.graph.has_fact(Fact("is_open", ("fridge_1",)))
    assert then.place("grey_mug_1") == "dishwasher_1"
    assert [r.seq for r in then.history_of("grey_mug_1")] == [1, 2]
    assert memory.place("grey_mug_1") == "kitchen_table_1"


def test_select_by_type_state_and_place(memory):
    on = memory.select(Selection("light", "light_on"))
    assert "overhead_light_1" in on and set(on) == {
        n for n in memory.graph.entities() if memory.graph.has_fact(Fact("light_on", (n,)))}
    assert memory.select(Selection("item", place="kitchen_table_1")) == ["grey_mug_1", "plate_1", "red_glass_1"]
    dishes = memory.select(Selection("dish"))
    in_kitchen = memory.select(Selection("dish", place="kitchen_1"))
    assert "grey_mug_1" in in_kitchen and len(in_kitchen) < len(dishes)
    assert in_kitchen == [d for d in dishes if memory.room(d) == "kitchen_1"]


def test_where_a_thing_is_up_to_its_room(memory):
    assert memory.location("grey_mug_1") == Fact("on", ("grey_mug_1", "kitchen_table_1"))
    assert memory.room("grey_mug_1") == "kitchen_1"
    assert memory.room("jessica") == "kitchen_1"
    assert memory.room("kitchen_1") is None and memory.location("kitchen_1") is None
