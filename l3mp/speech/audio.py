"""Audio in: 16 kHz mono 16-bit PCM from a WAV file, WAV bytes or raw samples, checked, measured and padded."""

from __future__ import annotations

import io
import math
import wave
from array import array
from dataclasses import dataclass
from pathlib import Path

from l3mp.errors import FormatError

SAMPLE_RATE = 16_000
"""The only rate the recogniser takes (pocketsphinx's en-us model): resample with
``sox in.wav -r 16000 -c 1 -b 16 out.wav``."""
PAD_SECONDS = 0.3
"""Silence added before and after an utterance: without it pocketsphinx often drops a last word said right up
to the end of the file."""
SILENCE_DBFS = -45.0
"""An utterance whose loudest 30 ms stays below this level (dB relative to full scale) is silence."""
MAX_SECONDS = 60.0
"""The longest utterance accepted."""
_WINDOW = SAMPLE_RATE * 30 // 1000


class AudioError(FormatError):
    """Audio that cannot be recognised as it is: not a WAV, not 16 kHz mono 16-bit, empty or too long."""


@dataclass(frozen=True)
class Audio:
    """One utterance: little-endian 16-bit mono samples at `SAMPLE_RATE`."""

    pcm: bytes

    @property
    def seconds(self) -> float:
        return len(self.pcm) / 2 / SAMPLE_RATE

    def peak_dbfs(self) -> float:
        """The level of the loudest 30 ms window, in dB relative to full scale (-inf for digital silence)."""
        import numpy as np

        samples = np.frombuffer(self.pcm, dtype="<i2").astype(np.float64)
        usable = len(samples) // _WINDOW * _WINDOW or len(samples)
        windows = samples[:usable].reshape(-1, min(_WINDOW, usable))
        loudest = float(np.sqrt((windows ** 2).mean(axis=1)).max())
        return 20 * math.log10(loudest / 32768) if loudest > 0 else -math.inf

    def is_silence(self) -> bool:
        return self.peak_dbfs() < SILENCE_DBFS

    def padded(self) -> bytes:
        """The samples with `PAD_SECONDS` of silence on both sides."""
        pad = bytes(2 * int(SAMPLE_RATE * PAD_SECONDS))
        return pad + self.pcm + pad

    def wav_bytes(self) -> bytes:
        """The utterance as a WAV file (for a transcription endpoint)."""
        out = io.BytesIO()
        with wave.open(out, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(SAMPLE_RATE)
            w.writeframes(self.pcm)
        return out.getvalue()


def from_samples(samples: bytes | bytearray | list[int] | array, *, sample_rate: int = SAMPLE_RATE) -> Audio:
    """Raw samples (bytes of little-endian int16, or a sequence of ints in -32768..32767)."""
    if sample_rate != SAMPLE_RATE:
        raise AudioError(f"samples at {sample_rate} Hz; the recogniser needs {SAMPLE_RATE} Hz mono 16-bit")
    if isinstance(samples, (bytes, bytearray)):
        if len(samples) % 2:
            raise AudioError(f"{len(samples)} bytes of 16-bit samples: an odd count cannot be 16-bit PCM")
        pcm = bytes(samples)
    else:
        try:
            pcm = array("h", samples).tobytes()
        except (OverflowError, TypeError) as exc:
            raise AudioError(f"samples must be integers in -32768..32767: {exc}") from None
    return _checked(Audio(pcm), "the samples")


def read_wav(source: str | Path | bytes) -> Audio:
    """A WAV file (path or bytes) of 16 kHz mono 16-bit PCM; AudioError says what is wrong and how to convert."""
    where = "the WAV bytes" if isinstance(source, bytes) else str(source)
    try:
        with wave.open(io.BytesIO(source) if isinstance(source, bytes) else str(source), "rb") as w:
            rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
            pcm = w.readframes(w.getnframes())
    except FileNotFoundError:
        raise AudioError(f"{where}: no such file") from None
    except (wave.Error, EOFError) as exc:
        raise AudioError(f"{where} is not a PCM WAV file ({exc})") from None
    except OSError as exc:
        raise AudioError(f"{where}: {exc.strerror or exc}") from None
    if (rate, channels, width) != (SAMPLE_RATE, 1, 2):
        raise AudioError(f"{where} is {rate} Hz, {channels} channel(s), {8 * width}-bit; the recogniser needs "
                         f"{SAMPLE_RATE} Hz mono 16-bit: convert it with "
                         f"'sox {where} -r {SAMPLE_RATE} -c 1 -b 16 out.wav'")
    return _checked(Audio(pcm), where)


def _checked(audio: Audio, where: str) -> Audio:
    if not audio.pcm:
        raise AudioError(f"{where}: no samples (an empty recording)")
    if audio.seconds > MAX_SECONDS:
        raise AudioError(f"{where}: {audio.seconds:.0f} s of audio; one utterance may last at most {MAX_SECONDS:.0f} s")
    return audio
