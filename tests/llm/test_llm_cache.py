"""Response cache: hits and misses, preserved usage, keying, corruption, processes, and API-key secrecy."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from l3mp.errors import LLMOutputError
from l3mp.llm.cache import ResponseCache, request_key
from l3mp.llm.client import ChatLLM
from l3mp.llm.factory import describe, make_llm
from l3mp.llm.settings import LLMSettings
from l3mp.llm.types import TokenLedger, Usage
from tests.llm.conftest import MESSAGES, SCHEMA, settings_for
from tests.llm.scripted_server import ScriptedServer, fail, reply

FAKE_KEY = "sk-test-DO-NOT-LEAK-4f9a2c7e1b"


def ask(llm: ChatLLM, ledger: TokenLedger | None = None, messages: list | None = None, schema: dict | None = None,
        schema_name: str = "probe"):
    return llm.complete_json(messages or MESSAGES, schema=schema or SCHEMA, schema_name=schema_name,
                             purpose="update", ledger=ledger)


def test_miss_then_hit_keeps_the_original_usage(server: ScriptedServer, tmp_path: Path) -> None:
    server.push(reply('{"answer": "yes"}', usage=(40, 6)))
    cache = ResponseCache(tmp_path / "c.sqlite3")
    ledger = TokenLedger()
    with ChatLLM(settings_for(server.url), cache=cache) as llm:
        first, second = ask(llm, ledger), ask(llm, ledger)
    assert len(server.requests) == 1
    assert not first.cached and second.cached
    assert second.data == first.data and second.text == first.text
    assert second.usage == first.usage == Usage(40, 6)
    assert ledger.calls == [("update", Usage(40, 6), False), ("update", Usage(40, 6), True)]
    assert ledger.to_json()["cached_calls"] == 1 and ledger.total_tokens == 92


def test_cache_survives_a_new_client(server: ScriptedServer, tmp_path: Path) -> None:
    server.push(reply('{"answer": "no"}', usage=None))
    path = tmp_path / "c.sqlite3"
    with ChatLLM(settings_for(server.url), cache=ResponseCache(path)) as llm:
        estimated = ask(llm).usage
    with ChatLLM(settings_for(server.url), cache=ResponseCache(path)) as llm:
        again = ask(llm)
    assert again.cached and again.usage == estimated and again.usage.estimated
    assert len(server.requests) == 1


def test_invalid_answers_are_replayed_too(server: ScriptedServer, tmp_path: Path) -> None:
    server.push(reply("no idea"))
    with ChatLLM(settings_for(server.url), cache=ResponseCache(tmp_path / "c.sqlite3")) as llm:
        for _ in range(2):
            with pytest.raises(LLMOutputError):
                ask(llm)
    assert len(server.requests) == 1


VARIANTS = {
    "provider": {"provider": "openai"},
    "base_url": {"base_url": "http://localhost:{port}/v1"},
    "model": {"model": "other"},
    "temperature": {"temperature": 0.7},
    "seed": {"seed": 1},
    "max_tokens": {"max_tokens": 99},
}


@pytest.mark.parametrize("field", [*VARIANTS, "messages", "schema", "schema_name"])
def test_every_request_field_is_part_of_the_key(server: ScriptedServer, tmp_path: Path, field: str) -> None:
    server.default = reply('{"answer": "yes"}')
    cache = ResponseCache(tmp_path / "c.sqlite3")
    base = settings_for(server.url)
    with ChatLLM(base, cache=cache) as llm:
        ask(llm)
    changes = {k: v.format(port=server.port) if isinstance(v, str) else v for k, v in VARIANTS.get(field, {}).items()}
    other = replace(base, **changes)
    request: dict = {}
    if field == "messages":
        request["messages"] = [*MESSAGES[:-1], {"role": "user", "content": "Is it off?"}]
    elif field == "schema":
        request["schema"] = {**SCHEMA, "properties": {"answer": {"type": "string", "enum": ["yes", "no", "?"]}}}
    elif field == "schema_name":
        request["schema_name"] = "other"
    with ChatLLM(other, api_key="k", cache=cache) as llm:
        assert not ask(llm, **request).cached
        assert ask(llm, **request).cached
    assert len(server.requests) == 2


def test_request_key_is_canonical() -> None:
    assert request_key({"a": 1, "b": [1, 2]}) == request_key({"b": [1, 2], "a": 1})
    assert request_key({"a": 1}) != request_key({"a": 1.5})


def test_cache_can_be_switched_off(server: ScriptedServer, tmp_path: Path) -> None:
    server.default = reply('{"answer": "yes"}')
    with ChatLLM(settings_for(server.url), cache=ResponseCache(tmp_path / "c.sqlite3", enabled=False)) as llm:
        assert not ask(llm).cached and not ask(llm).cached
    settings = settings_for(server.url, cache=False, cache_path=tmp_path / "d.sqlite3")
    with make_llm(settings, env={}) as llm:
        assert not ask(llm).cached and not ask(llm).cached
    assert len(server.requests) == 4 and not (tmp_path / "d.sqlite3").exists()


def test_make_llm_uses_the_cache_when_asked(server: ScriptedServer, tmp_path: Path) -> None:
    server.default = reply('{"answer": "yes"}')
    settings = settings_for(server.url, cache=True, cache_path=tmp_path / "e.sqlite3")
    with make_llm(settings, env={}) as llm:
        assert not ask(llm).cached and ask(llm).cached


def test_corrupt_database_warns_and_runs_uncached(server: ScriptedServer, tmp_path: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    server.default = reply('{"answer": "yes"}')
    with caplog.at_level(logging.WARNING), ChatLLM(settings_for(server.url), cache=ResponseCache(path)) as llm:
        assert ask(llm).data == {"answer": "yes"}
        assert not ask(llm).cached
    assert len(server.requests) == 2
    warnings = [r for r in caplog.records if "cache" in r.getMessage() and r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "continuing without the cache" in warnings[0].getMessage()


def test_unwritable_cache_location_is_not_fatal(server: ScriptedServer, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    server.default = reply('{"answer": "yes"}')
    with ChatLLM(settings_for(server.url), cache=ResponseCache(blocker / "sub" / "c.sqlite3")) as llm:
        assert ask(llm).data == {"answer": "yes"}


WRITER = """
import sys
from l3mp.llm.cache import ResponseCache
from l3mp.llm.types import Usage
cache = ResponseCache(sys.argv[1])
for i in range(100):
    cache.put(f"{sys.argv[2]}-{i}", "text" * 50, Usage(i, 1), "m")
    assert cache.get(f"{sys.argv[2]}-{i}") is not None
