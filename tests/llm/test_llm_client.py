"""ChatLLM against the scripted server: structured output, retries, timeouts, fallback, parsing, token accounting."""

from __future__ import annotations

import json
import socket
import time

import pytest

from l3mp.errors import LLMError, LLMOutputError, LLMTimeout, LLMUnavailable
from l3mp.llm import client
from l3mp.llm.client import ChatLLM, count_message_tokens, count_tokens
from l3mp.llm.types import TokenLedger, Usage
from tests.llm.conftest import MESSAGES, SCHEMA, settings_for
from tests.llm.scripted_server import ScriptedServer, fail, reply, slow


def ask(llm: ChatLLM, ledger: TokenLedger | None = None, purpose: str = "probe"):
    return llm.complete_json(MESSAGES, schema=SCHEMA, schema_name="probe", purpose=purpose, ledger=ledger)


def make(server: ScriptedServer, sleeps: list[float] | None = None, **changes: object) -> ChatLLM:
    record = sleeps.append if sleeps is not None else (lambda s: None)
    return ChatLLM(settings_for(server.url, **changes), sleep=record)


def refused_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_structured_request_and_reply(server: ScriptedServer) -> None:
    server.push(reply('{"answer": "yes"}', usage=(12, 3)))
    ledger = TokenLedger()
    with make(server, seed=7) as llm:
        result = ask(llm, ledger)
    assert result.data == {"answer": "yes"}
    assert result.usage == Usage(12, 3) and not result.usage.estimated and not result.cached
    assert result.model == llm.name == "compatible:scripted"
    assert ledger.calls == [("probe", Usage(12, 3), False)]
    sent = server.requests[0]
    assert sent["response_format"] == {"type": "json_schema",
                                       "json_schema": {"name": "probe", "schema": SCHEMA, "strict": True}}
    assert sent["messages"] == MESSAGES and sent["model"] == "scripted"
    assert sent["temperature"] == 0.0 and sent["seed"] == 7 and sent["max_tokens"] == 1024


def test_code_fenced_json_with_prose_is_parsed(server: ScriptedServer) -> None:
    server.push(reply('Sure! Here it is:\n```json\n{"answer": "no",}\n```\nAnything else?'))
    with make(server) as llm:
        assert ask(llm).data == {"answer": "no"}


def test_malformed_text_raises_output_error_with_raw_text_and_counts_tokens(server: ScriptedServer) -> None:
    server.push(reply("I think the answer is yes.", usage=(30, 8)))
    ledger = TokenLedger()
    with make(server) as llm, pytest.raises(LLMOutputError) as caught:
        ask(llm, ledger)
    assert caught.value.text == "I think the answer is yes."
    assert "no JSON object or array" in str(caught.value)
    assert ledger.calls == [("probe", Usage(30, 8), False)]


def test_shape_error_is_actionable(server: ScriptedServer) -> None:
    server.push(reply('{"answer": "maybe", "why": 1}'))
    with make(server) as llm, pytest.raises(LLMOutputError) as caught:
        ask(llm)
    message = str(caught.value)
    assert '$.answer: "maybe" is not one of ["yes", "no"]' in message
    assert 'unexpected key "why"' in message
    assert caught.value.text == '{"answer": "maybe", "why": 1}'


def test_truncated_answer_says_so(server: ScriptedServer) -> None:
    server.push(reply('{"answer": "y', finish_reason="length"))
    with make(server, max_tokens=5) as llm, pytest.raises(LLMOutputError, match="cut off at max_tokens=5"):
        ask(llm)


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_transient_errors_are_retried_with_exponential_backoff(server: ScriptedServer, status: int) -> None:
    server.push(fail(status), fail(status), reply('{"answer": "yes"}'))
    sleeps: list[float] = []
    with make(server, sleeps, backoff_s=0.01) as llm:
        assert ask(llm).data == {"answer": "yes"}
    assert len(server.requests) == 3
    assert sleeps == [0.01, 0.02]


def test_transient_errors_exhaust_the_retries(server: ScriptedServer) -> None:
    server.push(*[fail(500, "boom")] * 4)
    sleeps: list[float] = []
    with make(server, sleeps, max_retries=3, backoff_s=0.01) as llm, pytest.raises(LLMUnavailable) as caught:
        ask(llm)
    assert len(server.requests) == 4 and sleeps == [0.01, 0.02, 0.04]
    assert "after 4 attempt(s)" in str(caught.value) and "HTTP 500: boom" in str(caught.value)


@pytest.mark.parametrize("status", [400, 422])
def test_client_errors_are_not_retried(server: ScriptedServer, status: int) -> None:
    server.push(fail(status, "context length exceeded"))
    with make(server) as llm, pytest.raises(LLMError, match="context length exceeded") as caught:
        ask(llm)
    assert type(caught.value) is LLMError
    assert len(server.requests) == 1


def test_missing_model_is_unavailable(server: ScriptedServer) -> None:
    server.push(fail(404, "model 'scripted' not found"))
    with make(server) as llm, pytest.raises(LLMUnavailable, match="not found"):
        ask(llm)
    assert len(server.requests) == 1


def test_rejected_json_schema_falls_back_to_text_for_the_session(server: ScriptedServer) -> None:
    server.push(fail(400, "response_format type json_schema is not supported"), reply('{"answer": "no"}'),
                reply('```\n{"answer": "yes"}\n```'))
    with make(server) as llm:
        assert ask(llm).data == {"answer": "no"}
        assert not llm.structured
        assert ask(llm).data == {"answer": "yes"}
    first, fallback, later = server.requests
    assert "response_format" in first
    for sent in (fallback, later):
        assert "response_format" not in sent
        assert sent["messages"][:-1] == MESSAGES[:-1]
        assert sent["messages"][-1]["content"].startswith(MESSAGES[-1]["content"])
        assert json.dumps(SCHEMA, separators=(",", ":")) in sent["messages"][-1]["content"]


