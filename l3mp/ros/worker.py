"""A bounded job queue served by one thread, so that long work (LLM calls, planning) never blocks ROS callbacks."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

Job = TypeVar("Job")


class Worker(Generic[Job]):
    """Runs `handle(job)` for each submitted job, in order, on its own thread; `idle()` runs every
    `idle_s` seconds without work (also on that thread). At most `capacity` jobs wait. A job that raises is
    logged and passed to `failed` (so that its requester still gets an answer); the worker goes on."""

    def __init__(self, name: str, handle: Callable[[Job], None], *, capacity: int,
                 failed: Callable[[Job, Exception], None], idle: Callable[[], None] | None = None,
                 idle_s: float = 0.2) -> None:
        if capacity < 1:
            raise ValueError(f"limits.max_queue must be >= 1, not {capacity}")
        self._handle = handle
        self._failed = failed
        self._idle = idle
        self._idle_s = idle_s
        self._jobs: queue.Queue[Job | None] = queue.Queue(maxsize=capacity)
        self._busy = False
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def depth(self) -> int:
        """Jobs waiting plus the one running."""
        return self._jobs.qsize() + (1 if self._busy else 0)

    def submit(self, job: Job) -> bool:
        """Queue a job; False when the queue is full or the worker stops."""
        if self._stopping.is_set():
            return False
        try:
            self._jobs.put_nowait(job)
        except queue.Full:
            return False
        return True

    def stop(self, timeout_s: float = 10.0) -> bool:
        """Finish the running job, drop the waiting ones; True if the thread ended within `timeout_s`."""
        self._stopping.set()
        while True:
            try:
                self._jobs.get_nowait()
            except queue.Empty:
                break
        with contextlib.suppress(queue.Full):
            self._jobs.put_nowait(None)
        self._thread.join(timeout_s)
        return not self._thread.is_alive()

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                job = self._jobs.get(timeout=self._idle_s)
            except queue.Empty:
                self._call(self._idle)
                continue
            if job is None:
                break
            self._busy = True
            try:
                self._handle(job)
            except Exception as exc:  # a bug in one job must not end the node's worker
                log.exception("worker job failed")
                self._call(self._failed, job, exc)
            finally:
                self._busy = False

    @staticmethod
    def _call(function: Callable | None, *args: object) -> None:
        if function is None:
            return
        try:
            function(*args)
        except Exception:
            log.exception("worker callback failed")
