"""Recognition of spoken audio (espeak-ng + sox, made at test time) against the grammar of a graph."""

from __future__ import annotations

import pytest

from l3mp.speech.audio import SAMPLE_RATE, AudioError, from_samples, read_wav
from l3mp.speech.recognizer import Recognizer
from l3mp.speech.synth import silence, speak
from tests.helpers import house_graph, household
from tests.speech.support import said


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    recognizer = Recognizer(household())
    recognizer.refresh(house_graph())
    return recognizer


@pytest.mark.parametrize(("text", "voice"), [
    ("please turn off the lamp in the living room", "en-us"),
    ("where is the milk", "en-gb+m3"),
    ("alice took the book", "en-us+f2"),
    ("put the apple in the fridge", "en-us+f2"),
])
def test_in_grammar_speech_is_transcribed_exactly_with_a_high_confidence(recognizer, tmp_path, text, voice):
    transcript = recognizer.recognize(said(tmp_path, text, voice=voice))
    assert transcript.text == text and transcript.written == text
    assert transcript.complete and transcript.confidence > 0.5 and transcript.source == "grammar"
    assert transcript.reason == "" and 0 < transcript.seconds < 5 and transcript.audio_seconds > 0.5


def test_silence_is_a_clear_result_not_a_crash(recognizer, tmp_path):
    transcript = recognizer.recognize(read_wav(silence(tmp_path / "quiet.wav")))
    assert (transcript.text, transcript.confidence, transcript.complete, transcript.reason) == \
        ("", 0.0, False, "silence")


def test_speech_the_grammar_cannot_hold_gets_no_confident_whole_request(recognizer, tmp_path):
    transcript = recognizer.recognize(said(tmp_path, "the weather is lovely today", voice="en-us"))
    assert transcript.confidence < 0.5
    assert transcript.reason in ("nothing recognised", "not a whole request") or transcript.fit < -4


def test_a_new_thing_seen_regenerates_the_grammar_and_can_then_be_named(tmp_path):
    recognizer = Recognizer(household())
    graph = house_graph()
    first = recognizer.refresh(graph)
    assert first is not None and first.seconds > 0 and first.phrases > 10
    assert recognizer.refresh(graph) is None  # same vocabulary: nothing rebuilt
    audio = said(tmp_path, "where is the teapot", voice="en-us+f2")
    assert recognizer.recognize(audio).text != "where is the teapot"
    graph.add_entity("teapot1", "dish", label="teapot")
    graph.add_entity("gizmo1", "dish", label="zorblax bowl")
    again = recognizer.refresh(graph)
    assert again is not None and again.signature != first.signature and again.unsayable == ("zorblax bowl",)
    transcript = recognizer.recognize(audio)
    assert transcript.text == "where is the teapot" and transcript.confidence > 0.5


def test_numbers_in_labels_are_said_as_words_and_written_as_digits(tmp_path):
    recognizer = Recognizer(household())
    graph = house_graph()
    graph.add_entity("bedroom_2", "room", label="bedroom 2")
    recognizer.refresh(graph)
    transcript = recognizer.recognize(said(tmp_path, "go to bedroom two", voice="en-us"))
    assert transcript.text == "go to bedroom two" and transcript.written == "go to bedroom 2"


def test_recognising_before_a_grammar_exists_is_a_programming_error(tmp_path):
    with pytest.raises(RuntimeError, match="refresh"):
        Recognizer(household()).recognize(from_samples([0] * SAMPLE_RATE))


def test_audio_in_another_format_is_refused_with_the_conversion_to_make(tmp_path):
    path = speak("hello", tmp_path / "hello.wav")
    import subprocess

    subprocess.run(["sox", str(path), "-r", "8000", str(tmp_path / "8k.wav")], check=True)
    with pytest.raises(AudioError, match=r"8000 Hz, 1 channel\(s\), 16-bit.*sox .* -r 16000 -c 1 -b 16"):
        read_wav(tmp_path / "8k.wav")
    (tmp_path / "text.wav").write_text("not audio")
    with pytest.raises(AudioError, match="not a PCM WAV"):
        read_wav(tmp_path / "text.wav")
    with pytest.raises(AudioError, match="no such file"):
        read_wav(tmp_path / "missing.wav")


def test_raw_samples_are_checked():
    assert from_samples([0, 1, -1] * 100).seconds == pytest.approx(300 / SAMPLE_RATE)
    with pytest.raises(AudioError, match="odd count"):
        from_samples(b"\x00\x01\x02")
    with pytest.raises(AudioError, match=r"-32768\.\.32767"):
        from_samples([40000])
    with pytest.raises(AudioError, match="no samples"):
        from_samples(b"")
    with pytest.raises(AudioError, match="44100 Hz"):
        from_samples([0] * 10, sample_rate=44100)
