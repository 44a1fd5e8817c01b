"""The user's shared embedded server: one llama-server that outlives the command that started it.

A one-shot command (``l3mp update``, ``l3mp plan``) would otherwise pay the model's start-up (~5 s) and a cold
prompt cache on every call. The first command starts a small supervisor of ours, detached, which runs llama-server
on 127.0.0.1 at a free port with a random API key and records it in ``<l3mp cache>/llm-server/server.json``
(mode 0600: it holds the key). Later commands find it there, check that the recorded processes are really ours and
healthy and that the model and flags match, and reuse it. llama-server has no idle exit, so the supervisor stops it
after `idle_timeout_s` in which no process held a lease on it (a shared lock on ``users.lock`` that every client
holds while it may call the server; the kernel drops it when a client dies).

Files in the state directory:

- ``start.lock``: held exclusively while a process inspects, starts or stops the server (two concurrent first
  calls start one server: the second waits, then finds the first one's).
- ``users.lock``: the leases (shared locks). The supervisor stops an idle server only while it holds both locks.
- ``server.json``: the running server (pids, port, key, fingerprint of model and flags). A file whose processes
  are gone, or whose pids now belong to other programs, is stale and ignored (nothing is killed that is not ours).
- ``launch.json``, ``supervisor.log``, ``server.log``: how the last server was started and what it printed.

Run as ``python -m l3mp.llm.shared supervise DIR`` it is the supervisor (started by `connect`, not by hand).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import itertools
import json
import logging
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from l3mp.cachedir import cache_dir
from l3mp.errors import LLMUnavailable
from l3mp.llm.embedded import HOST, ServerConfig, free_port, healthy, spawn_server, terminate, wait_healthy

log = logging.getLogger(__name__)

STATE_VERSION = 1
STATE_FILE = "server.json"
START_LOCK = "start.lock"
USERS_LOCK = "users.lock"
LAUNCH_FILE = "launch.json"
SERVER_LOG = "server.log"
SUPERVISOR_LOG = "supervisor.log"
ACTIVITY_FILE = "activity"
STOP_GRACE_S = 10.0
_MARK = "l3mp.llm.shared"  # in the supervisor's command line: how a pid is recognised as ours


class SharedServerBusy(LLMUnavailable):
    """The shared server runs with another model or other flags and some process is using it: it is not replaced
    under that process's feet (the caller starts a server of its own instead)."""


def state_dir(env: Any = None) -> Path:
    """``<l3mp cache>/llm-server`` (``$L3MP_CACHE_DIR/llm-server``, else ``~/.cache/l3mp/llm-server``)."""
    return cache_dir(env) / "llm-server"


# ---- clients ----------------------------------------------------------------------------------
class Lease:
    """The right to use the shared server until `release` (or until this process ends)."""

    def __init__(self, state: dict[str, Any], handle: Any) -> None:
        self.state = state
        self._handle = handle

    def __repr__(self) -> str:
        return f"Lease(pid {self.pid} on {self.base_url}{', released' if self._handle is None else ''})"

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.state['port']}/v1"

    @property
    def api_key(self) -> str:
        return self.state["api_key"]

    @property
    def pid(self) -> int:
        return self.state["pid"]

    @property
    def slot_ids(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.state["config"]["slots"])}

    @property
    def released(self) -> bool:
        return self._handle is None

    def release(self) -> None:
        """Drop the lease (idempotent); the server stays up until its idle time has passed."""
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()  # closing the file drops its lock

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def connect(
    config: ServerConfig,
    *,
    idle_timeout_s: float = 900.0,
    directory: Path | None = None,
    start: bool = True,
    start_timeout_s: float = 180.0,
    poll_s: float | None = None,
) -> Lease | None:
    """A lease on the shared server for `config`: the running one if it matches, else a new one (None if there is
    none and `start` is False). A running server with another fingerprint is replaced when nobody uses it, else
    SharedServerBusy. `idle_timeout_s` and `poll_s` (how often the supervisor looks) apply to a server started here.
    LLMUnavailable if it cannot start."""
    directory = _prepare(directory)
    with _locked(directory / START_LOCK, start_timeout_s + 60.0):
        state = read_state(directory)
        if state is not None:
            verdict = inspect(state, config.fingerprint)
            if verdict == "ready":
                return _lease(state, directory)
            if verdict == "stale":
                log.info("shared LLM server state %s is stale (%s); starting afresh", directory / STATE_FILE,
                         _describe(state))
                _unlink(directory / STATE_FILE)
            elif not _stop_if_unused(directory, state):
                why = "runs another model or other flags" if verdict == "mismatch" else "does not answer"
                raise SharedServerBusy(f"the shared LLM server (pid {state.get('pid')}) {why} and is in use; "
                                       "`l3mp llm stop` stops it")
        if not start:
            return None
        state = _start(directory, config, idle_timeout_s, start_timeout_s, poll_s)
        return _lease(state, directory)


