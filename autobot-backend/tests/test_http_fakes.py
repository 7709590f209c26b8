"""The stand-in model endpoint: by default a connection per request (HTTP/1.0); ``keep_alive`` serves one
request after another on one connection (HTTP/1.1), as the model-path benchmark's endpoint must."""

from __future__ import annotations

import http.client

import pytest

from tests.http_fakes import FakeHTTPServer, chat_reply


def _answers_on_one_connection(server: FakeHTTPServer, asks: int) -> int:
    """How many of ``asks`` requests one connection answers (it is never reopened)."""
    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    answered = 0
    try:
        for _ in range(asks):
            try:
                conn.request("POST", "/v1/chat/completions", body="{}")
                reply = conn.getresponse()
            except (http.client.NotConnected, ConnectionError):
                break
            assert b"bench-answer" in reply.read()
            answered += 1
            conn.auto_open = 0  # from now on, a closed connection is an error, not a new connection
    finally:
        conn.close()
    return answered


@pytest.mark.parametrize("keep_alive, answered", [(True, 3), (False, 1)], ids=["kept", "closed (default)"])
def test_a_kept_connection_answers_the_next_request(keep_alive, answered):
    with FakeHTTPServer(chat_reply("bench-answer"), keep_alive=keep_alive) as server:
        assert _answers_on_one_connection(server, 3) == answered
        assert len(server.requests) == answered
