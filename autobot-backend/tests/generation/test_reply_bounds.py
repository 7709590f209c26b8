"""A model reply is bounded on the wire and decoded, before it is decoded (issue 38, point 2).

A 1 MB gzip or deflate reply decoded to about 0.5 GB before the 4 MB reply limit was checked: httpx
decodes each chunk whole, and a chunk of zeros decodes to a thousand times its size. Each bomb here is
sent by a real HTTP server on 127.0.0.1 with its ``Content-Encoding``; the call is abandoned naming the
limit, and a fresh process doing it (and a whole run at concurrency 8) keeps its peak memory far below
what the bomb decodes to. Honest compressed replies still decode.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from services.generation.chat_terms import ChatPolicy, ChatUnavailable
from services.generation.openai_chat import ChatClient
from services.generation.reply_body import BoundedBody, ReplyTooLarge
from tests.bounds import MB
from tests.http_fakes import FakeHTTPServer, Reply, chat_reply

BACKEND = Path(__file__).resolve().parents[2]
BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
DECODED = 1 << 30
"""What each bomb decodes to: 1 GiB of zeros."""


def _gzip_bomb() -> bytes:
    member = gzip.compress(bytes(16 * MB), 9)
    return member * (DECODED // (16 * MB))  # gzip members, one after another: one stream to a reader


def _deflate_bomb(raw: bool) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS if raw else zlib.MAX_WBITS)
    block = bytes(16 * MB)
    return b"".join(compressor.compress(block) for _ in range(DECODED // len(block))) + compressor.flush()


BOMBS = {
    "gzip": lambda: _gzip_bomb(),
    "deflate": lambda: _deflate_bomb(False),
    "raw_deflate": lambda: _deflate_bomb(True),
}
ENCODING = {"gzip": "gzip", "deflate": "deflate", "raw_deflate": "deflate"}


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    return {name: make() for name, make in BOMBS.items()}


def _bomb_reply(body: bytes, encoding: str) -> Reply:
    return Reply(body=body, headers=(("Content-Encoding", encoding),))


@pytest.mark.parametrize("name", BOMBS)
def test_a_decompression_bomb_is_abandoned_at_the_limit(bombs: dict[str, bytes], name: str) -> None:
    assert len(bombs[name]) < 1.5 * MB, "the control: a bomb small on the wire"
    policy = ChatPolicy(timeout_s=30.0, max_attempts=1)
    with FakeHTTPServer(_bomb_reply(bombs[name], ENCODING[name])) as server:
        with pytest.raises(ChatUnavailable, match=r"decodes \(\w+\) to over 4,000,000 bytes"):
            ChatClient(server.url + "/v1", policy=policy).complete(BODY)
        assert server.requests[0].headers["accept-encoding"] == "gzip, deflate"


PEAK = r"""
import sys
from services.generation.chat_terms import ChatPolicy, ChatUnavailable
from services.generation.openai_chat import ChatClient
try:
    ChatClient(sys.argv[1], policy=ChatPolicy(timeout_s=60.0, max_attempts=1)).complete({"model": "m", "messages": []})
except ChatUnavailable as exc:
    print(exc)
with open("/proc/self/status") as status:
    print(next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:")))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's peak memory from /proc")
def test_a_process_asking_a_bomb_stays_small(bombs: dict[str, bytes]) -> None:
    """Peak resident memory of a fresh process whose one call gets the deflate bomb: 47 MB here, where httpx's
    decoding of whole chunks took it to 168 MB (64 KB of the bomb decode to 64 MB)."""
    with FakeHTTPServer(_bomb_reply(bombs["deflate"], "deflate")) as server:
        done = subprocess.run(
            [sys.executable, "-c", PEAK, server.url + "/v1"],
            cwd=BACKEND,
            env={**os.environ, "PYTHONPATH": str(BACKEND)},
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
    message, peak = done.stdout.strip().splitlines()
    assert int(peak) < 100 * MB, f"peak {int(peak) / MB:.0f} MB"
    assert "to over 4,000,000 bytes" in message


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "x-gzip", "gzip, deflate", "identity"])
def test_an_honest_compressed_reply_still_decodes(encoding: str) -> None:
    body = chat_reply("SELECT 42").body
    for layer in [e.strip() for e in encoding.split(",")]:
        body = gzip.compress(body) if "gzip" in layer else zlib.compress(body) if layer == "deflate" else body
    with FakeHTTPServer(Reply(body=body, headers=(("Content-Encoding", encoding),))) as server:
        assert ChatClient(server.url + "/v1").complete(BODY).content == "SELECT 42"


