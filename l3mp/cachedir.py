"""Where l3mp keeps derived, re-creatable files (joined model, parsed domain schemas)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$L3MP_CACHE_DIR``, else ``~/.cache/l3mp``."""
    env = os.environ if env is None else env
    return Path(env.get("L3MP_CACHE_DIR") or Path.home() / ".cache" / "l3mp").expanduser()
