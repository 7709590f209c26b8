"""A tiny real HTTP server on localhost for tests: scripted replies, recorded requests.

Tests talk to it over a real socket, so the code under test runs its own HTTP stack end to end
(timeouts, status codes, bodies that are not JSON, retries) with no mock in the middle. A reply can
come late (``delay_s``), trickle a byte at a time (``trickle_s``), carry headers (``Retry-After``),
hang, or drop the connection; a ``handler`` computes each reply from its request instead of a
script (an endpoint that answers each question, or changes its mind between asks).

    with FakeHTTPServer(chat_reply("SELECT 1")) as server:
        OpenAIChatGenerator(server.url + "/v1", "m").generate(...)
        server.requests[0].json()["model"]
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HANG_LIMIT_S = 30.0
"""A hanging reply gives up after this long even if the test never releases it."""


@dataclass(frozen=True)
class Reply:
    """What the server does with one request."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    hang: bool = False
    """Read the request, then never answer (until the server stops)."""
    delay_s: float = 0.0
    """Wait this long before answering."""
    trickle_s: float | None = None
    """Send the headers, then the body one byte every ``trickle_s`` seconds."""
    headers: tuple[tuple[str, str], ...] = ()
    drop: bool = False
    """Read the request, then close the connection without a word."""


@dataclass(frozen=True)
class ReceivedRequest:
    method: str
    path: str
    headers: dict[str, str]
    """Header names lower-cased."""
    body: bytes
    at: float = field(default_factory=time.monotonic)
    """When it arrived."""

    def json(self) -> Any:
        return json.loads(self.body)


def json_reply(payload: Any, status: int = 200) -> Reply:
    return Reply(status=status, body=json.dumps(payload).encode())


def chat_reply(content: str | None, usage: tuple[int, int] | None = None, **kw: Any) -> Reply:
    """A well-formed OpenAI chat completion whose message content is ``content`` (``usage``: tokens in, out)."""
    payload: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
    }
    if usage is not None:
        payload["usage"] = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        }
    return Reply(body=json.dumps(payload).encode(), **kw)


@contextlib.contextmanager
def refused_port() -> Iterator[int]:
    """A localhost port that refuses connections while the block runs: bound and not listening, so no other
    process can take it and listen there (a port bound and released can be handed out again at once)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@dataclass
class _State:
    replies: list[Reply]
    handler: Callable[[ReceivedRequest], Reply] | None = None
    requests: list[ReceivedRequest] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_reply(self, request: ReceivedRequest) -> Reply:
        if self.handler is not None:
            return self.handler(request)
        # The last scripted reply repeats, so one reply serves any number of requests.
        with self.lock:
            return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        self._answer()

    def do_GET(self) -> None:
        self._answer()

    def _answer(self) -> None:
        state = self.server.state
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        request = ReceivedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        with state.lock:
            state.requests.append(request)
        reply = state.next_reply(request)
        if reply.hang:
            state.release.wait(HANG_LIMIT_S)
            self.close_connection = True
            return
        if reply.drop:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if reply.delay_s and state.release.wait(reply.delay_s):
            return
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        for name, value in reply.headers:
            self.send_header(name, value)
        self.end_headers()
        if reply.trickle_s is None:
            self.wfile.write(reply.body)
            return
        for i in range(len(reply.body)):
            if state.release.wait(reply.trickle_s):
                return
            self.wfile.write(reply.body[i : i + 1])
            self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass


class _KeepAliveHandler(_Handler):
    """HTTP/1.1: a connection serves one request after another, as a model provider's does; with Nagle's
    algorithm off, as servers that keep connections do (else a reply's body waits for the client's delayed
    acknowledgement of its headers, some 40 ms)."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # a run at --concurrency 64 connects 64 times at once: none waits for a SYN retry

    def __init__(self, state: _State, keep_alive: bool = False) -> None:
        super().__init__(("127.0.0.1", 0), _KeepAliveHandler if keep_alive else _Handler)
        self.state = state

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (timeout) leaves a broken pipe behind: expected, not a failure.
        pass


class FakeHTTPServer:
    """Serves scripted :class:`Reply` objects in order (the last one repeats) on 127.0.0.1.

    HTTP/1.0 by default: each connection answers one request and closes. ``keep_alive``: HTTP/1.1, each
    connection kept for the next request, as a model provider's endpoint keeps it (the benchmarks')."""

    def __init__(
        self, *replies: Reply, handler: Callable[[ReceivedRequest], Reply] | None = None, keep_alive: bool = False
    ) -> None:
        if not replies and handler is None:
            raise ValueError("give the fake server at least one reply, or a handler")
        self.keep_alive = keep_alive
        self._state = _State(list(replies), handler)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first (use it as a context manager)"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def requests(self) -> list[ReceivedRequest]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def request_times(self) -> list[float]:
        """When each request arrived (``time.monotonic``)."""
        with self._state.lock:
            return [r.at for r in self._state.requests]

    def __enter__(self) -> FakeHTTPServer:
        self._server = _Server(self._state, self.keep_alive)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._state.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
