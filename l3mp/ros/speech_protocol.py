"""The ROS 2 protocol of the speech node: its topic names and the JSON it publishes (beside l3mp.ros.protocol).

In (under the node's namespace, ``/speech`` by default):

- ``~/audio_wav`` (std_msgs/String): the path of a 16 kHz mono 16-bit PCM WAV file, or ``{"id", "path"}``.
- ``~/audio_pcm`` (std_msgs/Int16MultiArray): one utterance as 16 kHz mono signed 16-bit samples in ``data``
  (``layout`` is ignored); its id is made by the node.

Out:

- ``~/transcript`` (String, JSON): per utterance ``{"id", "kind": "speech", "ok", "time", "transcript": {text,
  written, confidence, source, complete, reason, ...}, "route": {kind, text, action, prompt, basis},
  "forwarded_to": topic or null}``, or an error ``{"ok": false, "error": {"code", "message"}}``.
- ``~/ask`` (String, JSON): ``{"id", "prompt", "heard"}`` when the robot asks back instead of acting.
- ``~/reply`` (String, JSON): ``{"id", "question", "answer", "supported"}`` for a question.
- a task goes to the planner's ``task`` topic as ``{"id", "task"}``; an update to the world model's ``nl_update``
  as ``{"id", "text", "ref"}``: their results come on those nodes' ``plan`` and ``results`` with the same id.
"""

from __future__ import annotations

from typing import Any

from l3mp.ros.protocol import NL_UPDATE, TASK, topic
from l3mp.speech.listener import Heard
from l3mp.speech.phrasings import TASK as TASK_ROUTE
from l3mp.speech.phrasings import UPDATE
from l3mp.speech.questions import Reply

AUDIO_WAV = "audio_wav"
AUDIO_PCM = "audio_pcm"
TRANSCRIPT = "transcript"
ASK = "ask"
REPLY = "reply"
KIND = "speech"
"""The ``kind`` of the speech node's result messages."""

SPEECH = "/speech"
"""The namespace of the speech node of the stack."""
SPEECH_AUDIO_WAV = f"{SPEECH}/{AUDIO_WAV}"
SPEECH_AUDIO_PCM = f"{SPEECH}/{AUDIO_PCM}"
SPEECH_TRANSCRIPT = f"{SPEECH}/{TRANSCRIPT}"
SPEECH_ASK = f"{SPEECH}/{ASK}"
SPEECH_REPLY = f"{SPEECH}/{REPLY}"
"""The speech node's topics under the default namespace."""


def forward(heard: Heard, ident: str, *, planner: str, world_model: str) -> tuple[str, dict[str, Any]] | None:
    """Where a routed task or update goes (relative topic of the planner or world-model node) and its request;
    None for questions and ask-backs, which the speech node answers itself."""
    if heard.route.kind == TASK_ROUTE:
        return topic(planner, TASK), {"id": ident, "task": heard.route.text}
    if heard.route.kind == UPDATE:
        return topic(world_model, NL_UPDATE), {"id": ident, "text": heard.route.text, "ref": ident}
    return None


def ask_message(heard: Heard, ident: str) -> dict[str, Any]:
    return {"id": ident, "prompt": heard.route.prompt, "heard": heard.transcript.written}


def reply_message(reply: Reply, ident: str) -> dict[str, Any]:
    return {"id": ident, **reply.to_json()}
