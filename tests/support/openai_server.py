"""A scriptable OpenAI-compatible chat server on 127.0.0.1, for tests of the real client path (and
fault injection).

::

    with OpenAIServer() as srv:
        srv.enqueue(Step(status=429, headers={"Retry-After": "1"}), chat("hello"))
        model, base = "openai/test-model", srv.base_url      # litellm model and api_base
        ...
        srv.requests[0].json["messages"]                      # what the client sent

Each POST to ``/v1/chat/completions`` takes the next ``Step``: wait ``delay`` seconds, then either
drop the connection without answering (``close=True``) or answer ``status`` with ``headers`` and
``body`` (a dict is sent as JSON, bytes/str as is), optionally cut after ``truncate`` bytes with the
connection closed mid-body. ``body=None`` with status 200 is a default assistant reply; with an
error status, an OpenAI-style error object. With the queue empty the server answers 500 ``script
exhausted``, so a test that expects fewer requests fails loudly. Every request is recorded (path,
lower-cased headers, parsed JSON).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["OpenAIServer", "Step", "chat", "tool_call_reply", "anthropic_message", "Request"]


@dataclass
class Step:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    delay: float = 0.0
    close: bool = False
    truncate: int | None = (
        None  # send only this many bytes of the body (headers promise all of it), then close
    )


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    json: Any
    at: float


def chat(
    content: str | None = "ok",
    *,
    finish_reason: str = "stop",
    tool_calls: list[dict] | None = None,
    prompt_tokens: int = 12,
    completion_tokens: int = 5,
    model: str = "test-model",
) -> Step:
    """A 200 step with a chat.completion body."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return Step(
        body={
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def tool_call_reply(name: str, arguments: str, call_id: str = "call_1", **kw: Any) -> Step:
    """A 200 step whose reply is one tool call with ``arguments`` sent verbatim (may be malformed
    JSON)."""
    return chat(
        None,
        finish_reason="tool_calls",
        tool_calls=[
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        ],
        **kw,
    )


def anthropic_message(
    text: str,
    *,
    input_tokens: int = 10,
    output_tokens: int = 3,
    model: str = "claude-3-5-haiku-20241022",
) -> Step:
    """A 200 step with an Anthropic Messages API body (for ``anthropic/<model>`` with
    ``api_base`` = the server)."""
    return Step(
        body={
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        }
    )


class OpenAIServer:
    def __init__(self) -> None:
        self.steps: deque[Step] = deque()
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                self._send(
                    200, {}, {"object": "list", "data": [{"id": "test-model", "object": "model"}]}
                )

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    payload = json.loads(raw or b"null")
                except ValueError:
                    payload = None
                with server._lock:
                    server.requests.append(
                        Request(
                            self.path,
                            {k.lower(): v for k, v in self.headers.items()},
                            payload,
                            time.monotonic(),
                        )
                    )
                    step = (
                        server.steps.popleft()
                        if server.steps
                        else Step(
                            500,
                            body={"error": {"message": "script exhausted", "type": "server_error"}},
                        )
                    )
                if step.delay:
                    time.sleep(step.delay)
                if step.close:
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    return
                body = step.body
                if body is None:
                    body = (
                        chat().body
                        if step.status == 200
                        else {
                            "error": {
                                "message": f"scripted status {step.status}",
                                "type": "error",
                                "code": step.status,
                            }
                        }
                    )
                self._send(step.status, step.headers, body, step.truncate)

            def _send(
                self, status: int, headers: dict[str, str], body: Any, truncate: int | None = None
            ) -> None:
                data = (
                    body
                    if isinstance(body, bytes)
                    else (body.encode() if isinstance(body, str) else json.dumps(body).encode())
                )
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    if truncate is not None:
                        self.wfile.write(data[:truncate])
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass  # the client gave up (timeout test)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        # serve_forever notices shutdown() only between polls: at its default 0.5 s every test's
        # server took half a second to stop (~40 tests' teardowns, the rest in their bodies).
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="openai-test-server",
            daemon=True,
        )

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """The ``api_base`` for litellm's ``openai/<name>`` models."""
        return f"http://127.0.0.1:{self.port}/v1"

    def enqueue(self, *steps: Step) -> OpenAIServer:
        with self._lock:
            self.steps.extend(steps)
        return self

    @property
    def chat_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path.endswith(("/chat/completions", "/v1/messages"))]

    def start(self) -> OpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
