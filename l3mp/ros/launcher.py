"""Start l3mp's node console scripts as processes (on loopback, in a chosen ROS domain) and stop them cleanly:
used by the demo, the benchmarks and the tests where ``ros2 launch`` is not available."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

import yaml

from l3mp.errors import L3mpError


def _default_log_dir() -> Path:
    """Where ROS logs go unless told otherwise: the temporary directory, not the home directory."""
    return Path(tempfile.gettempdir()) / "l3mp-ros-logs"


DOMAINS = range(1, 102)
"""ROS domain ids that work on loopback (higher ids need ports above what the DDS port formula allows)."""
_handed_out: set[int] = set()


def random_domain() -> int:
    """A random ROS domain id of `DOMAINS` that this process has not handed out before and that is not its own
    ``ROS_DOMAIN_ID`` (until all are taken): two stacks started by one process (a test session, a benchmark) never
    share a domain, where one stack's nodes would answer the other's client (a node still starting up then took a
    stop signal meant for a running one)."""
    own = os.environ.get("ROS_DOMAIN_ID", "").strip()
    free = [d for d in DOMAINS if d not in _handed_out and str(d) != own]
    if not free:
        _handed_out.clear()
        free = [d for d in DOMAINS if str(d) != own]
    domain = random.choice(free)
    _handed_out.add(domain)
    return domain


def ros_environment(domain_id: int, log_dir: Path | None = None) -> dict[str, str]:
    """The environment of a node process: this venv's ROS wheels, loopback-only discovery, domain and log dir."""
    from l3mp.ros.main import prepare_environment

    prepare_environment()
    return {**os.environ, "ROS_DOMAIN_ID": str(domain_id), "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST",
            "ROS_LOG_DIR": str(log_dir or _default_log_dir()), "PYTHONUNBUFFERED": "1"}


def use_loopback() -> None:
    """Keep this process's own ROS traffic on loopback (DDS multicasts on the real interface otherwise) and its ROS
    logs out of the home directory, unless the environment already says otherwise."""
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    os.environ.setdefault("ROS_LOG_DIR", str(_default_log_dir()))


def write_params(path: Path, params: dict[str, dict]) -> Path:
    """A ROS parameters file (``{node: {name: value}}``; dotted names are nested), for ``--params-file``."""
    document: dict = {}
    for node, values in params.items():
        section: dict = {}
        for key, value in values.items():
            target = section
            *parents, last = key.split(".")
            for parent in parents:
                target = target.setdefault(parent, {})
            target[last] = value
        document[node] = {"ros__parameters": section}
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


class NodeProcess:
    """One console script (``l3mp-world-model``, ``l3mp-ros-bringup``, ...) with its output in `log`."""

    def __init__(self, script: str, args: list[str], env: dict[str, str], log: Path) -> None:
        executable = Path(sys.executable).parent / script
        if not executable.is_file():
            raise L3mpError(f"console script {script} is not installed next to {sys.executable}: "
                            "reinstall l3mp (bash scripts/install.sh)")
        self.log = log
        self._out: IO[bytes] = log.open("wb")
        self.process = subprocess.Popen([str(executable), *args], env=env, stdout=self._out,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, sig: int = signal.SIGINT, timeout: float = 30.0) -> int:
        """Send `sig`, wait for the exit code; kill after `timeout` (the code is then the kill's)."""
        if self.alive():
            self.process.send_signal(sig)
            try:
                self.process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.communicate()
        self._out.close()
        return self.process.returncode

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")
