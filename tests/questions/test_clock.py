"""Times named in questions: clock times (their latest occurrence), am/pm, yesterday, and 'ago'."""

from __future__ import annotations

import datetime as dt

import pytest

from l3mp.questions.clock import clock_words, moment_in

NOW = dt.datetime(2026, 11, 20, 10, 0).timestamp()


def _at(day: int, hour: int, minute: int = 0) -> float:
    return dt.datetime(2026, 11, day, hour, minute).timestamp()


@pytest.mark.parametrize(("text", "expected"), [
    ("where was the mug at 08:30", _at(20, 8, 30)),
    ("was it on at 9 pm", _at(19, 21)),
    ("was it on at 9.15 am", _at(20, 9, 15)),
    ("where was it yesterday at 07:15", _at(19, 7, 15)),
    ("was the light on at 23:00", _at(19, 23)),
    ("where was it 20 minutes ago", NOW - 1200),
    ("where was it an hour ago", NOW - 3600),
])
def test_moments(text, expected):
    assert moment_in(text, NOW).time == expected


def test_no_time_and_impossible_times():
    assert moment_in("where is the mug", NOW) is None
    assert moment_in("is the mug at the table", NOW) is None
    with pytest.raises(ValueError):
        moment_in("where was it at 25:00", NOW)
    with pytest.raises(ValueError):
        moment_in("where was it at 13 pm", NOW)


def test_clock_words_name_the_day_only_when_it_is_another():
    assert clock_words(_at(20, 8, 12), NOW) == "08:12"
    assert clock_words(_at(19, 8, 12), NOW) == "08:12 on 2026-11-19"
