"""What every LLM backend returns and how token use is accounted."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from l3mp.errors import LLMError

Message = dict[str, str]


@dataclass(frozen=True)
class Usage:
    """Tokens of one call (cached replies count the tokens of the call they replay).

    `cached_prompt_tokens` is how many of the prompt tokens the server took from its prompt cache (KV cache)
    instead of evaluating them; None when the server did not say (then nothing is known about it). The times are
    the server's own (llama-server ``timings``), None when it did not report them.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False  # counted locally (tiktoken) because the server reported no usage
    cached_prompt_tokens: int | None = None
    prompt_ms: float | None = None  # evaluating the prompt tokens that were not cached
    completion_ms: float | None = None  # generating the completion tokens

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def evaluated_prompt_tokens(self) -> int | None:
        """Prompt tokens the server actually evaluated (None when it did not report its cache use)."""
        return None if self.cached_prompt_tokens is None else self.prompt_tokens - self.cached_prompt_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
                     self.estimated or other.estimated, _add(self.cached_prompt_tokens, other.cached_prompt_tokens),
                     _add(self.prompt_ms, other.prompt_ms), _add(self.completion_ms, other.completion_ms))


def _add(a: Any, b: Any) -> Any:
    """Sum of two optional numbers; None only when both are unknown."""
    if a is None:
        return b
    return a if b is None else a + b


@dataclass(frozen=True)
class LLMReply:
    """A parsed JSON answer, the raw text it came from, and its cost."""

    data: Any
    text: str
    usage: Usage
    model: str
    cached: bool = False
    seconds: float = 0.0
    slot: int | None = None  # the server slot that answered, when the client pinned one (see ChatLLM)


@dataclass
class TokenLedger:
    """Token use per call, grouped by purpose (``update``, ``retrieval``, ``goal``, ...). Thread-safe."""

    calls: list[tuple[str, Usage, bool]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, purpose: str, usage: Usage, *, cached: bool = False) -> None:
        with self._lock:
            self.calls.append((purpose, usage, cached))

    @property
    def prompt_tokens(self) -> int:
        return sum(u.prompt_tokens for _, u, _ in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(u.completion_tokens for _, u, _ in self.calls)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def by_purpose(self) -> dict[str, Usage]:
        out: dict[str, Usage] = {}
        for purpose, usage, _ in self.calls:
            out[purpose] = out.get(purpose, Usage()) + usage
        return out

    @property
    def cached_prompt_tokens(self) -> int | None:
        """Prompt tokens the server took from its prompt cache, over the calls that reported it (None: none did).
        Replies replayed from the response cache are not counted: the server did not see them."""
        total = None
        for _, usage, replayed in self.calls:
            if not replayed:
                total = _add(total, usage.cached_prompt_tokens)
        return total

    def to_json(self) -> dict:
        return {
            "calls": len(self.calls),
            "cached_calls": sum(1 for *_, cached in self.calls if cached),
            "estimated_calls": sum(1 for _, usage, _ in self.calls if usage.estimated),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_prompt_tokens": self.cached_prompt_tokens,
            "by_purpose": {p: {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
                               "cached_prompt_tokens": u.cached_prompt_tokens}
                           for p, u in self.by_purpose().items()},
        }


class LLM(Protocol):
    """A chat model that answers with JSON matching a schema.

    Implementations: `l3mp.llm.client.ChatLLM` (OpenAI API or any OpenAI-compatible server,
    including the embedded llama.cpp server). Raise only LLMError subclasses.
    """

    @property
    def name(self) -> str:
        """Provider and model, e.g. ``embedded:qwen2.5-coder-1.5b-instruct-q4_k_m``; stated in every result."""
        ...

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
        ...


__all__ = ["LLM", "LLMError", "LLMReply", "Message", "TokenLedger", "Usage"]
