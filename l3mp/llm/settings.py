"""LLM settings: provider, endpoint, model, limits and cache, merged from CLI, ROS/YAML params and environment."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from l3mp.cachedir import cache_dir
from l3mp.errors import LLMError, LLMUnavailable

PROVIDERS = ("embedded", "openai", "compatible")
EMBEDDED_MODEL = "qwen2.5-coder-1.5b-instruct-q4_k_m"
DEFAULT_MODELS = {"embedded": EMBEDDED_MODEL, "openai": "gpt-4o-mini"}
ENV_VARS = {
    "provider": "L3MP_LLM_PROVIDER",
    "base_url": "L3MP_LLM_BASE_URL",
    "model": "L3MP_LLM_MODEL",
    "timeout_s": "L3MP_LLM_TIMEOUT",
    "cache": "L3MP_LLM_CACHE",
    "shared": "L3MP_LLM_SHARED",
    "idle_timeout_s": "L3MP_LLM_IDLE_TIMEOUT",
}
DEFAULT_IDLE_TIMEOUT_S = 900.0
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


class LLMConfigError(LLMError, ValueError):
    """An LLM setting has an invalid value; the message names the setting, where it came from and what is valid."""


@dataclass(frozen=True)
class LLMSettings:
    """How to reach the LLM. The API key is not stored here: only the name of the variable that holds it."""

    provider: str = "embedded"
    base_url: str | None = None
    model: str | None = None
    temperature: float = 0.0
    timeout_s: float = 120.0
    max_retries: int = 2
    backoff_s: float = 0.5
    max_tokens: int = 1024
    api_key_env: str = "OPENAI_API_KEY"
    cache: bool = False
    cache_path: Path | None = field(default=None)
    seed: int | None = None
    # embedded provider only: True = use (or start) the one shared server of this user, which outlives the process
    # and stops after `idle_timeout_s` without use; False = a server of this process's own, stopped with it;
    # None = the process default (`set_shared_default`: the CLI shares, ROS nodes, tests and evaluations do not)
    shared: bool | None = None
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S  # a shared server this starts exits after so long unused; 0: never

    def __post_init__(self) -> None:
        self._check()
        if self.model is None and self.provider in DEFAULT_MODELS:
            object.__setattr__(self, "model", DEFAULT_MODELS[self.provider])
        if self.cache_path is not None:
            object.__setattr__(self, "cache_path", Path(self.cache_path).expanduser())

    def _check(self) -> None:
        if self.provider not in PROVIDERS:
            raise LLMConfigError(f"unknown LLM provider {self.provider!r}; valid: {', '.join(PROVIDERS)}")
        if self.provider == "compatible" and not (self.base_url and self.model):
            raise LLMConfigError("provider 'compatible' needs base_url (e.g. http://127.0.0.1:8080/v1) and model")
        if self.base_url is not None and not self.base_url.startswith(("http://", "https://")):
            raise LLMConfigError(f"base_url {self.base_url!r} must start with http:// or https://")
        _require(0.0 <= self.temperature <= 2.0, f"temperature {self.temperature} must be between 0 and 2")
        _require(self.timeout_s > 0, f"timeout_s {self.timeout_s} must be > 0 (seconds)")
        _require(0 <= self.max_retries <= 10, f"max_retries {self.max_retries} must be between 0 and 10")
        _require(self.backoff_s >= 0, f"backoff_s {self.backoff_s} must be >= 0 (seconds)")
        _require(self.max_tokens >= 1, f"max_tokens {self.max_tokens} must be >= 1")
        _require(bool(self.api_key_env), "api_key_env must name an environment variable")
        _require(self.idle_timeout_s >= 0, f"idle_timeout_s {self.idle_timeout_s} must be >= 0 (seconds; 0: never)")

    @property
    def use_shared_server(self) -> bool:
        """Whether the embedded model runs in the user's shared server (`shared`, else the process default)."""
        return self.provider == "embedded" and (_shared_default if self.shared is None else self.shared)

    @property
    def name(self) -> str:
        """``provider:model``, as stated in results."""
        return f"{self.provider}:{self.model}"

    def resolved_cache_path(self, env: Mapping[str, str] | None = None) -> Path:
        """The cache file: `cache_path`, or ``llm-cache.sqlite3`` in the l3mp cache directory."""
        return self.cache_path or cache_dir(env) / "llm-cache.sqlite3"

    def api_key(self, env: Mapping[str, str] | None = None) -> str | None:
        """The key from `api_key_env` (never stored); the openai provider without one is LLMUnavailable."""
        env = os.environ if env is None else env
        key = env.get(self.api_key_env) or None
        if key is None and self.provider == "openai":
            raise LLMUnavailable(f"provider 'openai' needs an API key: set the environment variable {self.api_key_env}"
                                 " (or choose provider 'embedded', the offline default)")
        return key

    @classmethod
    def from_sources(
        cls,
        params: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        overrides: Mapping[str, Any] | None = None,
    ) -> LLMSettings:
        """Merge overrides (CLI) > params (ROS/YAML) > environment (``L3MP_LLM_*``) > defaults; None means unset.

        Checks every value and, for provider 'openai', that the key variable is set in `env`.
        """
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for name, var in ENV_VARS.items():
            if env.get(var, "").strip():
                values[name] = _coerce(name, env[var].strip(), f"environment variable {var}")
        for source, given in (("params", params), ("overrides", overrides)):
            for name, value in (given or {}).items():
                if value is not None:
                    values[name] = _coerce(name, value, f"{source}[{name!r}]")
        settings = cls(**values)
        settings.api_key(env)
        return settings


