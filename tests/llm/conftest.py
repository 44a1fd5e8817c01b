"""Fixtures of the LLM tests: the scripted server (a test double for a paid API) and settings pointing at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from l3mp.llm.settings import LLMSettings
from tests.llm.scripted_server import ScriptedServer

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["answer"],
    "additionalProperties": False,
}
MESSAGES = [{"role": "system", "content": "Answer yes or no as JSON."}, {"role": "user", "content": "Is it on?"}]


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as scripted:
        yield scripted


def settings_for(url: str, **changes: object) -> LLMSettings:
    """Compatible-provider settings for the scripted server: short timeout, tiny backoff."""
    values = {"provider": "compatible", "base_url": url, "model": "scripted", "timeout_s": 2.0, "max_retries": 2,
              "backoff_s": 0.01, **changes}
    return LLMSettings(**values)
