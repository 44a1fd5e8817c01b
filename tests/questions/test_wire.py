"""The question request of the world-model node: JSON in, the documented answer JSON out, typed errors."""

from __future__ import annotations

import json

import pytest

from l3mp.errors import FormatError
from l3mp.questions import ANSWER_FORMAT, QuestionAnswerer, question_fields
from tests.helpers import household, household_rules
from tests.questions.support import NOW, episode


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    world = episode(tmp_path_factory.mktemp("w") / "store")
    yield QuestionAnswerer(household(), household_rules()), world
    world.close()


def test_a_question_request_gets_the_answer_json(setup):
    answerer, world = setup
    fields = question_fields(answerer, world, {"kind": "question", "id": "q1", "question": "who opened the fridge?",
                                               "now": NOW})
    answer = json.loads(json.dumps(fields))["answer"]
    assert answer["format"] == ANSWER_FORMAT and answer["status"] == "answered"
    assert answer["entities"] == ["jessica"] and answer["records"][0]["seq"] == 3
    assert answer["records"][0]["input"] == "Jessica opened the fridge."
    assert answer["records"][0]["delta"] == {"add": [["fridge_1", "is_open", True]]}


@pytest.mark.parametrize(("request_", "says"), [
    ({"kind": "question"}, "needs 'question'"),
    ({"kind": "question", "question": "  "}, "needs 'question'"),
    ({"kind": "question", "question": "where?", "colour": "red"}, "unknown key"),
    ({"kind": "question", "question": "where?", "now": "today"}, "'now' must be"),
    ({"kind": "question", "question": "where?", "now": True}, "'now' must be"),
    (["where?"], "JSON object"),
])
def test_malformed_requests_raise_format_errors(setup, request_, says):
    answerer, world = setup
    with pytest.raises(FormatError, match=says):
        question_fields(answerer, world, request_)
