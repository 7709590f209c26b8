"""The model path (issue 27 point 5): a run of the built-in corpus against a real loopback endpoint.

The endpoint is an OpenAI-compatible HTTP server on 127.0.0.1 (``tests/http_fakes.py``, in this process)
that answers every question with its reference SQL after a fixed latency, keeping its connections alive
(HTTP/1.1, Nagle's algorithm off) as a provider's endpoint does; the run is ``python -m eval.run
--suite sql --candidate llm --concurrency N``, a fresh process each time, as a user runs it. Measured in
each run: the asking phase, from the endpoint's first request to the end of the process (every answer
graded, the reports written), against the ideal ``ceil(questions / N) x latency``; and the time before the
first request beyond what ``python -m eval.cli.selfcheck`` takes alone (start-up, the fixtures, the
self-check), run right after it: nothing else should come before the first question. Targets: at most
1.15x at 16 against 200 ms, 1.25x at 64 against 2 s.
"""

from __future__ import annotations

import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eval.sql.corpus.questions import load_corpus
from tests.http_fakes import FakeHTTPServer, ReceivedRequest, Reply, chat_reply

CASES = ((16, 0.2, 1.15), (64, 2.0, 1.25))
"""(concurrency, endpoint latency in seconds, target ratio to the ideal)."""
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
BACKEND = Path(__file__).resolve().parents[1]


def endpoint_answering_references(latency_s: float):  # type: ignore[no-untyped-def]
    """A handler answering every built-in question (by its text) with its reference SQL after ``latency_s``."""
    answers = {q.question: q for q in load_corpus().questions}

    def handler(request: ReceivedRequest) -> Reply:
        found = re.search(r"Question: (.*)$", request.json()["messages"][-1]["content"], re.S)
        q = answers[found.group(1).strip() if found else ""]
        content = "REFUSE: not here" if q.expect == "refuse" else f"```sql\n{q.sql}\n```"
        return chat_reply(content, usage=(900, 40), delay_s=latency_s)

    return handler


def one_run(concurrency: int, latency_s: float) -> tuple[float, float, int]:
    """(seconds before the first request, seconds from it to the end, requests) of one fresh run."""
    with (
        FakeHTTPServer(handler=endpoint_answering_references(latency_s), keep_alive=True) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        env = {
            **os.environ,
            "NL_SQL_LLM_BASE_URL": server.url + "/v1",
            "NL_SQL_LLM_MODEL": "bench-model",
            "EVAL_OUTPUT_DIR": tmp,
        }
        args = ["--suite", "sql", "--candidate", "llm", "--concurrency", str(concurrency), "--json", f"{tmp}/r.json"]
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "eval.run", *args], cwd=BACKEND, env=env, capture_output=True, text=True
        )
        ended = time.monotonic()
        if done.returncode != 0:
            raise RuntimeError(f"the run exited {done.returncode}: {done.stderr[-2000:]}")
        times = server.request_times
    return min(times) - started, ended - min(times), len(times)


def self_check_s() -> float:
    """Wall seconds of ``python -m eval.cli.selfcheck`` (start-up, the fixtures, the self-check): what the
    first request may wait for."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "eval.cli.selfcheck"], cwd=BACKEND, capture_output=True, check=True)
    return time.monotonic() - started


def run() -> None:
    print(f"   {REPEATS} fresh runs per case; ratio = asking phase / ideal (median, range)")
    for concurrency, latency_s, target in CASES:
        ratios, lost = [], []
        for _ in range(REPEATS):
            first, asking, n = one_run(concurrency, latency_s)
            ideal = math.ceil(n / concurrency) * latency_s
            ratios.append(asking / ideal)
            lost.append(first - self_check_s())
        med = statistics.median(ratios)
        print(
            f"   concurrency {concurrency:2d} at {latency_s * 1000:4.0f} ms: {n} requests, ideal {ideal:5.2f} s, "
            f"ratio {med:4.2f}x (range {min(ratios):4.2f}-{max(ratios):4.2f}); target at most {target}x: "
            f"{'met' if max(ratios) <= target else 'MISSED'}"
        )
        print(
            f"   before the first request, beyond a self-check run alone (python -m eval.cli.selfcheck): "
            f"{statistics.median(lost):+.2f} s (range {min(lost):+.2f} to {max(lost):+.2f}); target: nothing but the "
            f"self-check (median at most +0.10 s): {'met' if statistics.median(lost) <= 0.1 else 'MISSED'}"
        )
