"""Times named in a question: ``at 08:30``, ``at 9 pm``, ``yesterday at 7:15``, ``20 minutes ago``.

A clock time means its latest occurrence not after `now` (``at 08:30`` asked at 10:00 is today's 08:30, asked at
07:00 yesterday's), in local time, as the change records are shown.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

_CLOCK = re.compile(r"\b(yesterday\s+)?(?:at|around|by)\s+(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?"
                    r"(?![\w:])")
_AGO = re.compile(r"\b(\d+|an?|one)\s+(minute|min|hour|day)s?\s+ago\b")
_SECONDS = {"minute": 60.0, "min": 60.0, "hour": 3600.0, "day": 86400.0}


@dataclass(frozen=True)
class Moment:
    """A time a question names: unix seconds, and the words that named it (to leave out of the rest)."""

    time: float
    words: str


def moment_in(text: str, now: float) -> Moment | None:
    """The time `text` names (None if it names none); raises ValueError for an impossible clock time (25:00)."""
    lowered = text.lower()
    ago = _AGO.search(lowered)
    if ago:
        count = 1 if ago.group(1) in ("a", "an", "one") else int(ago.group(1))
        return Moment(now - count * _SECONDS[ago.group(2)], ago.group(0))
    clock = _CLOCK.search(lowered)
    if not clock:
        return None
    hour, minute = int(clock.group(2)), int(clock.group(3) or 0)
    half = (clock.group(4) or "").replace(".", "")
    if half:
        if not 1 <= hour <= 12:
            raise ValueError(f"{clock.group(0).strip()!r} is not a time of day")
        hour = hour % 12 + (12 if half == "pm" else 0)
    if hour > 23 or minute > 59:
        raise ValueError(f"{clock.group(0).strip()!r} is not a time of day")
    today = dt.datetime.fromtimestamp(now)
    when = today.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if when.timestamp() > now:
        when -= dt.timedelta(days=1)
    if clock.group(1):
        when -= dt.timedelta(days=1) if when.date() == today.date() else dt.timedelta()
    return Moment(when.timestamp(), clock.group(0))


def clock_words(seconds: float, now: float | None = None) -> str:
    """``08:12`` (``08:12 on 2026-11-20`` when `now` is another day, or unknown)."""
    when = dt.datetime.fromtimestamp(seconds)
    if now is not None and dt.datetime.fromtimestamp(now).date() == when.date():
        return when.strftime("%H:%M")
    return when.strftime("%H:%M on %Y-%m-%d")
