"""Backpressure and healing at the world-model node (issue 17, points 2 and 3): a burst of 2,000 perception messages
in 0.5 s (reliable, depth 1000) from another process gets 2,000 answers, a result or ``busy`` (a message DDS drops
before the node sees it, on a starved machine, is counted in the diagnostics instead), and every accepted one is
stored; after a failed write (a full disk) the node goes on by itself once the cause is gone."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from l3mp.ros import protocol as m
from l3mp.ros.burst import Answers, publish_burst
from l3mp.ros.client import Client
from l3mp.ros.launcher import NodeProcess, random_domain, ros_environment, write_params
from l3mp.world import store as store_module
from l3mp.world.store import Store
from tests.ros.support import make_store

CONFIG = Path(__file__).resolve().parents[2] / "config" / "l3mp.yaml"
BURST = 2000
BURST_S = 0.5
START_S = 60.0


def batch(i: int) -> str:
    return m.dumps({"observation_id": f"burst-{i}", "entities": {f"cup{i}": {"type": "dish"}},
                    "triplets": [[f"cup{i}", "on", "counter1"]]})


@pytest.mark.slow
def test_a_burst_of_2000_messages_gets_2000_answers_and_every_accepted_one_is_stored(tmp_path: Path) -> None:
    domain_id = random_domain()
    env = ros_environment(domain_id, tmp_path / "logs")
    store = make_store(tmp_path / "world")
    params = write_params(tmp_path / "params.yaml", {"world_model": {"store_path": str(store), "fsync": True}})
    node = NodeProcess("l3mp-world-model", ["--ros-args", "--params-file", str(CONFIG), "--params-file", str(params)],
                       env, tmp_path / "world_model.log")
    client = Client(domain_id=domain_id)
    try:
        answers = Answers(client, BURST * 2)
        client.wait(m.WORLD_MODEL_STATE, timeout=START_S)
        client.wait_ready({"world_model": 2}, timeout=START_S)
        publish_burst(client, [batch(i) for i in range(BURST)], BURST_S)  # (how fast: `l3mp bench faults`)
        ids = {f"burst-{i}" for i in range(BURST)}
        missing = answers.wait_for(ids, timeout=120)
        client.wait_ready({"world_model": 2}, timeout=10)
        lost = int(client.health["world_model"][1]["perception_lost"])
        assert len(missing) == lost, f"{len(missing)} of {BURST} messages got no answer, {lost} counted lost in DDS"
        answered = ids - missing
        assert all(len(answers.by_id[i]) == 1 for i in answered)  # one answer each
        results = [answers.by_id[i][0] for i in answered]
        accepted = {r["id"] for r in results if r["ok"]}
        assert all(r["ok"] or r["error"]["code"] == "busy" for r in results)
    finally:
        node.stop(timeout=30)
        client.close()
    with Store(store, read_only=True) as reader:
        reader.open()
        stored = {r.ref for r in reader.records() if r.source == "perception"}
    assert accepted <= stored and len(accepted) > 0


def test_the_node_heals_after_a_failed_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = make_store(tmp_path / "world")
    client = Client(("world_model",), {"world_model": {"store_path": str(store), "fsync": True,
                                                       "diagnostics_period_s": 0.2}})
    try:
        client.wait(m.WORLD_MODEL_STATE, timeout=START_S)
        real_write = store_module._write_all

        def full_disk(fd: int, data: bytes) -> None:  # injected fault at the file layer (a TEST DOUBLE of a full disk)
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(store_module, "_write_all", full_disk)
        client.publish(m.WORLD_MODEL_PERCEPTION, batch(1))
        failed = client.result(m.WORLD_MODEL_RESULTS, "burst-1")
        assert not failed["ok"] and failed["error"]["code"] == "store"
        assert "No space left on device" in failed["error"]["message"]
        monkeypatch.setattr(store_module, "_write_all", real_write)
        client.publish(m.WORLD_MODEL_PERCEPTION, batch(2))
        healed = client.result(m.WORLD_MODEL_RESULTS, "burst-2")
        assert healed["ok"], healed
        assert client.nodes["world_model"].world.graph.has_entity("cup2")
        assert not client.nodes["world_model"].world.graph.has_entity("cup1")
    finally:
        client.close()
    with Store(store, read_only=True) as reader:
        assert reader.open().warnings == [] and [r.ref for r in reader.records()][-1] == "burst-2"


def test_a_deeply_nested_message_is_malformed_and_costs_no_other_message(tmp_path: Path) -> None:
    store = make_store(tmp_path / "world")
    client = Client(("world_model",), {"world_model": {"store_path": str(store), "fsync": False}})
    try:
        client.wait(m.WORLD_MODEL_STATE, timeout=START_S)
        deep = '{"observation_id": "deep-1", "triplets": ' + "[" * 1000 + "]" * 1000 + "}"
        client.publish(m.WORLD_MODEL_PERCEPTION, deep)
        client.publish(m.WORLD_MODEL_PERCEPTION, batch(3))
        bad = client.result(m.WORLD_MODEL_RESULTS, "deep-1")
        assert bad["error"]["code"] == "malformed" and "nested deeper than" in bad["error"]["message"]
        assert client.result(m.WORLD_MODEL_RESULTS, "burst-3")["ok"]
    finally:
        client.close()
