"""The files one workload of ``make bench ARGS=peers`` is graded from, laid out as each grader reads them.

The table (SQLite, ``N`` rows x 5 columns: an integer id, a name, an ISO date as text, as SQLite databases
usually store dates, an integer and a real) is built once per size, under ``DIR/t/t.sqlite``: Spider's layout
(``DIR/NAME/NAME.sqlite``), which this project's ``--db-dir`` and the test-suite grader read (it grades on
every ``.sqlite`` file in that folder), with ``t.db`` beside it for defog's ``path_to_folder`` layout.

Each workload is one question as a Spider-shaped benchmark gives it: ``dev.json`` (the question and its
database), ``gold.sql`` (``SQL<TAB>db_id``) and ``pred.sql`` (the answer, one line): the files the project's
import reads and the test-suite's evaluator reads.
"""

from __future__ import annotations

import datetime
import json
import random
import sqlite3
from dataclasses import dataclass
from pathlib import Path

DB = "t"
QUESTION = "List every row of t: its id, name, day, quantity and price."
SHUFFLE = "ORDER BY (id * 2654435761) % 4294967296"
DUPS = "substr(day, 1, 7), qty % 3, CAST(price AS INTEGER) % 4, 'x', 1"
"""Many duplicates: a month (text a digit begins), two small numbers and two constants."""


@dataclass(frozen=True)
class Workload:
    name: str
    ref: str
    cand: str
    ordered: bool
    right: bool
    """Whether the candidate is the reference's answer."""
    twin: str | None = None
    """For a wrong answer, the right one of the same size and shape it is timed against."""
    defog_differs: str | None = None
    """Why defog's verdict is not the workload's, by its own published semantics (None: it agrees)."""


WORKLOADS = (
    Workload("equal, shuffled", "SELECT * FROM t", f"SELECT * FROM t {SHUFFLE}", False, True),
    Workload(
        "one value differs",
        "SELECT * FROM t",
        f"SELECT id, name, day, CASE WHEN id = 777 THEN -1 ELSE qty END, price FROM t {SHUFFLE}",
        False,
        False,
        "equal, shuffled",
    ),
    Workload("ordered", "SELECT * FROM t ORDER BY id", "SELECT * FROM t ORDER BY id", True, True),
    Workload("many duplicates", f"SELECT {DUPS} FROM t", f"SELECT {DUPS} FROM t {SHUFFLE}", False, True),
    Workload(
        "duplicate counts differ",
        f"SELECT {DUPS} FROM t",
        f"SELECT {DUPS} FROM t WHERE id <> 5 UNION ALL SELECT {DUPS} FROM t WHERE id = 6",
        False,
        False,
        "many duplicates",
        "defog drops duplicate rows before it compares (normalize_table): results that differ only in "
        "duplicate counts are a match to it",
    ),
)


def build(folder: Path, rows: int) -> Path:
    """``folder/t/t.sqlite`` of ``rows`` rows (seeded by the size), and ``t.db`` beside it; the databases folder."""
    where = folder / DB
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{DB}.sqlite"
    rng = random.Random(rows)
    first = datetime.date(2020, 1, 1)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (id INTEGER, name TEXT, day TEXT, qty INTEGER, price REAL)")
        conn.executemany(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?)",
            (
                (
                    i,
                    f"customer-{rng.randrange(50_000):05d}",
                    (first + datetime.timedelta(days=rng.randrange(1500))).isoformat(),
                    rng.randrange(1, 20),
                    rng.randrange(1, 500_000) / 100,
                )
                for i in range(rows)
            ),
        )
    conn.close()
    (where / f"{DB}.db").symlink_to(path.name)
    return folder


def benchmark_files(folder: Path, w: Workload) -> Path:
    """``dev.json``, ``gold.sql`` and ``pred.sql`` of one workload, in ``folder`` (made); the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dev.json").write_text(json.dumps([{"db_id": DB, "question": QUESTION, "query": w.ref}]))
    (folder / "gold.sql").write_text(f"{w.ref}\t{DB}\n")
    (folder / "pred.sql").write_text(f"{w.cand}\n")
    return folder
