"""Journal segment files: the line format, reading a segment back with its damage found and (when one
changed byte explains it) repaired, and reading its records (format: `l3mp.world.store`)."""

from __future__ import annotations

import math
import re
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import orjson

from l3mp.errors import StoreError
from l3mp.world.crc_repair import single_byte_fixes

_parse_json = orjson.loads  # ~2x the stdlib's speed: JSON decoding is the largest part of recovery
_SHORTEST_LINE = 48
"""Bytes of the shortest journal line there can be (checksum, number, time, source, an empty delta)."""
_SEQ_RE = re.compile(rb'[0-9a-f]{8} \{"seq":([1-9][0-9]{0,17}),')


@dataclass(frozen=True)
class Damage:
    """Damaged bytes in a store: a stable key (``<file>@<byte>``, or a side file's name), what they are, the
    record numbers they cost (empty: none, e.g. repaired), whether they were repaired, and how many bytes
    (journal damage)."""

    key: str
    text: str
    lost: range = range(0)
    repaired: bool = False
    size: int = 0


@dataclass
class Segment:
    """One journal file: its readable records (number, offset), the numbers it holds or reserves
    (``first..end``, damaged ones included), lines repaired in memory, and the first and last times."""

    first: int
    path: Path
    seqs: array = field(default_factory=lambda: array("q"))
    offsets: array = field(default_factory=lambda: array("q"))
    repaired: dict[int, bytes] = field(default_factory=dict)
    end: int = 0
    size: int = 0
    sealed: bool = False  # its tail was repaired in memory: later records go to a new segment
    first_time: float = math.inf
    last_time: float = -math.inf

    def __post_init__(self) -> None:
        self.end = self.first - 1

    def add(self, seq: int, offset: int, time: float, line: bytes | None = None) -> None:
        """Index record `seq` at `offset` (with `line`: its repaired bytes, the file's are damaged)."""
        self.seqs.append(seq)
        self.offsets.append(offset)
        if line is not None:
            self.repaired[offset] = line
        self.end = seq
        self.first_time = min(self.first_time, time)
        self.last_time = max(self.last_time, time)

    def index_of(self, seq: int) -> int:
        """The position of the first readable record numbered >= `seq`."""
        return bisect_left(self.seqs, seq)

    def line(self, f: BinaryIO, index: int) -> bytes:
        """The line of readable record number `index` (0-based) of this segment, from `f` (this file)."""
        offset = self.offsets[index]
        repaired = self.repaired.get(offset)
        if repaired is not None:
            return repaired
        f.seek(offset)
        return f.readline()

    def read(self, f: BinaryIO, start: int, stop: int) -> Iterator[dict]:
        """The JSON of readable records start..stop-1 (positions), in order."""
        position = -1
        for index in range(start, stop):
            offset = self.offsets[index]
            line = self.repaired.get(offset)
            if line is None:
                if position != offset:
                    f.seek(offset)
                line = f.readline()
                position = offset + len(line)
            yield decode_line(line, self.path, self.seqs[index])

    def count_before(self, f: BinaryIO, time: float, *, inclusive: bool) -> int:
        """How many readable records have a time < `time` (<= if inclusive); times never decrease."""
        lo, hi = 0, len(self.seqs)
        while lo < hi:
            mid = (lo + hi) // 2
            found = decode_line(self.line(f, mid), self.path, self.seqs[mid])["time"]
            if found < time or (inclusive and found == time):
                lo = mid + 1
            else:
                hi = mid
        return lo


def encode_line(payload: bytes) -> bytes:
    """The journal line of a record payload: checksum, space, payload, newline."""
    return b"%08x %s\n" % (zlib.crc32(payload), payload)


