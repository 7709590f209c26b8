"""Spark SQL's start-up and per-question cost against PostgreSQL's (issue 39 point 6, the Spark half).

For each server engine, as ``--engine ENGINE`` without ``--fixture-url`` runs it: the throwaway server's start
(PostgreSQL: ``initdb`` and ``pg_ctl start``; Spark: compiling its read-only check rule and the Thrift server's
JVM until it accepts a session), the built-in fixtures' build on one rotation, then every answerable built-in
reference run once through the read-only executor (as the grader runs it, transpiled for the engine), timed
per question. Printed: start-up, build, and the per-question median, p90 and total, with Spark's ratio to
PostgreSQL's. One round: a Spark start is some 20 s of two cores, and the figure is an order of magnitude.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from eval.sql.corpus.questions import load_corpus
from eval.sql.engines import pg_server, spark_server
from eval.sql.engines.setup import PostgresHost, build_all
from eval.sql.engines.spark_host import SparkHost
from eval.sql.fixtures.seeded import FIXTURES
from services.readonly.executor import ReadOnlyExecutor

ENGINES = ("postgresql", "spark")


def _measure(engine: str, workdir: Path) -> dict[str, float]:
    corpus = load_corpus()
    questions = [q for q in corpus.questions if q.expect == "answer" and q.fixture and q.sql]
    names = sorted({q.fixture for q in questions if q.fixture})
    started = time.perf_counter()
    if engine == "postgresql":
        pg = pg_server.start()
        stop = pg.stop
        db = pg.create_database("bench")
        host: PostgresHost | SparkHost = PostgresHost(db.owner_url, reader=(pg.READER, db.reader_url))
    else:
        spark = spark_server.start()
        stop = spark.stop
        host = SparkHost(spark.url(), workdir, files=spark.root / "fixtures")
    start_s = time.perf_counter() - started
    try:
        started = time.perf_counter()
        urls = build_all(host, [FIXTURES[n] for n in names], 0, 1, None)
        build_s = time.perf_counter() - started
        per_question: list[float] = []
        executors = {name: ReadOnlyExecutor(urls[name][0], timeout_s=60) for name in names}
        try:
            for q in questions:
                sql = q.reference_sql(engine)
                assert sql is not None and q.fixture is not None
                started = time.perf_counter()
                executors[q.fixture].execute(sql, row_cap=100_000)
                per_question.append(time.perf_counter() - started)
        finally:
            for ex in executors.values():
                ex.close()
        host.dispose()
    finally:
        stop()
    per_question.sort()
    return {
        "start_s": start_s,
        "build_s": build_s,
        "median_ms": statistics.median(per_question) * 1000,
        "p90_ms": per_question[int(0.9 * (len(per_question) - 1))] * 1000,
        "total_s": sum(per_question),
        "questions": len(per_question),
    }


def run() -> None:
    results = {}
    for engine in ENGINES:
        with tempfile.TemporaryDirectory(prefix=f"bench-{engine}-") as tmp:
            results[engine] = _measure(engine, Path(tmp))
    pg, spark = results["postgresql"], results["spark"]
    print(f"   built-in references, one rotation, {int(pg['questions'])} questions, one round")
    print(f"   {'':<12}{'start-up':>10}{'build':>9}{'median/q':>11}{'p90/q':>10}{'all q':>9}")
    for engine, r in results.items():
        print(
            f"   {engine:<12}{r['start_s']:>9.1f}s{r['build_s']:>8.1f}s{r['median_ms']:>9.0f}ms"
            f"{r['p90_ms']:>8.0f}ms{r['total_s']:>8.1f}s"
        )
    print(
        f"   spark / postgresql: start-up {spark['start_s'] / pg['start_s']:.1f}x, "
        f"per question (median) {spark['median_ms'] / pg['median_ms']:.1f}x"
    )
