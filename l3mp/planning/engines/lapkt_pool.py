"""Warm LAPKT processes: a pool of fork servers (``lapkt_worker.py``) that run planning requests with a time limit."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

WORKER = Path(__file__).with_name("lapkt_worker.py")
START_TIMEOUT_S = 60.0
"""How long a new server may take to import LAPKT."""
_REAP_TIMEOUT_S = 10.0
_IDLE_SERVERS = 2


class LAPKTUnavailable(RuntimeError):
    """The LAPKT server cannot start (LAPKT, Tarski or clingo missing or broken)."""


@dataclass(frozen=True)
class Request:
    """One planning request: the LAPKT planner class and the files it reads and writes."""

    planner: str
    domain: str
    problem: str
    plan_file: str
    log_file: str
    stdout: str
    stderr: str
    result: str
    memory_limit_bytes: int | None


@dataclass(frozen=True)
class Ended:
    """How a request ended: the child's outcome (from its result file) or why there is none."""

    outcome: str
    """``finished``, ``unreachable``, ``memout``, ``error``, ``timeout`` or ``crashed``."""
    message: str
    seconds: float


def default_memory_limit_mb() -> int:
    """The planner's address-space cap when none is given: 4 GB, or half the machine's RAM if that is less."""
    try:
        ram_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    except (ValueError, OSError):
        return 4096
    return max(256, min(4096, ram_mb // 2))


def run(request: Request, timeout: float | None) -> Ended:
    """Run `request` on a warm server of the pool; at the timeout the child is killed."""
    server = _POOL.acquire()
    try:
        return server.run(request, timeout)
    finally:
        _POOL.release(server)


class _Server:
    """One fork server process and the line protocol to it."""

    def __init__(self) -> None:
        self._proc = _SPAWNER.submit(_start).result()
        self._buffer = b""
        line = self._line(time.monotonic() + START_TIMEOUT_S)
        if line is None or not line.get("ready"):
            self.close()
            why = "it did not start in time" if line is None else line.get("error", "unknown error")
            raise LAPKTUnavailable(f"the LAPKT planner cannot start: {why}; install it with: pip install lapkt clingo")

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def run(self, request: Request, timeout: float | None) -> Ended:
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
        try:
            assert self._proc.stdin is not None
            self._proc.stdin.write((json.dumps(request.__dict__) + "\n").encode())
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            self.close()
            return Ended("crashed", f"the LAPKT server is gone ({exc})", time.monotonic() - start)
        started = self._line(deadline)
        if started is None:  # the server itself is stuck (e.g. reading a huge domain) or dead
            timed_out = deadline is not None and time.monotonic() >= deadline
            self.close()
            return Ended("timeout" if timed_out else "crashed", "" if timed_out else "the LAPKT server died",
                         time.monotonic() - start)
        pid = started["pid"]
        ended = self._line(deadline)
        timed_out = ended is None
        if timed_out:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            ended = self._line(time.monotonic() + _REAP_TIMEOUT_S)
            if ended is None:
                self.close()
        seconds = time.monotonic() - start
        if timed_out:
            return Ended("timeout", "", seconds)
        return _ended(request, ended, seconds)

    def close(self) -> None:
        """End the server and everything it started."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        for stream in (self._proc.stdin, self._proc.stdout):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        self._proc.wait()

    def _line(self, deadline: float | None) -> dict | None:
        """The next protocol line, or None at the deadline or when the server closes its output."""
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                wait = None if deadline is None else deadline - time.monotonic()
                if (wait is not None and wait <= 0) or not selector.select(wait):
                    return None
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)


def _start() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-P", str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True)


_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="l3mp-lapkt-spawner")
"""Starts every server. A server asks Linux to kill it when its parent dies, and Linux takes the *thread* that
started it for the parent: a caller's short-lived thread would take the server with it when it ends."""


def _ended(request: Request, ended: dict, seconds: float) -> Ended:
    try:
        result = json.loads(Path(request.result).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        result = None
    if result is not None:
        return Ended(result["outcome"], result.get("message", ""), seconds)
    if "signal" in ended:
        name = signal.Signals(ended["signal"]).name
        return Ended("crashed", f"the planner process was killed by {name}", seconds)
    return Ended("crashed", f"the planner process exited with code {ended.get('exit')} without a result", seconds)


class _Pool:
    """Idle servers to reuse; a busy pool starts another server, so concurrent callers never wait for each other."""

    def __init__(self) -> None:
        self._idle: list[_Server] = []
        self._lock = threading.Lock()

    def acquire(self) -> _Server:
        with self._lock:
            while self._idle:
                server = self._idle.pop()
                if server.alive:
                    return server
                server.close()
        return _Server()

    def release(self, server: _Server) -> None:
        with self._lock:
            if server.alive and len(self._idle) < _IDLE_SERVERS:
                self._idle.append(server)
                return
        if server.alive:
            server.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for server in idle:
            server.close()


_POOL = _Pool()
atexit.register(_POOL.close)
