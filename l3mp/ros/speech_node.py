"""The speech node: utterances in (a WAV path, or PCM samples), transcripts out, routed requests to the planner and
the world model, questions answered, ask-backs published; recognised against a replica of the world model's graph.
Topics and payloads: l3mp.ros.speech_protocol."""

from __future__ import annotations

import time
from typing import Any

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from std_msgs.msg import Int16MultiArray, String

from l3mp.errors import FormatError, L3mpError
from l3mp.ros import protocol as m
from l3mp.ros import speech_protocol as s
from l3mp.ros.base import L3mpNode
from l3mp.ros.follow import Follower
from l3mp.ros.health import age
from l3mp.ros.params import SPEECH
from l3mp.ros.replica import Replica
from l3mp.ros.worker import Worker
from l3mp.speech.audio import Audio, from_samples, read_wav
from l3mp.speech.routing import ASK

SYNC_WAIT_S = 10.0
"""How long an utterance waits for the first state of the world model before it fails."""


class SpeechNode(L3mpNode):
    """Hears utterances one at a time on a worker thread (it owns the recogniser) against a replica that follows the
    world model, publishes each transcript with its route, and sends tasks and updates on to their nodes."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("speech", SPEECH, results_topic=f"~/{s.TRANSCRIPT}", **kwargs)
        p = self.params
        if not 0.0 <= p["min_confidence"] <= 1.0:
            raise FormatError(f"parameter min_confidence must be within 0..1, not {p['min_confidence']}")
        self.replica = Replica(self.domain, self.rules)
        self.follower = Follower(self, self.replica, p["world_model"], MutuallyExclusiveCallbackGroup())
        qos = m.request_qos()
        self._ask = self.create_publisher(String, f"~/{s.ASK}", qos)
        self._reply = self.create_publisher(String, f"~/{s.REPLY}", qos)
        self._out = {name: self.create_publisher(String, name, qos) for name in (
            m.topic(p["planner_node"], m.TASK), m.topic(p["world_model"], m.NL_UPDATE))}
        audio = MutuallyExclusiveCallbackGroup()
        self.create_subscription(String, f"~/{s.AUDIO_WAV}", self.guarded(s.KIND, self._on_wav), qos,
                                 callback_group=audio)
        self.create_subscription(Int16MultiArray, f"~/{s.AUDIO_PCM}", self.guarded(s.KIND, self._on_pcm), qos,
                                 callback_group=audio)
        self._listener: Any = None
        self._dictation: Any = None
        self.last_heard: float | None = None
        self._jobs = Worker("l3mp-speech", self._hear, capacity=p["limits.max_queue"], failed=self.job_failed(s.KIND),
                            idle=self.follower.poll)

    # ---- audio in ---------------------------------------------------------------------------
    def _on_wav(self, msg: String) -> None:
        ident = m.new_id(s.KIND)
        try:
            request = m.request_object(msg.data, max_bytes=self.params["limits.max_message_bytes"], text_key="path")
            ident = m.request_id(request, s.KIND)
            m.take(request, {"id": str, "path": str}, ("path",))
            audio = read_wav(request["path"])
        except FormatError as exc:
            self.publish_result(m.error(s.KIND, ident, "malformed", str(exc)))
            return
        self.submit_job(self._jobs, s.KIND, ident, audio, "utterances")

    def _on_pcm(self, msg: Int16MultiArray) -> None:
        ident = m.new_id(s.KIND)
        try:
            audio = from_samples(msg.data)
        except FormatError as exc:
            self.publish_result(m.error(s.KIND, ident, "malformed", str(exc)))
            return
        self.submit_job(self._jobs, s.KIND, ident, audio, "utterances")

    # ---- hearing (worker thread) -------------------------------------------------------------
    def _hear(self, job: tuple[str, Audio]) -> None:
        ident, audio = job
        if not self.follower.wait_synced(SYNC_WAIT_S):
            self.publish_result(m.error(s.KIND, ident, "no_state", f"not in step with the world model: "
                                        f"{self.replica.problem}"))
            return
        try:
            listener = self._listening()
        except L3mpError as exc:
            self.publish_result(m.error(s.KIND, ident, "unavailable", str(exc)))
            return
        graph = self.replica.graph
        heard = listener.hear(audio, graph)
        self.last_heard = time.time()
        p = self.params
        forward = s.forward(heard, ident, planner=p["planner_node"], world_model=p["world_model"])
        self.publish_result(m.result(s.KIND, ident, True, **heard.to_json(),
                                     forwarded_to=None if forward is None else forward[0]))
        if forward is not None:
            self._out[forward[0]].publish(String(data=m.dumps(forward[1])))
        elif heard.route.kind == ASK:
            self._ask.publish(String(data=m.dumps(s.ask_message(heard, ident))))
        else:
            from l3mp.speech.questions import answer_question

            reply = answer_question(heard.route.text, graph, self.domain, self.rules)
            self._reply.publish(String(data=m.dumps(s.reply_message(reply, ident))))

    def _listening(self) -> Any:
        """The listener (made on the worker thread that uses its decoder), with dictation when configured."""
        if self._listener is None:
            from l3mp.speech.dictation import Dictation, DictationSettings
            from l3mp.speech.listener import Listener

            p = self.params
            settings = DictationSettings.from_env(base_url=p["dictation.base_url"] or None,
                                                  model=p["dictation.model"] or None)
            self._dictation = Dictation(settings) if settings.enabled else None
            self._listener = Listener(self.domain, self.rules, dictation=self._dictation,
                                      min_confidence=p["min_confidence"])
        return self._listener

    # ---- health and shutdown ------------------------------------------------------------------
    def checks(self) -> dict[str, tuple[int, str]]:
        return {"world_model": self.follower.check()}

    def values(self) -> dict[str, Any]:
        return {**super().values(), "queue_depth": self._jobs.depth, "last_heard": age(self.last_heard)}

    def close(self) -> None:
        self._jobs.stop(timeout_s=30.0)
        if self._dictation is not None:
            self._dictation.close()
