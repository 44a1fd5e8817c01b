"""Suite ``faults``: what the store survives. A writer SIGKILLed at random points (no acknowledged change may be
lost), one random byte changed anywhere in the journal segments and snapshots (no record may be lost beyond the
damaged one), 512-byte sectors zeroed (what a bad sector costs, in records), and a burst of 2,000 perception
messages in 0.5 s at the world-model node (every message answered)."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from l3mp.bench.runner import Metric, error_metric, register
from l3mp.domain.triplets import Fact
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.graph import WorldGraph
from l3mp.world.history import apply_record, rebuild
from l3mp.world.record import ChangeRecord
from l3mp.world.store import Store

SEED = 17
SNAPSHOT_EVERY = 100
SECTOR = 512
KILLS_PER_STORE = 50


@dataclass(frozen=True)
class Scale:
    kills: int
    flips: int
    sectors: int
    records: int
    burst: int
    burst_s: float


FULL = Scale(kills=1000, flips=300, sectors=100, records=400, burst=2000, burst_s=0.5)
QUICK = Scale(kills=40, flips=30, sectors=10, records=120, burst=200, burst_s=0.1)


@register("faults")
def faults_suite(quick: bool) -> Iterator[Metric]:
    scale = QUICK if quick else FULL
    for part in (_kills, _flips, _sectors, _burst):
        try:
            yield from part(scale)
        except Exception as exc:  # one part failing still leaves the others' numbers
            yield error_metric(f"{part.__name__.strip('_')}_error", exc)


# ---- the record stream -------------------------------------------------------------------
def record(seq: int) -> ChangeRecord:
    """Record `seq` of the stream (the same for every run): a new cup on the table (the first also brings the table
    and the shelf), every third also moves an older one to the shelf, with text of varying length (so that records
    differ in size, as real ones do)."""
    cup = f"cup_{seq}"
    add = [Fact("on", (cup, "table_1"))]
    remove = []
    if seq % 3 == 0 and seq > 3:
        older = f"cup_{seq - 3}"
        remove.append(Fact("on", (older, "table_1")))
        add.append(Fact("on", (older, "shelf_1")))
    text = "seen by the kitchen camera " * (seq % 5)
    entities = {cup: EntitySpec("cup", f"cup {seq}")}
    if seq == 1:  # the furniture
        entities |= {"table_1": EntitySpec("table"), "shelf_1": EntitySpec("shelf")}
    delta = Delta(remove=tuple(remove), add=tuple(add), entities=entities)
    return ChangeRecord(seq, 1000.0 + seq / 4, "perception", delta, input=text or None, ref=f"obs-{seq}")


def write_stream(path: Path, first: int, last: int, *, batches: random.Random, graph: WorldGraph,
                 acked: int | None = None) -> None:
    """Append records first..last to the store at `path` in batches of 1..5 (snapshots every SNAPSHOT_EVERY);
    with `acked` (a pipe's file descriptor) write ``<seq>\\n`` there after each append returns."""
    with Store(path, fsync=True, snapshot_every=SNAPSHOT_EVERY) as store:
        store.open()
        seq = first
        while seq <= last:
            batch = [record(n) for n in range(seq, min(last, seq + batches.randint(1, 5) - 1) + 1)]
            store.append(batch)
            for r in batch:
                apply_record(graph, r)
            seq = batch[-1].seq + 1
            if acked is not None:
                os.write(acked, b"%d\n" % batch[-1].seq)
            if store.snapshot_due():
                store.snapshot(graph.to_json(), batch[-1].seq, batch[-1].time)


# ---- kill points -------------------------------------------------------------------------
def _kills(scale: Scale) -> Iterator[Metric]:
    """A writer process (forked: no start-up cost) appends the stream with fsync and reports each acknowledged
    append; it is SIGKILLed after a random number of them plus a random delay, and the store recovered."""
    rng = random.Random(SEED)
    lost = damaged = wrong = 0
    finals: dict[Path, int] = {}  # records in each store at its end
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="l3mp-bench-kills-") as tmp:
        for kill in range(scale.kills):
            if kill % KILLS_PER_STORE == 0:  # a new store now and then: recovery time stays that of a small store
                path, acked_max, stream = Path(tmp) / f"world-{kill}", 0, _Stream()
            acked_max = max(acked_max, _kill_writer(path, rng, kill))
            with Store(path) as store:
                recovered = store.open()
                last = recovered.last_seq
                lost += max(0, acked_max - last)
                damaged += len(recovered.damage)
                readable = store.count_records(1, last)
                checked = [store.record(n) for n in {acked_max, last} if 0 < n <= last]
                wrong += (readable != last) + sum(r != record(r.seq) for r in checked)
                wrong += canonical(rebuild(recovered)) != stream.after(last)
            finals[path] = last
    seconds = time.perf_counter() - started
    about = (f"{scale.kills} SIGKILLs of a writer (batches of 1..5 records, fsync, snapshots every {SNAPSHOT_EVERY}), "
             f"{KILLS_PER_STORE} per store")
    yield Metric("kill_points", scale.kills, "kills", notes=f"{about}; {sum(finals.values())} records written, "
                 f"{seconds:.0f} s")
    yield Metric("kills_acknowledged_lost", lost, "records", 0, "max", notes="acknowledged appends missing after "
                 "recovery, summed over all kills")
    yield Metric("kills_wrong_recoveries", wrong, "recoveries", 0, "max",
                 notes="recoveries with a gap, a record unlike the one written, or a graph unlike the stream's")
    yield Metric("kills_damage_reported", damaged, "reports", notes="torn writes are cut off, not damage: expected 0")


