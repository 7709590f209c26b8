"""The corpus graded on Spark SQL (``--engine spark``): fixtures copied into the tests' Spark server, the
reference passing everywhere, and the cross-engine self-check agreeing with SQLite.

The server is the session's (``spark``, one JVM per test process: start-up is 15-40 s); the fixtures go into
databases of it through ``--fixture-url``, so each test pays only for its fixture's copies. The built-in
corpus's whole cross-engine self-check on Spark takes minutes, so it is the documented command
(``python -m eval.cli.selfcheck --engines sqlite,postgresql,duckdb,spark``), not a test; these questions are
the built-in corpus's dialect traps: integer division, SQLite's ``julianday`` and ``date`` modifiers (which
Spark has not, :func:`services.generation.transpile.spark_dates`), money, NULL ordering and ties.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.pool import NullPool

from eval.run import main
from eval.sql.corpus.questions import load_corpus
from eval.sql.engines import spark_server as eval_spark_server
from eval.sql.oracle.crossengine import run_cross_engine
from tests import spark_server

RETAIL = "FROM orders o JOIN order_items oi ON oi.order_id = o.order_id WHERE o.status = 'completed'"
QUARTER = "strftime('%Y', o.order_date) || '-Q' || ((CAST(strftime('%m', o.order_date) AS INTEGER) + 2) / 3)"
TRAPS = f"""\
version: 1
fixture: retail
questions:
  - id: s-revenue
    question: What was the total revenue?
    shape: scalar
    sql: SELECT SUM(oi.quantity * oi.unit_price) {RETAIL}
  - id: s-quarters
    question: How many orders per quarter? Label quarters like 2024-Q4.
    ordered: true
    sql: SELECT {QUARTER} AS quarter, COUNT(*) FROM orders o GROUP BY quarter ORDER BY quarter
  - id: s-days
    question: On average, how many days did shipping take?
    shape: scalar
    sql: SELECT AVG(julianday(shipped_date) - julianday(order_date)) FROM orders WHERE shipped_date IS NOT NULL
  - id: s-last-year
    question: How many orders were placed in the year before 2024-12-01?
    shape: scalar
    sql: SELECT COUNT(*) FROM orders WHERE order_date >= date('2024-12-01', '-1 year') AND order_date < '2024-12-01'
  - id: s-shipped-last
    question: List the ten orders shipped last, unshipped ones first, with their shipping date, newest first.
    ordered: true
    sql: >-
      SELECT order_id, shipped_date FROM orders
      ORDER BY shipped_date IS NOT NULL, shipped_date DESC, order_id LIMIT 10
"""


def _databases(url: str) -> list[str]:
    engine = sa.create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return [str(r[0]) for r in conn.exec_driver_sql("SHOW DATABASES").fetchall()]
    finally:
        engine.dispose()


def _eval_spark_servers() -> set[int]:
    """Process ids of the Spark Thrift servers the harness started (their folders are named eval-spark-)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = stat.read_bytes().split(b"\0")
        except OSError:
            continue
        if any(b"HiveThriftServer2" in w for w in words) and any(b"eval-spark-" in w for w in words):
            found.add(int(stat.parent.name))
    return found


@pytest.mark.slow
def test_the_reference_passes_every_question_on_a_throwaway_spark_server_which_then_goes(tmp_path, monkeypatch):
    """``--engine spark`` alone: the harness starts its own server, builds the fixtures as JSON tables there,
    grades, and stops it. The first port it is handed is taken by another process by the time the server binds
    (a race no test can time, so the probe is made to hand out a port this test holds): it starts on another."""
    if eval_spark_server.find_spark_home() is None or eval_spark_server.find_java() is None:
        spark_server.start_for_tests()  # skips (or fails under EVAL_REQUIRE_SPARK=1) saying what is missing
    corpus = tmp_path / "traps.yaml"
    corpus.write_text(TRAPS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    before = _eval_spark_servers()
    held = socket.create_server(("127.0.0.1", 0))
    free_port, handed = eval_spark_server._free_port, []

    def taken_first() -> int:
        handed.append(held.getsockname()[1] if not handed else free_port())
        return handed[-1]

    monkeypatch.setattr(eval_spark_server, "_free_port", taken_first)
    args = ["--suite", "sql", "--json", "out.json", "--candidate", "reference", "--corpus", str(corpus)]
    with held:
        code = main([*args, "--engine", "spark", "--statement-timeout", "120"])  # a loaded machine: s a question
    report = json.loads((tmp_path / "out.json").read_text())
    assert len(handed) == 2  # the held port, then one free
    assert code == 0
    assert report["run"]["engine"] == "spark"
    assert (report["summary"]["measured"], report["summary"]["pass"]) == (5, 5)
    assert _eval_spark_servers() <= before  # its own server was stopped


@pytest.mark.slow
def test_spark_agrees_with_sqlite_on_the_dialect_traps_and_its_databases_go(spark, tmp_path):
    """On a server of the user's (a ``spark://`` URL: the rows copied by INSERT, since it may not read the
    harness's files), every database the check made is dropped at its end."""
    corpus = tmp_path / "traps.yaml"
    corpus.write_text(TRAPS, encoding="utf-8")
    result = run_cross_engine(
        load_corpus([corpus]), ["sqlite", "spark"], rotations=1, spark_url=spark.url(), snapshot_dir=None
    )
    assert result.defects == [] and result.disagreements == []
    assert set(result.checks) == {"sqlite", "spark"}
    assert not [d for d in _databases(spark.url()) if d.startswith("eval_")]