def test_an_invalid_schema_is_reported_not_worked_around(server: ScriptedServer) -> None:
    server.push(fail(400, "Invalid schema for response_format 'probe': 'additionalProperties' is required"))
    with make(server) as llm, pytest.raises(LLMError, match="Invalid schema"):
        ask(llm)
    assert llm.structured and len(server.requests) == 1


def test_timeout_raises_llm_timeout_without_retrying(server: ScriptedServer) -> None:
    server.push(slow(2.0))
    started = time.monotonic()
    with make(server, timeout_s=0.3) as llm, pytest.raises(LLMTimeout, match=r"within 0\.3 s"):
        ask(llm)
    assert time.monotonic() - started < 1.5
    assert len(server.requests) == 1


def test_connection_refused_is_unavailable_after_the_retries() -> None:
    sleeps: list[float] = []
    url = refused_url()
    llm = ChatLLM(settings_for(url, max_retries=2, backoff_s=0.01), sleep=sleeps.append)
    with llm, pytest.raises(LLMUnavailable) as caught:
        ask(llm)
    assert sleeps == [0.01, 0.02]
    assert url in str(caught.value) and "after 3 attempt(s)" in str(caught.value)


def test_usage_is_estimated_when_the_server_reports_none(server: ScriptedServer) -> None:
    server.push(reply('{"answer": "yes"}', usage=None))
    ledger = TokenLedger()
    with make(server) as llm:
        result = ask(llm, ledger)
    assert result.usage.estimated
    assert result.usage.completion_tokens == count_tokens('{"answer": "yes"}') == 6
    assert result.usage.prompt_tokens == count_message_tokens(MESSAGES) > 10
    assert ledger.to_json()["estimated_calls"] == 1


def test_ledger_groups_calls_by_purpose(server: ScriptedServer) -> None:
    server.push(reply('{"answer": "yes"}', usage=(10, 2)), reply('{"answer": "no"}', usage=(20, 3)),
                reply('{"answer": "no"}', usage=(5, 1)))
    ledger = TokenLedger()
    with make(server) as llm:
        ask(llm, ledger, "update")
        ask(llm, ledger, "update")
        ask(llm, ledger, "goal")
    assert ledger.by_purpose() == {"update": Usage(30, 5), "goal": Usage(5, 1)}
    assert ledger.to_json()["prompt_tokens"] == 35 and ledger.to_json()["calls"] == 3


def test_loopback_endpoint_ignores_proxy_settings(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    server.push(reply('{"answer": "yes"}'))
    with make(server, max_retries=0) as llm:
        assert ask(llm).data == {"answer": "yes"}


def test_close_runs_the_release_hook_once(server: ScriptedServer) -> None:
    released: list[bool] = []
    llm = ChatLLM(settings_for(server.url), on_close=lambda: released.append(True))
    llm.close()
    llm.close()
    assert released == [True]


def test_empty_answer_is_an_output_error(server: ScriptedServer) -> None:
    server.push(reply(None))
    with make(server) as llm, pytest.raises(LLMOutputError, match="empty"):
        ask(llm)


def test_token_count_without_tiktoken_data_is_a_rough_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client, "_encoding", lambda: None)
    assert count_tokens("x" * 40) == 10


def test_slots_pin_each_purpose_and_cache_use_is_reported(server: ScriptedServer) -> None:
    server.push(reply('{"answer": "yes"}', usage=(700, 9), cached=0), reply('{"answer": "no"}', usage=(720, 9),
                cached=690), reply('{"answer": "yes"}', usage=(300, 4), cached=280), reply('{"answer": "no"}'))
    slots = {"update": 0, "retrieval": 1, "entity_selection": 2, "goal": 3, "other": 4}
    ledger = TokenLedger()
    with ChatLLM(settings_for(server.url), slots=slots) as llm:
        first = ask(llm, ledger, purpose="update")
        second = ask(llm, ledger, purpose="update")
        third = llm.complete_json(MESSAGES, schema=SCHEMA, schema_name="entity_selection", purpose="retrieval",
                                  ledger=ledger)
        fourth = ask(llm, ledger, purpose="probe")
    assert [r.slot for r in (first, second, third, fourth)] == [0, 0, 2, 4]
    assert [b["id_slot"] for b in server.requests] == [0, 0, 2, 4]
    assert all(b["cache_prompt"] is True for b in server.requests)
    assert second.usage == Usage(720, 9, cached_prompt_tokens=690, prompt_ms=12.5, completion_ms=40.0)
    assert second.usage.evaluated_prompt_tokens == 30 and first.usage.evaluated_prompt_tokens == 700
    assert fourth.usage.cached_prompt_tokens is None and fourth.usage.evaluated_prompt_tokens is None
    assert ledger.cached_prompt_tokens == 970
    report = ledger.to_json()
    assert report["cached_prompt_tokens"] == 970 and report["by_purpose"]["update"]["cached_prompt_tokens"] == 690
    assert report["by_purpose"]["probe"]["cached_prompt_tokens"] is None


def test_no_slot_fields_without_slots(server: ScriptedServer) -> None:
    server.push(reply('{"answer": "yes"}'))
    with make(server) as llm:
        assert ask(llm).slot is None and llm.slot_for("update") is None
    assert "id_slot" not in server.requests[0] and "cache_prompt" not in server.requests[0]
