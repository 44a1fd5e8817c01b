"""The durable store: round trips, fsync batching, snapshots, recovery from damage, locking."""

from __future__ import annotations

import errno
import json
import os
import re
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from l3mp.domain.triplets import Fact
from l3mp.errors import StoreError
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.record import ChangeRecord
from l3mp.world.store import Store, acknowledge_damage, acknowledged_damage

GRAPH = {
    "format": "l3mp.graph/1",
    "entities": {"cup_1": {"type": "cup", "since": 1}},
    "facts": [],
    "since": [],
}


def make_record(seq: int, time: float | None = None) -> ChangeRecord:
    """A record with some of everything: binary, unary, 0-ary and 3-ary facts, entities, text."""
    kind = seq % 4
    if kind == 0:
        delta = Delta(
            add=(Fact("on", (f"cup_{seq}", "table_1")),), entities={f"cup_{seq}": EntitySpec("cup", "a cup")}
        )
    elif kind == 1:
        delta = Delta(remove=(Fact("light_on", ("light_1",)),), add=(Fact("raining", ()),))
    elif kind == 2:
        delta = Delta(add=(Fact("between", ("cup_1", "table_1", "shelf_1")),), remove_entities=("cup_9",))
    else:
        delta = Delta(remove=(Fact("on", ("cup_1", "table_1")),), add=(Fact("on", ("cup_1", "shelf_1")),))
    text = "the cup is on\nthe shelf — ☕" if seq % 3 == 0 else None
    return ChangeRecord(
        seq, 100.0 + seq if time is None else time, "perception", delta, input=text, ref=f"obs-{seq}"
    )


def records(first: int, last: int) -> list[ChangeRecord]:
    return [make_record(seq) for seq in range(first, last + 1)]


def line_of(record: ChangeRecord) -> bytes:
    """The journal line the store writes for a record (the documented format)."""
    payload = json.dumps(record.to_json(), separators=(",", ":")).encode()
    return b"%08x %s\n" % (zlib.crc32(payload), payload)


def opened(path: Path, **options) -> tuple[Store, object]:
    store = Store(path, fsync=False, **options)
    return store, store.open()


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    """A store holding records 1..10 in one segment, closed."""
    store, _ = opened(tmp_path)
    store.append(records(1, 4))
    store.append(records(5, 10))
    store.close()
    return tmp_path


def segment(path: Path, first: int = 1) -> Path:
    return path / f"journal-{first:012d}.log"


# ---- round trip -------------------------------------------------------------------------
def test_new_store_is_created_with_its_parents(tmp_path: Path) -> None:
    store, recovered = opened(tmp_path / "a" / "b")
    assert (recovered.snapshot, recovered.snapshot_seq, recovered.last_seq, recovered.last_time) == (
        None,
        0,
        0,
        None,
    )
    assert list(recovered.records) == [] and recovered.warnings == [] and recovered.meta == {}
    assert sorted(p.name for p in (tmp_path / "a" / "b").iterdir()) == ["LOCK", "journal-000000000001.log"]
    store.close()


def test_append_and_reopen_round_trip(store_dir: Path) -> None:
    store, recovered = opened(store_dir)
    assert (recovered.last_seq, recovered.last_time, recovered.warnings) == (10, 110.0, [])
    assert list(recovered.records) == records(1, 10)
    assert len(recovered.records) == 10 and recovered.records[-1] == make_record(10)
    assert recovered.records[2:4] == records(3, 4)
    assert [r for r in recovered.records.raw()] == [r.to_json() for r in records(1, 10)]
    assert segment(store_dir).read_bytes() == b"".join(line_of(r) for r in records(1, 10))
    store.close()


def test_next_append_continues_after_reopen(store_dir: Path) -> None:
    store, _ = opened(store_dir)
    with pytest.raises(StoreError, match="record number 12 given where 11 comes next"):
        store.append([make_record(12)])
    store.append(records(11, 12))
    store.close()
    store, recovered = opened(store_dir)
    assert list(recovered.records) == records(1, 12)
    store.close()


