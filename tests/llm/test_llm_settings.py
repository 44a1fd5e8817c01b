"""LLMSettings: defaults, precedence (CLI > params > environment > defaults) and validation messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from l3mp.errors import LLMError, LLMUnavailable
from l3mp.llm.settings import EMBEDDED_MODEL, LLMConfigError, LLMSettings


def test_defaults_are_the_offline_embedded_model() -> None:
    settings = LLMSettings.from_sources(None, {}, {})
    assert settings.provider == "embedded" and settings.model == EMBEDDED_MODEL
    assert settings.temperature == 0.0 and settings.seed is None and not settings.cache
    assert settings.api_key_env == "OPENAI_API_KEY"
    assert settings.name == f"embedded:{EMBEDDED_MODEL}"


def test_precedence_overrides_then_params_then_environment() -> None:
    env = {"L3MP_LLM_PROVIDER": "compatible", "L3MP_LLM_BASE_URL": "http://127.0.0.1:1/v1",
           "L3MP_LLM_MODEL": "env-model", "L3MP_LLM_TIMEOUT": "30", "L3MP_LLM_CACHE": "yes"}
    only_env = LLMSettings.from_sources(None, env, {})
    assert (only_env.provider, only_env.model, only_env.timeout_s, only_env.cache) == (
        "compatible", "env-model", 30.0, True)
    params = {"model": "param-model", "timeout_s": 45, "temperature": "0.2"}
    with_params = LLMSettings.from_sources(params, env, {})
    assert (with_params.model, with_params.timeout_s, with_params.temperature) == ("param-model", 45.0, 0.2)
    overrides = {"model": "cli-model", "timeout_s": None, "cache": False}
    final = LLMSettings.from_sources(params, env, overrides)
    assert (final.model, final.timeout_s, final.cache, final.base_url) == (
        "cli-model", 45.0, False, "http://127.0.0.1:1/v1")


def test_empty_environment_values_are_unset() -> None:
    assert LLMSettings.from_sources(None, {"L3MP_LLM_PROVIDER": " ", "L3MP_LLM_TIMEOUT": ""}, {}) == LLMSettings()


@pytest.mark.parametrize(("env", "words"), [
    ({"L3MP_LLM_TIMEOUT": "soon"}, ["L3MP_LLM_TIMEOUT", "'soon' is not a number"]),
    ({"L3MP_LLM_TIMEOUT": "nan"}, ["L3MP_LLM_TIMEOUT", "finite"]),
    ({"L3MP_LLM_TIMEOUT": "0"}, ["timeout_s 0.0 must be > 0"]),
    ({"L3MP_LLM_CACHE": "maybe"}, ["L3MP_LLM_CACHE", "yes/no"]),
    ({"L3MP_LLM_PROVIDER": "anthropic"}, ["unknown LLM provider 'anthropic'", "embedded, openai, compatible"]),
    ({"L3MP_LLM_BASE_URL": "127.0.0.1:8080"}, ["must start with http://"]),
])
def test_bad_environment_values_are_explained(env: dict, words: list[str]) -> None:
    with pytest.raises(LLMConfigError) as caught:
        LLMSettings.from_sources(None, env, {})
    for word in words:
        assert word in str(caught.value)


@pytest.mark.parametrize(("params", "words"), [
    ({"temperature": 3}, ["temperature 3.0 must be between 0 and 2"]),
    ({"temperature": True}, ["params['temperature']", "True is not a number"]),
    ({"max_retries": -1}, ["max_retries -1"]),
    ({"max_retries": 1.5}, ["1.5 is not a whole number"]),
    ({"backoff_s": -0.1}, ["backoff_s"]),
    ({"max_tokens": 0}, ["max_tokens 0 must be >= 1"]),
    ({"seed": "x"}, ["seed", "'x' is not a number"]),
    ({"provider": "compatible"}, ["needs base_url"]),
    ({"provider": 3}, ["3 is not a string"]),
    ({"modle": "x"}, ["unknown LLM setting 'modle'", "valid: provider"]),
    ({"api_key": "sk-123"}, ["not a setting", "api_key_env"]),
])
def test_bad_params_are_explained(params: dict, words: list[str]) -> None:
    with pytest.raises(LLMConfigError) as caught:
        LLMSettings.from_sources(params, {}, {})
    assert isinstance(caught.value, LLMError) and isinstance(caught.value, ValueError)
    for word in words:
        assert word in str(caught.value)
    assert "sk-123" not in str(caught.value)


def test_values_are_coerced_from_yaml_and_ros_strings() -> None:
    settings = LLMSettings.from_sources({"max_retries": "3", "seed": "none", "cache": "on", "cache_path": "~/x.db",
                                         "provider": "compatible", "base_url": "http://127.0.0.1:2/v1",
                                         "model": "m"}, {}, {"seed": None})
    assert settings.max_retries == 3 and settings.seed is None and settings.cache
    assert settings.cache_path == Path("~/x.db").expanduser()


def test_openai_without_key_names_the_variable_to_set() -> None:
    with pytest.raises(LLMUnavailable, match="set the environment variable OPENAI_API_KEY"):
        LLMSettings.from_sources({"provider": "openai"}, {}, {})
    with pytest.raises(LLMUnavailable, match="MY_KEY"):
        LLMSettings.from_sources({"provider": "openai", "api_key_env": "MY_KEY"}, {"OPENAI_API_KEY": "x"}, {})
    settings = LLMSettings.from_sources({"provider": "openai"}, {"OPENAI_API_KEY": "sk-secret"}, {})
    assert settings.model == "gpt-4o-mini"
    assert "sk-secret" not in repr(settings)


def test_cache_path_defaults_to_the_l3mp_cache_directory(tmp_path: Path) -> None:
    settings = LLMSettings(cache=True)
    assert settings.resolved_cache_path({"L3MP_CACHE_DIR": str(tmp_path)}) == tmp_path / "llm-cache.sqlite3"
    assert LLMSettings(cache_path=tmp_path / "x").resolved_cache_path({}) == tmp_path / "x"
