"""Durable storage of the world state: an append-only journal of change records plus snapshots.

On-disk format
==============

A store is one directory::

    journal-000000000001.log      journal segment: records 1, 2, ... (append-only)
    journal-000000010001.log      next segment, started by the snapshot at record 10000
    snapshot-000000010000.json    compacted graph after record 10000
    meta.json                     small JSON object (domain name and sha256, ...)
    LOCK                          flock()ed by the single writer; holds its pid
    *.corrupt-<n>                 damaged bytes moved aside by recovery (never deleted)

**Journal segments** ``journal-<seq of its first record, 12 digits>.log`` hold one change record
per line::

    <crc32 of the payload, 8 lowercase hex digits> <payload>\\n

where the payload is ``ChangeRecord.to_json()`` as compact JSON (no spaces, ASCII only, key
``"seq"`` first) and the checksum is ``zlib.crc32`` of its bytes, so a line reads
``3b1f09a2 {"seq":12,"time":1763712000.25,"source":"nl",...}``. Records are numbered 1, 2, 3, ...
without gaps across all segments, the first segment being ``journal-000000000001.log``; their times
never decrease. Segments are never rewritten: a snapshot only starts a new one (empty until the
next append), and old segments stay as history.

**Snapshots** ``snapshot-<seq, 12 digits>.json`` are the graph after record ``seq``: a header line
``{"format":"l3mp.snapshot/1","seq":N,"time":T,"sha256":"<hex of payload>","size":<payload bytes>}``
then the payload, the graph JSON (``WorldGraph.to_json()``) as compact JSON, then a newline. They are
written to ``*.tmp``, fsync'd, renamed into place and the directory fsync'd, so a snapshot file is
either absent or complete. Only the newest ``keep_snapshots`` are kept.

**meta.json** is written the same atomic way.

Durability and recovery
=======================

``append`` writes a batch of records with one ``write`` and one ``fsync``: when it returns, the
records survive a crash. ``open`` recovers:

* every segment is checked line by line: newline at the end, CRC, consecutive ``seq``. At the first
  bad line (a torn write, a flipped bit, garbage) the rest of that segment is copied to
  ``<segment>.corrupt-<n>`` and the segment truncated to its last good record; segments after it are
  renamed to ``<segment>.corrupt-<n>`` as a whole. Every earlier record is kept; a warning says what
  was moved where. The next append continues after the last good record.
* the newest snapshot whose sha256 verifies and whose ``seq`` the journal covers is loaded; a
  corrupt one (or one after the end of a damaged journal) is renamed aside with a warning and the
  next older one used (replaying more journal); with none the whole journal is replayed. The
  journal is the source of truth, snapshots a cache. Leftover ``*.tmp`` files are removed.
* ``Recovered.records`` are the records after the snapshot, read lazily from disk;
  ``l3mp.world.history.rebuild(recovered)`` turns them into the graph (the fast path).

A line whose CRC verifies was written by ``append`` from a valid ``ChangeRecord``: only a
hand-edited file can hold such a line that is not a record, and reading it raises StoreError.
A ``read_only`` store takes no lock and never repairs: it ignores a bad tail (a writer may be
in the middle of writing it) and reports it in the warnings.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import math
import os
import re
import threading
import zlib
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import BinaryIO, overload

import orjson

from l3mp.errors import StoreError
from l3mp.world.record import ChangeRecord

SNAPSHOT_FORMAT = "l3mp.snapshot/1"
META = "meta.json"
_SEGMENT_RE = re.compile(r"journal-(\d{12})\.log")
_SNAPSHOT_RE = re.compile(r"snapshot-(\d{12})\.json")
_encode = json.JSONEncoder(separators=(",", ":")).encode
_parse_json = orjson.loads  # ~2x the stdlib's speed: JSON decoding is the largest part of recovery


@dataclass
class Recovered:
    """What to rebuild the graph from: the snapshot payload, then `records` applied in order."""

    snapshot: dict | None
    snapshot_seq: int
    records: RecordRange
    warnings: list[str]
    last_seq: int
    meta: dict
    last_time: float | None = None  # time of record last_seq (None: empty journal)


@dataclass
class _Segment:
    """One journal file: where each of its good records starts, and their first and last times."""

    first: int
    path: Path
    offsets: array = field(default_factory=lambda: array("q"))
    size: int = 0
    first_time: float = math.inf
    last_time: float = -math.inf

    @property
    def last(self) -> int:
        return self.first + len(self.offsets) - 1


@dataclass
class _Damage:
    """Where a segment stops being valid, and why."""

    offset: int
    reason: str


class RecordRange(Sequence[ChangeRecord]):
    """Records `start`..`end` of an open store, read from disk when used (1M records fit in no list)."""

    def __init__(self, store: Store, start: int, end: int) -> None:
        self._store, self._start, self._end = store, start, end

    def __len__(self) -> int:
        return max(0, self._end - self._start + 1)

    @overload
    def __getitem__(self, index: int) -> ChangeRecord: ...
    @overload
    def __getitem__(self, index: slice) -> list[ChangeRecord]: ...
    def __getitem__(self, index: int | slice) -> ChangeRecord | list[ChangeRecord]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError(f"record index {index} out of range for {len(self)} record(s)")
        return self._store.record(self._start + index % len(self))

    def __iter__(self) -> Iterator[ChangeRecord]:
        return self._store.records(start_seq=self._start, end_seq=self._end)

    def raw(self) -> Iterator[dict]:
        """The records as their JSON dicts (fast path: no ChangeRecord built)."""
        return self._store.raw_records(start_seq=self._start, end_seq=self._end)


def default_store_path(given: str | os.PathLike[str] | None = None) -> Path:
    """The store directory: `given`, else $L3MP_STORE, else $XDG_DATA_HOME/l3mp/world (~/.local/share/...)."""
    chosen = given or os.environ.get("L3MP_STORE")
    if chosen:
        return Path(chosen).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "l3mp" / "world"


def make_room_for_store(path: Path, *, force: bool, fsync: bool = True) -> Path | None:
    """Check that `path` holds no records, or move it aside with `force`; returns where it went (None: it stays)."""
    if not path.is_dir() or not any(path.iterdir()):
        return None
    if not (path / META).exists() and not any(_SEGMENT_RE.fullmatch(p.name) for p in path.iterdir()):
        raise StoreError(f"{path} is a directory but not an l3mp store; choose another with --store DIR")
    with Store(path, fsync=fsync) as store:
        records = store.open().last_seq  # also refuses a store another process is writing
    if not force:
        if records == 0:
            return None
        raise StoreError(f"store {path} already holds {records} change record(s); keep using it, or pass --force "
                         "to move it aside and start anew")
    stamp = dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    aside = path.with_name(f"{path.name}.old-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.old-{stamp}-{n}")
    path.rename(aside)
    return aside


class Store:
    """A durable journal of change records with compacted snapshots (format: module docstring).

    ``with Store(path) as store: recovered = store.open(); ...`` closes the store at the end.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        fsync: bool = True,
        snapshot_every: int = 10_000,
        keep_snapshots: int = 3,
        read_only: bool = False,
    ) -> None:
        if snapshot_every < 1 or keep_snapshots < 1:
            raise ValueError("snapshot_every and keep_snapshots must be at least 1")
        self.path = Path(path)
        self.fsync, self.snapshot_every, self.keep_snapshots = fsync, snapshot_every, keep_snapshots
        self.read_only = read_only
        self._mutex = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._open = False
        self._lock_fd: int | None = None
        self._fd: int | None = None
        self._segments: list[_Segment] = []
        self._snapshots: dict[int, float] = {}
        self._last_seq = 0
        self._last_time = -math.inf
        self._meta: dict = {}
        self._broken: str | None = None

    # ---- opening --------------------------------------------------------------------
    def open(self) -> Recovered:
        """Lock the store, check it, repair a damaged tail and say what to rebuild the graph from."""
        if self._open:
            raise StoreError(f"store {self.path} is already open")
        try:
            self._prepare_dir()
            return self._recover()
        except OSError as exc:
            self._release()
            raise StoreError(f"cannot open store {self.path}: {exc}") from exc
        except BaseException:
            self._release()
            raise

    def _prepare_dir(self) -> None:
        if self.read_only:
            if not self.path.is_dir():
                raise StoreError(f"no store at {self.path}: the directory does not exist")
            return
        if not self.path.is_dir():
            self.path.mkdir(parents=True)
            self._sync_dir(self.path.parent)
        self._lock()

    def _lock(self) -> None:
        lock_path = self.path / "LOCK"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise StoreError(
                f"store {self.path} is locked by another writer ({lock_path}, pid {holder}); stop that "
                "process or open the store read-only"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock_fd = fd

    def _recover(self) -> Recovered:
        warnings: list[str] = []
        names = sorted(os.listdir(self.path))
        if not self.read_only:
            self._remove_temporaries(names)
        self._meta = self._read_meta()
        self._segments = self._scan_journal(names, warnings)
        last = self._segments[-1] if self._segments else None
        self._last_seq = last.last if last else 0
        self._last_time = max((s.last_time for s in self._segments), default=-math.inf)
        snapshot, snapshot_seq = self._recover_snapshot(names, warnings)
        if not self.read_only:
            self._open_active_segment()
        self._open = True
        return Recovered(
            snapshot=snapshot,
            snapshot_seq=snapshot_seq,
            records=RecordRange(self, snapshot_seq + 1, self._last_seq),
            warnings=warnings,
            last_seq=self._last_seq,
            meta=dict(self._meta),
            last_time=self._last_time if self._last_seq else None,
        )

    def _remove_temporaries(self, names: list[str]) -> None:
        """Remove the temporary files of snapshots and meta.json that a crash left behind."""
        for name in names:
            if name == f"{META}.tmp" or (name.endswith(".tmp") and _SNAPSHOT_RE.fullmatch(name[:-4])):
                os.unlink(self.path / name)

    def _read_meta(self) -> dict:
        path = self.path / META
        if not path.exists():
            return {}
        try:
            meta = json.loads(path.read_bytes())
        except ValueError as exc:
            raise StoreError(f"{path} is not valid JSON ({exc}); restore it or remove it") from None
        if not isinstance(meta, dict):
            raise StoreError(f"{path} must hold a JSON object; restore it or remove it")
        return meta

    # ---- journal recovery -----------------------------------------------------------
    def _scan_journal(self, names: list[str], warnings: list[str]) -> list[_Segment]:
        found = sorted((int(m[1]), name) for name in names if (m := _SEGMENT_RE.fullmatch(name)))
        if found and found[0][0] != 1:
            raise StoreError(
                f"the journal of {self.path} starts at record {found[0][0]}: journal-000000000001.log and "
                "the segments after it are missing; restore them"
            )
        segments: list[_Segment] = []
        for i, (first, name) in enumerate(found):
            expected = segments[-1].last + 1 if segments else 1
            if first != expected:
                warnings.append(f"{name} should start at record {expected}, not {first}")
                self._set_aside_files([n for _, n in found[i:]], warnings)
                break
            segment, damage = _scan_segment(self.path / name, first)
            segments.append(segment)
            if damage is not None:
                self._handle_damage(segment, damage, warnings)
                self._set_aside_files([n for _, n in found[i + 1 :]], warnings)
                break
        return segments

    def _handle_damage(self, segment: _Segment, damage: _Damage, warnings: list[str]) -> None:
        where = f"{segment.path.name}: {damage.reason} at byte {damage.offset} (after record {segment.last})"
        if self.read_only:
            warnings.append(f"{where}; ignored (read-only store, not repaired)")
            return
        aside = _aside_path(segment.path)
        with open(segment.path, "rb") as src:
            src.seek(damage.offset)
            bad = src.read()
        self._write_file(aside, bad)
        self._sync_dir(self.path)
        with open(segment.path, "r+b") as f:
            f.truncate(damage.offset)
            self._sync(f.fileno())
        warnings.append(f"{where}; {len(bad)} byte(s) moved to {aside.name} and the segment truncated")

    def _set_aside_files(self, names: list[str], warnings: list[str]) -> None:
        for name in names:
            if self.read_only:
                warnings.append(f"{name} follows damaged data; ignored (read-only store, not repaired)")
                continue
            aside = _aside_path(self.path / name)
            os.rename(self.path / name, aside)
            warnings.append(f"{name} follows damaged data; moved to {aside.name}")
        if names and not self.read_only:
            self._sync_dir(self.path)

    def _open_active_segment(self) -> None:
        if not self._segments:
            self._start_segment()
            return
        self._fd = os.open(self._segments[-1].path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)

    def _start_segment(self) -> None:
        """Create the segment for record last_seq + 1 and make it the one appended to."""
        segment = _Segment(self._last_seq + 1, self.path / f"journal-{self._last_seq + 1:012d}.log")
        fd = os.open(segment.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        if self._fd is not None:
            os.close(self._fd)
        self._fd = fd
        self._segments.append(segment)
        self._sync_dir(self.path)

    # ---- snapshot recovery ----------------------------------------------------------
    def _recover_snapshot(self, names: list[str], warnings: list[str]) -> tuple[dict | None, int]:
        found = sorted((int(m[1]) for name in names if (m := _SNAPSHOT_RE.fullmatch(name))), reverse=True)
        chosen: tuple[dict | None, int] = (None, 0)
        for seq in found:
            if seq > self._last_seq:
                self._drop_snapshot(seq, f"is after the last journal record {self._last_seq}", warnings)
                continue
            try:
                time, payload = self._read_snapshot(seq, header_only=chosen[0] is not None)
            except StoreError as exc:
                self._drop_snapshot(seq, str(exc), warnings)
                continue
            self._snapshots[seq] = time
            if chosen[0] is None:
                chosen = (payload, seq)
        return chosen

    def _drop_snapshot(self, seq: int, reason: str, warnings: list[str]) -> None:
        path = self._snapshot_path(seq)
        if self.read_only:
            warnings.append(f"{path.name} {reason}; not used")
            return
        aside = _aside_path(path)
        os.rename(path, aside)
        self._sync_dir(self.path)
        warnings.append(f"{path.name} {reason}; moved to {aside.name}, using an older snapshot")

    def _read_snapshot(self, seq: int, *, header_only: bool = False) -> tuple[float, dict | None]:
        """Check a snapshot file and return its time and (unless header_only) its graph JSON."""
        path = self._snapshot_path(seq)
        try:
            with open(path, "rb") as f:
                header = _parse_snapshot_header(f.readline(), seq)
                data = b"" if header is None or header_only else f.read()
        except OSError as exc:
            raise StoreError(f"cannot read snapshot {path}: {exc}") from None
        if header is None:
            raise StoreError(f"snapshot {path.name} has no valid header")
        if header_only:
            return header["time"], None
        payload = data[:-1]
        if len(data) != header["size"] + 1 or data[-1:] != b"\n" or _sha256(payload) != header["sha256"]:
            raise StoreError(f"snapshot {path.name} is damaged (size or sha256 mismatch)")
        graph = json.loads(payload)
        if not isinstance(graph, dict):
            raise StoreError(f"snapshot {path.name} does not hold a graph JSON object")
        return header["time"], graph

    def _snapshot_path(self, seq: int) -> Path:
        return self.path / f"snapshot-{seq:012d}.json"

    # ---- writing --------------------------------------------------------------------
    def append(self, records: Sequence[ChangeRecord]) -> None:
        """Write `records` (numbered last_seq + 1, ...) durably: one write and one fsync."""
        if not records:
            return
        with self._mutex:
            self._check_writable()
            data, lengths = self._encode(records)
            segment = self._segments[-1]
            try:
                _write_all(self._fd, data)
                self._sync(self._fd)
            except OSError as exc:
                self._broken = f"writing {segment.path.name} failed: {exc}"
                raise StoreError(
                    f"{self._broken}; the records may not be stored, close and reopen the store"
                ) from None
            self._index(segment, lengths, records)

    def _encode(self, records: Sequence[ChangeRecord]) -> tuple[bytes, list[int]]:
        lines, lengths = [], []
        seq, time = self._last_seq, self._last_time
        for record in records:
            seq += 1
            if record.seq != seq:
                raise StoreError(
                    f"record number {record.seq} given where {seq} comes next; number records 1, 2, ..."
                )
            if not record.time >= time or not math.isfinite(record.time):
                raise StoreError(
                    f"record {seq} has time {record.time}: times must be finite and never decrease "
                    f"(previous record: {time})"
                )
            time = record.time
            payload = _encode(record.to_json()).encode()
            line = b"%08x %s\n" % (zlib.crc32(payload), payload)
            lines.append(line)
            lengths.append(len(line))
        return b"".join(lines), lengths

    def _index(self, segment: _Segment, lengths: list[int], records: Sequence[ChangeRecord]) -> None:
        offset = segment.size
        for length in lengths:
            segment.offsets.append(offset)
            offset += length
        segment.size = offset
        segment.first_time = min(segment.first_time, records[0].time)
        segment.last_time = self._last_time = records[-1].time
        self._last_seq = records[-1].seq

    def snapshot(self, graph_json: dict, seq: int, time: float) -> None:
        """Store the graph after record `seq` atomically and start a new journal segment."""
        with self._mutex:
            self._check_writable()
            if not 0 <= seq <= self._last_seq:
                raise StoreError(
                    f"cannot snapshot record {seq}: the journal holds records 1..{self._last_seq}"
                )
            payload = _encode(graph_json).encode()
            header = {"format": SNAPSHOT_FORMAT, "seq": seq, "time": time, "sha256": _sha256(payload)}
            header["size"] = len(payload)
            try:
                self._replace_file(
                    self._snapshot_path(seq), b"%s\n%s\n" % (_encode(header).encode(), payload)
                )
                if len(self._segments[-1].offsets):
                    self._start_segment()
                else:
                    self._sync_dir(self.path)
                self._snapshots[seq] = time
                self._prune_snapshots()
            except OSError as exc:
                raise StoreError(f"writing the snapshot of record {seq} failed: {exc}") from exc

    def _prune_snapshots(self) -> None:
        for seq in sorted(self._snapshots)[: -self.keep_snapshots]:
            os.unlink(self._snapshot_path(seq))
            del self._snapshots[seq]

    def snapshot_due(self) -> bool:
        """Whether `snapshot_every` records were appended since the newest snapshot."""
        return self._last_seq - max(self._snapshots, default=0) >= self.snapshot_every

    @property
    def meta(self) -> dict:
        """The contents of meta.json (a copy)."""
        return dict(self._meta)

    def set_meta(self, meta: dict) -> None:
        """Replace meta.json atomically."""
        with self._mutex:
            self._check_writable()
            try:
                self._replace_file(self.path / META, _encode(meta).encode() + b"\n")
                self._sync_dir(self.path)
            except OSError as exc:
                raise StoreError(f"writing {self.path / 'meta.json'} failed: {exc}") from exc
            self._meta = dict(meta)

    def _check_open(self) -> None:
        if not self._open:
            raise StoreError(f"store {self.path} is not open; call open() first")

    def _check_writable(self) -> None:
        self._check_open()
        if self.read_only:
            raise StoreError(f"store {self.path} is open read-only; open it without read_only to write")
        if self._broken:
            raise StoreError(
                f"store {self.path} is unusable after an earlier error ({self._broken}); reopen it"
            )

    def _replace_file(self, path: Path, data: bytes) -> None:
        """Write `path` atomically: a complete temporary file renamed over it (fsync the dir after)."""
        tmp = path.with_name(path.name + ".tmp")
        self._write_file(tmp, data)
        os.replace(tmp, path)

    def _write_file(self, path: Path, data: bytes) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        try:
            _write_all(fd, data)
            self._sync(fd)
        finally:
            os.close(fd)

    def _sync(self, fd: int) -> None:
        if self.fsync:
            os.fsync(fd)

    def _sync_dir(self, path: Path) -> None:
        if not self.fsync:
            return
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    # ---- reading --------------------------------------------------------------------
    @property
    def last_seq(self) -> int:
        return self._last_seq

    def records(
        self,
        *,
        start_seq: int = 1,
        end_seq: int | None = None,
        start_time: float | None = None,
        end_time: float | None = None,
    ) -> Iterator[ChangeRecord]:
        """Records with start_seq <= seq <= end_seq and start_time <= time <= end_time, in order."""
        raw = self.raw_records(start_seq=start_seq, end_seq=end_seq, start_time=start_time, end_time=end_time)
        return (ChangeRecord.from_json(data) for data in raw)

    def raw_records(
        self,
        *,
        start_seq: int = 1,
        end_seq: int | None = None,
        start_time: float | None = None,
        end_time: float | None = None,
    ) -> Iterator[dict]:
        """Like `records`, as the records' JSON dicts (fast: no ChangeRecord built)."""
        self._check_open()
        last_seq = self._last_seq if end_seq is None else min(end_seq, self._last_seq)
        lo_time = -math.inf if start_time is None else start_time
        hi_time = math.inf if end_time is None else end_time
        for segment in list(self._segments):
            count = len(segment.offsets)
            if segment.first > last_seq or segment.first_time > hi_time:
                return
            if not count or segment.last < start_seq or segment.last_time < lo_time:
                continue
            yield from self._read_segment(segment, start_seq, last_seq, lo_time, hi_time, count)

    def _read_segment(
        self, segment: _Segment, start_seq: int, last_seq: int, lo_time: float, hi_time: float, count: int
    ) -> Iterator[dict]:
        with open(segment.path, "rb") as f:
            index = max(0, start_seq - segment.first)
            if lo_time > segment.first_time:
                index = max(index, _count_before(f, segment, count, lo_time, inclusive=False))
            n = min(count, last_seq - segment.first + 1) - index
            if n <= 0:
                return
            f.seek(segment.offsets[index])
            seq = segment.first + index
            for line in islice(f, n):
                data = _decode_line(line, segment.path, seq)
                if data["time"] > hi_time:
                    return
                yield data
                seq += 1

    def record(self, seq: int) -> ChangeRecord:
        """The record number `seq` (KeyError if the journal has no such record)."""
        self._check_open()
        segments = self._segments
        i = bisect_right([s.first for s in segments], seq) - 1
        if seq < 1 or i < 0 or seq > segments[i].last:
            raise KeyError(f"no record {seq}: the journal holds records 1..{self._last_seq}")
        segment = segments[i]
        with open(segment.path, "rb") as f:
            f.seek(segment.offsets[seq - segment.first])
            return ChangeRecord.from_json(_decode_line(f.readline(), segment.path, seq))

    def seq_at(self, time: float) -> int:
        """The number of the last record with a time <= `time` (0 if there is none)."""
        self._check_open()
        candidates = [s for s in self._segments if s.offsets and s.first_time <= time]
        if not candidates:
            return 0
        segment = candidates[-1]
        with open(segment.path, "rb") as f:
            return segment.first - 1 + _count_before(f, segment, len(segment.offsets), time, inclusive=True)

    def snapshots(self) -> list[tuple[int, float]]:
        """(seq, time) of the kept snapshots, oldest first."""
        return sorted(self._snapshots.items())

    def load_snapshot(self, seq: int) -> dict:
        """The graph JSON of the snapshot after record `seq` (StoreError if missing or damaged)."""
        if seq not in self._snapshots:
            raise StoreError(f"no snapshot at record {seq}; kept snapshots: {sorted(self._snapshots)}")
        return self._read_snapshot(seq)[1]

    # ---- closing --------------------------------------------------------------------
    def close(self) -> None:
        """Close the journal and release the lock (appended records are already durable)."""
        with self._mutex:
            self._release()

    def _release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
        if self._lock_fd is not None:
            os.close(self._lock_fd)
        self._reset()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _scan_segment(path: Path, first: int) -> tuple[_Segment, _Damage | None]:
    """Index the good records of a segment; stop at the first bad line."""
    segment = _Segment(first, path)
    offsets, offset, seq, damage = segment.offsets, 0, first, None
    last_line = b""
    with open(path, "rb") as f:
        for line in f:
            reason = _line_problem(line, seq)
            if reason is not None:
                damage = _Damage(offset, reason)
                break
            offsets.append(offset)
            offset += len(line)
            seq += 1
            last_line = line
    segment.size = offset
    if offsets:
        with open(path, "rb") as f:
            segment.first_time = _decode_line(f.readline(), path, first)["time"]
        segment.last_time = _decode_line(last_line, path, seq - 1)["time"]
    return segment, damage


def _count_before(f: BinaryIO, segment: _Segment, count: int, time: float, *, inclusive: bool) -> int:
    """How many of the first `count` records of `segment` have a time < `time` (<= if inclusive)."""
    lo, hi = 0, count
    while lo < hi:
        mid = (lo + hi) // 2
        f.seek(segment.offsets[mid])
        found = _decode_line(f.readline(), segment.path, segment.first + mid)["time"]
        if found < time or (inclusive and found == time):
            lo = mid + 1
        else:
            hi = mid
    return lo


def _line_problem(line: bytes, seq: int) -> str | None:
    """Why a journal line is not record `seq` with a valid checksum (None if it is)."""
    if line[-1:] != b"\n":
        return "incomplete last line (torn write)"
    if line[8:9] != b" " or line[:8] != b"%08x" % zlib.crc32(line[9:-1]):
        return "checksum mismatch"
    if not line.startswith(b'{"seq":%d,' % seq, 9):
        return f"record {seq} expected but the line starts with {line[9:40]!r}"
    return None


def _decode_line(line: bytes, path: Path, seq: int) -> dict:
    """The JSON of a journal line already checked by open(); StoreError if it changed since."""
    payload = line[9:-1]
    if line[:8] != b"%08x" % zlib.crc32(payload) or line[-1:] != b"\n":
        raise StoreError(
            f"record {seq} in {path} changed on disk after the store was opened; reopen the store"
        )
    try:
        data = _parse_json(payload)
    except ValueError:
        data = None
    if data.__class__ is not dict or data.get("seq") != seq or data.get("time").__class__ not in (float, int):
        raise StoreError(
            f"record {seq} in {path} is not a change record although its checksum matches; "
            "was the file edited by hand? Move it aside and reopen the store"
        )
    return data


def _parse_snapshot_header(line: bytes, seq: int) -> dict | None:
    try:
        header = json.loads(line)
    except ValueError:
        return None
    ok = (
        isinstance(header, dict)
        and header.get("format") == SNAPSHOT_FORMAT
        and header.get("seq") == seq
        and isinstance(header.get("time"), int | float)
        and isinstance(header.get("sha256"), str)
        and isinstance(header.get("size"), int)
    )
    return header if ok else None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _aside_path(path: Path) -> Path:
    """A new ``<name>.corrupt-<n>`` path next to `path`."""
    n = 1
    while (aside := path.with_name(f"{path.name}.corrupt-{n}")).exists():
        n += 1
    return aside


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
