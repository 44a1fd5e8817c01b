"""Shared pieces of the ROS tests: a store holding the small test house, the LLM parameters of a node that talks
to the scripted server, and a Trigger service call."""

from __future__ import annotations

import time
from pathlib import Path

from std_srvs.srv import Trigger

from l3mp.ros.client import Client
from l3mp.world.model import WorldModel
from tests.helpers import house_delta, household, household_rules


def make_store(path: Path) -> Path:
    """A store holding the small test house (tests/helpers.py) as its first record."""
    with WorldModel.open(household(), path, rules=household_rules(), fsync=False) as world:
        world.apply(house_delta(), source="import")
    return path


def scripted_llm(url: str) -> dict[str, object]:
    """Node parameters for the scripted LLM server at `url` (a TEST DOUBLE for a paid API)."""
    return {"llm.provider": "compatible", "llm.base_url": url, "llm.model": "scripted", "llm.timeout_s": 10.0}


def call_trigger(client: Client, service: str, timeout: float = 10.0) -> Trigger.Response | None:
    """Call the Trigger `service` from the client's node; its response, or None if none came within `timeout`."""
    caller = client.node.create_client(Trigger, service)
    assert caller.wait_for_service(timeout_sec=timeout), f"{service} is not offered"
    future = caller.call_async(Trigger.Request())
    deadline = time.monotonic() + timeout
    while not future.done() and time.monotonic() < deadline:
        time.sleep(0.02)
    return future.result()