def _kill_writer(path: Path, rng: random.Random, run: int) -> int:
    """Fork a writer that continues the stream, kill it; the highest acknowledged record number."""
    start = _last_seq(path) + 1
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the writer: never returns
        os.close(read_end)
        code = 0
        try:
            graph = _recovered_graph(path)
            write_stream(path, start, start + 10_000, batches=random.Random(run), graph=graph, acked=write_end)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write_end)
    acks_wanted = rng.randint(1, 10)
    delay = rng.choice((0.0, rng.uniform(0, 0.001), rng.uniform(0, 0.005)))
    buffer = b""
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        seen = 0
        while seen < acks_wanted:
            chunk = pipe.read(4096)
            if not chunk:
                break
            buffer += chunk
            seen = buffer.count(b"\n")
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        buffer += pipe.read()
    numbers = [int(line) for line in buffer.split(b"\n") if line.strip()]
    return max(numbers, default=0)


def _last_seq(path: Path) -> int:
    if not path.exists():
        return 0
    with Store(path, read_only=True) as store:
        return store.open().last_seq


def _recovered_graph(path: Path) -> WorldGraph:
    """The graph the store at `path` holds (empty if there is no store yet)."""
    if not path.exists():
        return WorldGraph()
    with Store(path, read_only=True) as store:
        return rebuild(store.open())


def canonical(graph: WorldGraph) -> tuple:
    """Everything a graph holds, independent of the order its facts were added in."""
    data = graph.to_json()
    return data["entities"], sorted(zip((json.dumps(f) for f in data["facts"]), data["since"], strict=True))


class _Stream:
    """The stream's graph after some record, advanced as records are added."""

    def __init__(self) -> None:
        self.graph, self.seq = WorldGraph(), 0

    def after(self, seq: int) -> tuple:
        while self.seq < seq:
            self.seq += 1
            apply_record(self.graph, record(self.seq))
        return canonical(self.graph)


# ---- byte flips and bad sectors ----------------------------------------------------------------
def _template(directory: Path, records: int) -> Path:
    path = directory / "template"
    write_stream(path, 1, records, batches=random.Random(SEED), graph=WorldGraph())
    return path


