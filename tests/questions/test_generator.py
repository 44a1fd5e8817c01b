"""The question generator: recorded simulator episodes and questions with gold answers read from the simulator."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from l3mp_sim.questions import (
    DELIVERIES,
    DEV_HOUSES,
    KINDS,
    START,
    TEST_HOUSES,
    cases_of,
    record_episode,
    split_of,
)


@pytest.fixture(scope="module")
def episode(tmp_path_factory):
    recorded = record_episode(21, tmp_path_factory.mktemp("gen") / "store")
    yield recorded
    recorded.world.close()


def test_an_episode_is_a_real_history_of_sentences_minutes_apart(episode):
    records = episode.records()
    assert records[0].source == "import" and records[0].time == START.timestamp()
    assert len(records) == DELIVERIES + 1
    times = [r.time for r in records]
    assert all(60 * 2 <= b - a <= 60 * 9 for a, b in itertools.pairwise(times))
    assert all(r.source == "nl" and r.input and r.input.endswith(".") for r in records[1:])
    assert set(episode.events) == {r.seq for r in records[1:]}
    assert episode.world.graph == episode.state.graph  # the memory holds the truth: questions test answering only


def test_the_past_is_the_truth_after_the_last_record_not_later(episode):
    records = episode.records()
    between = records[3].time + 30
    assert episode.state_at(between).graph is episode.truths[records[3].time]
    assert episode.state_at(records[4].time).graph is episode.truths[records[4].time]
    with pytest.raises(ValueError):
        episode.state_at(START.timestamp() - 1)


def test_every_kind_is_asked_with_a_gold_answer(episode):
    cases = cases_of(episode)
    assert {c.kind for c in cases} == set(KINDS)
    assert len({c.id for c in cases}) == len(cases) >= 20
    assert all(c.split == "dev" and c.house == 21 for c in cases)
    for case in cases:
        gold = case.gold
        assert {"entities": gold.entities is not None, "count": gold.count is not None, "yes_no": gold.yes is not None,
                "time": gold.time is not None, "decline": True}[gold.kind]
    assert all(c.gold.kind == "decline" for c in cases if c.kind == "unanswerable")


def test_gold_answers_come_from_the_simulator(episode):
    cases = cases_of(episode)
    state = episode.state
    for case in cases:
        if case.kind == "where" and case.oracle.anchor and state.type_of(case.oracle.anchor) != "person":
            assert case.gold.entities == (state.place(case.oracle.anchor),)
        if case.kind == "since_when":
            made = next(r for r in episode.records() if r.seq == case.gold.record)
            assert made.time == case.gold.time and made.seq > 1
    early = [c for c in cases if c.kind == "unanswerable" and " at " in c.text]
    for case in early:
        clock = case.text.rsplit(" at ", 1)[1].rstrip("?")
        assert dt.datetime.strptime(clock, "%H:%M").time() < START.time()


def test_generation_is_reproducible_and_split_by_house(episode, tmp_path):
    again = record_episode(21, tmp_path / "again")
    try:
        assert [c.to_json() for c in cases_of(again)] == [c.to_json() for c in cases_of(episode)]
    finally:
        again.world.close()
    assert [split_of(s) for s in DEV_HOUSES] == ["dev", "dev"]
    assert {split_of(s) for s in TEST_HOUSES} == {"test"} and not set(DEV_HOUSES) & set(TEST_HOUSES)
    with pytest.raises(ValueError):
        split_of(5)