def test_append_refuses_time_going_backwards_and_writes_nothing(store_dir: Path) -> None:
    store, _ = opened(store_dir)
    before = segment(store_dir).read_bytes()
    with pytest.raises(StoreError, match="never decrease"):
        store.append([make_record(11, time=200.0), make_record(12, time=150.0)])
    with pytest.raises(StoreError, match="finite"):
        store.append([make_record(11, time=float("nan"))])
    assert segment(store_dir).read_bytes() == before
    store.append([make_record(11, time=110.0), make_record(12, time=110.0)])  # equal times are fine
    assert store.last_seq == 12
    store.close()


def test_record_random_access(store_dir: Path) -> None:
    store, _ = opened(store_dir)
    assert [store.record(seq) for seq in (7, 1, 10)] == [make_record(7), make_record(1), make_record(10)]
    for missing in (0, 11):
        with pytest.raises(KeyError, match=f"no record {missing}"):
            store.record(missing)
    store.close()


def test_one_fsync_per_append(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path)
    store.open()
    calls: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real_fsync(fd)))
    store.append(records(1, 500))
    assert len(calls) == 1
    store.append(records(501, 501))
    assert len(calls) == 2
    store.close()
    calls.clear()
    store = Store(tmp_path, fsync=False)
    store.open()
    store.append(records(502, 600))
    store.snapshot(GRAPH, 600, 700.0)
    store.set_meta({"domain": "household"})
    assert calls == []
    store.close()


