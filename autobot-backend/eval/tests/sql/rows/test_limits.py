"""One limit per mechanism, shared by the self-check and the grader, and a search that gives up is
``undecided`` (the question unmeasured), never silently ``wrong``: the tie group at a LIMIT cut, and
the column-order search, which is complete for any width."""

from __future__ import annotations

import sqlite3
from itertools import permutations
from pathlib import Path

import duckdb
import pytest

from eval.core.runner import Replay
from eval.sql.corpus.questions import Corpus, Question
from eval.sql.grading.grade import Grader, as_graded
from eval.sql.model.outcome import Verdict
from eval.sql.oracle import lints
from eval.sql.oracle.selfcheck import TIES, run_self_check
from eval.sql.rows import (
    COLUMN_ORDER,
    MAX_TIED_ROWS,
    UNDECIDED,
    VALUE,
    Ties,
    _columns,
    compare_results,
    compare_with_ties,
)
from services.nl_database_service import Answer
from services.readonly.execute import ReadOnlySQL

DB = ReadOnlySQL()


def _database(tmp_path: Path, engine: str, ddl: str, rows: list[tuple], name: str = "t") -> str:
    marks = ", ".join("?" * len(rows[0]))
    if engine == "sqlite":
        path = tmp_path / f"{name}.sqlite"
        conn = sqlite3.connect(path)
        conn.execute(ddl)
        conn.executemany(f"INSERT INTO {name} VALUES ({marks})", rows)
        conn.commit()
        conn.close()
        return f"sqlite:///{path}"
    path = tmp_path / f"{name}.duckdb"
    ddb = duckdb.connect(str(path))
    ddb.execute(ddl)
    # One statement: DuckDB's executemany runs one statement per row, slowly.
    ddb.execute(f"INSERT INTO {name} VALUES " + ", ".join(map(repr, rows)).replace(",)", ")"))
    ddb.close()
    return f"duckdb:///{path}"


def _check(url: str, q: Question):
    return run_self_check(DB, Corpus((q,), (), ""), {None: [url]})


def test_the_self_check_and_the_grader_share_the_tie_limit():
    # The lints keep a copy of the number until they import it; the two must never drift apart.
    assert lints.MAX_TIED == MAX_TIED_ROWS


# --- the tie group at a LIMIT cut ----------------------------------------------------------------

# 6,000 rows tie on the score at LIMIT 2,000: 2,000 x 6,000 = 12,000,000 row pairs, three times the
# 4,000,000 the grader once weighed (it then called a valid choice `wrong` while the self-check,
# which allows 10,000 tied rows, had accepted the reference).
TIED = [(i, 1 if i < 6000 else 2) for i in range(6100)]


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_choice_in_a_tie_group_the_self_check_accepts_is_weighed_by_the_grader(tmp_path, engine):
    url = _database(tmp_path, engine, "CREATE TABLE t (id INTEGER, score INTEGER)", TIED)
    q = Question(id="q", question="?", sql="SELECT id FROM t ORDER BY score DESC LIMIT 2000")
    check = _check(url, q)
    assert check.defects == []
    (tie,) = check.ties["q"]
    assert len(tie.cut) == 6000
    other = DB.run_readonly("SELECT id FROM t ORDER BY score DESC, id DESC LIMIT 2000", url)
    got = as_graded(q, check.reference["q"][0], other, tie)
    assert got.match and got.tie_break, got.detail
    outsider = DB.run_readonly("SELECT id FROM t WHERE id < 1999 OR id = 6000", url)  # drops a 2-score row
    assert as_graded(q, check.reference["q"][0], outsider, tie).reason == VALUE


def test_a_tie_group_past_the_limit_is_an_oracle_defect(tmp_path):
    rows = [(i, 1) for i in range(MAX_TIED_ROWS + 1)]
    url = _database(tmp_path, "sqlite", "CREATE TABLE t (id INTEGER, score INTEGER)", rows)
    q = Question(id="q", question="?", sql="SELECT id FROM t ORDER BY score LIMIT 3")
    (defect,) = _check(url, q).defects
    assert defect.kind == TIES and "LIMIT 3" in defect.detail


def test_ties_past_the_limit_that_reach_the_grader_are_undecided_and_the_question_unmeasured(tmp_path):
    url = _database(tmp_path, "sqlite", "CREATE TABLE t (id INTEGER)", [(i,) for i in range(3)])
    q = Question(id="q", question="?", sql="SELECT id FROM t ORDER BY id LIMIT 1")
    ties = Ties((1,), cut=tuple((i,) for i in range(MAX_TIED_ROWS + 1)))
    got = compare_with_ties([(0,)], [(1,)], ties)
    assert (got.match, got.reason) == (False, UNDECIDED) and f"{MAX_TIED_ROWS:,}" in got.detail
    ref = DB.run_readonly(q.sql or "", url)
    answer = DB.run_readonly("SELECT 1", url)
    outcome = Grader(DB, {None: [url]}, {"q": [ref]}, {"q": [ties]}).grade(q, Replay(q, _answer(q, answer)))
    assert (outcome.verdict, outcome.reason) == (Verdict.UNMEASURED, "undecided"), outcome.detail


