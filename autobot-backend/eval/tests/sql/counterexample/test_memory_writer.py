"""SQLite neighbours written in memory: graded files of different page sizes, written in turn in one process, each
read back through the read-only executor as that file edited (a refilled table keeps its row ids)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from eval.sql.counterexample.data import Working, read_base
from eval.sql.counterexample.edits import Keep, Put
from eval.sql.counterexample.memory_writer import MemoryWriter
from services.readonly.execute import ReadOnlySQL


def _graded(path: Path, page_size: int, names: list[str]) -> str:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA page_size = {page_size}")
    conn.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    conn.executemany("INSERT INTO people (id, name) VALUES (?, ?)", list(enumerate(names, 1)))
    conn.commit()
    conn.close()
    return f"sqlite:///{path}"


def test_neighbours_of_files_with_other_page_sizes_are_each_written(tmp_path: Path) -> None:
    small = read_base(_graded(tmp_path / "a.db", 1024, ["ann", "bob", "cy"]))
    large = read_base(_graded(tmp_path / "b.db", 8192, ["dee", "eve"]))
    writer, db = MemoryWriter(tmp_path), ReadOnlySQL(timeout_s=5)
    try:
        for base, edit, expected in (
            (small, Put("people", 1, 0, "zed"), [(1, "zed"), (2, "bob"), (3, "cy")]),
            (large, Keep("people", frozenset({1})), [(2, "eve")]),  # refilled: most rows go
            (small, Keep("people", frozenset({2})), [(3, "cy")]),
            (large, Put("people", 1, 1, "fay"), [(1, "dee"), (2, "fay")]),
        ):
            w = Working(base)
            edit.apply(w)
            url = writer.write(w)
            got = db.run_readonly("SELECT rowid, name FROM people ORDER BY rowid", url)
            assert got.rows == expected, (base.url, edit, got)
    finally:
        db.close()
        writer.close()
