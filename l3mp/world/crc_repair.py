"""Undoing one changed byte under a CRC-32: the candidates whose checksum matches the one stored.

CRC-32 is linear: for two byte strings of one length, ``crc32(a) ^ crc32(b)`` depends only on ``a ^ b``.
A single changed byte at position ``p`` with XOR value ``v`` therefore shifts the checksum by
``Z^k(T[v])``, where ``T`` is the CRC table, ``Z`` one step of the register over a zero byte and
``k = len - 1 - p``. Walking ``Z`` backwards from the observed shift finds every (p, v) that explains
it in one pass over the length, instead of trying 255 values at each position.
"""

from __future__ import annotations

import zlib

MAX_REPAIR_BYTES = 1 << 20
"""Longest payload for which a repair is tried (one pass costs about 0.3 s per MB)."""

_TABLE = [zlib.crc32(bytes([v])) ^ zlib.crc32(b"\0") for v in range(256)]
_VALUE_OF = {t: v for v, t in enumerate(_TABLE) if v}
_INDEX_OF_TOP = {t >> 24: v for v, t in enumerate(_TABLE)}  # the table's top bytes are all different


def single_byte_fixes(payload: bytes, stored_crc: int) -> list[bytes]:
    """Every payload that differs from `payload` in exactly one byte and has CRC-32 `stored_crc`."""
    shift = stored_crc ^ zlib.crc32(payload)
    if not shift or len(payload) > MAX_REPAIR_BYTES:
        return []
    fixes = []
    n = len(payload)
    for k in range(n):
        value = _VALUE_OF.get(shift)
        if value is not None:
            p = n - 1 - k
            fixes.append(payload[:p] + bytes([payload[p] ^ value]) + payload[p + 1 :])
        shift = _unstep(shift)
    return fixes


def _unstep(register: int) -> int:
    """The register before one zero byte made it `register` (the inverse of r -> T[r & 0xff] ^ (r >> 8))."""
    index = _INDEX_OF_TOP[register >> 24]
    return ((register ^ _TABLE[index]) << 8 | index) & 0xFFFFFFFF
