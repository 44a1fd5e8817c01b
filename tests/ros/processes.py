"""Starting and stopping the ROS console scripts as separate processes for the multi-process tests."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import yaml

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "config" / "l3mp.yaml"


def ros_env(domain_id: int, log_dir: Path) -> dict[str, str]:
    """The environment of a node process: this venv's ROS wheels, loopback discovery, its own domain and logs."""
    return {**os.environ, "ROS_DOMAIN_ID": str(domain_id), "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST",
            "ROS_LOG_DIR": str(log_dir), "PYTHONUNBUFFERED": "1"}


def random_domain() -> int:
    return random.randint(1, 101)


def write_params(path: Path, params: dict[str, dict]) -> Path:
    """A ROS parameters file overriding the shipped one (``node: {key: value}``; dotted keys are nested)."""
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
    """One console script (``l3mp-world-model`` ...) with its output in a log file."""

    def __init__(self, script: str, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self._out = log.open("wb")
        self.process = subprocess.Popen([str(BIN / script), *args], env=env, stdout=self._out,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, sig: int = signal.SIGINT, timeout: float = 30.0) -> int:
        """Send `sig`, wait for the exit code; kill after `timeout` (then the code is that of the kill)."""
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
