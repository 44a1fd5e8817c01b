"""The common question forms, answered without an LLM, with the facts and records they rest on, or declined."""

from __future__ import annotations

import pytest

from l3mp.domain.triplets import Fact
from l3mp.errors import FormatError
from l3mp.questions import ANSWERED, DECLINED, QuestionAnswerer
from tests.helpers import household, household_rules
from tests.questions.support import NOW, at, episode


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    model = episode(tmp_path_factory.mktemp("q") / "store")
    yield model
    model.close()


@pytest.fixture(scope="module")
def ask(world):
    answerer = QuestionAnswerer(household(), household_rules())
    return lambda question: answerer.ask_world(world, question, now=NOW)


def test_where_names_the_place_and_the_record_with_its_sentence(ask):
    answer = ask("Where is the grey mug?")
    assert (answer.status, answer.kind, answer.entities) == (ANSWERED, "where", ("kitchen_table_1",))
    placed = next(s for s in answer.facts if s.fact == Fact("on", ("grey_mug_1", "kitchen_table_1")))
    assert (placed.seq, placed.time) == (4, at(31))
    assert "record #4 at 08:31" in answer.text and "the grey mug is on the kitchen table now" in answer.text
    assert 4 in answer.cited_records() and answer.via == "symbolic" and answer.ledger.total_tokens == 0


def test_which_room_follows_the_place_to_its_room(ask):
    answer = ask("Which room is the grey mug in?")
    assert answer.entities == ("kitchen_1",)
    assert {s.fact for s in answer.facts} >= {Fact("on", ("grey_mug_1", "kitchen_table_1")),
                                              Fact("in_room", ("kitchen_table_1", "kitchen_1"))}


def test_since_when_is_the_time_of_the_record_that_made_it_so(ask):
    answer = ask("Since when has the grey mug been on the kitchen table?")
    assert (answer.status, answer.time) == (ANSWERED, at(31))
    light = ask("How long has the overhead light in the kitchen been on?")
    assert (light.status, light.time) == (ANSWERED, at(40))


def test_since_when_declines_for_what_held_before_the_history_began(ask):
    answer = ask("Since when is the plate on the kitchen table?")
    assert answer.status == DECLINED and "since my memory began" in answer.text


def test_when_was_it_last_opened(ask):
    answer = ask("When was the fridge last opened?")
    assert (answer.status, answer.time, answer.cited_records()) == (ANSWERED, at(20), [3])
    closed = ask("When was the fridge closed?")
    assert closed.time == at(31)


def test_who_did_it_is_the_person_the_record_names(ask):
    answer = ask("Who opened the fridge?")
    assert (answer.status, answer.entities, answer.time) == (ANSWERED, ("jessica",), at(20))
    assert ask("Who turned on the light in the kitchen?").entities == ("sarah",)


def test_who_did_it_declines_when_the_record_names_nobody(ask):
    answer = ask("Who moved the grey mug?")
    assert answer.status == DECLINED
    assert "does not say who" in answer.text and answer.cited_records() == [4]


def test_yes_no_on_states_and_places(ask):
    assert ask("Is the fridge open?").yes is False
    assert ask("Is the overhead light in the kitchen on?").yes is True
    assert ask("Is the grey mug dirty?").yes is True
    assert ask("Is the grey mug in the dishwasher?").yes is False
    assert ask("Is the grey mug on the kitchen table?").yes is True
    assert ask("Is Jessica in the kitchen?").yes is True


def test_a_question_about_a_time_works_on_the_graph_as_it_was_then(ask):
    answer = ask("Was the fridge open at 08:25?")
    assert (answer.yes, answer.at, answer.cited_records()) == (True, at(25), [3])
    where = ask("Where was the grey mug at 8:15 am?")
    assert where.entities == ("dishwasher_1",) and where.text.startswith("At 08:15")


def test_counts_filter_by_type_state_and_place(ask, world):
    graph = world.graph
    dirty = sorted(n for n in graph.entities() if graph.has_fact(Fact("dirty", (n,))))
    answer = ask("How many dirty dishes are there?")
    assert (answer.count, answer.entities) == (len(dirty), tuple(dirty))
    assert ask("How many things are on the kitchen table?").count == 3
    assert ask("How many people are in the kitchen?").entities == ("jessica",)
    lights = ask("How many lights are on?")
    assert "overhead_light_1" in lights.entities and lights.count == len(lights.entities)


def test_multi_hop_through_the_room_where_someone_is(ask, world):
    answer = ask("What is on the desk in the room where Michael is?")
    desk = next(f.args[0] for f in world.graph.facts(predicate="in_room", entity="bedroom_2")
                if f.args[0].startswith("desk"))
    expected = sorted(f.args[0] for f in world.graph.facts(predicate="on", entity=desk))
    assert answer.status == ANSWERED and sorted(answer.entities) == expected
    assert Fact("in_room", ("michael", "bedroom_2")) in {s.fact for s in answer.facts}
    assert ask("Who is in the room where the grey mug is?").entities == ("jessica",)


def test_who_has_and_what_someone_has(ask):
    answer = ask("Who has the grey mug?")
    assert answer.status == ANSWERED and answer.entities == () and answer.text.startswith("Nobody")


def test_unknown_things_and_times_before_the_memory_are_declined(ask):
    keys = ask("Where are my keys?")
    assert keys.status == DECLINED and "keys" in keys.text
    early = ask("Where was the grey mug at 06:00?")
    assert early.status == DECLINED and "begins at 08:00" in early.text


def test_a_question_the_memory_has_no_words_for_is_declined_with_what_it_knows(ask):
    answer = ask("Is the grey mug broken?")
    assert answer.status == DECLINED and "on grey_mug_1 kitchen_table_1" in answer.text
    assert 4 in answer.cited_records()


def test_an_ambiguous_thing_is_asked_back(ask):
    answer = ask("Is the mug dirty?")
    assert answer.status == DECLINED and "Which one do you mean" in answer.text


def test_another_form_without_an_llm_is_declined(ask):
    answer = ask("Name everything on the counter")
    assert (answer.status, answer.kind) == (DECLINED, "open")


@pytest.mark.parametrize("bad", ["", "   ", "x" * 501])
def test_bad_questions_raise_a_typed_error(ask, bad):
    with pytest.raises(FormatError):
        ask(bad)


def test_asking_changes_nothing(world, ask):
    before = (world.last_seq, world.graph.to_json())
    ask("Who opened the fridge?")
    ask("Was the fridge open at 08:25?")
    assert (world.last_seq, world.graph.to_json()) == before