def status(directory: Path | None = None) -> dict[str, Any]:
    """What `l3mp llm status` shows: ``running`` and, if so, pid, port, model, flags, idle time, users (no key)."""
    directory = directory or state_dir()
    state = read_state(directory)
    if state is None:
        return {"running": False, "state_dir": str(directory)}
    verdict = inspect(state, None)
    info = {key: value for key, value in state.items() if key != "api_key"}
    info.update(running=verdict == "ready", verdict=verdict, state_dir=str(directory),
                base_url=f"http://{HOST}:{state.get('port')}/v1")
    if verdict == "ready":
        info["in_use"] = _in_use(directory)
        info["idle_s"] = 0.0 if info["in_use"] else round(time.time() - _last_active(directory, state), 1)
        info["rss_bytes"] = _rss(state["pid"])
    return info


def stop(directory: Path | None = None, *, grace_s: float = STOP_GRACE_S) -> dict[str, Any] | None:
    """Stop the shared server even if in use (its users' next calls fail and start a new one); returns the state
    it had (with ``verdict``), or None if there was none. A stale state file is just removed."""
    directory = directory or state_dir()
    if not directory.is_dir():
        return None
    with _locked(directory / START_LOCK, grace_s + 60.0):
        state = read_state(directory)
        if state is None:
            return None
        verdict = inspect(state, None)
        if verdict != "stale":
            _stop_processes(state, grace_s)
        _unlink(directory / STATE_FILE)
        return {**{k: v for k, v in state.items() if k != "api_key"}, "verdict": verdict}


# ---- state --------------------------------------------------------------------------------------
def read_state(directory: Path) -> dict[str, Any] | None:
    """The recorded server, or None (no file, unreadable, or another format version)."""
    try:
        state = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) and state.get("version") == STATE_VERSION else None


def _write_state(directory: Path, state: dict[str, Any]) -> None:
    temp = directory / f".{STATE_FILE}.{os.getpid()}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(state, out, indent=1)
    os.replace(temp, directory / STATE_FILE)


def inspect(state: dict[str, Any], fingerprint: str | None) -> str:
    """``ready`` (ours, alive, healthy, and the fingerprint matches or is None), ``mismatch`` (ours and healthy,
    other fingerprint), ``unhealthy`` (ours and alive, but /health fails) or ``stale`` (gone, or the pids now
    belong to other programs: never touched)."""
    try:
        supervisor, pid, port = int(state["supervisor_pid"]), int(state["pid"]), int(state["port"])
    except (KeyError, TypeError, ValueError):
        return "stale"
    if state.get("status") != "ready" or not _is_supervisor(supervisor) or not _is_server(pid, port):
        return "stale"
    if not healthy(f"http://{HOST}:{port}/health"):
        return "unhealthy"
    return "ready" if fingerprint is None or state.get("fingerprint") == fingerprint else "mismatch"


