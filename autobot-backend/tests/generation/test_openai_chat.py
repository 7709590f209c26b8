"""The OpenAI-compatible chat client against a real HTTP server on localhost: retries, deadlines,
limits, usage, and credentials that never show.

A deadline is shown by its outcome (the error it raises) and against what the call would have waited for
without it (a 60 s Retry-After, a reply trickling for a minute, a server that hangs for 30 s), never against
a tight wall-clock limit: a busy machine makes a 1 s call take several (issue 37; :mod:`tests.bounds`)."""

from __future__ import annotations

import asyncio
import time

import pytest

from services.generation.chat_terms import ChatPolicy, ChatUnavailable, chat_endpoint, on_this_machine
from services.generation.openai_chat import ChatClient
from services.redaction import redact_http_url
from tests.http_fakes import HANG_LIMIT_S, FakeHTTPServer, Reply, chat_reply, json_reply

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
FAST = ChatPolicy(timeout_s=2.0, max_attempts=4, budget_s=20.0, backoff_s=0.01, backoff_max_s=0.05)


def client(server: FakeHTTPServer, policy: ChatPolicy = FAST, **kw) -> ChatClient:
    return ChatClient(server.url + "/v1", policy=policy, **kw)


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_rate_limits_and_gateway_errors_are_retried(status):
    with FakeHTTPServer(Reply(status, b"busy", "text/plain"), chat_reply("SELECT 1")) as server:
        reply = client(server).complete(BODY)
    assert (reply.content, reply.attempts, len(server.requests)) == ("SELECT 1", 2, 2)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 500])
def test_other_answers_are_never_retried(status):
    with (
        FakeHTTPServer(Reply(status, b"no", "text/plain"), chat_reply("SELECT 1")) as server,
        pytest.raises(ChatUnavailable, match=f"HTTP {status}") as caught,
    ):
        client(server).complete(BODY)
    assert len(server.requests) == 1 and caught.value.attempts == 1


def test_retry_after_is_honoured():
    with FakeHTTPServer(Reply(429, b"", headers=(("Retry-After", "1"),)), chat_reply("SELECT 1")) as server:
        client(server).complete(BODY)
    first, second = server.request_times
    assert second - first >= 0.95


def test_a_dropped_connection_is_retried():
    with FakeHTTPServer(Reply(drop=True), chat_reply("SELECT 1")) as server:
        assert client(server).complete(BODY).attempts == 2


def test_attempts_are_bounded_and_the_last_reason_is_kept():
    with (
        FakeHTTPServer(Reply(503, b"still busy", "text/plain")) as server,
        pytest.raises(ChatUnavailable, match=r"HTTP 503.*still busy") as caught,
    ):
        client(server).complete(BODY)
    assert len(server.requests) == 4 and caught.value.attempts == 4


def test_no_wait_past_the_budget_is_started():
    policy = ChatPolicy(timeout_s=2.0, max_attempts=10, budget_s=1.0, backoff_s=0.01)
    with FakeHTTPServer(Reply(429, b"", headers=(("Retry-After", "60"),))) as server:
        started = time.monotonic()
        with pytest.raises(ChatUnavailable, match="HTTP 429"):
            client(server, policy).complete(BODY)
    assert time.monotonic() - started < 60 / 3 and len(server.requests) == 1  # the 60 s wait was never started


TRICKLE_S = 0.2 * len(chat_reply("SELECT 1").body)
"""How long the trickling reply takes to arrive whole (a byte every 0.2 s): over half a minute."""


def test_a_trickling_reply_cannot_hold_a_call_past_its_deadline():
    slow = chat_reply("SELECT 1", trickle_s=0.2)  # headers at once, then a byte every 0.2 s
    policy = ChatPolicy(timeout_s=1.0, max_attempts=1, budget_s=5.0)
    with FakeHTTPServer(slow) as server:
        started = time.monotonic()
        with pytest.raises(ChatUnavailable, match="no answer within 1 s"):
            client(server, policy).complete(BODY)
        assert time.monotonic() - started < TRICKLE_S / 3  # cut at the deadline, not when the reply ended


def test_a_trickling_reply_cannot_hold_a_coroutine_past_its_deadline():
    policy = ChatPolicy(timeout_s=1.0, max_attempts=1, budget_s=5.0)
    with FakeHTTPServer(chat_reply("SELECT 1", trickle_s=0.2)) as server:
        started = time.monotonic()
        with pytest.raises(ChatUnavailable, match="no answer within 1 s"):
            asyncio.run(client(server, policy).acomplete(BODY))
        assert time.monotonic() - started < TRICKLE_S / 3


def test_a_reply_over_the_size_limit_is_abandoned():
    policy = ChatPolicy(timeout_s=5.0, max_attempts=1, max_reply_bytes=1000)
    with (
        FakeHTTPServer(json_reply({"pad": "x" * 5000})) as server,
        pytest.raises(ChatUnavailable, match="over 1,000 bytes"),
    ):
        client(server, policy).complete(BODY)


def test_usage_and_latency_are_read_from_the_reply():
    with FakeHTTPServer(chat_reply("SELECT 1", usage=(120, 7), delay_s=0.2)) as server:
        reply = asyncio.run(client(server).acomplete(BODY))
    assert (reply.prompt_tokens, reply.completion_tokens) == (120, 7) and reply.latency_ms >= 200
    with FakeHTTPServer(chat_reply("SELECT 1")) as server:
        reply = client(server).complete(BODY)
    assert (reply.prompt_tokens, reply.completion_tokens) == (None, None)


def test_a_cancelled_coroutine_stops_at_once():
    async def ask_then_cancel(c: ChatClient) -> float:
        task = asyncio.create_task(c.acomplete(BODY))
        await asyncio.sleep(0.3)
        started = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - started

    with FakeHTTPServer(Reply(hang=True)) as server:
        assert asyncio.run(ask_then_cancel(client(server))) < HANG_LIMIT_S / 3  # not when the server gave up


def test_the_endpoint_path_comes_before_the_query_and_credentials_never_show():
    url = "https://bob:hunter2@api.example.com/v1?api-key=sk-secret&region=eu"
    assert chat_endpoint(url) == "https://bob:hunter2@api.example.com/v1/chat/completions?api-key=sk-secret&region=eu"
    shown = redact_http_url(chat_endpoint(url))
    assert "hunter2" not in shown and "sk-secret" not in shown and "region=eu" in shown
    with FakeHTTPServer(Reply(401, b"bad key sk-secret", "text/plain")) as server:
        c = ChatClient(server.url + "/v1?api-key=sk-secret", api_key="sk-header", policy=FAST)
        with pytest.raises(ChatUnavailable) as caught:
            c.complete(BODY)
    assert "sk-secret" not in str(caught.value) and "sk-header" not in str(caught.value)
    assert server.requests[0].path == "/v1/chat/completions?api-key=sk-secret"
    assert server.requests[0].headers["authorization"] == "Bearer sk-header"


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://localhost:11434/v1", True),
        ("http://127.0.0.1:8000/v1", True),
        ("http://127.8.9.10/v1", True),
        ("http://[::1]:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://10.0.0.5:8000/v1", False),
        ("http://localhost.example.com/v1", False),
        ("not a url", False),
    ],
)
def test_only_an_endpoint_on_this_machine_may_go_without_a_key(url, local):
    assert on_this_machine(url) is local
