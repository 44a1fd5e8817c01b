"""Health checks reported on /diagnostics: LLM reachability and state, store writability, the summary level."""

from __future__ import annotations

import os
import socket
import threading
import time

from l3mp.llm.settings import LLMSettings
from l3mp.ros.health import ERROR, OK, LazyLLM, store_writable
from tests.llm.scripted_server import ScriptedServer


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _settled(llm: LazyLLM) -> tuple[int, str]:
    """The status once the background probe has answered."""
    deadline = time.monotonic() + 30
    while "checking whether it answers" in llm.status()[1] and time.monotonic() < deadline:
        time.sleep(0.02)
    return llm.status()


def test_an_endpoint_that_answers_is_reachable_and_one_that_does_not_is_an_error():
    with ScriptedServer() as server:
        up = LazyLLM(LLMSettings(provider="compatible", base_url=server.url, model="scripted"))
        level, text = _settled(up)
        assert level == OK and "reachable; not started" in text
    down = LazyLLM(LLMSettings(provider="compatible", base_url=f"http://127.0.0.1:{_closed_port()}/v1", model="m"))
    level, text = _settled(down)
    assert level == ERROR and "unreachable" in text


def test_a_silent_endpoint_never_holds_up_diagnostics():
    """The probe of an endpoint that accepts connections but never answers runs on its own thread: diagnostics
    (on the node's only executor thread) get the last known answer at once."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)  # connections complete in the kernel; nobody reads or answers
        llm = LazyLLM(LLMSettings(provider="compatible", base_url=f"http://127.0.0.1:{silent.getsockname()[1]}/v1",
                                  model="m"))
        assert llm.status() == (OK, "compatible:m: checking whether it answers; "
                                    "not started (starts with the first request that needs it)")
        probes = [t for t in threading.enumerate() if t.name == "l3mp-llm-probe"]
        assert probes, "the probe runs on a thread of its own"
        assert "checking whether it answers" in llm.status()[1]  # still waiting: no second probe, no blocking
        assert len([t for t in threading.enumerate() if t.name == "l3mp-llm-probe"]) == len(probes)
        level, text = _settled(llm)
        assert level == ERROR and "unreachable" in text and "timed out" in text


def test_the_last_call_is_reported():
    llm = LazyLLM(LLMSettings(provider="openai", model="gpt-4o-mini"))
    assert llm.status()[0] == OK and "not started" in llm.status()[1]
    llm.record("LLMTimeout: no answer in 120 s")
    assert llm.status() == (ERROR, "openai:gpt-4o-mini: last call failed: LLMTimeout: no answer in 120 s")
    llm.record(None)
    assert llm.status()[0] == OK and "reachable (last answer at" in llm.status()[1]


def test_store_writability(tmp_path):
    assert store_writable(tmp_path)[0] == OK and "GB free" in store_writable(tmp_path)[1]
    assert store_writable(tmp_path / "missing") == (ERROR, f"{tmp_path / 'missing'} does not exist")
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        expected = OK if os.geteuid() == 0 else ERROR  # root writes anywhere
        assert store_writable(locked)[0] == expected
    finally:
        locked.chmod(0o700)