def _describe(state: dict[str, Any]) -> str:
    return f"supervisor pid {state.get('supervisor_pid')}, server pid {state.get('pid')}, port {state.get('port')}"


# ---- processes ----------------------------------------------------------------------------------
def _cmdline(pid: int) -> list[str] | None:
    """The command line of a live (not zombie) process, or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat[stat.rindex(")") + 2:].startswith(("Z", "X")):
            return None
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return None
    return raw.decode("utf-8", "replace").split("\0")[:-1] if raw else None


def _is_supervisor(pid: int) -> bool:
    command = _cmdline(pid)
    return bool(command) and _MARK in command and "supervise" in command


def _is_server(pid: int, port: int) -> bool:
    command = _cmdline(pid)
    if not command:
        return False
    pairs = set(itertools.pairwise(command))
    return ("--port", str(port)) in pairs and ("--host", HOST) in pairs


def _gone(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reap it if it is our child (tests start supervisors in-process)
    return _cmdline(pid) is None


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _stop_processes(state: dict[str, Any], grace_s: float) -> None:
    """Ask our supervisor to stop its server; kill what is still ours after the grace period."""
    supervisor, pid, port = int(state["supervisor_pid"]), int(state["pid"]), int(state["port"])
    if _is_supervisor(supervisor):
        _signal(supervisor, signal.SIGTERM)
    elif _is_server(pid, port):
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s + 5.0
    while time.monotonic() < deadline and not (_gone(supervisor) and _gone(pid)):
        time.sleep(0.05)
    for victim, ours in ((pid, _is_server(pid, port)), (supervisor, _is_supervisor(supervisor))):
        if ours:
            log.warning("shared LLM server process %d did not stop in %.0f s; killing it", victim, grace_s)
            _signal(victim, signal.SIGKILL)


def _stop_if_unused(directory: Path, state: dict[str, Any]) -> bool:
    """Stop the recorded server unless someone holds a lease (caller holds the start lock)."""
    with _try_lock(directory / USERS_LOCK, fcntl.LOCK_EX) as unused:
        if not unused:
            return False
        log.info("replacing the shared LLM server (%s): %s", _describe(state),
                 "other model or flags" if healthy(f"http://{HOST}:{state['port']}/health") else "not healthy")
        _stop_processes(state, float(state.get("stop_grace_s", STOP_GRACE_S)))
        _unlink(directory / STATE_FILE)
        return True


def _rss(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


# ---- locks --------------------------------------------------------------------------------------
def _prepare(directory: Path | None) -> Path:
    directory = directory or state_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise LLMUnavailable(f"cannot create the shared LLM server's directory {directory} ({exc}); set "
                             "L3MP_CACHE_DIR to a writable place") from None
    return directory


@contextlib.contextmanager
def _locked(path: Path, timeout_s: float) -> Iterator[None]:
    """An exclusive flock on `path`, waiting at most `timeout_s`."""
    with path.open("a") as handle:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LLMUnavailable(f"another process has held {path} for over {timeout_s:.0f} s (starting "
                                         "or stopping the shared LLM server); see `l3mp llm status`") from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def _try_lock(path: Path, kind: int) -> Iterator[bool]:
    """Try a non-blocking flock of `kind`; yields whether it was taken (and holds it until the block ends)."""
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, kind | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _in_use(directory: Path) -> bool:
    with _try_lock(directory / USERS_LOCK, fcntl.LOCK_EX) as free:
        return not free


def _lease(state: dict[str, Any], directory: Path) -> Lease:
    """A shared lock on users.lock (the caller holds the start lock, so the supervisor cannot be stopping)."""
    handle = (directory / USERS_LOCK).open("a")
    try:
        fcntl.flock(handle, fcntl.LOCK_SH)
    except BaseException:
        handle.close()
        raise
    return Lease(state, handle)


def _last_active(directory: Path, state: dict[str, Any]) -> float:
    try:
        return max((directory / ACTIVITY_FILE).stat().st_mtime, float(state.get("started_at", 0)))
    except OSError:
        return float(state.get("started_at", time.time()))


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


# ---- starting ---------------------------------------------------------------------------------
def _start(directory: Path, config: ServerConfig, idle_timeout_s: float, start_timeout_s: float,
           poll_s: float | None) -> dict[str, Any]:
    """Start a supervisor (detached, its own session) and wait until it reports the server ready."""
    launch = {"config": {"model_path": str(config.model_path), "binary": str(config.binary),
                         "threads": config.threads, "slot_ctx": config.slot_ctx, "slots": list(config.slots),
                         "extra_args": list(config.extra_args)},
              "fingerprint": config.fingerprint, "idle_timeout_s": idle_timeout_s,
              "start_timeout_s": start_timeout_s, "poll_s": poll_s or _poll_interval(idle_timeout_s),
              "stop_grace_s": STOP_GRACE_S}
    (directory / LAUNCH_FILE).write_text(json.dumps(launch, indent=1), encoding="utf-8")
    package_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "LLAMA_API_KEY": secrets.token_urlsafe(24),
           "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    started = time.monotonic()
    with (directory / SUPERVISOR_LOG).open("ab") as out:
        supervisor = subprocess.Popen([sys.executable, "-m", _MARK, "supervise", str(directory)],
                                      stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                      cwd="/", start_new_session=True)
    deadline = started + start_timeout_s + 15.0
    while True:
        state = read_state(directory)
        if state is not None and state.get("supervisor_pid") == supervisor.pid:
            if state.get("status") == "ready":
                log.info("shared LLM server pid %d ready on port %d in %.1f s (stops after %g s unused)",
                         state["pid"], state["port"], time.monotonic() - started, idle_timeout_s)
                return state
            if state.get("status") == "failed":
                _unlink(directory / STATE_FILE)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    supervisor.wait(timeout=30)
                raise LLMUnavailable(str(state.get("error") or "the shared LLM server failed to start"))
        code = supervisor.poll()
        if code is not None:
            raise LLMUnavailable(f"the shared LLM server's supervisor exited with code {code} while starting. "
                                 f"Its log ({directory / SUPERVISOR_LOG}) ends:\n{_tail(directory / SUPERVISOR_LOG)}")
        if time.monotonic() > deadline:
            supervisor.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                supervisor.wait(timeout=STOP_GRACE_S + 5)
            raise LLMUnavailable(f"the shared LLM server did not start within {start_timeout_s + 15:g} s; see "
                                 f"{directory / SUPERVISOR_LOG}")
        time.sleep(0.05)


def _poll_interval(idle_timeout_s: float) -> float:
    return 2.0 if idle_timeout_s <= 0 else min(2.0, max(0.05, idle_timeout_s / 10))


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


# ---- the supervisor -----------------------------------------------------------------------------
class _Stop(Exception):
    """SIGTERM, SIGINT or SIGHUP reached the supervisor."""


def _raise_stop(signum: int, frame: object) -> None:
    raise _Stop(signal.Signals(signum).name)


def _die_with_parent() -> None:
    """In the llama-server child: get SIGTERM when the supervisor dies, even by SIGKILL (Linux prctl)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def supervise(directory: Path) -> int:
    """Run llama-server as described in ``launch.json``, record it in ``server.json``, and stop it when it has
    been unused for the idle time, or on SIGTERM. Exit status 0 after a normal stop, 1 if it could not start."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _raise_stop)
    launch = json.loads((directory / LAUNCH_FILE).read_text(encoding="utf-8"))
    c = launch["config"]
    config = ServerConfig(model_path=Path(c["model_path"]), binary=Path(c["binary"]), threads=int(c["threads"]),
                          slot_ctx=int(c["slot_ctx"]), slots=tuple(c["slots"]), extra_args=tuple(c["extra_args"]))
    api_key = os.environ.pop("LLAMA_API_KEY", "") or secrets.token_urlsafe(24)
    idle_timeout_s, poll_s = float(launch["idle_timeout_s"]), float(launch["poll_s"])
    grace_s = float(launch.get("stop_grace_s", STOP_GRACE_S))
    process: subprocess.Popen | None = None
    base = {"version": STATE_VERSION, "supervisor_pid": os.getpid(), "fingerprint": launch["fingerprint"],
            "config": config.describe(), "idle_timeout_s": idle_timeout_s, "stop_grace_s": grace_s,
            "log": str(directory / SERVER_LOG)}
    try:
        started = time.monotonic()
        for _ in range(3):
            port = free_port()
            with (directory / SERVER_LOG).open("wb") as out:
                process = spawn_server(config, port, api_key, out, preexec_fn=_die_with_parent)
            print(f"supervisor {os.getpid()}: llama-server pid {process.pid} on {HOST}:{port}", flush=True)
            if wait_healthy(process, port, float(launch["start_timeout_s"]), lambda: _tail(directory / SERVER_LOG)):
                break
            process = None
        else:
            raise LLMUnavailable("llama-server could not bind a port on 127.0.0.1 in 3 tries")
        _write_state(directory, {**base, "status": "ready", "pid": process.pid, "port": port, "api_key": api_key,
                                 "started_at": time.time(), "start_seconds": round(time.monotonic() - started, 2)})
        print(f"supervisor {os.getpid()}: ready; idle timeout {idle_timeout_s:g} s", flush=True)
        _watch(directory, process, idle_timeout_s, poll_s, grace_s)
        return 0
    except _Stop as stop:
        print(f"supervisor {os.getpid()}: {stop}; stopping llama-server", flush=True)
        return 0
    except LLMUnavailable as exc:
        print(f"supervisor {os.getpid()}: {exc}", flush=True)
        _write_state(directory, {**base, "status": "failed", "error": str(exc)})
        return 1
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)  # finish the clean-up even if asked again
        if process is not None:
            terminate(process, grace_s)
        state = read_state(directory)
        if state is not None and state.get("supervisor_pid") == os.getpid() and state.get("status") == "ready":
            _unlink(directory / STATE_FILE)


def _watch(directory: Path, process: subprocess.Popen, idle_timeout_s: float, poll_s: float,
           grace_s: float) -> None:
    """Return when llama-server exits, or when it has had no lease for `idle_timeout_s` (0: never)."""
    last_active = time.monotonic()
    while True:
        time.sleep(poll_s)
        if process.poll() is not None:
            print(f"supervisor {os.getpid()}: llama-server exited with code {process.returncode}", flush=True)
            return
        if _in_use(directory):
            last_active = time.monotonic()
            with contextlib.suppress(OSError):
                (directory / ACTIVITY_FILE).touch()
            continue
        if idle_timeout_s <= 0 or time.monotonic() - last_active < idle_timeout_s:
            continue
        # idle: stop only while no client is inspecting or starting (start lock) and none holds a lease
        with _try_lock(directory / START_LOCK, fcntl.LOCK_EX) as quiet, \
                _try_lock(directory / USERS_LOCK, fcntl.LOCK_EX) as unused:
            if quiet and unused:
                print(f"supervisor {os.getpid()}: unused for {idle_timeout_s:g} s; stopping", flush=True)
                terminate(process, grace_s)
                _unlink(directory / STATE_FILE)
                return


__all__ = ["Lease", "SharedServerBusy", "connect", "inspect", "read_state", "state_dir", "status", "stop", "supervise"]


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "supervise":
        print(f"usage: python -m {_MARK} supervise DIR (started by l3mp, not by hand)", file=sys.stderr)
        return 2
    return supervise(Path(argv[1]))


if __name__ == "__main__":
    with contextlib.suppress(OSError):
        os.umask(0o077)
    sys.exit(main(sys.argv[1:]))