"""


def test_safe_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), name]) for name in ("a", "b", "c")]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0]
    cache = ResponseCache(path)
    assert cache.count() == 300 and cache.enabled
    assert cache.get("b-99").usage == Usage(99, 1)


def test_api_key_never_in_logs_repr_reports_or_cache(server: ScriptedServer, tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    env = {"MY_LLM_KEY": FAKE_KEY}
    settings = LLMSettings.from_sources(
        {"provider": "openai", "base_url": server.url, "model": "gpt-test", "api_key_env": "MY_LLM_KEY",
         "cache": True, "cache_path": str(tmp_path / "c.sqlite3"), "backoff_s": 0.01}, env, {})
    server.push(fail(500, f"upstream echoed {FAKE_KEY}"), reply('{"answer": "yes"}'), fail(401, f"bad {FAKE_KEY}"))
    with caplog.at_level(logging.DEBUG), make_llm(settings, env=env) as llm:
        ask(llm)
        ask(llm)
        with pytest.raises(Exception) as caught:
            ask(llm, schema_name="other")
        seen = [repr(settings), str(settings), repr(llm), str(describe(settings, env)), str(caught.value)]
    assert server.headers[0]["authorization"] == f"Bearer {FAKE_KEY}"  # it is sent to the endpoint, and only there
    assert "MY_LLM_KEY" in str(caught.value)
    seen += [r.getMessage() for r in caplog.records]
    assert any("retrying" in text for text in seen)
    assert not [text for text in seen if FAKE_KEY in text]
    files = list(tmp_path.glob("c.sqlite3*"))
    assert files and not [f for f in files if FAKE_KEY.encode() in f.read_bytes()]
    assert not hasattr(settings, "api_key_value") and FAKE_KEY not in str(vars(settings))


def test_a_transient_lock_is_tried_again_and_a_lasting_one_turns_the_cache_off(tmp_path: Path, monkeypatch,
                                                                                caplog: pytest.LogCaptureFixture):
    """sqlite can answer "locking protocol" or "database is locked" while another process creates the file or
    switches it to WAL (seen once in CI as a writer whose cache turned itself off): tried again, not given up."""
    cache = ResponseCache(tmp_path / "c.sqlite3", busy_timeout_s=0.3)
    real, failures = ResponseCache._connect, [sqlite3.OperationalError("locking protocol"),
                                              sqlite3.OperationalError("database is locked")]

    def flaky(self):
        if failures:
            raise failures.pop(0)
        return real(self)

    monkeypatch.setattr(ResponseCache, "_connect", flaky)
    cache.put("k", "text", Usage(1, 1), "m")
    assert not failures and cache.enabled and cache.get("k").text == "text"
    monkeypatch.setattr(ResponseCache, "_connect", real)
    holder = sqlite3.connect(tmp_path / "c.sqlite3")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with caplog.at_level(logging.WARNING):
            cache.put("k2", "text", Usage(1, 1), "m")
    finally:
        holder.rollback()
        holder.close()
    assert not cache.enabled and "continuing without the cache" in caplog.text
