"""The speech node with the world model and the planner in one process: WAV paths and PCM samples in, transcripts,
forwarded tasks and updates, ask-backs and replies out (the LLM is the scripted server, a TEST DOUBLE for a paid
API)."""

from __future__ import annotations

import json
import threading
import time

import pytest
from rclpy.parameter import Parameter
from std_msgs.msg import Int16MultiArray, String

from l3mp.ros import protocol as m
from l3mp.ros import speech_protocol as s
from l3mp.ros.client import Client
from l3mp.ros.speech_node import SpeechNode
from l3mp.speech.audio import read_wav
from l3mp.speech.synth import silence, speak
from tests.helpers import F
from tests.llm.scripted_server import reply
from tests.ros.support import make_store, scripted_llm

HEARD = (s.SPEECH_TRANSCRIPT, s.SPEECH_ASK, s.SPEECH_REPLY)


class Speech:
    """The stack plus a speech node, and what the speech node publishes."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.node = SpeechNode(context=client.context, parameter_overrides=[Parameter("min_confidence", value=0.5)])
        client.executor.add_node(self.node)
        self.messages: dict[str, list[dict]] = {t: [] for t in HEARD}
        self._new = threading.Condition()
        for name in HEARD:
            client.node.create_subscription(String, name, self._collect(name), m.request_qos())
        self.wav = client.node.create_publisher(String, s.SPEECH_AUDIO_WAV, m.request_qos())
        self.pcm = client.node.create_publisher(Int16MultiArray, s.SPEECH_AUDIO_PCM, m.request_qos())

    def _collect(self, name: str):
        def collect(msg: String) -> None:
            with self._new:
                self.messages[name].append(json.loads(msg.data))
                self._new.notify_all()
        return collect

    def send(self, publisher, message) -> None:
        deadline = time.monotonic() + 10
        while publisher.get_subscription_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        publisher.publish(message)

    def wait(self, name: str, match, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        with self._new:
            while True:
                found = [msg for msg in self.messages[name] if match(msg)]
                if found:
                    return found[0]
                assert time.monotonic() < deadline, f"nothing on {name}: {self.messages[name][-3:]}"
                self._new.wait(deadline - time.monotonic())

    def next_on(self, name: str) -> dict:
        count = len(self.messages[name])
        return self.wait(name, lambda msg: msg in self.messages[name][count:])


@pytest.fixture(scope="module")
def speech(tmp_path_factory, llm_server):
    store = make_store(tmp_path_factory.mktemp("speech") / "world")
    llm = scripted_llm(llm_server.url)
    client = Client(("world_model", "planner"), {
        "world_model": {"store_path": str(store), "fsync": False, "state_period_s": 0.05, "update.retrieval": "full",
                        **llm},
        "planner": {"retrieval": "full", "planner": "fast-downward", "execute_by_default": False, **llm}})
    harness = Speech(client)
    yield harness
    client.close()


def test_a_wav_path_of_a_spoken_task_is_transcribed_and_planned(speech, llm_server, tmp_path):
    goal = {"literals": [{"predicate": "light_on", "args": ["lamp1"], "negated": True, "quote": "turn off the lamp"}]}
    llm_server.push(reply(json.dumps(goal)))
    wav = speak("please turn off the lamp in the living room", tmp_path / "task.wav", voice="en-us")
    speech.send(speech.wav, String(data=json.dumps({"id": "utt-task", "path": str(wav)})))
    heard = speech.wait(s.SPEECH_TRANSCRIPT, lambda msg: msg["id"] == "utt-task")
    assert heard["ok"] and heard["transcript"]["text"] == "please turn off the lamp in the living room"
    assert heard["transcript"]["confidence"] > 0.5 and heard["route"]["kind"] == "task"
    assert heard["forwarded_to"] == m.topic(m.PLANNER, m.TASK)
    plan = speech.client.result(m.PLANNER_PLAN, "utt-task", timeout=60)
    assert plan["ok"] and plan["task"] == "please turn off the lamp in the living room"
    assert any(step.startswith("(turn_off_light") and "lamp1" in step for step in plan["plan"]), plan["plan"]


def test_pcm_samples_of_a_spoken_update_change_the_graph_with_the_transcript_as_input(speech, llm_server, tmp_path):
    llm_server.push(reply(json.dumps({"changes": [{"predicate": "has", "args": ["alice", "book1"], "true": True}]})))
    audio = read_wav(speak("alice took the book", tmp_path / "update.wav", voice="en-us+f2"))
    samples = Int16MultiArray()
    samples.data = list(memoryview(audio.pcm).cast("h"))
    speech.send(speech.pcm, samples)
    heard = speech.wait(s.SPEECH_TRANSCRIPT, lambda msg: msg["ok"] and msg["transcript"]["text"] ==
                        "alice took the book")
    assert heard["route"]["kind"] == "update" and heard["forwarded_to"] == m.topic(m.WORLD_MODEL, m.NL_UPDATE)
    result = speech.client.result(m.WORLD_MODEL_RESULTS, heard["id"], timeout=60)
    assert result["ok"] and result["outcome"] == "applied" and result["record"]["input"] == "alice took the book"
    graph = speech.client.nodes["world_model"].world.graph
    assert graph.has_fact(F("has", "alice", "book1")) and not graph.has_fact(F("on", "book1", "table1"))


def test_silence_is_asked_about_and_nothing_is_forwarded(speech, tmp_path):
    plans = len(speech.client.received[m.PLANNER_PLAN])
    speech.send(speech.wav, String(data=str(silence(tmp_path / "quiet.wav"))))
    ask = speech.next_on(s.SPEECH_ASK)
    assert ask["prompt"].startswith("I heard nothing") and ask["heard"] == ""
    heard = speech.wait(s.SPEECH_TRANSCRIPT, lambda msg: msg["id"] == ask["id"])
    assert heard["route"]["kind"] == "ask" and heard["forwarded_to"] is None
    assert len(speech.client.received[m.PLANNER_PLAN]) == plans


def test_a_spoken_question_is_answered_from_the_replica(speech, tmp_path):
    wav = speak("where is the milk", tmp_path / "q.wav", voice="en-us+f2")
    speech.send(speech.wav, String(data=json.dumps({"id": "utt-q", "path": str(wav)})))
    answer = speech.wait(s.SPEECH_REPLY, lambda msg: msg["id"] == "utt-q")
    assert answer["supported"] is True and "fridge" in answer["answer"]
    assert answer["question"] == "where is the milk"


@pytest.mark.parametrize(("payload", "says"), [
    (json.dumps({"id": "bad-1", "path": "/nonexistent/a.wav"}), "no such file"),
    (json.dumps({"id": "bad-2", "file": "a.wav"}), "unknown key(s) ['file']"),
    ("   ", "empty request"),
])
def test_a_bad_wav_request_gets_an_error_and_the_node_goes_on(speech, payload, says):
    count = len(speech.messages[s.SPEECH_TRANSCRIPT])
    speech.send(speech.wav, String(data=payload))
    error = speech.wait(s.SPEECH_TRANSCRIPT, lambda msg: msg in speech.messages[s.SPEECH_TRANSCRIPT][count:])
    assert not error["ok"] and error["error"]["code"] == "malformed" and says in error["error"]["message"]


def test_empty_pcm_samples_get_an_error(speech):
    count = len(speech.messages[s.SPEECH_TRANSCRIPT])
    speech.send(speech.pcm, Int16MultiArray())
    error = speech.wait(s.SPEECH_TRANSCRIPT, lambda msg: msg in speech.messages[s.SPEECH_TRANSCRIPT][count:])
    assert not error["ok"] and "no samples" in error["error"]["message"]
