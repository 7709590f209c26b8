"""SQLite neighbours written in memory: graded files of different page sizes, written in turn in one process, each
read back through the read-only executor as that file edited (a refilled table keeps its row ids)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from eval.sql.counterexample.data import Working, read_base
from eval.sql.counterexample.edits import Keep, Put
from eval.sql.counterexample.memory_writer import MemoryWriter
from eval.sql.counterexample.writing import FileWriter
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


def test_a_refilled_table_reads_as_the_file_edited_row_by_row(tmp_path: Path) -> None:
    """A table that loses most of its rows is refilled from the graded copy with the rows it keeps; a kept row
    rewritten in place, one moved to another key and one added all land as the file writer's deletes leave them."""
    base = read_base(_graded(tmp_path / "c.db", 4096, [f"p{n}" for n in range(1, 13)]))
    w = Working(base)
    w.delete("people", range(2, 11))  # 9 of the 12 rows go: the refill's path
    w.put("people", 0, (1, "renamed"))  # kept, rewritten in place
    w.put("people", 1, (40, "p2"))  # kept, under another key: deleted and written again
    w.add("people", (41, "new"))
    assert 2 * len(w.removed["people"]) > len(base.rows["people"])
    memory, files, db = MemoryWriter(tmp_path), FileWriter(tmp_path / "files"), ReadOnlySQL(timeout_s=5)
    try:
        query = "SELECT id, name FROM people ORDER BY id"
        refilled = db.run_readonly(query, memory.write(w))
        row_by_row = db.run_readonly(query, files.write(w))
        assert refilled.rows == row_by_row.rows == [(1, "renamed"), (12, "p12"), (40, "p2"), (41, "new")]
    finally:
        db.close()
        memory.close()
