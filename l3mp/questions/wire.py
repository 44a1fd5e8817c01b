"""Questions as JSON, for the world-model node's ``question`` query (and any other adapter that speaks JSON).

Request: ``{"kind": "question", "question": "where is the red mug?", "id"?: str, "now"?: unix seconds}``.
Result fields: ``{"answer": <answer JSON>}`` (docs/questions.md, "Answer JSON"). A malformed request raises
FormatError with what is wrong; the memory is never changed.
"""

from __future__ import annotations

from typing import Any

from l3mp.errors import FormatError
from l3mp.questions.answerer import QuestionAnswerer
from l3mp.world.model import WorldModel

QUESTION_KIND = "question"
REQUEST_KEYS = {"id": str, "kind": str, "question": str, "now": (int, float)}
"""The keys a question request may have, with their types."""


def question_fields(answerer: QuestionAnswerer, world: WorldModel, request: dict[str, Any]) -> dict[str, Any]:
    """The result fields of a question request against `world` (see the module docstring)."""
    if not isinstance(request, dict):
        raise FormatError("a question request must be a JSON object with 'question'")
    unknown = set(request) - set(REQUEST_KEYS)
    if unknown:
        raise FormatError(f"unknown key(s) {sorted(unknown)} in a question request; valid: {', '.join(REQUEST_KEYS)}")
    question = request.get("question")
    if not isinstance(question, str) or not question.strip():
        raise FormatError("a question request needs 'question': the question as text")
    now = request.get("now")
    if now is not None and (isinstance(now, bool) or not isinstance(now, (int, float))):
        raise FormatError(f"'now' must be unix seconds (a number), not {type(now).__name__}")
    answer = answerer.ask_world(world, question, now=float(now) if now is not None else None)
    return {"answer": answer.to_json()}
