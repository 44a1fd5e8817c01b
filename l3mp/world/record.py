"""A change record: one accepted delta with its time, source and cause (provenance)."""

from __future__ import annotations

from dataclasses import dataclass

from l3mp.errors import FormatError
from l3mp.world.delta import Delta

SOURCES = ("perception", "nl", "plan", "user", "import")


@dataclass(frozen=True)
class ChangeRecord:
    """What changed (`delta`, already effective: no no-ops, cascades spelled out), when and why.

    `input` is the raw input that caused the change (the sentence, the action), `ref`
    an identifier of it (observation id, task id), `seq` the record number (1, 2, ...).
    """

    seq: int
    time: float
    source: str
    delta: Delta
    input: str | None = None
    ref: str | None = None

    def to_json(self) -> dict:
        out = {"seq": self.seq, "time": self.time, "source": self.source, "delta": self.delta.to_json()}
        if self.input is not None:
            out["input"] = self.input
        if self.ref is not None:
            out["ref"] = self.ref
        return out

    @classmethod
    def from_json(cls, data: object) -> ChangeRecord:
        if not isinstance(data, dict):
            raise FormatError("a change record must be a JSON object")
        try:
            seq, time, source = int(data["seq"]), float(data["time"]), str(data["source"])
        except (KeyError, TypeError, ValueError) as exc:
            raise FormatError(f"change record needs integer 'seq', number 'time', string 'source': {exc}") from None
        return cls(
            seq=seq,
            time=time,
            source=source,
            delta=Delta.from_json(data.get("delta", {})),
            input=data.get("input"),
            ref=data.get("ref"),
        )
