"""Spoken test audio made offline: espeak-ng says a text, sox makes it 16 kHz mono 16-bit and may add noise.

Every sox call runs in its repeatable mode (``-R``: the same seed for its dither and its noise), so the same text
gives the same samples every time and a test or benchmark result does not depend on chance.

Used by the speech benchmark and the tests (Debian packages ``espeak-ng`` and ``sox``, installed by the set-up).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from l3mp.errors import L3mpError
from l3mp.speech.audio import SAMPLE_RATE

VOICES = ("en-us", "en-gb+m3", "en-us+f2", "en-gb-x-rp+f4")
"""espeak-ng voices (language + variant) of the benchmark: two accents, men and women."""
TOOLS = ("espeak-ng", "sox")


class SynthError(L3mpError):
    """Test audio cannot be made: a tool is missing or failed."""


def require_tools() -> None:
    """SynthError naming the missing tools and how to install them."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        raise SynthError(f"{' and '.join(missing)} not found: install the Debian packages "
                         f"('apt-get install -y {' '.join(missing)}')")


def speak(text: str, out: Path, *, voice: str = VOICES[0], words_per_minute: int = 160,
          noise: float = 0.0) -> Path:
    """Write `text` said by espeak-ng `voice` to the WAV `out` (16 kHz mono 16-bit), with white noise of
    amplitude `noise` (0..1 of full scale; 0: none) mixed in."""
    require_tools()
    with tempfile.TemporaryDirectory(prefix="l3mp-speak-") as tmp:
        raw, clean, hiss = Path(tmp) / "raw.wav", Path(tmp) / "clean.wav", Path(tmp) / "noise.wav"
        _run(["espeak-ng", "-v", voice, "-s", str(words_per_minute), "-w", str(raw), text])
        _run(["sox", "-R", str(raw), "-r", str(SAMPLE_RATE), "-c", "1", "-b", "16", str(clean)])
        if noise <= 0:
            shutil.copyfile(clean, out)
            return out
        _run(["sox", "-R", str(clean), str(hiss), "synth", "whitenoise", "vol", f"{noise:g}"])
        _run(["sox", "-R", "-m", "-v", "1", str(clean), "-v", "1", str(hiss), "-b", "16", str(out)])
    return out


def silence(out: Path, seconds: float = 1.5) -> Path:
    """Write `seconds` of digital silence to the WAV `out`."""
    require_tools()
    _run(["sox", "-R", "-n", "-r", str(SAMPLE_RATE), "-c", "1", "-b", "16", str(out), "trim", "0", f"{seconds:g}"])
    return out


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SynthError(f"{command[0]} failed ({done.returncode}): {done.stderr.strip()[:300]}")
