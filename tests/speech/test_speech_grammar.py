"""The phrasings of the household domain and the grammar of a graph: what can be said, in JSGF and as patterns."""

from __future__ import annotations

import pytest

from l3mp.domain.paths import ROBOT
from l3mp.errors import DomainError
from l3mp.speech.grammar import GrammarBuilder
from l3mp.speech.phrasings import QUESTION, TASK, UPDATE, Phrasings, parse
from tests.helpers import F, house_graph, household

SAYABLE = """the a my your his her their our please can you could go to put place bring take from on onto
in into give open close turn switch off wash clean answer i left placed is took has turned opened closed went
dirty ringing where are who what alice kitchen living room bedroom table counter shelf sink fridge cupboard lamp
light faucet tap tv book apple milk mug plate phone one two dish food drink cabinet refrigerator dishwasher
television telly cellphone mobile person robot shelves teapot blue"""
KNOWN = frozenset(SAYABLE.split())
"""Words the test dictionary can pronounce."""


def words_of(text: str) -> list[str]:
    return text.split()


def builder(**options) -> GrammarBuilder:
    return GrammarBuilder(household(), KNOWN.__contains__, **options)


def test_the_shipped_phrasings_cover_every_action_of_the_domain():
    phrasings = Phrasings.for_domain(household())
    tasks = {p.action for p in phrasings.phrasings if p.kind == TASK}
    steps = {"pick_from_surface", "pick_from_container", "take_from_person"}
    assert tasks | steps == set(household().actions) and not tasks & steps
    assert {p.kind for p in phrasings.phrasings} == {TASK, UPDATE, QUESTION}
    assert "please" in phrasings.task_prefix and phrasings.qualified_by_room == ("fixture",)


def test_phrasings_that_do_not_fit_the_domain_are_refused_with_every_problem_named():
    data = {"task": {"fly": ["fly to {room}"], "open_container": ["open {light}", "open the (door"],
                     "move": ["go to {garden}"]},
            "steps": [], "update": ["{item} is $weird"], "qualified_by_room": ["castle"]}
    with pytest.raises(DomainError) as caught:
        parse(data, household())
    message = str(caught.value)
    for problem in ("'fly', which is not an action", "'open {light}' (action open_container) names no {container}",
                    "unbalanced brackets", "garden is not a type", "only words", "castle",
                    "have no phrasings: add them under 'task' or list them under 'steps'"):
        assert problem in message


def test_the_vocabulary_says_labels_numbers_as_words_and_keeps_their_written_form():
    graph = house_graph()
    graph.add_entity("kitchen_2", "room", label="kitchen 2")
    graph.add_entity("lamp9", "light", label="blue lamp in kitchen 2")
    vocabulary = builder().vocabulary(graph)
    assert "kitchen two" in vocabulary.slots["room"] and vocabulary.written["kitchen two"] == "kitchen 2"
    assert "blue lamp" in vocabulary.slots["light"] and "lamp" in vocabulary.slots["light"]
    assert "alice" in vocabulary.slots["person"] and "living room" in vocabulary.slots["room"]
    assert {"apple", "milk", "food", "drink", "dish"} <= set(vocabulary.slots["item"])
    assert "apple" not in vocabulary.slots["device"] and ROBOT not in str(vocabulary.slots)


def test_a_label_the_dictionary_cannot_pronounce_is_left_out_and_reported():
    graph = house_graph()
    graph.add_entity("gizmo1", "dish", label="zorblax mug")
    vocabulary = builder().vocabulary(graph)
    assert vocabulary.unsayable == ("zorblax mug",)
    assert "zorblax mug" not in vocabulary.slots["dish"] and "mug" in vocabulary.slots["dish"]


def test_the_grammar_routes_each_phrasing_to_its_kind_and_writes_numbers_back():
    graph = house_graph()
    graph.add_entity("kitchen_2", "room", label="kitchen 2")
    grammar = builder().build(graph)
    assert grammar.jsgf.startswith("#JSGF V1.0;") and "public <utterance> = <task> | <update> | <question>;" in \
        grammar.jsgf
    cases = {
        "please turn off the lamp in the living room": (TASK, "turn_off_light"),
        "could you put the apple on the table": (TASK, "place_on_surface"),
        "bring the mug to alice please": (TASK, "give"),
        "alice took the book": (UPDATE, None),
        "the fridge is open": (UPDATE, None),
        "where is the milk": (QUESTION, None),
        "is the tv on": (QUESTION, None),
        "go to kitchen two": (TASK, "move"),
    }
    for text, (kind, action) in cases.items():
        [phrasing] = grammar.matches(text.split())
        assert (phrasing.kind, phrasing.action) == (kind, action), text
    assert grammar.matches(words_of("the weather is nice")) == []
    assert grammar.matches(words_of("turn off the")) == []
    assert grammar.written(words_of("go to kitchen two")) == "go to kitchen 2"


def test_phrasings_whose_slot_nothing_fills_are_dropped_from_the_grammar():
    graph = house_graph()
    graph.remove_entity("tv1", cascade=True)
    grammar = builder().build(graph)
    assert any("{tv}" in text for text in grammar.dropped) and "<slot_tv>" not in grammar.jsgf
    assert not any(p.slots == ("tv",) for p, _ in grammar.patterns)


def test_the_signature_changes_exactly_when_the_vocabulary_does():
    graph = house_graph()
    first = builder().vocabulary(graph).signature
    graph.add_fact(F("light_on", "lamp2"))
    assert builder().vocabulary(graph).signature == first  # a new fact, no new word
    graph.add_entity("teapot1", "dish", label="blue teapot")
    assert builder().vocabulary(graph).signature != first

