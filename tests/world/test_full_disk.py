"""A full disk, for real: a small tmpfs made by the test (in a private mount namespace). The world model fails
changes cleanly while the disk is full and goes on by itself once space is freed (issue 17, point 2)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WRITER = Path(__file__).with_name("full_disk_writer.py")


def mount_problem(where: Path) -> str | None:
    """Why a tmpfs cannot be mounted here (None: it can)."""
    if shutil.which("unshare") is None:
        return "no unshare command"
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$1"', "sh", str(where)],
                           capture_output=True, text=True)
    return None if probe.returncode == 0 else f"cannot mount a tmpfs in a user namespace: {probe.stderr.strip()}"


def test_a_full_disk_fails_changes_cleanly_and_heals_when_space_is_freed(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    problem = mount_problem(disk)
    if problem:
        pytest.skip(problem)
    script = 'mount -t tmpfs -o size=1m tmpfs "$1" && cd "$2" && exec "$3" "$4" "$1"'
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script, "sh", str(disk), str(ROOT), sys.executable,
                           str(WRITER)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["acknowledged"] > 10 and len(seen["failures"]) == 3
    assert all("No space left on device" in failure for failure in seen["failures"])
    assert seen["cli"] == [1, 1, 0]
