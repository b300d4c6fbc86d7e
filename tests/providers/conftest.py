"""A real HTTP server on loopback that speaks the two OpenAI endpoints the providers use.

It answers ``POST /v1/embeddings`` and ``POST /v1/chat/completions`` like OpenAI does
(including the error body shape), checks the Bearer token, records every request, and can
be scripted to fail (a status, a malformed body, a slow answer) for the next requests.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

TEST_API_KEY = "sk-test-0123456789abcdef"


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class ScriptedReply:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class FakeOpenAIServer:
    """State shared by the handler threads; tests configure it and read ``requests``."""

    host: str = "127.0.0.1"
    port: int = 0
    api_key: str | None = TEST_API_KEY
    dimension: int = 8
    honour_dimensions: bool = True
    base64_embeddings: bool = False
    chat_content: Any = None  # when set, returned verbatim as message.content
    requests: list[RecordedRequest] = field(default_factory=list)
    scripted: deque[ScriptedReply] = field(default_factory=deque)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def fail_next(
        self,
        status: int,
        *,
        times: int = 1,
        message: str = "The server is overloaded",
        headers: dict[str, str] | None = None,
    ) -> None:
        body = json.dumps({"error": {"message": message, "type": "server_error"}}).encode()
        for _ in range(times):
            self.scripted.append(ScriptedReply(status, body, dict(headers or {})))

    def reply_next(self, status: int, body: bytes, *, delay: float = 0.0) -> None:
        self.scripted.append(ScriptedReply(status, body, {}, delay))

    @staticmethod
    def raw_vector(text: str, dimension: int) -> np.ndarray:
        """The unnormalised vector the server returns for ``text``."""
        digest = hashlib.sha256(text.encode()).digest()
        while len(digest) < dimension:
            digest += hashlib.sha256(digest).digest()
        return np.array([(b - 127.5) / 40.0 for b in digest[:dimension]], dtype=np.float64)

    def expected_vector(self, text: str, dimension: int | None = None) -> np.ndarray:
        vector = self.raw_vector(text, dimension or self.dimension)
        return vector / np.linalg.norm(vector)

    def paths(self) -> list[str]:
        return [request.path for request in self.requests]


def _make_handler(state: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = None
            with state.lock:
                state.requests.append(RecordedRequest(self.path, dict(self.headers), body))
                scripted = state.scripted.popleft() if state.scripted else None
            if scripted is not None:
                if scripted.delay:
                    time.sleep(scripted.delay)
                self._send(scripted.status, scripted.body, scripted.headers)
                return
            if state.api_key is not None and (
                self.headers.get("Authorization") != f"Bearer {state.api_key}"
            ):
                given = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                # Echo the rejected key in full: the client must not pass it on.
                self._error(401, f"Incorrect API key provided: {given}.")
                return
            if not isinstance(body, dict):
                self._error(400, "We could not parse the JSON body of your request.")
                return
            if self.path == "/v1/embeddings":
                self._embeddings(body)
            elif self.path == "/v1/chat/completions":
                self._chat(body)
            else:
                self._error(404, f"Unknown path {self.path}")

        def _embeddings(self, body: dict[str, Any]) -> None:
            inputs = body.get("input")
            if isinstance(inputs, str):
                inputs = [inputs]
            if not isinstance(inputs, list) or not inputs:
                self._error(400, "'input' must be a non-empty list")
                return
            dimension = state.dimension
            if state.honour_dimensions and isinstance(body.get("dimensions"), int):
                dimension = body["dimensions"]
            data = []
            for index, text in enumerate(inputs):
                vector = state.raw_vector(text, dimension)
                embedding: Any = (
                    base64.b64encode(vector.astype("<f4").tobytes()).decode()
                    if state.base64_embeddings
                    else vector.tolist()
                )
                data.append({"object": "embedding", "index": index, "embedding": embedding})
            data.reverse()  # real servers may answer out of order; the client sorts by index
            self._json(
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": body.get("model"),
                    "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
                },
            )

        def _chat(self, body: dict[str, Any]) -> None:
            messages = body.get("messages") or []
            user = next((m["content"] for m in messages if m.get("role") == "user"), "")
            notes = re.findall(r"^\d+\. (.*)$", user, flags=re.MULTILINE)
            content = (
                state.chat_content
                if state.chat_content is not None
                else "Summary: " + " | ".join(notes)
            )
            self._json(
                200,
                {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "model": body.get("model"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                },
            )

        def _error(self, status: int, message: str) -> None:
            self._json(status, {"error": {"message": message, "type": "invalid_request_error"}})

        def _json(self, status: int, payload: Any) -> None:
            self._send(status, json.dumps(payload).encode(), {})

        def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

    return Handler


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out hangs up before the slow answer is written: expected here.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    state = FakeOpenAIServer()
    server = _QuietServer(("127.0.0.1", 0), _make_handler(state))
    state.port = server.server_address[1]
    # A short poll interval keeps shutdown() quick between tests.
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(autouse=True)
def _no_ambient_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests say which key they use; a developer's real key must never leak into them."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
