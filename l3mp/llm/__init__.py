"""LLM access for l3mp: settings, the OpenAI-compatible client, the embedded local model, cache and JSON parsing."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from l3mp.llm.settings import LLMConfigError, LLMSettings
from l3mp.llm.types import LLM, LLMReply, Message, TokenLedger, Usage

_LAZY = {
    "ChatLLM": "l3mp.llm.client",
    "EmbeddedServer": "l3mp.llm.embedded",
    "ResponseCache": "l3mp.llm.cache",
    "describe": "l3mp.llm.factory",
    "make_llm": "l3mp.llm.factory",
    "parse_json": "l3mp.llm.jsonparse",
    "validate": "l3mp.llm.jsonparse",
}


def __getattr__(name: str) -> Any:
    """Import the heavier parts (openai, the server) only when they are used."""
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'l3mp.llm' has no attribute {name!r}")


__all__ = ["LLM", "ChatLLM", "EmbeddedServer", "LLMConfigError", "LLMReply", "LLMSettings", "Message",
           "ResponseCache", "TokenLedger", "Usage", "describe", "make_llm", "parse_json", "validate"]
