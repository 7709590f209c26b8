"""Ties follow the engine's own ordering: the ORDER BY's collation (explicit or the column's) and
keys equal up to float noise. Learned by the self-check on a real SQLite, DuckDB and PostgreSQL
database each, then graded: a valid tie-break passes, and so does a valid choice at a LIMIT cut."""

from __future__ import annotations

import doctest
import sqlite3
from pathlib import Path

import duckdb
import pytest
import sqlalchemy as sa

from eval.sql.corpus.questions import Corpus, Question
from eval.sql.grading.grade import as_graded
from eval.sql.oracle import peers
from eval.sql.oracle.peers import peer_groups, peer_probe
from eval.sql.oracle.selfcheck import run_self_check
from eval.sql.rows import ORDER, VALUE, Comparison
from services.readonly.execute import ReadOnlySQL

FRUIT = [
    (1, "apple", "x", 0.30000000000000004),
    (2, "Apple", "X", 0.3),
    (3, "APPLE", "x ", 0.2),
    (4, "banana", "y", 0.1),
    (5, "cherry", "z", 0.31),
]
"""Three spellings of apple (one key under NOCASE), codes that tie under NOCASE ('x', 'X') and
RTRIM ('x', 'x '), and two shares that are one number summed in two orders (0.1 + 0.2, 0.3)."""


def _sqlite(tmp_path: Path) -> str:
    path = tmp_path / "fruit.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE fruit (id INTEGER, name TEXT COLLATE NOCASE, code TEXT, share REAL)")
    conn.executemany("INSERT INTO fruit VALUES (?, ?, ?, ?)", FRUIT)
    conn.commit()
    conn.close()
    return f"sqlite:///{path}"


def _duckdb(tmp_path: Path) -> str:
    path = tmp_path / "fruit.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE fruit (id INTEGER, name VARCHAR COLLATE NOCASE, code VARCHAR, share DOUBLE)")
    conn.executemany("INSERT INTO fruit VALUES (?, ?, ?, ?)", FRUIT)
    conn.close()
    return f"duckdb:///{path}"


@pytest.fixture(scope="module")
def pg_fruit(postgres) -> str:
    db = postgres.create_database("fruit")
    engine = sa.create_engine(db.owner_url)
    with engine.begin() as conn:
        # PostgreSQL's case-insensitive comparison is a nondeterministic ICU collation.
        conn.exec_driver_sql(
            "CREATE COLLATION nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false)"
        )
        conn.exec_driver_sql(
            "CREATE TABLE fruit (id INTEGER, name TEXT COLLATE nocase, code TEXT, share DOUBLE PRECISION)"
        )
        for row in FRUIT:
            conn.exec_driver_sql("INSERT INTO fruit VALUES (%s, %s, %s, %s)", row)
    engine.dispose()
    return db.owner_url


NOCASE = {"sqlite": "NOCASE", "duckdb": "NOCASE", "postgresql": "nocase"}

DB = ReadOnlySQL()


def _graded(url: str, sql: str, candidate: str, *, ordered: bool = False) -> Comparison:
    """The self-check learns the reference's ties on the database, then the candidate is graded with them."""
    q = Question(id="q", question="?", sql=sql, ordered=ordered)
    check = run_self_check(DB, Corpus((q,), (), ""), {None: [url]})
    assert check.defects == [], check.defects
    return as_graded(q, check.reference["q"][0], DB.run_readonly(candidate, url), (check.ties.get("q") or [None])[0])


@pytest.fixture(params=["sqlite", "duckdb", "postgresql"])
def fruit(request, tmp_path) -> tuple[str, str]:
    engine = request.param
    if engine == "postgresql":
        return engine, request.getfixturevalue("pg_fruit")
    return engine, (_sqlite if engine == "sqlite" else _duckdb)(tmp_path)


def test_a_tie_break_under_the_columns_collation_passes(fruit):
    _, url = fruit
    # The column is case-insensitive: the three apples are one key, and their order is the engine's accident.
    got = _graded(
        url,
        "SELECT name, id FROM fruit ORDER BY name",
        "SELECT name, id FROM fruit ORDER BY name, id DESC",
        ordered=True,
    )
    assert got.match and got.tie_break, got.detail


def test_a_choice_at_the_cut_under_the_columns_collation_passes(fruit):
    _, url = fruit
    got = _graded(
        url, "SELECT id FROM fruit ORDER BY name LIMIT 2", "SELECT id FROM fruit ORDER BY name, id DESC LIMIT 2"
    )
    assert got.match and got.tie_break, got.detail


