"""Natural-language updates of the world graph: grounding, the LLM's typed answer, meaning checks, apply."""

from l3mp.updates.updater import (
    APPLIED,
    ASKED,
    DECLINED,
    NO_CHANGE,
    OUTCOMES,
    VARIANTS,
    Attempt,
    NLUpdater,
    UpdateResult,
)

__all__ = ["APPLIED", "ASKED", "DECLINED", "NO_CHANGE", "OUTCOMES", "VARIANTS", "Attempt", "NLUpdater",
           "UpdateResult"]
