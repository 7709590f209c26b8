"""The byte budget counted a column of a batch at a time (issue 27 point 1): the same count as one call per value,
and still a stop, on a real SQLite file, where a column's values change kind from row to row."""

from __future__ import annotations

import sqlite3
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.readonly.budget import FETCH_BATCH, batch_bytes, value_bytes
from services.readonly.executor import ExecutionError, ReadOnlyExecutor

VALUES = st.one_of(
    st.none(),
    st.integers(),
    st.floats(allow_nan=True),
    st.booleans(),
    st.text(max_size=20),
    st.binary(max_size=20),
    st.decimals(allow_nan=False, allow_infinity=False, places=2),
    st.dates(),
)


def one_call_per_value(batch: list[tuple[object, ...]]) -> int:
    return sum(value_bytes(v) for row in batch for v in row)


@given(st.integers(1, 4).flatmap(lambda width: st.lists(st.tuples(*[VALUES] * width), max_size=30)))
def test_the_batch_count_is_the_per_value_count(batch):
    assert batch_bytes(batch) == one_call_per_value(batch)


@pytest.mark.parametrize(
    "column",
    [
        ["ab", "cde", ""],  # text alone
        [b"xy", b"", b"zzz"],  # bytes alone
        [1, 2.5, True, Decimal("3.10")],  # numbers alone
        [1, None, 3],  # None is 0 bytes
        ["ab", None, "c"],
        [1, "long text", 2],  # kinds change within a column: SQLite's typing is per value
        [date(2024, 1, 1), 1],
        [bytearray(b"abc"), memoryview(b"de")],
        [float("nan"), Decimal("NaN")],
    ],
)
def test_every_column_kind_counts_as_value_bytes(column):
    batch = [(v, i) for i, v in enumerate(column)]
    assert batch_bytes(batch) == one_call_per_value(batch)


def test_a_big_value_after_a_batch_of_numbers_still_stops_the_fetch(tmp_path: Path):
    """A column of integers for more than a batch, then a long string in it: counted, and past the budget."""
    path = tmp_path / "mixed.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (id INTEGER, v)")
        conn.executemany("INSERT INTO t VALUES (?, ?)", [(i, i) for i in range(FETCH_BATCH * 2)])
        conn.execute("INSERT INTO t VALUES (?, ?)", (-1, "x" * 200_000))
    conn.close()
    url = f"sqlite:///{path}"
    with ReadOnlyExecutor(url, max_result_bytes=100_000) as ex, pytest.raises(ExecutionError) as caught:
        ex.execute("SELECT id, v FROM t ORDER BY rowid")
    assert caught.value.kind == "row_cap" and "result budget" in caught.value.message
    with ReadOnlyExecutor(url, max_result_bytes=300_000) as ex:
        rows = ex.execute("SELECT id, v FROM t ORDER BY rowid").rows
    assert len(rows) == FETCH_BATCH * 2 + 1 and type(rows[0]) is tuple and rows[-1] == (-1, "x" * 200_000)


@given(st.integers(1, 4).flatmap(lambda width: st.lists(st.tuples(*[VALUES] * width), min_size=1, max_size=30)))
def test_the_count_hands_over_each_columns_types(batch):
    """Issue 40: the types the count reads are each column's own (a column of text alone: str), for the grader's
    comparison and lints, which would otherwise read every value again."""
    kinds: list[set[type]] = [set() for _ in batch[0]]
    assert batch_bytes(batch, kinds) == one_call_per_value(batch)
    for col, seen in enumerate(kinds):
        assert seen == {type(row[col]) for row in batch}


def test_a_fetch_keeps_its_columns_types(tmp_path: Path):
    path = tmp_path / "k.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (a INTEGER, b TEXT, c REAL, d)")
        conn.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [(1, "x", 1.5, None), (2, "y", 2.5, "z")])
    executor = ReadOnlyExecutor(f"sqlite:///{path}")
    try:
        got = executor.execute("SELECT a, b, c, d FROM t")
    finally:
        executor.close()
    assert got.kinds == (frozenset({int}), frozenset({str}), frozenset({float}), frozenset({type(None), str}))
