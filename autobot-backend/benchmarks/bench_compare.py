"""Comparing two 1,000,000-row, five-column results, beside the cost of fetching and of iterating them.

Spec section 5 ("Speed") sets the bar: the compare should cost no more than fetching the rows
from SQLite. Both results are fetched from a SQLite file (one table in id order, one shuffled),
so every value is a fresh object as a driver returns it, never a shared one. Columns: int id,
text, float money with cents, ISO date text, int. Times are the best of ``REPEAT`` runs (as
``timeit`` advises: the spread is other processes on a shared machine, not the code). Peak
memory is measured by ``tracemalloc`` in a separate run, because tracing slows allocation down.
"""

from __future__ import annotations

import os
import random
import sqlite3
import tempfile
import tracemalloc
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from benchmarks import best_of
from eval.sql.rows import compare_results

ROWS = int(os.environ.get("BENCH_COMPARE_ROWS", "1000000"))
REPEAT = 3
SEED = 20261129


def _rows(n: int, seed: int) -> list[tuple[Any, ...]]:
    rng = random.Random(seed)
    days = [(date(2022, 1, 1) + timedelta(days=d)).isoformat() for d in range(1096)]
    return [
        (
            i,
            f"customer-{rng.randrange(50_000):05d}",
            rng.randrange(1, 500_000) / 100,
            days[rng.randrange(len(days))],
            rng.randrange(1, 20),
        )
        for i in range(1, n + 1)
    ]


def _write(path: str, rows: list[tuple[Any, ...]], seed: int) -> None:
    shuffled = rows[:]
    random.Random(seed).shuffle(shuffled)
    with sqlite3.connect(path) as db:
        for table, data in (("reference", rows), ("candidate", shuffled)):
            db.execute(f"CREATE TABLE {table} (id INTEGER, name TEXT, amount REAL, day TEXT, qty INTEGER)")
            db.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?)", data)


def _fetch(path: str, table: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(f"SELECT id, name, amount, day, qty FROM {table}").fetchall()


def _peak_mib(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def _iterate_values(rows: list[tuple[Any, ...]]) -> None:
    for row in rows:
        for _ in row:
            pass


def run() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench_compare.sqlite")
        _write(path, _rows(ROWS, SEED), SEED)
        t_fetch, reference = best_of(lambda: _fetch(path, "reference"), REPEAT)
        candidate = _fetch(path, "candidate")
        in_order = _fetch(path, "reference")
    wrong = candidate[:]
    victim = len(wrong) // 2
    row = wrong[victim]
    wrong[victim] = (row[0], row[1], round(row[2] + 0.01, 2), row[3], row[4])

    noisy = [(i, name, amount + 1e-9, day, qty) for i, name, amount, day, qty in candidate]
    cases: list[tuple[str, Callable[[], Any], str, bool]] = [
        ("compare, equal (shuffled)", lambda: compare_results(reference, candidate), "match", True),
        ("compare, one value differs", lambda: compare_results(reference, wrong), "value", True),
        ("compare ordered=True, equal", lambda: compare_results(reference, in_order, ordered=True), "match", True),
        # Every row is a left-over, settled under the tolerance: the slow path, run once and not traced.
        ("compare, float noise in every row", lambda: compare_results(reference, noisy), "match", False),
    ]
    print(f"   rows: {ROWS:,} x 5 columns (int, text, float money, ISO date text, int)")
    print(f"   {'step':34} {'seconds':>8} {'rows/s':>12} {'peak MiB':>9}  {'vs fetch':>8}")
    t_rows, _ = best_of(lambda: [None for _ in reference], REPEAT)
    t_values, _ = best_of(lambda: _iterate_values(reference), REPEAT)
    for label, seconds in (
        ("fetchall from SQLite", t_fetch),
        ("iterate the rows once", t_rows),
        ("iterate every value once", t_values),
    ):
        print(f"   {label:34} {seconds:8.3f} {ROWS / seconds:12,.0f} {'':>9}  {seconds / t_fetch:7.2f}x")
    for label, fn, want, traced in cases:
        seconds, result = best_of(fn, REPEAT if traced else 1)
        got = "match" if result.match else result.reason
        if got != want:
            raise AssertionError(f"{label}: expected {want}, got {got}: {result.detail}")
        peak = f"{_peak_mib(fn):9.1f}" if traced else f"{'-':>9}"
        print(f"   {label:34} {seconds:8.3f} {ROWS / seconds:12,.0f} {peak}  {seconds / t_fetch:7.2f}x")
    print(f"   one-value detail: {compare_results(reference, wrong).detail}")
