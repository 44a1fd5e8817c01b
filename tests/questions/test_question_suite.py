"""``l3mp bench questions``: the checker per gold kind, the numbers of a run and its options."""

from __future__ import annotations

import pytest
from l3mp_sim.questions import Gold
from l3mp_sim.simulated_llm import ErrorModel
from l3mp_sim.simulated_questions import SimulatedQuestionLLM

from l3mp.bench.question_suite import check, metrics, options, run_house, summary
from l3mp.errors import L3mpError
from l3mp.questions import ANSWERED, DECLINED, Answer
from tests.helpers import household


def _answer(status: str = ANSWERED, **value) -> Answer:
    return Answer("q", status, "where", "text", **value)


@pytest.mark.parametrize(("gold", "answer", "right"), [
    (Gold("entities", ("a", "b")), _answer(entities=("b", "a")), True),
    (Gold("entities", ("a", "b")), _answer(entities=("a",)), False),
    (Gold("entities", ()), _answer(entities=()), True),
    (Gold("entities", ("a",)), _answer(DECLINED), False),
    (Gold("count", count=3), _answer(count=3), True),
    (Gold("count", count=3), _answer(count=2), False),
    (Gold("yes_no", yes=False), _answer(yes=False), True),
    (Gold("yes_no", yes=False), _answer(yes=None), False),
    (Gold("time", time=1000.0), _answer(time=1059.0), True),
    (Gold("time", time=1000.0), _answer(time=1061.0), False),
    (Gold("decline"), _answer(DECLINED), True),
    (Gold("decline"), _answer(entities=("a",)), False),
])
def test_the_checker_per_gold_kind(gold, answer, right):
    assert check(gold, answer, 60.0) is right


def test_a_house_run_with_the_simulated_llm_and_its_numbers(tmp_path):
    llm = SimulatedQuestionLLM(household(), ErrorModel.parse("none"), seed=0)
    scored = run_house(21, llm, mode="auto", directory=tmp_path)
    numbers = summary(scored)
    assert numbers["questions"] == len(scored) >= 20
    assert numbers["accuracy"] == 100.0 * sum(s.right for s in scored) / len(scored)
    assert numbers["wrong_confident"] == 100.0 * sum(s.answer.answered and not s.right for s in scored) / len(scored)
    assert 0 < numbers["llm_share"] < 100
    rows = {m.name: m for m in metrics("simulated_auto_dev", scored, simulated=True, about="test")}
    assert rows["simulated_auto_dev_accuracy"].target is None  # no target on a simulated row
    assert any(name.startswith("simulated_auto_dev_kind:") for name in rows)
    real = {m.name: m for m in metrics("llm_auto_dev", scored, simulated=False, about="test")}
    assert real["llm_auto_dev_accuracy"].target == ">= 85 %" and real["llm_auto_dev_wrong_confident"].target == "<= 3 %"


def test_the_loop_alone_answers_every_question_through_the_llm(tmp_path):
    llm = SimulatedQuestionLLM(household(), ErrorModel.parse("none"), seed=0)
    scored = run_house(21, llm, mode="llm", directory=tmp_path)
    assert all(s.answer.via == "llm" or (not s.answer.answered and "memory begins" in s.answer.text)
               for s in scored)
    assert summary(scored)["llm_share"] > 80


def test_options_from_the_environment():
    assert options(True, {}).llms == ("simulated",) and options(True, {}).split == "all"
    full = options(False, {})
    assert (full.split, full.llms, full.mode) == ("test", ("configured", "simulated"), "auto")
    for bad in ({"L3MP_BENCH_QUESTIONS_SPLIT": "train"}, {"L3MP_BENCH_QUESTIONS_LLMS": "gpt"},
                {"L3MP_BENCH_QUESTIONS_MODE": "fast"}):
        with pytest.raises(L3mpError):
            options(False, bad)


def test_the_quick_suite_through_the_runner(tmp_path, monkeypatch):
    import l3mp.bench.question_suite  # noqa: F401  (registers the suite until the runner lists it)
    from tests.bench.support import quick_suite

    monkeypatch.setenv("L3MP_BENCH_QUESTIONS_SPLIT", "dev")
    rows = quick_suite("questions", tmp_path)
    assert rows["simulated_auto_dev_accuracy"]["value"] >= 80.0
    assert rows["simulated_auto_dev_accuracy"]["target"] is None
    assert rows["simulated_auto_dev_dev_cases"]["value"] == 50
    assert {f"simulated_auto_dev_kind:{k}_accuracy" for k in ("where", "who", "unanswerable")} <= set(rows)
