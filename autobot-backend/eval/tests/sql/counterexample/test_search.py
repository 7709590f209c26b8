"""``--counterexamples``: a pass wrong in general is refuted on a database the fixture could hold, on SQLite, DuckDB
and PostgreSQL; an equivalent answer is not; the run without the search is untouched (the characterisation tests).

The refuted answer is a real near miss: the half-year revenue change as two scalar subqueries, NULL when one half
has no completed order (the reference's CASE sums give 0 there). It passes every rotation of retail_24m.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import duckdb
import pytest
import sqlalchemy as sa

from eval.run import main

CORPUS = """\
version: 1
fixture: retail_24m
questions:
  - id: half-change
    question: How did revenue in the second half of 2024 compare with the first half? Give the difference.
    stratum: period_comparison
    shape: scalar
    sql: |
      SELECT SUM(CASE WHEN o.order_date BETWEEN '2024-07-01' AND '2024-12-31'
                      THEN oi.quantity * oi.unit_price ELSE 0 END)
           - SUM(CASE WHEN o.order_date BETWEEN '2024-01-01' AND '2024-06-30'
                      THEN oi.quantity * oi.unit_price ELSE 0 END)
      FROM orders o JOIN order_items oi ON oi.order_id = o.order_id
      WHERE o.status = 'completed'
  - id: completed
    question: How many completed orders are there?
    stratum: scalar
    shape: scalar
    sql: SELECT COUNT(*) FROM orders WHERE status = 'completed'
"""

HALF = (
    "SELECT (SELECT SUM(oi.quantity * oi.unit_price) FROM order_items oi JOIN orders o ON oi.order_id = o.order_id "
    "WHERE o.order_date >= '2024-07-01' AND o.order_date < '2025-01-01' AND o.status = 'completed') - "
    "(SELECT SUM(oi.quantity * oi.unit_price) FROM order_items oi JOIN orders o ON oi.order_id = o.order_id "
    "WHERE o.order_date >= '2024-01-01' AND o.order_date < '2024-07-01' AND o.status = 'completed') AS change"
)
EQUIVALENT = "SELECT COUNT(order_id) FROM orders WHERE status IN ('completed')"


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, dict, str]:
    (tmp_path / "mine.yaml").write_text(CORPUS, encoding="utf-8")
    answers = [{"id": "half-change", "sql": HALF, "model": "scripted"}, {"id": "completed", "sql": EQUIVALENT}]
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVAL_OUTPUT_DIR", str(tmp_path))
    code = main(
        [
            "--suite",
            "sql",
            "--corpus",
            "mine.yaml",
            "--candidate",
            "recorded",
            "--answers",
            "answers.jsonl",
            "--json",
            "out.json",
            "--markdown",
            "out.md",
            *args,
        ]
    )
    return code, json.loads((tmp_path / "out.json").read_text()), (tmp_path / "out.md").read_text()


def _split(script: str) -> tuple[str, str, str]:
    """(DDL and rows, the reference, the answer) of a counterexample's script."""
    setup, rest = script.split("-- The reference:")
    reference, answer = rest.split("-- The answer:")
    return setup, reference.strip().rstrip(";").strip(), answer.strip().rstrip(";").strip()


def _checked(data: dict, engine: str) -> str:
    """The refuted pass and the equivalent one as the JSON report has them; returns the refuting script."""
    q = {x["id"]: x for x in data["questions"]}
    half, same = q["half-change"], q["completed"]
    assert (half["verdict"], same["verdict"]) == ("pass", "pass")  # a refuted pass keeps its verdict
    assert data["run"]["counterexamples"] == "40 neighbours" and data["cohort"]["keys"]["counterexamples"]
    refuted = half["search"]["refuted"]
    assert refuted is not None, half["search"]
    assert refuted["engine"] == engine
    assert "expected 0" in refuted["detail"] and "got NULL" in refuted["detail"]
    assert sum(refuted["rows"].values()) <= 10  # shrunk to a database a person reads
    assert same["search"]["refuted"] is None and same["search"]["tried"] == 40
    return refuted["script"]


def test_sqlite_refutes_the_near_miss_with_a_runnable_script_and_every_output_shows_it(tmp_path, monkeypatch):
    code, data, markdown = _run(tmp_path, monkeypatch, "--counterexamples", "40")
    assert code == 0
    setup, reference, answer = _split(_checked(data, "sqlite"))
    conn = sqlite3.connect(":memory:")
    conn.executescript(setup)
    assert conn.execute(reference).fetchall() == [(0,)] and conn.execute(answer).fetchall() == [(None,)]
    assert "## Refuted passes (1 of 2 searched)" in markdown
    assert "counterexample search (40 neighbours per pass): 1 of 2 pass(es) refuted" in markdown


