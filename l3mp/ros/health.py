"""Health of a node: the LLM it uses (started on first need), and its diagnostics on /diagnostics."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from l3mp.errors import LLMError
from l3mp.llm.client import ChatLLM
from l3mp.llm.settings import LLMSettings

OK, WARN, ERROR = 0, 1, 2
PROBE_EVERY_S = 10.0
"""How often diagnostics check that an LLM endpoint answers."""


class LazyLLM:
    """The node's LLM, made on first use (the embedded server starts then) and released by `close`.
    Remembers how the last start or call went, for diagnostics."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self._llm: ChatLLM | None = None
        self._lock = threading.Lock()
        self._status = "not started (starts with the first request that needs it)"
        self._level = OK
        self._probed: tuple[float, tuple[int, str]] | None = None
        self._probe_lock = threading.Lock()
        self._probing = False

    def get(self) -> ChatLLM:
        """The LLM, starting it if needed; LLMError (e.g. LLMUnavailable) if it cannot start."""
        from l3mp.llm.factory import make_llm

        with self._lock:
            if self._llm is None:
                try:
                    self._llm = make_llm(self.settings)
                except LLMError as exc:
                    self._status, self._level = f"unavailable: {exc}", ERROR
                    raise
                self._status, self._level = "started", OK
            return self._llm

    def record(self, error: str | None) -> None:
        """How the last call that used the LLM went (None: it answered)."""
        if error is None:
            self._status, self._level = f"reachable (last answer at {time.strftime('%H:%M:%S')})", OK
        else:
            self._status, self._level = f"last call failed: {error}", ERROR

    def status(self) -> tuple[int, str]:
        """How the LLM is: for an endpoint l3mp does not start, also whether it answers HTTP now (checked at most
        every PROBE_EVERY_S seconds); for the embedded server, whether its process runs."""
        if self._llm is not None and self.settings.provider == "embedded":
            from l3mp.llm.embedded import EmbeddedServer

            if not EmbeddedServer.shared().running:
                return ERROR, "embedded llama-server is not running"
        if self.settings.provider == "compatible" and self.settings.base_url:
            level, text = self._probe(self.settings.base_url)
            return max(level, self._level), f"{self.settings.name}: {text}; {self._status}"
        return self._level, f"{self.settings.name}: {self._status}"

    def _probe(self, base_url: str) -> tuple[int, str]:
        """The last probe's answer; a stale one is refreshed on a background thread, so that diagnostics (on the
        node's only executor thread) never wait for a slow endpoint."""
        now = time.monotonic()
        with self._probe_lock:
            due = not self._probing and (self._probed is None or now - self._probed[0] >= PROBE_EVERY_S)
            if due:
                self._probing = True
            last = self._probed
        if due:
            threading.Thread(target=self._refresh_probe, args=(base_url,), name="l3mp-llm-probe", daemon=True).start()
        return last[1] if last is not None else (OK, "checking whether it answers")

    def _refresh_probe(self, base_url: str) -> None:
        result = reachable(base_url)
        with self._probe_lock:
            self._probed = (time.monotonic(), result)
            self._probing = False

    def close(self) -> None:
        with self._lock:
            if self._llm is not None:
                self._llm.close()
                self._llm = None


def reachable(base_url: str, timeout_s: float = 2.0) -> tuple[int, str]:
    """Whether an OpenAI-compatible endpoint answers HTTP (GET <base_url>/models; any HTTP status counts)."""
    import urllib.error
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"{base_url.rstrip('/')}/models", timeout=timeout_s):
            return OK, "reachable"
    except urllib.error.HTTPError:
        return OK, "reachable"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return ERROR, f"unreachable: {getattr(exc, 'reason', exc)}"


def store_writable(path: Path) -> tuple[int, str]:
    """Whether the store directory can be written, and its free space."""
    if not path.is_dir():
        return ERROR, f"{path} does not exist"
    if not os.access(path, os.W_OK):
        return ERROR, f"{path} is not writable"
    stat = os.statvfs(path)
    free = stat.f_bavail * stat.f_frsize
    level = WARN if free < 100 << 20 else OK
    return level, f"writable, {free / 1e9:.1f} GB free"


def diagnostic_array(node: Any, name: str, checks: Mapping[str, tuple[int, str]], values: Mapping[str, Any]) -> Any:
    """A DiagnosticArray with one status for the node: the worst level of `checks`, their messages and `values`."""
    from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue

    level = max((lvl for lvl, _ in checks.values()), default=OK)
    problems = [f"{key}: {text}" for key, (lvl, text) in checks.items() if lvl != OK]
    status = DiagnosticStatus(level=bytes([level]), name=f"l3mp: {name}", hardware_id=socket.gethostname(),
                              message="; ".join(problems) or "ok")
    status.values = [KeyValue(key=key, value=text) for key, (_, text) in checks.items()]
    status.values += [KeyValue(key=key, value=str(value)) for key, value in values.items()]
    array = DiagnosticArray()
    array.header.stamp = node.get_clock().now().to_msg()
    array.status = [status]
    return array


def age(when: float | None) -> str:
    """Time of an event and how long ago, for diagnostics."""
    if when is None:
        return "never"
    return f"{time.strftime('%Y-%m-%dT%H:%M:%S', time.localtime(when))} ({time.time() - when:.1f} s ago)"
