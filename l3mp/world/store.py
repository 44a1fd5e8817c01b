"""Durable storage of the world state: an append-only journal of change records plus snapshots.

On-disk format
==============

A store is one directory::

    journal-000000000001.log      journal segment: records 1, 2, ... (append-only)
    journal-000000010001.log      next segment, started by the snapshot at record 10000
    snapshot-000000010000.json    compacted graph after record 10000
    meta.json                     small JSON object (domain name and sha256, ...)
    LOCK                          flock()ed by the single writer; holds its pid
    acknowledged.json             damage a person has acknowledged (l3mp store ack)
    *.corrupt-<n>                 a damaged snapshot moved aside by recovery (never deleted)
    *.torn-<n>                    a torn journal tail (crash during a write) moved aside (never deleted)

**Journal segments** ``journal-<seq of its first record, 12 digits>.log`` hold one change record
per line::

    <crc32 of the payload, 8 lowercase hex digits> <payload>\\n

where the payload is ``ChangeRecord.to_json()`` as compact JSON (no spaces, ASCII only, key
``"seq"`` first) and the checksum is ``zlib.crc32`` of its bytes, so a line reads
``3b1f09a2 {"seq":12,"time":1763712000.25,"source":"nl",...}``. Records are numbered 1, 2, 3, ...
across all segments, the first segment being ``journal-000000000001.log``; a segment holds the numbers
from its own up to the next segment's first minus one. Times never decrease. Segments are never
rewritten: a snapshot only starts a new one (empty until the next append), and old segments stay as
history.

**Snapshots** ``snapshot-<seq, 12 digits>.json`` are the graph after record ``seq``: a header line
``{"format":"l3mp.snapshot/1","seq":N,"time":T,"sha256":"<hex of payload>","size":<payload bytes>}``
then the payload, the graph JSON (``WorldGraph.to_json()``) as compact JSON, then a newline. They are
written to ``*.tmp``, fsync'd, renamed into place and the directory fsync'd, so a snapshot file is
either absent or complete. Only the newest ``keep_snapshots`` are kept.

**meta.json** is written the same atomic way; ``WorldModel`` writes it before the first record and
refuses a journal with records but no meta.json (it says which domain the records belong to).

**acknowledged.json** (``{"acknowledged": [key, ...]}``) lists the damage a person has seen
(``l3mp store ack``); it is the only file written without the lock, and only by that command.

Durability and recovery
=======================

``append`` writes a batch of records with one ``write`` and one ``fsync``: when it returns, the
records survive a crash. If the write or the fsync fails (a full disk, an I/O error), the segment is
cut back to its last acknowledged record and the error raised; if even that fails, the next call cuts
it first. So the store heals by itself when the cause goes away, and never needs reopening.

``open`` recovers (``l3mp.world.journal`` reads the segments):

* every line is checked: newline at the end, CRC, a record number above the one before it. Damaged
  lines between good records stay where they are (nothing is rewritten). When one changed byte explains
  them (a flipped bit or byte, a newline gained or lost) they are repaired in memory, so no record is
  lost; otherwise the numbers between the good records around them are lost, and reserved: they are
  never given to a new record. Every good record after the damage is kept. ``Recovered.damage`` and
  ``damage()`` list what was found; ``l3mp check`` reports it until it is acknowledged.
* bad bytes after the last good record of the last segment that no repair explains are a torn write
  (a crash during ``append``: never acknowledged). They are copied to ``<segment>.torn-<n>`` and the
  segment truncated, with a warning; the next append continues after the last good record. When the
  last segment's tail was repaired in memory, the next append starts a new segment instead.
* the newest snapshot whose sha256 verifies and whose ``seq`` the journal covers is loaded; a
  damaged one is renamed to ``<name>.corrupt-<n>`` (reported as damage) and the next older one used
  (replaying more journal); with none the whole journal is replayed. The journal is the source of
  truth, snapshots a checkpoint: a valid snapshot after lost records makes them cost nothing in the
  live state. Leftover ``*.tmp`` files are removed.
* ``Recovered.records`` are the readable records after the snapshot, read lazily from disk; a gap in
  their numbers marks lost ones. ``l3mp.world.history.replay_checked`` (used by ``WorldModel``)
  replays them and, after a gap, verifies each record first and holds back those that no longer fit.

A line whose CRC verifies was written by ``append`` from a valid ``ChangeRecord``: only a
hand-edited file can hold such a line that is not a record, and reading it raises StoreError.
A ``read_only`` store takes no lock and never repairs: it ignores a torn tail (a writer may be
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
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import overload

from l3mp.errors import StoreError
from l3mp.world.journal import Damage, Segment, decode_line, encode_line, scan_segment
from l3mp.world.record import ChangeRecord

SNAPSHOT_FORMAT = "l3mp.snapshot/1"
META = "meta.json"
ACKNOWLEDGED = "acknowledged.json"
_SEGMENT_RE = re.compile(r"journal-(\d{12})\.log")
_SNAPSHOT_RE = re.compile(r"snapshot-(\d{12})\.json")
_SIDE_RE = re.compile(r".+\.corrupt-\d+")
_encode = json.JSONEncoder(separators=(",", ":")).encode


@dataclass
class Recovered:
    """What to rebuild the graph from: the snapshot payload, then `records` applied in order."""

    snapshot: dict | None
    snapshot_seq: int
    records: RecordRange
    warnings: list[str]
    last_seq: int
    meta: dict
    last_time: float | None = None  # time of the last readable record (None: none)
    damage: list[Damage] = field(default_factory=list)


class RecordRange(Sequence[ChangeRecord]):
    """The readable records numbered `start`..`end` of an open store, read from disk when used (1M records
    fit in no list). Damaged records are left out, so numbers may jump."""

    def __init__(self, store: Store, start: int, end: int) -> None:
        self._store, self._start, self._end = store, start, end

    def __len__(self) -> int:
        return self._store.count_records(self._start, self._end)

    @overload
    def __getitem__(self, index: int) -> ChangeRecord: ...
    @overload
    def __getitem__(self, index: slice) -> list[ChangeRecord]: ...
    def __getitem__(self, index: int | slice) -> ChangeRecord | list[ChangeRecord]:
        if isinstance(index, slice):
            return list(islice(iter(self), *index.indices(len(self))))
        size = len(self)
        if not -size <= index < size:
            raise IndexError(f"record index {index} out of range for {size} record(s)")
        return next(islice(iter(self), index % size, None))

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


def acknowledged_damage(path: Path) -> set[str]:
    """The keys of the damage a person has acknowledged in the store at `path`."""
    try:
        data = json.loads((path / ACKNOWLEDGED).read_bytes())
    except FileNotFoundError:
        return set()
    except (OSError, ValueError) as exc:
        raise StoreError(f"cannot read {path / ACKNOWLEDGED}: {exc}; remove it to see all damage again") from None
    keys = data.get("acknowledged") if isinstance(data, dict) else None
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        raise StoreError(f"{path / ACKNOWLEDGED} must hold {{\"acknowledged\": [keys]}}; remove it to see all "
                         "damage again")
    return set(keys)


def acknowledge_damage(path: Path, keys: Sequence[str], *, fsync: bool = True) -> None:
    """Add `keys` to the acknowledged damage of the store at `path` (atomic; needs no lock: only this writes it)."""
    keys = sorted(acknowledged_damage(path) | set(keys))
    target = path / ACKNOWLEDGED
    tmp = path / f"{ACKNOWLEDGED}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(_encode({"acknowledged": keys}).encode() + b"\n")
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise StoreError(f"cannot write {target}: {exc}") from None


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
        self._segments: list[Segment] = []
        self._snapshots: dict[int, float] = {}
        self._last_seq = 0
        self._last_time = -math.inf
        self._meta: dict = {}
        self._broken: str | None = None
        self._damage: list[Damage] = []
        self._created: list[Path] = []

    # ---- opening --------------------------------------------------------------------
    def open(self) -> Recovered:
        """Lock the store, check it, repair a torn tail and say what to rebuild the graph from."""
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
            self._created = [p for p in (self.path, *self.path.parents) if not p.exists()]
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
        self._last_seq = self._segments[-1].end if self._segments else 0
        self._last_time = max((s.last_time for s in self._segments), default=-math.inf)
        snapshot, snapshot_seq = self._recover_snapshot(names, warnings)
        self._damage += [Damage(name, f"{name}: damaged bytes set aside by an earlier recovery (kept)")
                         for name in sorted(os.listdir(self.path)) if _SIDE_RE.fullmatch(name)]
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
            last_time=self._last_time if math.isfinite(self._last_time) else None,
            damage=list(self._damage),
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
            raise StoreError(f"{path} is not valid JSON ({exc}); restore it from a backup") from None
        if not isinstance(meta, dict):
            raise StoreError(f"{path} must hold a JSON object; restore it from a backup")
        return meta

    # ---- journal recovery -----------------------------------------------------------
    def _scan_journal(self, names: list[str], warnings: list[str]) -> list[Segment]:
        found = sorted((int(m[1]), name) for name in names if (m := _SEGMENT_RE.fullmatch(name)))
        if found and found[0][0] != 1:
            raise StoreError(
                f"the journal of {self.path} starts at record {found[0][0]}: journal-000000000001.log and "
                "the segments after it are missing; restore them"
            )
        segments: list[Segment] = []
        for i, (first, name) in enumerate(found):
            end = found[i + 1][0] - 1 if i + 1 < len(found) else None
            segment, damages, torn = scan_segment(self.path / name, first, end)
            segments.append(segment)
            self._damage += damages
            warnings += [d.text for d in damages]
            if torn is not None:
                self._cut_torn_tail(segment, torn, warnings)
        return segments

    def _cut_torn_tail(self, segment: Segment, offset: int, warnings: list[str]) -> None:
        where = f"{segment.path.name}: torn write at byte {offset} (after record {segment.end})"
        if self.read_only:
            warnings.append(f"{where}; ignored (read-only store, not repaired)")
            return
        with open(segment.path, "rb") as src:
            src.seek(offset)
            bad = src.read()
        aside = _aside_path(segment.path, "torn")
        self._write_file(aside, bad)
        self._sync_dir(self.path)
        self._truncate(segment.path, offset)
        warnings.append(f"{where}; {len(bad)} byte(s) moved to {aside.name} and the segment truncated")

    def _truncate(self, path: Path, size: int) -> None:
        with open(path, "r+b") as f:
            f.truncate(size)
            self._sync(f.fileno())

    def _open_active_segment(self) -> None:
        if not self._segments or self._segments[-1].sealed:
            self._start_segment()
            return
        self._fd = os.open(self._segments[-1].path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)

    def _start_segment(self) -> None:
        """Create the segment for record last_seq + 1 and make it the one appended to."""
        segment = Segment(self._last_seq + 1, self.path / f"journal-{self._last_seq + 1:012d}.log")
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
        aside = _aside_path(path, "corrupt")
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
        """Write `records` (numbered last_seq + 1, ...) durably: one write and one fsync. On failure nothing of
        them is kept (StoreError), and the next call works again once the cause is gone."""
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
                self._broken = failure = f"writing {segment.path.name} failed: {exc}"
                self._heal()
                raise StoreError(f"{failure}; none of the {len(records)} record(s) is stored (the store works "
                                 "again once the cause is gone)") from None
            self._index(segment, lengths, records)

    def _heal(self) -> None:
        """Cut the active segment back to its last acknowledged record after a failed write (a partial line, or
        data whose fsync failed); until that works, writing is refused."""
        if self._broken is None:
            return
        segment = self._segments[-1]
        try:
            os.ftruncate(self._fd, segment.size)
            self._sync(self._fd)
        except OSError as exc:
            self._broken = f"cutting {segment.path.name} back after a failed write failed too: {exc}"
            return
        self._broken = None

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
            line = encode_line(_encode(record.to_json()).encode())
            lines.append(line)
            lengths.append(len(line))
        return b"".join(lines), lengths

    def _index(self, segment: Segment, lengths: list[int], records: Sequence[ChangeRecord]) -> None:
        offset = segment.size
        for length, record in zip(lengths, records, strict=True):
            segment.add(record.seq, offset, record.time)
            offset += length
        segment.size = offset
        self._last_time = records[-1].time
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
                if len(self._segments[-1].seqs):
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

    def damage(self) -> list[Damage]:
        """The damage found when the store was opened: in the journal, and files set aside."""
        self._check_open()
        return list(self._damage)

    def unacknowledged_damage(self) -> list[Damage]:
        """The damage no person has acknowledged yet (re-reads acknowledged.json)."""
        seen = acknowledged_damage(self.path)
        return [d for d in self.damage() if d.key not in seen]

    def _check_open(self) -> None:
        if not self._open:
            raise StoreError(f"store {self.path} is not open; call open() first")

    def _check_writable(self) -> None:
        self._check_open()
        if self.read_only:
            raise StoreError(f"store {self.path} is open read-only; open it without read_only to write")
        self._heal()
        if self._broken:
            raise StoreError(f"store {self.path} cannot be written yet ({self._broken}); it retries at the next "
                             "change")

    def _replace_file(self, path: Path, data: bytes) -> None:
        """Write `path` atomically: a complete temporary file renamed over it (fsync the dir after)."""
        tmp = path.with_name(path.name + ".tmp")
        self._write_file(tmp, data)
        os.replace(tmp, path)

    def _write_file(self, path: Path, data: bytes) -> None:
        """Write a whole new file (fsync'd); on failure it is removed, so no empty or partial file is left."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        try:
            _write_all(fd, data)
            self._sync(fd)
        except BaseException:
            os.close(fd)
            path.unlink(missing_ok=True)
            raise
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
        """The highest record number given (damaged ones included: numbers are never given twice)."""
        return self._last_seq

    def count_records(self, start_seq: int, end_seq: int) -> int:
        """How many readable records are numbered start_seq..end_seq."""
        self._check_open()
        return sum(s.index_of(end_seq + 1) - s.index_of(start_seq) for s in self._segments)

    def records(
        self,
        *,
        start_seq: int = 1,
        end_seq: int | None = None,
        start_time: float | None = None,
        end_time: float | None = None,
    ) -> Iterator[ChangeRecord]:
        """Readable records with start_seq <= seq <= end_seq and start_time <= time <= end_time, in order."""
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
            if segment.first > last_seq or segment.first_time > hi_time:
                return
            if not segment.seqs or segment.end < start_seq or segment.last_time < lo_time:
                continue
            yield from self._read_segment(segment, start_seq, last_seq, lo_time, hi_time)

    def _read_segment(
        self, segment: Segment, start_seq: int, last_seq: int, lo_time: float, hi_time: float
    ) -> Iterator[dict]:
        with open(segment.path, "rb") as f:
            index = segment.index_of(start_seq)
            if lo_time > segment.first_time:
                index = max(index, segment.count_before(f, lo_time, inclusive=False))
            for data in segment.read(f, index, segment.index_of(last_seq + 1)):
                if data["time"] > hi_time:
                    return
                yield data

    def record(self, seq: int) -> ChangeRecord:
        """The record number `seq` (KeyError if the journal has no readable record of that number)."""
        self._check_open()
        segments = self._segments
        i = bisect_right([s.first for s in segments], seq) - 1
        if seq < 1 or i < 0 or seq > segments[i].end:
            raise KeyError(f"no record {seq}: the journal holds records 1..{self._last_seq}")
        segment = segments[i]
        index = segment.index_of(seq)
        if index == len(segment.seqs) or segment.seqs[index] != seq:
            raise KeyError(f"record {seq} is damaged and cannot be read (see 'l3mp check')")
        with open(segment.path, "rb") as f:
            return ChangeRecord.from_json(decode_line(segment.line(f, index), segment.path, seq))

    def last_record(self) -> ChangeRecord | None:
        """The readable record with the highest number (None: the journal has none)."""
        self._check_open()
        segment = next((s for s in reversed(self._segments) if s.seqs), None)
        return None if segment is None else self.record(segment.seqs[-1])

    def seq_at(self, time: float) -> int:
        """The number of the last readable record with a time <= `time` (0 if there is none)."""
        self._check_open()
        candidates = [s for s in self._segments if s.seqs and s.first_time <= time]
        if not candidates:
            return 0
        segment = candidates[-1]
        with open(segment.path, "rb") as f:
            return segment.seqs[segment.count_before(f, time, inclusive=True) - 1]

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
        """Close the journal and release the lock (appended records are already durable). A store this object
        created that never received a record is removed again, so a failed creation leaves no directory."""
        with self._mutex:
            created = self._created if self._open and self._last_seq == 0 else []
            self._release()
            _remove_unused(created)

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


def _remove_unused(created: list[Path]) -> None:
    """Remove the directories in `created` (a new store first, then the parents made for it) if they hold nothing
    but what an empty store has."""
    if not created:
        return
    store = created[0]
    for name in ("LOCK", META, "journal-000000000001.log"):
        path = store / name
        if name != "journal-000000000001.log" or (path.exists() and path.stat().st_size == 0):
            path.unlink(missing_ok=True)
    for directory in created:
        try:
            directory.rmdir()
        except OSError:
            return


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


def _aside_path(path: Path, kind: str) -> Path:
    """A new ``<name>.<kind>-<n>`` path next to `path`."""
    n = 1
    while (aside := path.with_name(f"{path.name}.{kind}-{n}")).exists():
        n += 1
    return aside


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
