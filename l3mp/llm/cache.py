"""Persistent LLM response cache (sqlite, WAL) keyed by a hash of the full request; never fatal."""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from l3mp.llm.types import Usage

log = logging.getLogger(__name__)

_SCHEMA = """CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    estimated INTEGER NOT NULL,
    model TEXT NOT NULL,
    created REAL NOT NULL
)"""


@dataclass(frozen=True)
class CachedReply:
    """A stored raw answer with the usage of the call that produced it."""

    text: str
    usage: Usage
    model: str


def request_key(request: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a request (sorted keys, no whitespace)."""
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """Raw replies by request key. Safe across threads and processes; a broken database disables the cache
    with one warning instead of failing the call."""

    def __init__(self, path: Path | str, *, enabled: bool = True, busy_timeout_s: float = 10.0) -> None:
        self.path = Path(path)
        self.enabled = enabled
        self._busy_timeout_s = busy_timeout_s
        self._ready = False
        self._lock = threading.Lock()

    def get(self, key: str) -> CachedReply | None:
        """The stored reply for `key`, or None (also when the cache is off or broken)."""
        row = self._run(lambda db: db.execute(
            "SELECT text, prompt_tokens, completion_tokens, estimated, model FROM responses WHERE key = ?",
            (key,)).fetchone())
        if not row:
            return None
        text, prompt, completion, estimated, model = row
        return CachedReply(text, Usage(prompt, completion, bool(estimated)), model)

    def put(self, key: str, text: str, usage: Usage, model: str) -> None:
        """Store (or replace) the reply for `key`."""
        self._run(lambda db: db.execute(
            "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
            (key, text, usage.prompt_tokens, usage.completion_tokens, int(usage.estimated), model, time.time())))

    def count(self) -> int:
        """Number of stored replies (0 when off or broken)."""
        row = self._run(lambda db: db.execute("SELECT COUNT(*) FROM responses").fetchone())
        return row[0] if row else 0

    def _run(self, action: Any) -> Any:
        """`action` on a fresh connection. A transient lock (another process creating the database or switching
        it to WAL, sqlite's rare "locking protocol" under heavy contention) is tried again until the busy timeout
        has passed; any other error, or a lock that outlasts it, turns the cache off."""
        if not self.enabled:
            return None
        deadline = time.monotonic() + self._busy_timeout_s
        pause = 0.01
        while True:
            try:
                with closing(self._connect()) as db, db:
                    return action(db)
            except sqlite3.OperationalError as exc:
                if _transient(exc) and time.monotonic() < deadline:
                    time.sleep(pause)
                    pause = min(2 * pause, 0.5)
                    continue
                return self._give_up(exc)
            except (sqlite3.Error, OSError) as exc:
                return self._give_up(exc)

    def _give_up(self, exc: Exception) -> None:
        self.enabled = False
        log.warning("LLM response cache %s is unusable (%s); continuing without the cache. Delete the file "
                    "to start a fresh cache.", self.path, exc)

    def _connect(self) -> sqlite3.Connection:
        if not self._ready:
            with self._lock:
                if not self._ready:
                    self._create()
        db = sqlite3.connect(self.path, timeout=self._busy_timeout_s)
        db.execute("PRAGMA synchronous=NORMAL")  # with WAL: never corrupt, may lose the last replies on power loss
        return db

    def _create(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(self.path, timeout=self._busy_timeout_s)) as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)
            db.commit()
        self._ready = True


def _transient(exc: sqlite3.OperationalError) -> bool:
    """Whether `exc` is a lock held by another connection for a while (worth trying again)."""
    text = str(exc).lower()
    return any(word in text for word in ("locked", "busy", "locking protocol"))
