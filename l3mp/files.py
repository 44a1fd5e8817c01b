"""File writing shared by the CLI, benchmarks, caches and evaluation runs: whole files, replaced atomically."""

from __future__ import annotations

import os
from pathlib import Path


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that a reader (or an interrupted run) sees the old file or the new one, never a
    part: a temporary file beside it (named by this process, so processes writing the same path do not collide)
    is renamed over it. Creates the parent directories."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
