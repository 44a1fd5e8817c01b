"""TEST DOUBLE for a paid API: a scripted OpenAI-compatible chat-completions server on 127.0.0.1 (no model).

Tests queue behaviours (`reply`, `fail`, `slow`) and read back the requests it received. Run as a program it
also stands in for the llama-server binary (same arguments, ``/health``, the ``LLAMA_API_KEY`` check), so the
embedded server's life cycle can be tested in milliseconds; ``SCRIPTED_SERVER_MODE`` makes it misbehave:
``die`` (exit 3 at once), ``hang`` (never healthy), ``stubborn`` (ignore SIGTERM).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOST = "127.0.0.1"


@dataclass(frozen=True)
class Step:
    """One scripted answer to one POST /v1/chat/completions."""

    status: int = 200
    content: str | None = None
    usage: tuple[int, int] | None = (10, 5)
    delay_s: float = 0.0
    error: str = ""
    finish_reason: str = "stop"
    cached: int | None = None  # prompt tokens llama-server would report as taken from its cache (``timings``)


def reply(content: str | None, usage: tuple[int, int] | None = (10, 5), finish_reason: str = "stop",
          cached: int | None = None) -> Step:
    return Step(content=content, usage=usage, finish_reason=finish_reason, cached=cached)


def fail(status: int, error: str = "scripted failure") -> Step:
    return Step(status=status, error=error)


def slow(seconds: float, content: str = '{"answer": "late"}') -> Step:
    return Step(content=content, delay_s=seconds)


class ScriptedServer:
    """The server; `requests` holds each received JSON body, `headers` each request's headers (lower-case names)."""

    def __init__(self, *steps: Step, default: Step | None = None, port: int = 0, api_key: str | None = None) -> None:
        self.steps: deque[Step] = deque(steps)
        self.default = default
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.healthy = True
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer((HOST, port), _handler(self))
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    def push(self, *steps: Step) -> None:
        with self._lock:
            self.steps.extend(steps)

    def next_step(self, body: dict, headers: dict) -> Step:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            if self.steps:
                return self.steps.popleft()
        return self.default or fail(418, "the test script has no step left")

    def serve_forever(self) -> None:
        self._httpd.serve_forever(poll_interval=0.05)

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def completion(step: Step, model: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-scripted", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "finish_reason": step.finish_reason,
                     "message": {"role": "assistant", "content": step.content}}],
    }
    if step.usage is not None:
        body["usage"] = {"prompt_tokens": step.usage[0], "completion_tokens": step.usage[1],
                         "total_tokens": sum(step.usage)}
    if step.cached is not None and step.usage is not None:  # as llama-server reports its prompt cache
        body["timings"] = {"cache_n": step.cached, "prompt_n": step.usage[0] - step.cached, "prompt_ms": 12.5,
                           "predicted_n": step.usage[1], "predicted_ms": 40.0}
    return body


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:
            if self.path in ("/health", "/v1/health") and server.healthy:
                self._send(200, {"status": "ok"})
            else:
                self._send(503, {"error": {"message": "Loading model", "code": 503}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            if server.api_key and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                self._send(401, {"error": {"message": "Invalid API Key", "code": 401}})
                return
            step = server.next_step(body, {k.lower(): v for k, v in self.headers.items()})
            time.sleep(step.delay_s)
            if step.status != 200:
                self._send(step.status, {"error": {"message": step.error, "type": "scripted", "code": step.status}})
            else:
                self._send(200, completion(step, body.get("model", "scripted")))

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                pass

    return Handler


def main(argv: list[str]) -> int:
    """Stand-in for ``llama-server --host H --port P ...`` (other arguments are accepted and ignored)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default=HOST)
    parser.add_argument("--port", type=int, required=True)
    args, _ = parser.parse_known_args(argv)
    mode = os.environ.get("SCRIPTED_SERVER_MODE", "")
    print(f"scripted llama-server stand-in, mode {mode or 'normal'}", file=sys.stderr, flush=True)
    if mode == "die":
        print("error: scripted start-up failure", file=sys.stderr, flush=True)
        return 3
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.host != HOST:
        print(f"refusing to listen on {args.host}", file=sys.stderr)
        return 2
    server = ScriptedServer(default=reply('{"answer": "yes"}', usage=(20, 4)), port=args.port,
                            api_key=os.environ.get("LLAMA_API_KEY"))
    server.healthy = mode != "hang"
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
