"""Find the domain files shipped with l3mp (source checkout, pip install, or colcon install)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from l3mp.errors import DomainError

DEFAULT_DOMAIN = "household"
ROBOT = "the_robot"
"""The robot of the household domain: one of its constants, so an entity of every state but no problem object."""


def share_dirs() -> list[Path]:
    """Where l3mp's shared files may live, most specific first."""
    dirs = []
    if os.environ.get("L3MP_SHARE_DIR"):
        dirs.append(Path(os.environ["L3MP_SHARE_DIR"]))
    dirs.append(Path(__file__).resolve().parents[2])  # source checkout / editable install
    dirs.append(Path(sys.prefix) / "share" / "l3mp")  # pip install into a venv
    for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
        if prefix:
            dirs.append(Path(prefix) / "share" / "l3mp")  # colcon / ROS install
    return dirs


def domain_path(name_or_path: str | os.PathLike = DEFAULT_DOMAIN) -> Path:
    """A domain file: an existing path, or the name of a shipped domain (``household``)."""
    candidate = Path(name_or_path)
    if candidate.suffix == ".pddl" or os.sep in str(name_or_path):
        if candidate.is_file():
            return candidate
        raise DomainError(f"PDDL domain file {candidate} does not exist")
    for base in share_dirs():
        path = base / "domains" / f"{name_or_path}.pddl"
        if path.is_file():
            return path
    searched = ", ".join(str(d / "domains") for d in share_dirs())
    raise DomainError(f"no shipped domain named '{name_or_path}' (looked in {searched}); pass a .pddl path")
