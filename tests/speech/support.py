"""Shared pieces of the speech tests: spoken audio made at test time (espeak-ng + sox), a recogniser per module."""

from __future__ import annotations

from pathlib import Path

from l3mp.speech.audio import Audio, read_wav
from l3mp.speech.synth import speak


def said(tmp_path: Path, text: str, **options) -> Audio:
    """`text` said by espeak-ng (options of `speak`), read back as an utterance."""
    path = tmp_path / f"{abs(hash((text, tuple(sorted(options.items())))))}.wav"
    return read_wav(speak(text, path, **options))