def scan_segment(path: Path, first: int, end: int | None) -> tuple[Segment, list[Damage], int | None]:
    """Index the readable records of a segment that holds numbers first..end (None: the last segment).

    Bad lines between readable records are repaired in memory when one changed byte explains them (a flipped
    byte, a newline gained or lost); otherwise the numbers between the records around them are lost. After
    the last readable record of the last segment, complete bad lines are damage too (the most records they
    can have held are counted lost, so that no number is given twice); an incomplete last line that is the
    beginning of the next record is a torn write (a crash during an append, never acknowledged): the third
    value is the offset where it starts (None: none), to be cut off. Any other incomplete last line is damage,
    and seals the segment.
    """
    segment = Segment(first, path)
    damages: list[Damage] = []
    bad: list[bytes] = []
    bad_at = offset = 0
    with open(path, "rb") as f:
        for line in (piece for raw in f for piece in _pieces(raw)):
            seq = _good_seq(line)
            if seq is not None and seq > segment.end and (end is None or seq <= end):
                if bad or seq != segment.end + 1:
                    damages.append(_settle(segment, bad_at if bad else offset, bad, seq - 1))
                    bad = []
                segment.add(seq, offset, decode_line(line, path, seq)["time"])
            else:
                if not bad:
                    bad_at = offset
                bad.append(line)
            offset += len(line)
    segment.size = offset
    if end is not None:
        if bad or segment.end < end:
            damages.append(_settle(segment, bad_at if bad else offset, bad, end))
        return segment, damages, None
    if not bad:
        return segment, damages, None
    if _repair_run(segment, bad_at, bad, None):
        segment.sealed = True
        damages.append(_repaired_damage(path, bad_at, bad))
        return segment, damages, None
    complete = bad if bad[-1].endswith(b"\n") else bad[:-1]
    if complete:
        damages.append(_settle(segment, bad_at, complete, segment.end + _count_at_most(segment, complete)))
    if complete is bad:
        return segment, damages, None
    piece, at = bad[-1], offset - len(bad[-1])
    if _partial_write(piece, segment.end + 1):
        segment.size = at
        return segment, damages, at
    segment.sealed = True  # nothing can follow an incomplete line: later records go to a new segment
    damages.append(_settle(segment, at, [piece], segment.end + _count_at_most(segment, [piece])))
    return segment, damages, None


_RECORD_START = re.compile(rb'[0-9a-f]{8} \{"seq":[1-9]')


def _pieces(line: bytes) -> list[bytes]:
    """A line as read, or, when damage destroyed the newline before a record that is itself intact, the damaged
    part and that record: overwriting the end of one line must not cost the next one too."""
    if _good_seq(line) is not None:
        return [line]
    for match in _RECORD_START.finditer(line, 1):
        if _good_seq(line[match.start():]) is not None:
            return [line[:match.start()], line[match.start():]]
    return [line]


def _partial_write(piece: bytes, seq: int) -> bool:
    """Whether an incomplete last line is what a write of record `seq` cut short leaves: a prefix of its line
    (printable ASCII, as every journal line is). Anything else there is damage."""
    if not all(0x20 <= b < 0x7F for b in piece):
        return False
    head = b'00000000 {"seq":%d,' % seq
    return all(c in b"0123456789abcdef" for c in piece[:8]) and piece[8 : len(head)] == head[8 : len(piece)]


def _settle(segment: Segment, at: int, bad: list[bytes], last: int) -> Damage:
    """Repair the bad lines before record last + 1, or report the numbers up to `last` as lost."""
    if bad and _repair_run(segment, at, bad, last):
        return _repaired_damage(segment.path, at, bad)
    lost = range(segment.end + 1, last + 1)
    size = sum(len(line) for line in bad)
    what = f"record(s) {_span(lost)} unreadable" if lost else "no record lost"
    text = (f"{segment.path.name}: {size} damaged byte(s) at byte {at}; {what}" if bad
            else f"{segment.path.name}: record(s) {_span(lost)} missing before byte {at}")
    segment.end = max(segment.end, last)
    return Damage(f"{segment.path.name}@{at}", text, lost, size=size)


