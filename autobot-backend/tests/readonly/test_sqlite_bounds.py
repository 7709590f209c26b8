"""SQLite under bounds: a hostile file's statements and its schema inspection end in time, in bounded memory.

The hostile file is 8 KB: its text columns are generated (``VIRTUAL``), computed only when read, so
one SQLite page of small integers becomes gigabytes of text for ``count(DISTINCT ...)``. Peak memory
is measured in a fresh process (:mod:`tests.bounds`); Ctrl-C is a real SIGINT to a real process. A bound
is shown by its effect, never by wall time (:mod:`tests.bounds`): the work done before it stopped (CPU
seconds), the outcome it gave, and where memory is the bound, a statement time limit too long to fire first.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from services.readonly import sqlite_file
from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from services.readonly.sqlite_file import SQLITE_HEAP_LIMIT
from tests.bounds import GB, MB, PATIENCE_S, cpu_seconds, measure, run_python


def hostile(path: Path, rows: int = 200) -> str:
    """An 8 KB file: ``big`` is 40 MB of text a row, ``many`` 4 MB of distinct text a row, ``kind`` is plain."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x INTEGER PRIMARY KEY, kind TEXT)")
    conn.executemany("INSERT INTO t (x, kind) VALUES (?, ?)", [(i, f"k{i % 2}") for i in range(rows)])
    # Added after the rows: an INSERT computes a generated column once, an ALTER does not.
    conn.execute("ALTER TABLE t ADD COLUMN big TEXT GENERATED ALWAYS AS (hex(zeroblob(20000000 + x))) VIRTUAL")
    conn.execute("ALTER TABLE t ADD COLUMN many TEXT GENERATED ALWAYS AS (x || hex(zeroblob(2000000))) VIRTUAL")
    conn.commit()
    conn.close()
    assert path.stat().st_size <= 8192
    return f"sqlite:///{path}"


def test_a_statement_whose_every_step_is_slow_stops_at_its_deadline(tmp_path):
    # Each row computes 40 MB: SQLite's progress handler (every 10,000 instructions) is not called for
    # seconds, so an interrupt from a timer ends it (this took 37 s at a 1 s limit before).
    with ReadOnlyExecutor(hostile(tmp_path / "h.db"), timeout_s=1) as ex:
        worked = cpu_seconds()
        with pytest.raises(ExecutionError) as caught:
            ex.execute("SELECT count(*) FROM t WHERE length(big) > 0")
        assert caught.value.kind == "timeout" and cpu_seconds() - worked < 2.5  # the whole statement is ~37 s
        assert ex.execute("SELECT count(*) FROM t").rows == [(200,)]


def test_a_distinct_over_huge_values_fails_at_the_heap_limit_in_bounded_memory(tmp_path):
    # The time limit is too long to fire first however busy the machine: the heap limit is the bound shown.
    got = measure(hostile(tmp_path / "h.db"), "SELECT count(DISTINCT big) FROM t", timeout_s=PATIENCE_S)
    assert got["kind"] == "row_cap" and "SQLite's heap limit" in got["message"], got
    assert f"({SQLITE_HEAP_LIMIT >> 20} MiB)" in got["message"]
    assert got["cpu_seconds"] < 15 and got["after"] == [[1]]
    assert got["self_rss"] < SQLITE_HEAP_LIMIT + 400 * MB < 1.5 * GB


def test_inspecting_a_hostile_file_ends_at_the_heap_limit_leaves_its_columns_out_and_says_so(tmp_path):
    # At a 5 s statement limit a busy machine left `big` out as "ran past the time limit" (issue 37): which bound
    # fired first was a race. With a limit too long to fire, the heap limit ends each sample, whatever the load.
    got = measure(hostile(tmp_path / "h.db"), "schema", timeout_s=PATIENCE_S)
    schema = got["schema"].splitlines()
    assert "  kind TEXT [values: 'k0', 'k1']" in schema
    assert "  big TEXT [values not sampled: they are too large to sample]" in schema
    assert "  many TEXT [values not sampled: they are too large to sample]" in schema
    assert got["stderr"].count("left out, they are too large to sample") == 2
    assert got["cpu_seconds"] < 2 * 5
    assert got["self_rss"] < 1.5 * GB


SIGINT_DURING = r"""
import os, signal, sys, threading, time
from services.readonly.execute import ReadOnlySQL

url, what = sys.argv[1], sys.argv[2]
service = ReadOnlySQL(timeout_s=float(sys.argv[3]))
service.executor(url)
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
started = time.process_time()  # the work done until it stopped: a statement that went on would show its whole work
try:
    service.schema(url) if what == "schema" else service.run_readonly(what, url)
    print("finished", time.process_time() - started)
except KeyboardInterrupt:
    print("interrupted", time.process_time() - started)
"""


def test_ctrl_c_during_a_statement_is_not_swallowed_by_sqlite(tmp_path):
    # sqlite3 drops an exception raised in the progress handler and fails the statement as "interrupted":
    # without care, Ctrl-C became a "database" error and the run went on.
    endless = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r"
    outcome, seconds = run_python(SIGINT_DURING, hostile(tmp_path / "h.db"), endless, "30").split()
    assert outcome == "interrupted" and float(seconds) < 2


def test_ctrl_c_during_inspection_acts_by_the_statement_deadline(tmp_path):
    # The file took 105 s to heed Ctrl-C; now the sampling statement's deadline bounds it.
    outcome, seconds = run_python(SIGINT_DURING, hostile(tmp_path / "h.db"), "schema", "2").split()
    assert outcome == "interrupted" and float(seconds) < 2 + 1.5


def test_ctrl_c_inside_the_authorizer_is_not_taken_for_a_denial(tmp_path, monkeypatch):
    """A Ctrl-C whose exception is raised inside the authorizer, as a statement is prepared, is swallowed by
    ``sqlite3``, which fails the statement as "not authorized": under load it became a database error and the
    run went on. Where a real signal lands is a race no test can arrange, so the authorizer raises it here, as
    the signal's handler would; a statement the policy denies stays a database error (the control)."""
    real = sqlite_file._authorizer
    raised: list[bool] = []

    def ctrl_c_once(action: int, *args: str | None) -> int:
        if action == sqlite3.SQLITE_SELECT and not raised:
            raised.append(True)
            raise KeyboardInterrupt
        return real(action, *args)

    monkeypatch.setattr(sqlite_file, "_authorizer", ctrl_c_once)
    with ReadOnlyExecutor(hostile(tmp_path / "h.db"), timeout_s=PATIENCE_S) as ex:
        with pytest.raises(KeyboardInterrupt):
            ex.execute("SELECT kind FROM t")
        assert raised and ex.execute("SELECT count(*) FROM t").rows == [(200,)]
        with pytest.raises(ExecutionError) as denied:
            ex.execute("DELETE FROM t")
        assert denied.value.kind == "database" and "not authorized" in denied.value.message
