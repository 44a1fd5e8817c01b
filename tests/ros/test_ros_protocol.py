"""Request parsing of the ROS layer (plain text or JSON objects, typed keys) and its job worker."""

from __future__ import annotations

import threading
import time

import pytest

from l3mp.errors import FormatError
from l3mp.ros import protocol as m
from l3mp.ros.worker import Worker


def test_plain_text_becomes_the_main_key_and_json_objects_are_checked():
    assert m.request_object(" turn off the lights ", max_bytes=100, text_key="task") == {"task": "turn off the lights"}
    assert m.request_object('{"task": "x", "id": "7"}', max_bytes=100, text_key="task") == {"task": "x", "id": "7"}
    for data, says in (("{nope", "not valid JSON"), ("", "empty request"), ("x" * 101, "exceeds"),
                       ('{"task": " "}', "'task' is empty"), ('{"id": "' + "x" * 100 + '"}', "exceeds")):
        with pytest.raises(FormatError, match=says):
            m.request_object(data, max_bytes=100, text_key="task")


def test_keys_and_types_are_checked_and_a_bool_is_not_a_number():
    allowed = {"id": str, "n": int, "flag": bool}
    assert m.take({"id": "a", "n": 3}, allowed, ("id",)) == {"id": "a", "n": 3}
    for request, says in (({"n": 1}, "missing key 'id'"), ({"id": "a", "n": True}, "'n' must be int"),
                          ({"id": "a", "flag": 1}, "'flag' must be bool"), ({"id": "a", "x": 1}, "unknown key")):
        with pytest.raises(FormatError, match=says):
            m.take(request, allowed, ("id",))


def test_request_ids_are_kept_or_made_unique():
    assert m.request_id({"id": "mine"}, "task") == "mine"
    made = {m.request_id({"id": ""}, "task"), m.request_id(None, "task")}
    assert len(made) == 2 and all(i.startswith("task-") for i in made)


def test_the_worker_runs_jobs_in_order_refuses_when_full_and_survives_a_failing_job():
    gate, done, failures = threading.Event(), [], []

    def handle(job: tuple[str, int]) -> None:
        gate.wait(5)
        if job[1] < 0:
            raise RuntimeError("broken job")
        done.append(job[1])

    worker = Worker("test", handle, capacity=2, failed=lambda job, exc: failures.append((job, str(exc))))
    assert worker.submit(("a", 1))
    deadline = time.monotonic() + 5
    while worker.depth != 1 or worker._jobs.qsize():  # the first job is running
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert worker.submit(("b", -1)) and worker.submit(("c", 3)) and not worker.submit(("d", 4))
    assert worker.depth == 3
    gate.set()
    while worker.depth:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert done == [1, 3] and failures == [(("b", -1), "broken job")]
    assert worker.stop() and not worker.submit(("e", 5))


def test_the_worker_calls_idle_when_there_is_nothing_to_do():
    ticks = threading.Event()
    worker = Worker("idle", lambda job: None, capacity=1, failed=lambda job, exc: None, idle=ticks.set, idle_s=0.01)
    assert ticks.wait(5)
    assert worker.stop()
