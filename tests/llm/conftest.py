"""Fixtures of the LLM tests: the scripted server (a test double for a paid API) and settings pointing at it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

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
SCRIPTED = Path(__file__).with_name("scripted_server.py")


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as scripted:
        yield scripted


def settings_for(url: str, **changes: object) -> LLMSettings:
    """Compatible-provider settings for the scripted server: short timeout, tiny backoff."""
    values = {"provider": "compatible", "base_url": url, "model": "scripted", "timeout_s": 2.0, "max_retries": 2,
              "backoff_s": 0.01, **changes}
    return LLMSettings(**values)


@pytest.fixture
def fake_binary(tmp_path: Path) -> Path:
    """A stand-in for the llama-server binary: the scripted server run as a program (no model)."""
    script = tmp_path / "llama-server"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{SCRIPTED}" "$@"\n')
    script.chmod(0o755)
    return script


@pytest.fixture
def fake_model(tmp_path: Path) -> Path:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    return model