def test_the_search_repeats_exactly_in_one_process_or_spread_over_two(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.setenv("EVAL_PROCESSES", "1")
    first = _run(tmp_path / "a", monkeypatch, "--counterexamples", "40")[1]
    monkeypatch.setenv("EVAL_PROCESSES", "2")  # each pass searched in a forked process of its own
    second = _run(tmp_path / "b", monkeypatch, "--counterexamples", "40")[1]
    assert [q["search"] for q in first["questions"]] == [q["search"] for q in second["questions"]]
    assert {q["id"]: q for q in first["questions"]}["half-change"]["search"]["refuted"] is not None


def test_duckdb_refutes_it_too(tmp_path, monkeypatch):
    code, data, _ = _run(tmp_path, monkeypatch, "--counterexamples", "40", "--engine", "duckdb")
    assert code == 0
    setup, reference, answer = _split(_checked(data, "duckdb"))
    conn = duckdb.connect()
    conn.execute(setup)
    assert conn.execute(reference).fetchall()[0][0] == 0 and conn.execute(answer).fetchall() == [(None,)]


def test_postgresql_refutes_it_too_and_leaves_no_schema_behind(tmp_path, monkeypatch, postgres):
    url = postgres.create_database("counterexamples").owner_url
    code, data, _ = _run(
        tmp_path, monkeypatch, "--counterexamples", "40", "--engine", "postgresql", "--fixture-url", url
    )
    assert code == 0
    setup, reference, answer = _split(_checked(data, "postgresql"))
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            left = conn.execute(sa.text("SELECT nspname FROM pg_namespace WHERE starts_with(nspname, 'eval_')"))
            assert list(left.scalars()) == []  # every neighbour's schema and the fixtures were dropped
            conn.exec_driver_sql("CREATE SCHEMA replay")
            conn.exec_driver_sql("SET search_path TO replay")
            conn.exec_driver_sql(setup)
            assert conn.exec_driver_sql(reference).scalar() == 0
            assert conn.exec_driver_sql(answer).scalar() is None
            conn.rollback()
    finally:
        engine.dispose()


def test_without_the_flag_nothing_is_searched_and_the_gate_flag_needs_it(tmp_path, monkeypatch, capsys):
    code, data, markdown = _run(tmp_path, monkeypatch)
    assert code == 0
    assert all("search" not in q for q in data["questions"]) and "counterexamples" not in data["run"]
    assert "Refuted passes" not in markdown
    assert main(["--suite", "sql", "--gate-refuted"]) == 2
    assert "--gate-refuted counts the passes the counterexample search refutes" in capsys.readouterr().err


def test_the_gate_counts_a_refuted_pass_only_when_asked(tmp_path, monkeypatch):
    """A baseline whose answer passed unrefuted, then the near miss: listed, and a regression with --gate-refuted."""
    search = ["--counterexamples", "40", "--baseline-dir", "baselines"]
    monkeypatch.setattr("eval.tests.sql.counterexample.test_search.HALF", EQUIVALENT_HALF)
    code, base, _ = _run(tmp_path, monkeypatch, *search, "--record-baseline")
    assert code == 0 and not any(q["search"]["refuted"] for q in base["questions"])
    monkeypatch.setattr("eval.tests.sql.counterexample.test_search.HALF", NEAR_MISS_HALF)
    code, listed, _ = _run(tmp_path, monkeypatch, *search, "--fail-on-regression")
    checks = {c["name"]: c for c in listed["gate"]["checks"]}
    assert code == 0, checks
    assert checks["refuted"]["detail"].startswith("1 refuted pass(es), not counted (--gate-refuted counts them)")
    code, counted, _ = _run(tmp_path, monkeypatch, *search, "--fail-on-regression", "--gate-refuted")
    checks = {c["name"]: c for c in counted["gate"]["checks"]}
    assert code == 1
    assert "half-change: was pass, now pass (refuted by a counterexample)" in checks["regressions"]["detail"]


NEAR_MISS_HALF = HALF
EQUIVALENT_HALF = (
    "SELECT SUM(CASE WHEN o.order_date >= '2024-07-01' AND o.order_date <= '2024-12-31' "
    "THEN oi.unit_price * oi.quantity ELSE 0 END) - SUM(CASE WHEN o.order_date >= '2024-01-01' "
    "AND o.order_date <= '2024-06-30' THEN oi.unit_price * oi.quantity ELSE 0 END) "
    "FROM order_items oi JOIN orders o ON o.order_id = oi.order_id WHERE o.status = 'completed'"
)