def _count_at_most(segment: Segment, bad: list[bytes]) -> int:
    """How many records the damaged complete lines at the end of the journal can have held (an upper bound,
    so that their numbers are never given again): by their newlines, the numbers still legible in them, and
    their size over the shortest line of the segment."""
    legible = [int(m) for line in bad for m in re.findall(rb'\{"seq":([1-9][0-9]{0,17}),', line)]
    shortest = min((_line_length(segment, i) for i in range(min(len(segment.seqs) - 1, 64))), default=_SHORTEST_LINE)
    size = sum(len(line) for line in bad)
    return max(len(bad), max(legible, default=0) - segment.end, -(-size // max(shortest, _SHORTEST_LINE)))


def _line_length(segment: Segment, index: int) -> int:
    offsets = segment.offsets
    return (offsets[index + 1] if index + 1 < len(offsets) else segment.size) - offsets[index]


def _repaired_damage(path: Path, at: int, bad: list[bytes]) -> Damage:
    size = sum(len(line) for line in bad)
    return Damage(f"{path.name}@{at}", f"{path.name}: {size} damaged byte(s) at byte {at}, repaired in memory "
                  "(one changed byte explained them; the file is unchanged)", repaired=True, size=size)


def _repair_run(segment: Segment, at: int, bad: list[bytes], last: int | None) -> bool:
    """Undo one changed byte in each bad line (or pair of lines a gained newline split, or line a lost
    newline merged); the lines must become the records segment.end + 1 .. `last` (None: any count)."""
    fixed: list[tuple[int, bytes]] = []
    seq, i, offset = segment.end + 1, 0, at
    while i < len(bad):
        found = _fix_line(bad[i], seq)
        used = 1
        if found is not None:
            parts = [found]
        elif (parts := _split_merged(bad[i], seq)) is None and i + 1 < len(bad):
            found = _fix_line(bad[i] + bad[i + 1], seq)
            parts, used = ([found], 2) if found is not None else (None, 1)
        if parts is None:
            return False
        where = offset
        for part in parts:
            fixed.append((where, part))
            where += len(part)
        offset += sum(len(line) for line in bad[i : i + used])
        seq += len(parts)
        i += used
    if last is not None and seq - 1 != last:
        return False
    for number, (where, line) in enumerate(fixed, start=segment.end + 1):
        segment.add(number, where, decode_line(line, segment.path, number)["time"], line)
    return True


def _fix_line(line: bytes, seq: int) -> bytes | None:
    """Record `seq`'s line if one changed byte (or a lost final newline) explains `line`, else None."""
    bodies = [line[:-1]] if line.endswith(b"\n") else [line, line[:-1]]
    found = set()
    for body in bodies:
        if len(body) < 10:
            continue
        payload = body[9:]
        head = b"%08x " % zlib.crc32(payload)
        if sum(a != b for a, b in zip(head, body[:9], strict=True)) <= 1:
            candidates = [head + payload]
        else:
            try:
                stored = int(body[:8], 16) if body[8:9] == b" " else None
            except ValueError:
                stored = None
            candidates = [] if stored is None else [body[:9] + p for p in single_byte_fixes(payload, stored)]
        found.update(c + b"\n" for c in candidates if _is_record(c + b"\n", seq))
    return found.pop() if len(found) == 1 else None


def _split_merged(line: bytes, seq: int) -> list[bytes] | None:
    """Records `seq` and `seq + 1` if `line` is the two with the newline between them changed."""
    marker = b' {"seq":%d,' % (seq + 1)
    found = []
    start = line.find(marker)
    while start >= 9:
        first, second = line[: start - 9] + b"\n", line[start - 8 :]
        if _is_record(first, seq) and _is_record(second, seq + 1):
            found.append([first, second])
        start = line.find(marker, start + 1)
    return found[0] if len(found) == 1 else None


def _is_record(line: bytes, seq: int) -> bool:
    if _line_problem(line, seq) is not None:
        return False
    try:
        decode_line(line, Path("-"), seq)
    except StoreError:
        return False
    return True


def _good_seq(line: bytes) -> int | None:
    """The number of the record on a journal line whose checksum verifies (None: not such a line)."""
    match = _SEQ_RE.match(line)
    if match is None or line[-1:] != b"\n" or line[:8] != b"%08x" % zlib.crc32(line[9:-1]):
        return None
    return int(match[1])


def _line_problem(line: bytes, seq: int) -> str | None:
    """Why a journal line is not record `seq` with a valid checksum (None if it is)."""
    if line[-1:] != b"\n":
        return "incomplete last line (torn write)"
    if line[8:9] != b" " or line[:8] != b"%08x" % zlib.crc32(line[9:-1]):
        return "checksum mismatch"
    if not line.startswith(b'{"seq":%d,' % seq, 9):
        return f"record {seq} expected but the line starts with {line[9:40]!r}"
    return None


def decode_line(line: bytes, path: Path, seq: int) -> dict:
    """The JSON of a journal line already checked when the store was opened; StoreError if it changed since."""
    if line[-1:] != b"\n" or line[:8] != b"%08x" % zlib.crc32(line[9:-1]):
        raise StoreError(f"record {seq} in {path} changed on disk after the store was opened; reopen the store")
    try:
        data = _parse_json(line[9:-1])
    except ValueError:
        data = None
    if data.__class__ is not dict or data.get("seq") != seq or data.get("time").__class__ not in (float, int):
        raise StoreError(
            f"record {seq} in {path} is not a change record although its checksum matches; "
            "was the file edited by hand? Move it aside and reopen the store"
        )
    return data


def _span(numbers: range) -> str:
    return f"{numbers.start}" if len(numbers) == 1 else f"{numbers.start}..{numbers[-1]}"
