"""The SQL suite's own cost, and what concurrency buys on a model endpoint.

* Offline: the whole suite with the built-in generator on a warm fixture cache (``make eval``'s run:
  fixtures, self-check, every question asked and graded) against the bare cost of executing every
  reference once on every rotation with sqlite3, the floor a grader cannot go under. Target: at most
  3x. The same run at ``--concurrency 2`` is printed beside it.
* A model endpoint: a local OpenAI-compatible server that answers every question of the corpus with
  its reference SQL after 200 ms, asked at ``--concurrency 1`` and ``8``. Target: at ``8``, at most
  1.25x the ideal (148 x 0.2 s / 8) plus the offline suite's own time.
"""

from __future__ import annotations

import re
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import best_of
from eval.sql.corpus.questions import Question, load_corpus
from eval.sql.fixtures.seeded import FIXTURES, build_rotations
from eval.sql.model.defaults import DEFAULT_ROTATIONS
from eval.sql.pipeline import RunSpec, run_suite
from services.embedded import EmbeddedGenerator
from services.generation.llm import OpenAIChatGenerator
from services.generation.protocol import SQLGenerator
from tests.http_fakes import FakeHTTPServer, ReceivedRequest, Reply, chat_reply

LATENCY_S = 0.2


def _bare_cost(corpus_questions: list[Question], tmp: Path) -> float:
    """Seconds to run every reference once on every rotation, straight through sqlite3."""
    urls = {f: build_rotations(f, tmp, rotations=DEFAULT_ROTATIONS) for f in FIXTURES}
    conns = {f: [sqlite3.connect(u.removeprefix("sqlite:///")) for u in us] for f, us in urls.items()}
    started = time.perf_counter()
    for q in corpus_questions:
        if q.expect == "answer" and q.fixture and q.sql:
            for conn in conns[q.fixture]:
                conn.execute(q.sql).fetchall()
    elapsed = time.perf_counter() - started
    for cs in conns.values():
        for c in cs:
            c.close()
    return elapsed


def _spec(generator: SQLGenerator, **kw: Any) -> RunSpec:
    return RunSpec(
        candidate="llm" if isinstance(generator, OpenAIChatGenerator) else "embedded",
        generator=generator,
        corpus=load_corpus(),
        fixtures=FIXTURES,
        builtin=True,
        **kw,
    )


def run() -> None:
    corpus = load_corpus()
    with tempfile.TemporaryDirectory(prefix="bench-suite-") as tmp:
        bare, _ = best_of(lambda: _bare_cost(list(corpus.questions), Path(tmp)), 3)
    run_suite(_spec(EmbeddedGenerator()))  # warm the fixture cache
    offline, _ = best_of(lambda: run_suite(_spec(EmbeddedGenerator())), 3)
    print(
        f"   offline suite (warm cache): {offline:6.2f} s; bare cost of executing the references: {bare:6.3f} s; "
        f"ratio {offline / bare:5.1f}x (target at most 3x): {'met' if offline <= 3 * bare else 'MISSED'}"
    )
    # Threads cannot overlap the built-in generator (Python, holding the interpreter lock) with SQLite's
    # work: every row fetched hands the lock back and forth. This line shows what they would buy.
    side_by_side, _ = best_of(lambda: run_suite(_spec(EmbeddedGenerator(), concurrency=2)), 3)
    print(f"   offline suite at --concurrency 2 (two questions at once): {side_by_side:6.2f} s")

    answers = {q.question: q for q in corpus.questions}

    def endpoint(request: ReceivedRequest) -> Reply:
        found = re.search(r"Question: (.*)$", request.json()["messages"][-1]["content"], re.S)
        q = answers[found.group(1).strip() if found else ""]
        time.sleep(LATENCY_S)
        return chat_reply("REFUSE: not here" if q.expect == "refuse" else f"```sql\n{q.sql}\n```", usage=(900, 40))

    n = corpus.size
    with FakeHTTPServer(handler=endpoint) as server:
        model = OpenAIChatGenerator(server.url + "/v1", "bench-model")
        walls = {}
        for concurrency in (1, 8):
            started = time.perf_counter()
            report = run_suite(_spec(model, concurrency=concurrency))
            walls[concurrency] = time.perf_counter() - started
            assert report.summary["pass_rate"] == 1.0, "the bench endpoint answers every question right"
    ideal = n * LATENCY_S / 8
    budget = 1.25 * ideal + offline
    print(
        f"   {n} questions at {LATENCY_S * 1000:.0f} ms: concurrency 1 {walls[1]:6.2f} s, concurrency 8 "
        f"{walls[8]:6.2f} s; speed-up {walls[1] / walls[8]:4.1f}x"
    )
    print(
        f"   at 8: {walls[8]:6.2f} s against a target of {budget:6.2f} s (1.25 x ideal {ideal:.2f} s + offline "
        f"{offline:.2f} s): {'met' if walls[8] <= budget else 'MISSED'}"
    )
