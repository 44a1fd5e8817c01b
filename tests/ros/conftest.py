"""ROS test environment: the venv's ROS wheels, logs in a temporary directory, loopback discovery only and a
random ROS domain (1..101) for this test session; multi-process tests give each test its own domain."""

from __future__ import annotations

import os
import random
import tempfile

from l3mp.ros.main import prepare_environment

prepare_environment()
os.environ.setdefault("ROS_LOG_DIR", tempfile.mkdtemp(prefix="l3mp-ros-test-logs-"))
os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
os.environ["ROS_DOMAIN_ID"] = str(random.randint(1, 101))