_shared_default = False


def set_shared_default(shared: bool) -> None:
    """What `LLMSettings.shared=None` means in this process. The ``l3mp`` command line sets True, so that its
    one-shot commands reuse a warm server; everything else (ROS nodes, tests, evaluations) keeps False and owns
    its server. An explicit `shared` (setting, ``L3MP_LLM_SHARED``) always wins."""
    global _shared_default
    _shared_default = bool(shared)


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise LLMConfigError(message)


def _coerce(name: str, value: Any, where: str) -> Any:
    kinds = {f.name: f.type for f in fields(LLMSettings)}
    if name == "api_key":
        raise LLMConfigError(f"the API key is not a setting ({where}): put it in the environment variable named by "
                             "api_key_env (default OPENAI_API_KEY)")
    if name not in kinds:
        raise LLMConfigError(f"unknown LLM setting {name!r} in {where}; valid: {', '.join(kinds)}")
    convert = _CONVERTERS.get(name, _text)
    try:
        return convert(value)
    except (TypeError, ValueError) as exc:
        raise LLMConfigError(f"LLM setting {name} from {where}: {exc}") from None


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{value!r} is not a number")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{value!r} is not a finite number")
    return number


def _integer(value: Any) -> int:
    number = _number(value)
    if number != int(number):
        raise ValueError(f"{value!r} is not a whole number")
    return int(number)


def _optional_integer(value: Any) -> int | None:
    return None if isinstance(value, str) and value.strip().lower() in ("", "none", "null") else _integer(value)


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueError(f"{value!r} is not a yes/no value (use true/false, 1/0, yes/no, on/off)")


def _optional_flag(value: Any) -> bool | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("auto", "default", "none")):
        return None
    return _flag(value)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a string")
    return value.strip()


def _optional_text(value: Any) -> str | None:
    return _text(value) or None


def _path(value: Any) -> Path | None:
    if not isinstance(value, (str, os.PathLike)):
        raise ValueError(f"{value!r} is not a file path")
    return Path(value).expanduser() if str(value).strip() else None


_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "base_url": _optional_text,
    "model": _optional_text,
    "temperature": _number,
    "timeout_s": _number,
    "max_retries": _integer,
    "backoff_s": _number,
    "max_tokens": _integer,
    "cache": _flag,
    "cache_path": _path,
    "seed": _optional_integer,
    "shared": _optional_flag,
    "idle_timeout_s": _number,
}
