"""Speech test environment: for the speech node's tests, the venv's ROS wheels, logs in a temporary directory,
loopback discovery only and a random ROS domain (unless the ROS tests already chose one), and the scripted LLM
server (a TEST DOUBLE for a paid API), one per test module."""

from __future__ import annotations

import os
import tempfile

import pytest

from l3mp.ros.launcher import random_domain
from l3mp.ros.main import prepare_environment
from tests.llm.scripted_server import ScriptedServer

prepare_environment()
os.environ.setdefault("ROS_LOG_DIR", tempfile.mkdtemp(prefix="l3mp-speech-test-logs-"))
os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
os.environ.setdefault("ROS_DOMAIN_ID", str(random_domain()))


@pytest.fixture(scope="module")
def llm_server():
    with ScriptedServer() as server:
        yield server
