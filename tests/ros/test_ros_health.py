"""Health checks reported on /diagnostics: LLM reachability and state, store writability, the summary level."""

from __future__ import annotations

import os
import socket

from l3mp.llm.settings import LLMSettings
from l3mp.ros.health import ERROR, OK, LazyLLM, store_writable
from tests.llm.scripted_server import ScriptedServer


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_endpoint_that_answers_is_reachable_and_one_that_does_not_is_an_error():
    with ScriptedServer() as server:
        up = LazyLLM(LLMSettings(provider="compatible", base_url=server.url, model="scripted"))
        level, text = up.status()
        assert level == OK and "reachable; not started" in text
    down = LazyLLM(LLMSettings(provider="compatible", base_url=f"http://127.0.0.1:{_closed_port()}/v1", model="m"))
    level, text = down.status()
    assert level == ERROR and "unreachable" in text


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