def test_an_explicit_collation_makes_a_tie(fruit):
    engine, url = fruit
    collate = NOCASE[engine]
    got = _graded(
        url,
        f"SELECT code, id FROM fruit ORDER BY code COLLATE {collate} LIMIT 1",
        f"SELECT code, id FROM fruit ORDER BY code COLLATE {collate}, id DESC LIMIT 1",
    )
    assert got.match and got.tie_break, got.detail


def test_without_a_collation_case_is_not_a_tie(fruit):
    _, url = fruit
    # 'X' sorts before 'x' byte by byte (and in PostgreSQL's default collation the two are not equal):
    # the reference's first row is decided, and another is wrong.
    got = _graded(
        url,
        'SELECT id FROM fruit ORDER BY code COLLATE "C" LIMIT 1'
        if "postgres" in url
        else "SELECT id FROM fruit ORDER BY code LIMIT 1",
        "SELECT 1",
    )
    assert (got.match, got.reason) == (False, VALUE), got.detail


def test_keys_equal_up_to_float_noise_tie(fruit):
    _, url = fruit
    # 0.30000000000000004 and 0.3 are one share; the engine orders them, but another engine (or a sum
    # in another order) would not: either row is the second biggest share.
    got = _graded(
        url,
        "SELECT id FROM fruit ORDER BY share DESC LIMIT 2",
        "SELECT id FROM fruit WHERE id IN (5, 2)",  # the other of the two
    )
    assert got.match and got.tie_break, got.detail


def test_returned_keys_equal_up_to_float_noise_tie(fruit):
    _, url = fruit
    # The key is an output column holding no text, so it is read from the values (no probe): the noise
    # rule alone makes the tie. The candidate puts 0.3's row before 0.30000000000000004's.
    swapped = _graded(
        url,
        "SELECT id, share FROM fruit ORDER BY share DESC",
        "SELECT id, share FROM fruit ORDER BY CASE id WHEN 5 THEN 0 WHEN 2 THEN 1 WHEN 1 THEN 2 ELSE 3 END, share DESC",
        ordered=True,
    )
    assert swapped.match and swapped.tie_break, swapped.detail


def test_keys_that_differ_beyond_noise_keep_their_order(fruit):
    _, url = fruit
    got = _graded(
        url,
        "SELECT id, share FROM fruit ORDER BY share DESC",
        "SELECT id, share FROM fruit ORDER BY share",
        ordered=True,
    )
    assert (got.match, got.reason) == (False, ORDER), got.detail


def test_rtrim_makes_a_tie_on_sqlite(tmp_path):
    url = _sqlite(tmp_path)
    got = _graded(
        url,
        "SELECT id FROM fruit ORDER BY code COLLATE RTRIM DESC LIMIT 3",  # z, y, then x or 'x '
        "SELECT id FROM fruit ORDER BY code COLLATE RTRIM DESC, id DESC LIMIT 3",
    )
    assert got.match and got.tie_break, got.detail


def test_the_tie_groups_are_the_engines_peers(tmp_path):
    url = _sqlite(tmp_path)
    probe = peer_probe("SELECT name, id FROM fruit ORDER BY 1", "sqlite")
    assert probe is not None and probe.keys == 1
    rows = DB.run_readonly(probe.sql, url).rows
    assert [r[:2] for r in rows][3:] == [("banana", 4), ("cherry", 5)]
    assert peer_groups(rows, (2,), (3,)) == [0, 0, 0, 3, 4]  # three apples, one key
    assert peer_groups(rows, (2,), None) == [0, 1, 2, 3, 4]  # Python's equality sees three keys


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_time_spelled_to_the_minute_is_that_time(tmp_path, engine):
    # '10:00' is a time as '2024-01-31 10:00' is a timestamp: a label formatted to the minute on one
    # engine and a TIME on another are one answer.
    url = (_sqlite if engine == "sqlite" else _duckdb)(tmp_path)
    minutes = (
        "strftime('%H:%M', '2024-01-31 10:00:00')"
        if engine == "sqlite"
        else "strftime(TIMESTAMP '2024-01-31 10:00:00', '%H:%M')"
    )
    as_time = "time('10:00:00')" if engine == "sqlite" else "TIME '10:00:00'"
    ref, got = DB.run_readonly(f"SELECT {minutes}", url), DB.run_readonly(f"SELECT {as_time}", url)
    q = Question(id="q", question="?", sql="", shape="scalar")
    assert as_graded(q, ref, got, None).match
    later = DB.run_readonly(f"SELECT {as_time.replace('10:00', '10:01')}", url)
    assert not as_graded(q, ref, later, None).match


def test_the_peers_docstring_examples_run():
    failed, attempted = doctest.testmod(peers)
    assert attempted and not failed
