"""Free dictation through an OpenAI-compatible transcription endpoint (the local TEST DOUBLE for the paid API)."""

from __future__ import annotations

import math
import socket

import pytest

from l3mp.speech.dictation import UNSCORED, Dictation, DictationError, DictationSettings
from l3mp.speech.listener import Listener
from l3mp.speech.phrasings import TASK
from l3mp.speech.routing import ASK
from tests.helpers import house_graph, household
from tests.speech.support import said
from tests.speech.transcription_server import TranscriptionServer

OFF_GRAMMAR = "could you fetch me something cold to drink"
"""Said by espeak-ng's en-us voice, the grammar hears nothing it knows in it."""


def verbose(text: str, *segments: tuple[float, float, float, float]) -> dict:
    """A verbose_json answer: segments of (start, end, avg_logprob, no_speech_prob)."""
    return {"text": text, "language": "en", "duration": 2.0, "segments": [
        {"id": i, "seek": 0, "start": s, "end": e, "text": text, "tokens": [], "temperature": 0.0,
         "avg_logprob": p, "compression_ratio": 1.0, "no_speech_prob": q} for i, (s, e, p, q) in enumerate(segments)]}


@pytest.fixture
def endpoint():
    with TranscriptionServer() as server:
        yield server


def dictation(url: str) -> Dictation:
    return Dictation(DictationSettings(base_url=url, timeout_s=5), env={})


def test_the_transcript_and_its_confidence_come_from_the_endpoints_segments(endpoint, tmp_path):
    endpoint.push(verbose("Could you fetch me something cold to drink?", (0, 1, -0.1, 0.0), (1, 3, -0.5, 0.2)))
    audio = said(tmp_path, OFF_GRAMMAR)
    transcript = dictation(endpoint.url).transcribe(audio, hint="alice, milk")
    expected = (1 * math.exp(-0.1) + 2 * math.exp(-0.5) * 0.8) / 3
    assert transcript.confidence == pytest.approx(expected) and transcript.source == "dictation"
    assert transcript.written == "Could you fetch me something cold to drink?" and transcript.text == OFF_GRAMMAR
    [body] = endpoint.bodies
    assert b"RIFF" in body and b"verbose_json" in body and b"whisper-1" in body and b"alice, milk" in body


def test_an_endpoint_that_reports_no_confidence_gives_zero_so_the_robot_asks(endpoint, tmp_path):
    endpoint.push({"text": "Could you fetch me something cold to drink?"})
    transcript = dictation(endpoint.url).transcribe(said(tmp_path, OFF_GRAMMAR))
    assert (transcript.confidence, transcript.reason) == (0.0, UNSCORED)


def test_the_listener_uses_dictation_when_the_grammar_is_unsure_and_routes_it_by_the_rules(endpoint, tmp_path):
    endpoint.push(verbose("Could you fetch me something cold to drink?", (0, 2, -0.05, 0.01)))
    listener = Listener(household(), dictation=dictation(endpoint.url))
    heard = listener.hear(said(tmp_path, OFF_GRAMMAR, voice="en-us"), house_graph())
    assert heard.transcript.source == "dictation" and heard.others[0].source == "grammar"
    assert heard.others[0].confidence == 0.0 and heard.transcript.written.startswith("Could you fetch me")
    assert (heard.route.kind, heard.route.basis) == (TASK, "rules")
    assert b"alice" in endpoint.bodies[0] and b"fridge" in endpoint.bodies[0]  # the graph's names as the hint


def test_a_confident_grammar_transcript_never_calls_the_endpoint(endpoint, tmp_path):
    listener = Listener(household(), dictation=dictation(endpoint.url))
    heard = listener.hear(said(tmp_path, "where is the milk", voice="en-us+f2"), house_graph())
    assert heard.transcript.source == "grammar" and endpoint.bodies == []


def test_an_unreachable_endpoint_keeps_the_grammar_transcript_and_says_why(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    listener = Listener(household(), dictation=dictation(f"http://127.0.0.1:{port}/v1"))
    heard = listener.hear(said(tmp_path, OFF_GRAMMAR, voice="en-us"), house_graph())
    assert heard.transcript.source == "grammar" and heard.route.kind == ASK
    assert "transcription at http://127.0.0.1" in heard.note and "failed" in heard.note


def test_an_error_status_is_a_dictation_error(endpoint, tmp_path):
    endpoint.push({"error": {"message": "model not found"}}, status=404)
    with pytest.raises(DictationError, match="model not found"):
        dictation(endpoint.url).transcribe(said(tmp_path, OFF_GRAMMAR))


def test_settings_come_from_the_environment_and_dictation_is_off_without_an_endpoint():
    env = {"L3MP_SPEECH_DICTATION_URL": "http://127.0.0.1:9/v1", "L3MP_SPEECH_DICTATION_MODEL": "small",
           "L3MP_SPEECH_DICTATION_TIMEOUT": "7"}
    settings = DictationSettings.from_env(env, model="large")
    assert (settings.base_url, settings.model, settings.timeout_s, settings.enabled) == (
        "http://127.0.0.1:9/v1", "large", 7.0, True)
    assert not DictationSettings.from_env({}).enabled
    with pytest.raises(DictationError, match="no transcription endpoint configured"):
        Dictation(DictationSettings.from_env({}))
    with pytest.raises(DictationError, match="L3MP_SPEECH_DICTATION_TIMEOUT must be a number"):
        DictationSettings.from_env({"L3MP_SPEECH_DICTATION_TIMEOUT": "soon"})