def _answer(q: Question, execution) -> Answer:
    return Answer(
        question=q.question,
        db_id="d",
        user_id=None,
        status="ok",
        error_kind=None,
        reason=None,
        sql=execution.sql,
        generator="g",
        model="m",
        received="t",
        elapsed_ms=1.0,
        execution=execution,
    )


# --- the column-order search ---------------------------------------------------------------------

WIDTH = 6
LATIN = [
    (0, 1, 2, 3, 4, 5),
    (1, 3, 5, 0, 2, 4),
    (2, 0, 4, 5, 3, 1),
    (3, 5, 1, 4, 0, 2),
    (4, 2, 0, 1, 5, 3),
    (5, 4, 3, 2, 1, 0),
]
"""A Latin square: every column holds the same six values, so every column fits every other on its
own, and only the columns' true order rebuilds the rows. The candidate returns them reversed."""


def _valid(rows: list[tuple[int, ...]], actual: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    return [
        p for p in permutations(range(len(rows[0]))) if sorted(tuple(r[j] for j in p) for r in actual) == sorted(rows)
    ]


def test_the_latin_square_needs_a_late_permutation():
    # The old search verified 24 permutations in lexicographic order; the only valid one is the 720th.
    reversed_rows = [row[::-1] for row in LATIN]
    assert _valid(LATIN, reversed_rows) == [tuple(reversed(range(WIDTH)))]
    assert list(permutations(range(WIDTH))).index(tuple(reversed(range(WIDTH)))) == 719


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_permutation_of_columns_holding_the_same_values_is_found(tmp_path, engine):
    columns = ", ".join(f"c{i} INTEGER" for i in range(WIDTH))
    url = _database(tmp_path, engine, f"CREATE TABLE t ({columns})", LATIN)
    ref = DB.run_readonly(f"SELECT {', '.join(f'c{i}' for i in range(WIDTH))} FROM t", url)
    got = DB.run_readonly(f"SELECT {', '.join(f'c{i}' for i in reversed(range(WIDTH)))} FROM t", url)
    q = Question(id="q", question="?", sql="", column_order="any")
    graded = as_graded(q, ref, got, None)
    assert (graded.match, graded.column_permutation) == (True, tuple(reversed(range(WIDTH)))), graded.detail
    positional = compare_results(ref.rows, got.rows)
    assert (positional.reason, positional.column_permutation) == (COLUMN_ORDER, tuple(reversed(range(WIDTH))))


def test_the_search_agrees_with_trying_every_permutation():
    # Small cases where many columns fit alone: the search finds a permutation exactly when one exists.
    import random

    rng = random.Random(4)
    found = 0
    for _ in range(150):
        width = rng.randint(2, 5)
        rows = [tuple(rng.randint(0, 2) for _ in range(width)) for _ in range(rng.randint(1, 5))]
        perm = list(range(width))
        rng.shuffle(perm)
        actual = [tuple(row[j] for j in perm) for row in rows]
        if rng.random() < 0.4:
            i = rng.randrange(len(actual))
            actual[i] = tuple(rng.randint(0, 2) for _ in range(width))
        rng.shuffle(actual)
        brute = any(
            sorted(tuple(row[j] for j in p) for row in actual) == sorted(rows)
            for p in permutations(range(width))
            if p != tuple(range(width))
        )
        got = compare_results(rows, actual, column_order="any")
        if got.match and got.column_permutation is None:
            continue  # the identity matched: no search
        assert (got.column_permutation is not None) is brute, (rows, actual, got.detail)
        found += brute
    assert found > 30


def test_a_wide_result_is_searched_completely():
    # Sixty columns, half of them identical: the reversed order is found, without trying 60! orders.
    width = 60
    rows = [tuple((r * (c % 30 + 1)) % 7 for c in range(width)) for r in range(20)]
    actual = [tuple(reversed(row)) for row in rows]
    got = compare_results(rows, actual, column_order="any")
    assert got.match and got.column_permutation is not None
    assert sorted(tuple(row[j] for j in got.column_permutation) for row in actual) == sorted(rows)


def test_a_search_that_gives_up_is_undecided_under_any_order_and_value_by_position(monkeypatch):
    monkeypatch.setattr(_columns, "SEARCH_CELLS", 120)
    reversed_rows = [row[::-1] for row in LATIN]
    got = compare_results(LATIN, reversed_rows, column_order="any")
    assert (got.match, got.reason) == (False, UNDECIDED) and "gave up" in got.detail
    assert compare_results(LATIN, reversed_rows).reason == VALUE  # wrong by position whatever the search
    broken = [(9, 9, 9, 9, 9, 9)] + reversed_rows[1:]
    assert compare_results(LATIN, broken, column_order="any").reason == VALUE  # no column holds 9: refuted