@pytest.mark.parametrize("fails", ["write", "partial-write", "fsync"])
def test_a_failed_write_stores_nothing_and_the_store_heals_when_the_cause_is_gone(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    # TEST DOUBLE at the file layer: the OS call fails as on a full disk (the real full-disk test: test_faults.py)
    store, _ = Store(store_dir), None
    store.open()
    size = segment(store_dir).stat().st_size
    real_write = os.write

    def full_disk(fd: int, data: bytes) -> int:
        if fails == "partial-write":
            real_write(fd, bytes(data)[:25])
        raise OSError(errno.ENOSPC, "No space left on device")

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    if fails == "fsync":
        monkeypatch.setattr(os, "fsync", failing_fsync)
    else:
        monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(StoreError, match="none of the 1 record"):
        store.append(records(11, 11))
    assert store.last_seq == 10
    monkeypatch.undo()
    assert segment(store_dir).stat().st_size == size  # the partial write was cut off
    store.append(records(11, 12))  # healed: no reopen needed
    store.close()
    store, recovered = opened(store_dir)
    assert list(recovered.records) == records(1, 12) and recovered.warnings == [] and recovered.damage == []
    store.close()


def test_writing_is_refused_until_the_failed_write_can_be_cut_off(store_dir: Path, monkeypatch) -> None:
    store, _ = opened(store_dir)
    real_write = os.write

    def half(fd: int, data: bytes) -> int:
        real_write(fd, bytes(data)[:25])
        raise OSError(errno.EIO, "Input/output error")

    def no_truncate(fd: int, size: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "write", half)
    monkeypatch.setattr(os, "ftruncate", no_truncate)
    with pytest.raises(StoreError, match="Input/output error"):
        store.append(records(11, 11))
    monkeypatch.setattr(os, "write", real_write)
    with pytest.raises(StoreError, match="cannot be written yet"):
        store.append(records(11, 11))
    monkeypatch.undo()
    store.append(records(11, 11))
    store.close()
    store, recovered = opened(store_dir)
    assert list(recovered.records) == records(1, 11) and recovered.warnings == []
    store.close()


def test_failed_file_writes_leave_no_empty_side_file(store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = segment(store_dir)
    torn = line_of(make_record(11))[:30]
    path.write_bytes(path.read_bytes() + torn)
    real_write = os.write

    def full_disk(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(StoreError, match="No space left"):
        Store(store_dir, fsync=False).open()
    monkeypatch.setattr(os, "write", real_write)
    assert sorted(p.name for p in store_dir.iterdir() if "journal" in p.name) == ["journal-000000000001.log"]
    store, recovered = opened(store_dir)
    assert "torn-1" in recovered.warnings[0] and (store_dir / "journal-000000000001.log.torn-1").read_bytes() == torn
    store.close()


# ---- snapshots --------------------------------------------------------------------------
def test_snapshot_starts_a_segment_and_reopen_replays_only_after_it(tmp_path: Path) -> None:
    store, _ = opened(tmp_path, snapshot_every=5)
    store.append(records(1, 4))
    assert not store.snapshot_due()
    store.append(records(5, 12))
    assert store.snapshot_due()
    store.snapshot(GRAPH, 12, 112.0)
    assert not store.snapshot_due()
    store.append(records(13, 15))
    store.close()
    assert sorted(p.name for p in tmp_path.glob("journal-*")) == [
        segment(tmp_path).name,
        segment(tmp_path, 13).name,
    ]
    store, recovered = opened(tmp_path, snapshot_every=5)
    assert (recovered.snapshot, recovered.snapshot_seq, recovered.last_seq) == (GRAPH, 12, 15)
    assert list(recovered.records) == records(13, 15)
    assert list(store.records()) == records(1, 15)
    assert store.snapshots() == [(12, 112.0)]
    assert store.load_snapshot(12) == GRAPH
    store.close()


def test_snapshot_of_an_empty_segment_keeps_it(tmp_path: Path) -> None:
    store, _ = opened(tmp_path)
    store.append(records(1, 3))
    store.snapshot(GRAPH, 3, 103.0)
    store.snapshot(GRAPH, 3, 103.5)
    with pytest.raises(StoreError, match=r"journal holds records 1\.\.3"):
        store.snapshot(GRAPH, 4, 104.0)
    store.append(records(4, 5))
    store.close()
    assert sorted(p.name for p in tmp_path.glob("journal-*")) == [
        segment(tmp_path).name,
        segment(tmp_path, 4).name,
    ]
    store, recovered = opened(tmp_path)
    assert store.snapshots() == [(3, 103.5)] and list(recovered.records) == records(4, 5)
    store.close()


def test_failed_snapshot_leaves_the_store_usable(store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = opened(store_dir)

    def failing_replace(src: object, dst: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(StoreError, match=r"snapshot of record 10 failed: .*Input/output error"):
        store.snapshot(GRAPH, 10, 110.0)
    monkeypatch.undo()
    store.append(records(11, 11))
    store.close()
    store, recovered = opened(store_dir)
    assert (recovered.snapshot, recovered.last_seq, recovered.warnings) == (None, 11, [])
    assert not list(store_dir.glob("*.tmp"))
    store.close()


def test_only_the_newest_snapshots_are_kept(tmp_path: Path) -> None:
    store, _ = opened(tmp_path, keep_snapshots=2)
    for seq in (2, 4, 6):
        store.append(records(seq - 1, seq))
        store.snapshot({**GRAPH, "n": seq}, seq, 100.0 + seq)
    assert store.snapshots() == [(4, 104.0), (6, 106.0)]
    assert sorted(p.name for p in tmp_path.glob("snapshot-*")) == [
        "snapshot-000000000004.json",
        "snapshot-000000000006.json",
    ]
    store.close()


def snapshotted_store(path: Path) -> None:
    """Records 1..9 with snapshots after 3 and 6."""
    store, _ = opened(path)
    for seq in (3, 6):
        store.append(records(seq - 2, seq))
        store.snapshot({**GRAPH, "n": seq}, seq, 100.0 + seq)
    store.append(records(7, 9))
    store.close()


def flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x20
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: flip_byte(p, p.stat().st_size - 10),
        lambda p: p.write_bytes(p.read_bytes()[:-40]),
        lambda p: p.write_bytes(p.read_bytes().split(b"\n", 1)[1]),
        lambda p: p.write_bytes(b""),
    ],
    ids=["flipped-byte", "truncated", "no-header", "empty"],
)
def test_corrupt_newest_snapshot_falls_back_to_an_older_one(tmp_path: Path, damage: Callable) -> None:
    snapshotted_store(tmp_path)
    newest = tmp_path / "snapshot-000000000006.json"
    damage(newest)
    store, recovered = opened(tmp_path)
    assert (recovered.snapshot, recovered.snapshot_seq) == ({**GRAPH, "n": 3}, 3)
    assert list(recovered.records) == records(4, 9)
    assert "snapshot-000000000006.json" in recovered.warnings[0]
    assert not newest.exists() and (tmp_path / "snapshot-000000000006.json.corrupt-1").exists()
    assert store.snapshots() == [(3, 103.0)]
    store.close()


def test_with_every_snapshot_corrupt_the_whole_journal_is_replayed(tmp_path: Path) -> None:
    snapshotted_store(tmp_path)
    for snapshot in tmp_path.glob("snapshot-*.json"):
        flip_byte(snapshot, snapshot.stat().st_size - 5)
    store, recovered = opened(tmp_path)
    assert (recovered.snapshot, recovered.snapshot_seq, len(recovered.warnings)) == (None, 0, 2)
    assert list(recovered.records) == records(1, 9)
    store.close()


def test_stale_temporary_files_are_removed(store_dir: Path) -> None:
    (store_dir / "snapshot-000000000010.json.tmp").write_bytes(b'{"format": "l3mp.snap')
    (store_dir / "meta.json.tmp").write_bytes(b"{")
    store, recovered = opened(store_dir)
    assert recovered.warnings == [] and not list(store_dir.glob("*.tmp"))
    store.close()


# ---- torn and damaged journals -----------------------------------------------------------
def flip_last_crc(data: bytes) -> bytes:
    start = len(data) - len(line_of(make_record(10)))
    return data[:start] + (b"1" if data[start : start + 1] == b"0" else b"0") + data[start + 1 :]


def change(data: bytes, offset: int, xor: int = 0x20) -> bytes:
    return data[:offset] + bytes([data[offset] ^ xor]) + data[offset + 1 :]


TORN = {
    # damage to the end of a segment holding records 1..10 that is a crash during a write: cut off
    "half-line": lambda data: data + line_of(make_record(11))[:30],
    "cut-in-checksum": lambda data: data + line_of(make_record(11))[:5],
}


@pytest.mark.parametrize("name", TORN)
def test_torn_tail_is_moved_aside_and_earlier_records_kept(store_dir: Path, name: str) -> None:
    path = segment(store_dir)
    good = path.read_bytes()
    path.write_bytes(TORN[name](good))
    damaged = path.read_bytes()
    store, recovered = opened(store_dir)
    assert recovered.last_seq == 10 and list(recovered.records) == records(1, 10) and recovered.damage == []
    assert len(recovered.warnings) == 1 and "journal-000000000001.log.torn-1" in recovered.warnings[0]
    assert path.read_bytes() == good
    assert (store_dir / "journal-000000000001.log.torn-1").read_bytes() == damaged[len(good) :]
    store.append(records(11, 12))
    store.close()
    store, recovered = opened(store_dir)
    assert recovered.warnings == [] and list(recovered.records) == records(1, 12)
    store.close()


TAIL_DAMAGE = {
    # complete bad lines after record 10 (a crash cannot write those): damage; their numbers are never given again
    "garbage": (lambda data: data + b"\x00\xff\x13 not a record\n", 11),
    "zero-fill": (lambda data: data + b"\x00" * 4096, 11),
    "garbage-without-newline": (lambda data: data + b"\x00\xff\x13 not a record", 11),
    "seq-repeat": (lambda data: data + line_of(make_record(10)), 11),
    "last-two-merged": (lambda data: data[:-60] + b"\x00" * 70 + data[-50:], 10),
}


@pytest.mark.parametrize("name", TAIL_DAMAGE)
def test_damaged_complete_lines_at_the_end_reserve_their_numbers(store_dir: Path, name: str) -> None:
    damage, first_lost = TAIL_DAMAGE[name]
    path = segment(store_dir)
    path.write_bytes(damage(path.read_bytes()))
    store, recovered = opened(store_dir)
    [found] = recovered.damage
    assert found.lost.start == first_lost and not found.repaired
    assert recovered.last_seq >= max(first_lost, 10)
    assert [r.seq for r in recovered.records] == list(range(1, first_lost))
    next_seq = recovered.last_seq + 1
    store.append([make_record(next_seq, 200.0)])
    store.close()
    store, recovered = opened(store_dir)
    assert [r.seq for r in recovered.records] == [*range(1, first_lost), next_seq]
    store.close()


REPAIRABLE = {
    # one changed byte in a segment holding records 1..10 (the last record is acknowledged: never cut off)
    "flipped-byte": lambda data: change(data, len(data) - 20, 1),
    "flipped-crc": flip_last_crc,
    "missing-newline": lambda data: data[:-1],
    "changed-newline": lambda data: data[:-1] + b"x",
    "bad-line-in-middle": lambda data: data.replace(b'{"seq":6,', b'{"seq":6 '),
    "merged-lines": lambda data: change(data, data.index(b'\n', 500), 0x2a),
    "split-line": lambda data: data[:300] + b"\n" + data[301:],
    "flipped-separator": lambda data: change(data, data.index(b"\n") + 9, 0x01),
}


@pytest.mark.parametrize("name", REPAIRABLE)
def test_one_changed_byte_is_repaired_and_costs_no_record(store_dir: Path, name: str) -> None:
    path = segment(store_dir)
    damaged = REPAIRABLE[name](path.read_bytes())
    path.write_bytes(damaged)
    store, recovered = opened(store_dir)
    assert recovered.last_seq == 10 and list(recovered.records) == records(1, 10)
    assert [(d.repaired, d.lost) for d in recovered.damage] == [(True, range(0))]
    assert store.record(6) == make_record(6) and store.seq_at(106.0) == 6
    store.append(records(11, 11))
    store.close()
    assert path.read_bytes()[: len(damaged)] == damaged  # nothing rewritten
    store, recovered = opened(store_dir)
    assert list(recovered.records) == records(1, 11) and len(recovered.damage) == 1
    store.close()


def test_unrepairable_damage_costs_only_its_records_and_their_numbers_are_never_reused(tmp_path: Path) -> None:
    snapshotted_store(tmp_path)  # segments 1..3, 4..6, 7..9; snapshots 3 and 6
    middle = segment(tmp_path, 4)
    data = middle.read_bytes()
    five = data.index(b'"seq":5,')
    middle.write_bytes(change(change(data, five + 20), five + 40))  # two changed bytes: no repair
    store, recovered = opened(tmp_path)
    assert recovered.last_seq == 9 and recovered.snapshot_seq == 6 and list(recovered.records) == records(7, 9)
    assert [(d.key, d.lost, d.repaired) for d in recovered.damage] == [
        (f"journal-000000000004.log@{five - 10}", range(5, 6), False)]
    assert "record(s) 5 unreadable" in recovered.warnings[0]
    assert [r.seq for r in store.records()] == [1, 2, 3, 4, 6, 7, 8, 9]
    with pytest.raises(KeyError, match="record 5 is damaged"):
        store.record(5)
    assert store.last_record() == make_record(9)
    assert not list(tmp_path.glob("*.corrupt-*")) and not list(tmp_path.glob("*.torn-*"))
    store.append(records(10, 10))
    store.close()
    store, recovered = opened(tmp_path)
    assert recovered.last_seq == 10 and [r.seq for r in store.records()] == [1, 2, 3, 4, 6, 7, 8, 9, 10]
    store.close()


def test_a_record_gap_without_bad_bytes_is_damage(store_dir: Path) -> None:
    path = segment(store_dir)
    path.write_bytes(path.read_bytes() + line_of(make_record(12)))
    store, recovered = opened(store_dir)
    assert recovered.last_seq == 12 and [d.lost for d in recovered.damage] == [range(11, 12)]
    assert store.last_record() == make_record(12)
    with pytest.raises(StoreError, match="record number 12 given where 13"):
        store.append(records(12, 12))
    store.append(records(13, 13))
    store.close()


def test_a_missing_middle_segment_loses_its_numbers_only(tmp_path: Path) -> None:
    snapshotted_store(tmp_path)
    segment(tmp_path, 4).unlink()
    (tmp_path / "snapshot-000000000006.json").unlink()
    store, recovered = opened(tmp_path)
    assert recovered.last_seq == 9 and [d.lost for d in recovered.damage] == [range(4, 7)]
    assert (recovered.snapshot_seq, [r.seq for r in recovered.records]) == (3, [7, 8, 9])
    store.close()


def test_torn_files_are_numbered_and_never_overwritten(store_dir: Path) -> None:
    path = segment(store_dir)
    for n in (1, 2):
        path.write_bytes(path.read_bytes() + line_of(make_record(11))[: 20 + n])
        store, recovered = opened(store_dir)
        assert f"torn-{n}" in recovered.warnings[0]
        store.close()
    for n in (1, 2):
        assert (store_dir / f"journal-000000000001.log.torn-{n}").read_bytes() == line_of(make_record(11))[: 20 + n]


def test_damage_is_reported_until_acknowledged(tmp_path: Path) -> None:
    snapshotted_store(tmp_path)
    flip_byte(tmp_path / "snapshot-000000000006.json", 100)
    data = segment(tmp_path, 7).read_bytes()
    segment(tmp_path, 7).write_bytes(change(data, 30))
    store, _ = opened(tmp_path)
    keys = [d.key for d in store.unacknowledged_damage()]
    assert keys == ["journal-000000000007.log@0", "snapshot-000000000006.json.corrupt-1"]
    acknowledge_damage(tmp_path, keys[:1])
    assert [d.key for d in store.unacknowledged_damage()] == keys[1:]
    store.close()
    acknowledge_damage(tmp_path, keys[1:])
    with Store(tmp_path, read_only=True) as reader:
        reader.open()
        assert reader.unacknowledged_damage() == [] and len(reader.damage()) == 2
    assert acknowledged_damage(tmp_path) == set(keys)


def random_damage(data: bytes, draw: st.DataObject, *, single: bool) -> bytes:
    """One changed byte, or (not single) a run of up to 64 bytes overwritten, at a random place."""
    at = draw.draw(st.integers(0, len(data) - 1))
    if single:
        return change(data, at, draw.draw(st.integers(1, 255)))
    size = draw.draw(st.integers(2, 64))
    return data[:at] + bytes(draw.draw(st.binary(min_size=size, max_size=size))) + data[at + size :]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), single=st.booleans())
def test_random_damage_anywhere_loses_only_the_records_it_touches(tmp_path_factory, data, single) -> None:
    path = tmp_path_factory.mktemp("flip")
    snapshotted_store(path)
    files = sorted(p for p in path.iterdir() if p.name.startswith(("journal-", "snapshot-")))
    target = data.draw(st.sampled_from(files))
    good = target.read_bytes()
    target.write_bytes(random_damage(good, data, single=single))
    store, recovered = opened(path)
    readable = [r.seq for r in store.records()]
    assert recovered.last_seq >= 9  # a number is never lost, so it is never given again
    if single or target.name.startswith("snapshot-"):
        assert readable == list(range(1, 10))  # one changed byte is repaired; a snapshot is only a cache
    else:
        lost = {n for d in recovered.damage for n in d.lost if n <= 9}
        assert readable == [n for n in range(1, 10) if n not in lost]
        touched = {r.seq for r in records(1, 9) if _overlaps(good, target, r)}
        assert lost <= touched
    assert [r for r in store.records()] == [make_record(n) for n in readable]
    if target.name.startswith("journal-") and target.read_bytes() != good:
        assert store.damage()  # reported (and by `l3mp check`) until acknowledged
    store.append([make_record(recovered.last_seq + 1, 300.0)])
    store.close()


def test_damage_that_ends_on_a_newline_costs_only_the_record_before_it(tmp_path: Path) -> None:
    snapshotted_store(tmp_path)
    target = segment(tmp_path, 7)
    good = target.read_bytes()
    end = good.find(line_of(make_record(8)))  # record 7's line, newline included, ends here
    target.write_bytes(good[: end - 64] + bytes(64) + good[end:])  # its last 63 bytes and the newline zeroed
    store, recovered = opened(tmp_path)
    assert [r.seq for r in store.records()] == [1, 2, 3, 4, 5, 6, 8, 9]
    assert [list(d.lost) for d in recovered.damage] == [[7]]
    store.close()


def _overlaps(good: bytes, target: Path, record: ChangeRecord) -> bool:
    """Whether the damage to `target` (now on disk) touches the line of `record` (or its newline)."""
    line = line_of(record)
    start = good.find(line)
    if start < 0:
        return False
    now = target.read_bytes()
    return now[start : start + len(line)] != line


def test_journal_without_its_first_segment_is_refused(store_dir: Path) -> None:
    segment(store_dir).rename(segment(store_dir, 5))
    for _ in range(2):  # the failed open released the lock: the second attempt fails the same way
        with pytest.raises(StoreError, match="starts at record 5"):
            Store(store_dir).open()


def test_line_with_valid_checksum_that_is_not_a_record_is_reported(store_dir: Path) -> None:
    payload = b'{"seq":11,"time":'
    segment(store_dir).write_bytes(
        segment(store_dir).read_bytes() + b"%08x %s\n" % (zlib.crc32(payload), payload)
    )
    with pytest.raises(StoreError, match="edited by hand"):
        Store(store_dir).open()


# ---- locking and read-only access --------------------------------------------------------
def test_second_writer_is_refused_with_the_locked_path(store_dir: Path) -> None:
    first, _ = opened(store_dir)
    with pytest.raises(
        StoreError, match=f"store {re.escape(str(store_dir))} is locked by another writer .*pid {os.getpid()}"
    ):
        Store(store_dir).open()
    first.close()
    second, recovered = opened(store_dir)
    assert recovered.last_seq == 10
    second.close()


def test_read_only_opens_a_locked_store_and_repairs_nothing(store_dir: Path) -> None:
    writer, _ = opened(store_dir)
    torn = segment(store_dir).read_bytes() + line_of(make_record(11))[:25]
    segment(store_dir).write_bytes(torn)
    with Store(store_dir, read_only=True) as reader:
        recovered = reader.open()
        assert recovered.last_seq == 10 and list(recovered.records) == records(1, 10)
        assert "not repaired" in recovered.warnings[0]
        with pytest.raises(StoreError, match="read-only"):
            reader.append(records(11, 11))
        with pytest.raises(StoreError, match="read-only"):
            reader.set_meta({})
    assert segment(store_dir).read_bytes() == torn and not list(store_dir.glob("*.corrupt-*"))
    writer.close()


def test_read_only_needs_an_existing_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no store at"):
        Store(tmp_path / "nothing", read_only=True).open()
    assert not (tmp_path / "nothing").exists()


def test_a_file_in_the_way_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a store")
    with pytest.raises(StoreError, match="cannot open store"):
        Store(tmp_path / "file").open()


def test_store_must_be_open_to_be_used(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with pytest.raises(StoreError, match="not open"):
        store.append(records(1, 1))
    with pytest.raises(StoreError, match="not open"):
        list(store.records())
    with store:
        store.open()
        with pytest.raises(StoreError, match="already open"):
            store.open()
    with pytest.raises(StoreError, match="not open"):
        store.record(1)


# ---- meta -------------------------------------------------------------------------------
def test_meta_is_written_atomically_and_recovered(tmp_path: Path) -> None:
    meta = {"domain": "household", "sha256": "ab" * 32}
    with Store(tmp_path, fsync=False) as store:
        store.open()
        store.set_meta(meta)
        assert store.meta == meta
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("meta")) == ["meta.json"]
    with Store(tmp_path, read_only=True) as store:
        assert store.open().meta == meta and store.meta == meta


def test_unreadable_meta_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "meta.json").write_text("{oops")
    with pytest.raises(StoreError, match=r"meta\.json is not valid JSON"):
        Store(tmp_path).open()


