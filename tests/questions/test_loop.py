"""The LLM's observe -> act -> reflect loop: operations run by the program, answers checked against what was
observed, and the step and token caps; played by the simulated question LLM (the project's evaluation
instrument, which answers from the gold answer through an error model)."""

from __future__ import annotations

import pytest
from l3mp_sim.simulated_llm import ErrorModel
from l3mp_sim.simulated_questions import QuestionOracle, SimulatedQuestionLLM

from l3mp.domain.triplets import Fact
from l3mp.questions import ANSWERED, DECLINED, Caps, QuestionAnswerer
from tests.helpers import household, household_rules
from tests.questions.support import NOW, at, episode


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    model = episode(tmp_path_factory.mktemp("loop") / "store")
    yield model
    model.close()


def _ask(world, question: str, oracle: QuestionOracle, *, errors: str = "none", caps: Caps | None = None):
    llm = SimulatedQuestionLLM(household(), ErrorModel.parse(errors), seed=3)
    llm.set_question(oracle)
    answerer = QuestionAnswerer(household(), household_rules(), llm=llm, caps=caps)
    return answerer.ask_world(world, question, now=NOW), llm


def test_an_open_question_is_answered_by_the_loop_with_the_facts_it_saw(world):
    gold = ("grey_mug_1", "plate_1", "red_glass_1")
    answer, _ = _ask(world, "Name everything on the kitchen table", QuestionOracle("entities", gold,
                                                                                  anchor="kitchen_table_1"))
    assert (answer.status, answer.via, answer.kind) == (ANSWERED, "llm", "open")
    assert answer.entities == gold
    assert Fact("on", ("grey_mug_1", "kitchen_table_1")) in {s.fact for s in answer.facts}
    assert 4 in answer.cited_records()
    assert answer.ledger.by_purpose()["question"].prompt_tokens > 0
    assert answer.llm.startswith("simulated")


def test_the_loop_looks_before_it_answers(world):
    gold = ("kitchen_1",)
    answer, _ = _ask(world, "Tell me the surroundings of the grey mug, please",
                     QuestionOracle("entities", gold, anchor="grey_mug_1"))
    assert answer.status == ANSWERED and answer.entities == gold
    assert [s.op for s in answer.steps][:2] == ["rephrase", "neighbours"]


def test_a_count_comes_from_a_selection_and_a_time_from_a_record_read(world):
    opened = [n for n in world.graph.entities() if world.graph.has_fact(Fact("light_on", (n,)))]
    count, _ = _ask(world, "Tell me the number of lit lamps", QuestionOracle(
        "count", count=len(opened), select={"type": "light", "state": "light_on"}))
    assert (count.status, count.count) == (ANSWERED, len(opened))
    assert [s.op for s in count.steps] == ["rephrase", "select", "answer_count"]
    when, _ = _ask(world, "Tell me the moment the fridge got opened", QuestionOracle(
        "time", record=3, anchor="fridge_1"))
    assert (when.status, when.time, when.cited_records()) == (ANSWERED, at(20), [3])


def test_the_step_cap_ends_the_loop_with_a_decline_that_says_what_was_seen(world):
    answer, _ = _ask(world, "Tell me the number of lit lamps", QuestionOracle(
        "count", count=1, select={"type": "light", "state": "light_on"}), caps=Caps(max_steps=2))
    assert answer.status == DECLINED and "within 2 step" in answer.text and "select" in answer.text
    assert [s.op for s in answer.steps] == ["rephrase", "select"]


def test_the_token_cap_ends_the_loop(world):
    answer, _ = _ask(world, "Tell me the number of lit lamps", QuestionOracle(
        "count", count=1, select={"type": "light", "state": "light_on"}), caps=Caps(max_tokens=50))
    assert answer.status == DECLINED and len(answer.steps) == 1 and answer.ledger.total_tokens >= 50


