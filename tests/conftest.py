"""Fixtures shared by the whole suite: one colcon build of the package, used by every test that checks it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["package.xml", "setup.py", "setup.cfg", "resource", "domains", "l3mp", "sim", "launch", "config"]


@dataclass(frozen=True)
class ColconInstall:
    """A colcon build of this checkout: the install prefix of l3mp and its site-packages."""

    root: Path
    prefix: Path
    site: Path

    def env(self) -> dict[str, str]:
        """An environment that imports l3mp from the install and finds its share files through ament."""
        return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(self.site),
                "AMENT_PREFIX_PATH": str(self.prefix)}


def _colcon() -> str:
    exe = Path(sys.executable).with_name("colcon")
    assert exe.exists(), "colcon is a pinned dev requirement (requirements.txt); run scripts/install.sh"
    return str(exe)


@pytest.fixture(scope="session")
def colcon_install(tmp_path_factory: pytest.TempPathFactory) -> ColconInstall:
    """Copy the package sources into a fresh workspace and build it with colcon (once per test session)."""
    root = tmp_path_factory.mktemp("colcon")
    src = root / "src" / "l3mp"
    src.mkdir(parents=True)
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(path, src / name)
    build = subprocess.run(
        [_colcon(), "--log-base", str(root / "log"), "build", "--base-paths", str(root / "src"),
         "--build-base", str(root / "build"), "--install-base", str(root / "install")],
        cwd=root, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, capture_output=True, text=True, timeout=300,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    prefix = root / "install" / "l3mp"
    return ColconInstall(root, prefix, next(prefix.glob("lib/python*/site-packages")))
