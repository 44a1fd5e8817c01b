"""TEST DOUBLE for a paid API: an OpenAI-compatible audio transcription endpoint on 127.0.0.1 (no model).

``POST /v1/audio/transcriptions`` answers, in order, the JSON documents a test queues (or an HTTP error status)
and keeps every request's raw multipart body, so a test can check what was sent.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class TranscriptionServer:
    """A scripted transcription endpoint; use as a context manager, `url` is its OpenAI base URL."""

    def __init__(self) -> None:
        self.answers: deque[tuple[int, Any]] = deque()
        self.bodies: list[bytes] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                owner.bodies.append(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                status, answer = owner.answers.popleft() if owner.answers else (500, {"error": "nothing queued"})
                data = json.dumps(answer).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def push(self, answer: Any, status: int = 200) -> None:
        self.answers.append((status, answer))

    def __enter__(self) -> TranscriptionServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
