"""The real embedded model end to end: join, start, one structured answer, stop (pipeline guarantees, not wording)."""

from __future__ import annotations

import json

import psutil
import pytest

from l3mp.llm.embedded import HOST, EmbeddedServer
from l3mp.llm.factory import make_llm
from l3mp.llm.jsonparse import validate
from l3mp.llm.settings import LLMSettings
from l3mp.llm.types import TokenLedger

pytestmark = pytest.mark.slow

COLORS = ["red", "green", "blue", "yellow"]
SCHEMA = {
    "type": "object",
    "properties": {"color": {"type": "string", "enum": COLORS}},
    "required": ["color"],
    "additionalProperties": False,
}
MESSAGES = [
    {"role": "system", "content": "You are a careful assistant. Answer with JSON only."},
    {"role": "user", "content": "What color is a clear daytime sky? Pick one of the allowed colors."},
]


def test_embedded_model_answers_json_of_the_schema() -> None:
    server = EmbeddedServer.shared()
    owners = server.owners  # other tests of this process may share it
    ledger = TokenLedger()
    llm = make_llm(LLMSettings(max_tokens=24, timeout_s=300))
    try:
        pid = server.pid
        assert server.running and server.owners == owners + 1 and llm.base_url == server.base_url
        listening = {c.laddr.ip for c in psutil.Process(pid).net_connections("tcp") if c.status == psutil.CONN_LISTEN}
        assert listening == {HOST}
        reply = llm.complete_json(MESSAGES, schema=SCHEMA, schema_name="color", purpose="probe", ledger=ledger)
        assert validate(reply.data, SCHEMA) == [] and reply.data["color"] in COLORS
        assert json.loads(reply.text) == reply.data  # constrained decoding: the raw answer is exactly the JSON
        assert llm.structured and not reply.cached
        assert reply.usage.prompt_tokens > 20 and reply.usage.completion_tokens > 0 and not reply.usage.estimated
        assert ledger.calls == [("probe", reply.usage, False)]
        assert reply.model == "embedded:qwen2.5-coder-1.5b-instruct-q4_k_m"
    finally:
        llm.close()
    assert server.owners == owners
    if owners == 0:
        assert not server.running and not psutil.pid_exists(pid)