def _damaged_copy(template: Path, target: Path, rng: random.Random, size: int) -> str:
    """Copy the store and overwrite `size` bytes (1: one byte changed, else zeros) at a random place among the
    journal segments and snapshots (weighted by their size); the name of the file hit."""
    shutil.copytree(template, target)
    files = sorted(p for p in target.iterdir() if p.name.startswith(("journal-", "snapshot-")) and p.stat().st_size)
    if size > 1:
        files = [p for p in files if p.name.startswith("journal-")]
    chosen = rng.choices(files, weights=[p.stat().st_size for p in files])[0]
    data = bytearray(chosen.read_bytes())
    if size == 1:
        at = rng.randrange(len(data))
        data[at] ^= rng.randint(1, 255)
    else:
        at = rng.randrange(max(1, len(data) // SECTOR)) * SECTOR
        data[at:at + size] = bytes(len(data[at:at + size]))
    chosen.write_bytes(bytes(data))
    return chosen.name


def _flips(scale: Scale) -> Iterator[Metric]:
    rng = random.Random(SEED + 1)
    expected = _Stream().after(scale.records)
    lost = beyond = reused = unreported = wrong_state = repaired = 0
    with tempfile.TemporaryDirectory(prefix="l3mp-bench-flips-") as tmp:
        template = _template(Path(tmp), scale.records)
        for trial in range(scale.flips):
            target = Path(tmp) / f"flip-{trial}"
            hit = _damaged_copy(template, target, rng, 1)
            with Store(target) as store:
                recovered = store.open()
                missing = scale.records - store.count_records(1, scale.records)
                lost += missing
                beyond += max(0, missing - 1)
                reused += recovered.last_seq < scale.records
                repaired += sum(d.repaired for d in recovered.damage)
                unreported += hit.startswith("journal-") and not recovered.damage
                wrong_state += canonical(rebuild(recovered)) != expected
            shutil.rmtree(target)
    about = f"{scale.flips} stores of {scale.records} records, one random byte changed in a segment or snapshot each"
    yield Metric("flips", scale.flips, "flips", notes=about)
    yield Metric("flips_records_lost_beyond_damaged", beyond, "records", 0, "max")
    yield Metric("flips_records_lost", lost, "records", notes="the damaged record included (a changed byte is "
                 "repaired from the CRC when one explains it)")
    yield Metric("flips_repaired", repaired, "repairs", notes="journal lines repaired in memory")
    yield Metric("flips_numbers_reused", reused, "stores", 0, "max", notes="stores whose next record would reuse "
                 "a number")
    yield Metric("flips_journal_damage_unreported", unreported, "stores", 0, "max")
    yield Metric("flips_state_wrong", wrong_state, "stores", 0, "max", notes="recovered graph unlike the stream's")


def _sectors(scale: Scale) -> Iterator[Metric]:
    rng = random.Random(SEED + 2)
    costs, live = [], []
    with tempfile.TemporaryDirectory(prefix="l3mp-bench-sectors-") as tmp:
        template = _template(Path(tmp), scale.records)
        size = sum(p.stat().st_size for p in template.glob("journal-*.log")) / scale.records
        for trial in range(scale.sectors):
            target = Path(tmp) / f"sector-{trial}"
            _damaged_copy(template, target, rng, SECTOR)
            with Store(target) as store:
                recovered = store.open()
                costs.append(scale.records - store.count_records(1, scale.records))
                lost_after_snapshot = [n for d in recovered.damage for n in d.lost if recovered.snapshot_seq < n]
                live.append(len([n for n in lost_after_snapshot if n <= scale.records]))
            shutil.rmtree(target)
    about = f"{scale.sectors} journal sectors of {SECTOR} bytes zeroed (records of {size:.0f} bytes on average)"
    yield Metric("sector_records_lost_mean", sum(costs) / len(costs), "records", notes=about)
    yield Metric("sector_records_lost_max", max(costs), "records")
    yield Metric("sector_records_lost_from_live_state_mean", sum(live) / len(live), "records",
                 notes="lost records after the newest valid snapshot (before it they cost only history)")


# ---- burst at the node -------------------------------------------------------------------------
def _burst(scale: Scale) -> Iterator[Metric]:
    from l3mp.bench.ros_suite import START_S, _Nodes, _store
    from l3mp.ros import protocol as m
    from l3mp.ros.burst import Answers, publish_burst

    with tempfile.TemporaryDirectory(prefix="l3mp-bench-burst-") as tmp:
        store, surfaces = _store(Path(tmp) / "world")
        nodes = _Nodes(Path(tmp), {"world_model": {"store_path": str(store), "fsync": True}}, ("l3mp-world-model",))
        try:
            client = nodes.client
            answers = Answers(client, scale.burst * 2)
            client.wait(m.WORLD_MODEL_STATE, timeout=START_S)
            client.wait_ready({"world_model": 2}, timeout=START_S)
            messages = [json.dumps({"observation_id": f"burst-{i}", "entities": {f"burst_cup_{i}": {"type": "dish"}},
                                    "triplets": [[f"burst_cup_{i}", "on", surfaces[i % len(surfaces)]]]})
                        for i in range(scale.burst)]
            start = time.monotonic()
            sent = publish_burst(client, messages, scale.burst_s)
            missing = answers.wait_for({f"burst-{i}" for i in range(scale.burst)}, timeout=120)
            done = time.monotonic() - start
            client.wait_ready({"world_model": 2}, timeout=30)
            lost_in_dds = int(client.health["world_model"][1].get("perception_lost", "0"))
        finally:
            nodes.close()
    results = [found[0] for found in answers.by_id.values()]
    ok = sum(1 for a in results if a["ok"])
    busy = sum(1 for a in results if not a["ok"] and a["error"]["code"] == "busy")
    about = (f"{scale.burst} perception messages (one new dish each) published in {sent:.2f} s, reliable depth 1000, "
             "from another process; fsync on")
    yield Metric("burst_unanswered", len(missing), "messages", 0, "max", notes=about)
    yield Metric("burst_accepted", ok, "messages")
    yield Metric("burst_busy", busy, "messages", notes="answered busy (inbox full)")
    yield Metric("burst_answered_per_s", len(results) / done, "messages/s", notes="answers / (last answer - first "
                 "publish)")
    yield Metric("burst_lost_in_dds", lost_in_dds, "messages", notes="counted by the node (perception_lost)")
