"""Free dictation through an OpenAI-compatible audio transcription endpoint (``POST {base_url}/audio/transcriptions``),
used only when one is configured: ``L3MP_SPEECH_DICTATION_URL`` (and ``L3MP_SPEECH_DICTATION_MODEL``, the key in
the environment variable named by ``L3MP_SPEECH_DICTATION_KEY_ENV``, default ``OPENAI_API_KEY``).

The confidence comes from what the endpoint reports: per segment (``verbose_json``) the probability of its tokens,
``exp(avg_logprob)``, times the chance it is speech, ``1 - no_speech_prob``, weighted by duration; else per token
(``logprobs``) the mean probability. An endpoint that reports neither gives confidence 0, so the robot asks back
("did you say ...?") instead of acting on an unscored transcript.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from l3mp.errors import L3mpError
from l3mp.speech.audio import Audio
from l3mp.speech.grammar import spoken_words
from l3mp.speech.recognizer import Transcript

ENV = {"base_url": "L3MP_SPEECH_DICTATION_URL", "model": "L3MP_SPEECH_DICTATION_MODEL",
       "api_key_env": "L3MP_SPEECH_DICTATION_KEY_ENV", "timeout_s": "L3MP_SPEECH_DICTATION_TIMEOUT"}
DEFAULT_MODEL = "whisper-1"
UNSCORED = "the endpoint reported no confidence"


class DictationError(L3mpError):
    """The transcription endpoint cannot be reached or did not answer with a transcription."""


@dataclass(frozen=True)
class DictationSettings:
    """Where and how to transcribe; `base_url` None means dictation is off."""

    base_url: str | None = None
    model: str = DEFAULT_MODEL
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 30.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> DictationSettings:
        """Overrides (None: unset) over the ``L3MP_SPEECH_DICTATION_*`` environment over the defaults."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {k: env[v] for k, v in ENV.items() if env.get(v)}
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            values["timeout_s"] = float(values.get("timeout_s", cls.timeout_s))
        except ValueError:
            raise DictationError(f"{ENV['timeout_s']} must be a number of seconds, not "
                                 f"{values['timeout_s']!r}") from None
        return cls(**values)

    @property
    def enabled(self) -> bool:
        return bool(self.base_url)


class Dictation:
    """Transcribes utterances through the configured endpoint (see the module doc)."""

    def __init__(self, settings: DictationSettings, env: Mapping[str, str] | None = None) -> None:
        if not settings.enabled:
            raise DictationError(f"no transcription endpoint configured: set {ENV['base_url']}")
        from openai import OpenAI

        env = os.environ if env is None else env
        self.settings = settings
        self._client = OpenAI(base_url=settings.base_url, api_key=env.get(settings.api_key_env) or "not-needed",
                              timeout=settings.timeout_s, max_retries=0)

    def transcribe(self, audio: Audio, *, hint: str = "") -> Transcript:
        """The endpoint's transcript of `audio`, with its confidence; DictationError when it fails. `hint` (the
        names the robot knows) goes as the endpoint's prompt, which biases it towards those spellings."""
        import openai

        started = time.perf_counter()
        try:
            answer = self._client.audio.transcriptions.create(
                model=self.settings.model, file=("utterance.wav", audio.wav_bytes(), "audio/wav"),
                response_format="verbose_json", language="en", **({"prompt": hint} if hint else {}))
        except openai.OpenAIError as exc:
            raise DictationError(f"transcription at {self.settings.base_url} failed: {exc}") from None
        data = answer.model_dump() if hasattr(answer, "model_dump") else dict(answer)
        text = str(data.get("text") or "").strip()
        confidence = _confidence(data)
        reason = "" if text else "nothing recognised"
        if text and confidence is None:
            reason = UNSCORED
        words = " ".join(spoken_words(text))
        return Transcript(words, text, confidence or 0.0, "dictation", True, time.perf_counter() - started,
                          audio.seconds, reason)

    def close(self) -> None:
        self._client.close()


def _confidence(data: Mapping[str, Any]) -> float | None:
    segments = [s for s in data.get("segments") or () if isinstance(s, Mapping) and "avg_logprob" in s]
    if segments:
        weights = [max(float(s.get("end", 0)) - float(s.get("start", 0)), 1e-3) for s in segments]
        scores = [math.exp(float(s["avg_logprob"])) * (1.0 - float(s.get("no_speech_prob") or 0.0))
                  for s in segments]
        return sum(w * c for w, c in zip(weights, scores, strict=True)) / sum(weights)
    logprobs = [float(t["logprob"]) for t in data.get("logprobs") or () if isinstance(t, Mapping) and "logprob" in t]
    if logprobs:
        return sum(math.exp(p) for p in logprobs) / len(logprobs)
    return None