# ---- time queries -----------------------------------------------------------------------
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    steps=st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 3.0]), min_size=1, max_size=40),
    cuts=st.sets(st.integers(1, 40), max_size=5),
    bounds=st.tuples(st.floats(-1, 60), st.floats(-1, 60)),
    seqs=st.tuples(st.integers(0, 45), st.integers(0, 45)),
)
def test_time_and_seq_filters_match_a_full_scan(tmp_path_factory, steps, cuts, bounds, seqs) -> None:
    path = tmp_path_factory.mktemp("store")
    times = [sum(steps[: i + 1]) for i in range(len(steps))]
    all_records = [make_record(i + 1, time=t) for i, t in enumerate(times)]
    store, _ = opened(path)
    for record in all_records:
        store.append([record])
        if record.seq in cuts:
            store.snapshot(GRAPH, record.seq, record.time)
    lo, hi = bounds
    first, last = seqs
    got = list(store.records(start_seq=first, end_seq=last, start_time=lo, end_time=hi))
    assert got == [r for r in all_records if first <= r.seq <= last and lo <= r.time <= hi]
    assert list(store.records(start_time=lo)) == [r for r in all_records if r.time >= lo]
    assert list(store.records(end_time=hi)) == [r for r in all_records if r.time <= hi]
    assert store.seq_at(hi) == max([r.seq for r in all_records if r.time <= hi], default=0)
    store.close()