def test_an_encoding_that_was_not_asked_for_is_refused() -> None:
    brotli = Reply(body=b"\x1b\x00\x00", headers=(("Content-Encoding", "br"),))
    with FakeHTTPServer(brotli) as server, pytest.raises(ChatUnavailable, match="encoded as 'br', which was not asked"):
        ChatClient(server.url + "/v1", policy=ChatPolicy(max_attempts=1)).complete(BODY)


def test_the_bytes_on_the_wire_are_bounded_whatever_the_length_says() -> None:
    """A body streamed past the limit with no Content-Length: the count on the wire stops it."""
    body = BoundedBody(None, 1000)
    body.feed(b"x" * 1000)
    with pytest.raises(ReplyTooLarge, match="over 1,000 bytes on the wire"):
        body.feed(b"x")


def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_read() -> None:
    policy = ChatPolicy(timeout_s=5.0, max_attempts=1, max_reply_bytes=1000)
    refused = pytest.raises(ChatUnavailable, match=r"over 1,000 bytes \(its Content-Length says")
    with FakeHTTPServer(chat_reply("x" * 5000)) as server, refused:
        ChatClient(server.url + "/v1", policy=policy).complete(BODY)


RUN_PEAK = r"""
import runpy, sys, atexit
def peak():
    with open("/proc/self/status") as status:
        high = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
    print("PEAK", high, file=sys.stderr)
atexit.register(peak)
sys.argv = ["eval.run", *sys.argv[1:]]
runpy.run_module("eval.run", run_name="__main__")
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's peak memory from /proc")
def test_a_run_against_a_bomb_endpoint_stays_small(bombs: dict[str, bytes], tmp_path: Path) -> None:
    """The issue's case, smaller: every question of a run at concurrency 8 gets the bomb; each is unmeasured with
    the reason, and the run's process peaks far below one decoded bomb (132 MB here; 1,504 MB before)."""
    from eval.tests import small_run as sr

    sr.write_corpus(tmp_path / "mine.yaml")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NL_SQL_", "EVAL_"))}
    with FakeHTTPServer(_bomb_reply(bombs["deflate"], "deflate")) as server:
        env |= {"EVAL_OUTPUT_DIR": str(tmp_path), "NL_SQL_LLM_BASE_URL": server.url + "/v1", "NL_SQL_LLM_MODEL": "m"}
        env |= {"NL_SQL_LLM_MAX_ATTEMPTS": "1", "PYTHONPATH": str(BACKEND)}
        done = subprocess.run(
            [sys.executable, "-c", RUN_PEAK, "--suite", "sql", "--corpus", str(tmp_path / "mine.yaml"),
             "--candidate", "llm", "--concurrency", "8", "--stop-after-unavailable", "0", "--json",
             str(tmp_path / "r.json")],
            cwd=BACKEND, env=env, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
    peak = int(done.stderr.rsplit("PEAK ", 1)[1].split()[0])
    assert peak < 400 * MB, f"peak {peak / MB:.0f} MB"
    assert done.returncode == 2, done.stderr[-2000:]  # nothing measurable
    questions = json.loads((tmp_path / "r.json").read_text())["questions"]
    assert questions and all("to over 4,000,000 bytes" in q["detail"] for q in questions), questions[0]