def test_reflection_refuses_entities_no_observation_showed(world):
    reflected = 0
    for seed_question in ("Name everything on the kitchen table", "List the things on the kitchen table now",
                          "Name what lies on the kitchen table"):
        answer, _ = _ask(world, seed_question, QuestionOracle("entities", ("plate_1",), anchor="kitchen_table_1"),
                         errors="wrong_entity=1,context_per_1k=0")
        reflected += sum(s.saw.startswith("your answer names") for s in answer.steps)
        if answer.answered:
            seen = {a for s in answer.facts for a in s.fact.args}
            assert set(answer.entities) <= seen
    assert reflected > 0


def test_unusable_replies_are_retried_then_declined(world):
    answer, llm = _ask(world, "Name everything on the kitchen table", QuestionOracle(
        "entities", ("plate_1",), anchor="kitchen_table_1"), errors="malformed=1,context_per_1k=0",
        caps=Caps(max_steps=3))
    assert answer.status == DECLINED and len(answer.steps) == 3
    assert answer.steps[0].op == "rephrase" and "not JSON" in answer.steps[0].saw
    assert all(s.saw.startswith("unusable step") for s in answer.steps[1:]) and llm.injected["malformed"] == 3


def test_the_llm_may_decline(world):
    answer, _ = _ask(world, "Tell me the colour of the grey mug's handle", QuestionOracle("decline"))
    assert (answer.status, answer.via) == (DECLINED, "llm")


def test_the_llm_is_made_only_for_a_question_that_needs_it(world):
    made = []

    def make():
        llm = SimulatedQuestionLLM(household(), ErrorModel.parse("none"))
        llm.set_question(QuestionOracle("decline"))
        made.append(llm)
        return llm

    answerer = QuestionAnswerer(household(), household_rules(), make_llm=make)
    assert answerer.ask_world(world, "Where is the grey mug?", now=NOW).via == "symbolic"
    assert made == [] and answerer.llm is None
    assert answerer.ask_world(world, "Tell me a story about the mug", now=NOW).via == "llm"
    assert len(made) == 1 and answerer.llm is made[0]



def test_a_rephrasing_is_answered_by_the_symbolic_forms(world):
    answer, _ = _ask(world, "Which person got the fridge open?", QuestionOracle(
        "entities", ("jessica",), rephrase="who opened the fridge"))
    assert (answer.status, answer.via, answer.kind, answer.entities) == (ANSWERED, "llm", "who_did", ("jessica",))
    assert answer.steps[0].op == "rephrase" and answer.ledger.by_purpose()["question"].prompt_tokens > 0
    assert answer.question == "Which person got the fridge open?" and answer.cited_records() == [3]


def test_a_rephrasing_that_names_another_thing_or_no_form_is_refused(world):
    answer, _ = _ask(world, "Can you find the fridge for me?", QuestionOracle(
        "entities", ("kitchen_1",), anchor="fridge_1", rephrase="where is the grey mug"))
    assert "grey_mug_1, which the question does not name" in answer.steps[0].saw
    assert answer.steps[1].op != "rephrase" and answer.entities == ("kitchen_1",)
    told, _ = _ask(world, "Sing me the fridge song", QuestionOracle("decline", rephrase="tell me a story"))
    assert "not one of the usual questions" in told.steps[0].saw and told.status == DECLINED


def test_an_answer_that_only_repeats_the_thing_asked_about_is_refused(world):
    answer, _ = _ask(world, "Can you find the fridge for me?", QuestionOracle("entities", ("fridge_1",)),
                     caps=Caps(max_steps=2))
    assert answer.status == DECLINED
    assert all("only repeats what the question names" in s.saw for s in answer.steps[1:])


def test_a_rephrasing_that_drops_a_state_word_is_refused(world):
    answer, _ = _ask(world, "The fridge has been open since what time?", QuestionOracle(
        "time", record=3, anchor="fridge_1", rephrase="since when has the fridge been in the kitchen"))
    assert "leaves out what the question says: is_open true" in answer.steps[0].saw
