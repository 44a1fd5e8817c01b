"""Make the configured LLM (embedded server, OpenAI or a compatible endpoint) and describe it for reports."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from l3mp.llm.cache import ResponseCache
from l3mp.llm.client import ChatLLM
from l3mp.llm.settings import LLMSettings

log = logging.getLogger(__name__)


def make_llm(settings: LLMSettings, *, env: Mapping[str, str] | None = None) -> ChatLLM:
    """A ready ChatLLM; call its `close()` when done. Raises LLMUnavailable when the endpoint cannot be set up.

    The embedded provider runs the model either in the user's shared server (`settings.use_shared_server`: the
    CLI), which outlives this process and is reused by the next command, or in this process's own server, which
    stops when its last user closes. Either way each purpose gets its own server slot (prompt cache)."""
    env = os.environ if env is None else env
    cache = ResponseCache(settings.resolved_cache_path(env)) if settings.cache else None
    if settings.provider != "embedded":
        return ChatLLM(settings, api_key=settings.api_key(env), cache=cache)
    if settings.use_shared_server:
        from l3mp.llm.embedded import ServerConfig
        from l3mp.llm.shared import SharedServerBusy, connect, state_dir

        try:
            lease = connect(ServerConfig.default(), idle_timeout_s=settings.idle_timeout_s, directory=state_dir(env))
        except SharedServerBusy as exc:
            log.warning("%s; starting a server for this process only", exc)
        else:
            return _client(settings, cache, lease.base_url, lease.api_key, lease.release, lease.slot_ids)
    from l3mp.llm.embedded import EmbeddedServer

    server = EmbeddedServer.shared().acquire()
    return _client(settings, cache, server.base_url, server.api_key, server.release, server.slot_ids)


def describe(settings: LLMSettings, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """JSON-serialisable description for reports: which model, where, with which limits (never the key)."""
    info: dict[str, Any] = {
        "name": settings.name,
        "provider": settings.provider,
        "model": settings.model,
        "base_url": settings.base_url,
        "temperature": settings.temperature,
        "seed": settings.seed,
        "max_tokens": settings.max_tokens,
        "timeout_s": settings.timeout_s,
        "max_retries": settings.max_retries,
        "cache": str(settings.resolved_cache_path(env)) if settings.cache else None,
    }
    if settings.provider == "embedded":
        info["server_mode"] = "shared" if settings.use_shared_server else "own"
    if settings.provider == "embedded":
        from l3mp.llm.embedded import MODEL_FILE, MODEL_SHA256, server_version

        info.update(model_file=MODEL_FILE, model_sha256=MODEL_SHA256, server=server_version())
    else:
        info["api_key_env"] = settings.api_key_env
    return info


def _client(settings: Any, cache: Any, base_url: str, api_key: str, release: Any, slots: Any) -> ChatLLM:
    """A client of an acquired server; the server is released again if the client cannot be made."""
    try:
        return ChatLLM(settings, base_url=base_url, api_key=api_key, cache=cache, on_close=release, slots=slots)
    except BaseException:
        release()
        raise