def test_default_store_path_prefers_given_then_env_then_xdg(monkeypatch, tmp_path):
    from l3mp.world.store import default_store_path

    monkeypatch.setenv("L3MP_STORE", str(tmp_path / "env"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_store_path(str(tmp_path / "given")) == tmp_path / "given"
    assert default_store_path("") == tmp_path / "env"
    monkeypatch.delenv("L3MP_STORE")
    assert default_store_path(None) == tmp_path / "xdg" / "l3mp" / "world"


def test_the_last_readable_record_skips_damaged_numbers(store_dir: Path) -> None:
    path = segment(store_dir)
    path.write_bytes(path.read_bytes() + b"\x00" * 100 + b"\n")  # damage after record 10 reserves numbers
    store, recovered = opened(store_dir)
    assert recovered.last_seq > 10 and store.last_record() == make_record(10)
    store.close()
    with Store(store_dir / "empty", fsync=False) as empty:
        empty.open()
        assert empty.last_record() is None


def test_a_store_created_without_a_record_leaves_no_directory(tmp_path: Path) -> None:
    store = Store(tmp_path / "new" / "world", fsync=False)
    store.open()
    store.set_meta({"domain": "household"})
    store.close()
    assert not (tmp_path / "new").exists()
    store.open()
    store.append(records(1, 1))
    store.close()
    assert sorted(p.name for p in (tmp_path / "new" / "world").iterdir()) == ["LOCK", "journal-000000000001.log"]


def test_an_existing_empty_directory_is_left_alone(tmp_path: Path) -> None:
    with Store(tmp_path, fsync=False) as store:
        store.open()
    assert tmp_path.is_dir()
