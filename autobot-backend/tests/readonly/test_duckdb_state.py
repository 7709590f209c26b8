"""DuckDB statements leave nothing behind (issue 38, point 4).

With the guard bypassed (the read-only executor called directly), a statement that makes a ``TEMP``
view, table, sequence or macro, sets a variable, prepares a statement, changes ``search_path`` or opens a
transaction ran on the worker's one connection, and every later statement of the process saw it: a TEMP
VIEW shadowed a real table, a TEMP MACRO replaced ``upper()``. Each statement now runs in a session of its
own. Each case: the probe's answer on a fresh executor, then the statement and the probe on one executor
(the same worker and database) give the same answer; the control shows the statement does leave its
state behind in one ordinary session. And a worker whose parent was killed ends without a word (issue 38
point 6: it printed a ``BrokenPipeError`` traceback).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from tests.readonly.test_duckdb import _url, retail_duckdb  # noqa: F401  # the fixture

# (id, a statement that leaves state in its session, a probe that sees it)
LEAVES = (
    ("temp_view_shadows_a_table", "CREATE TEMP VIEW products AS SELECT 1 AS x", "SELECT COUNT(*) FROM products"),
    ("temp_macro_replaces_upper", "CREATE TEMP MACRO upper(x) AS 'pwned'", "SELECT upper('a')"),
    ("temp_table", "CREATE TEMP TABLE t AS SELECT 7 AS y", "SELECT COUNT(*) FROM duckdb_tables() WHERE temporary"),
    ("temp_sequence", "CREATE TEMP SEQUENCE s", "SELECT COUNT(*) FROM duckdb_sequences()"),
    ("temp_function", "CREATE TEMP FUNCTION f(x) AS x + 1", "SELECT COUNT(*) FROM duckdb_functions() WHERE NOT internal"),  # noqa: E501
    ("variable", "SET VARIABLE v = 42", "SELECT getvariable('v')"),
    ("prepared_statement", "PREPARE p AS SELECT 99", "SELECT COUNT(*) FROM duckdb_prepared_statements()"),
    ("search_path_setting", "SET search_path = 'temp'", "SELECT current_setting('search_path')"),
    ("open_transaction", "BEGIN TRANSACTION", "BEGIN TRANSACTION"),  # a second BEGIN inside one is an error
)  # fmt: skip


def _answer(ex: ReadOnlyExecutor, sql: str) -> object:
    try:
        return ex.execute(sql).rows
    except ExecutionError as exc:
        return f"{exc.kind}: {exc.message}"


@pytest.mark.parametrize(("case", "statement", "probe"), LEAVES, ids=[c for c, _, _ in LEAVES])
def test_a_statement_leaves_nothing_a_later_one_sees(case, statement, probe, retail_duckdb: Path) -> None:  # noqa: F811
    with ReadOnlyExecutor(_url(retail_duckdb), timeout_s=5) as fresh:
        clean = _answer(fresh, probe)
    with ReadOnlyExecutor(_url(retail_duckdb), timeout_s=5) as ex:
        ex.execute(statement)  # the guard would decline it; bypassed, it runs
        assert _answer(ex, probe) == clean
        assert _answer(ex, probe) == clean, "and on the statement after that"


@pytest.mark.parametrize(("case", "statement", "probe"), LEAVES, ids=[c for c, _, _ in LEAVES])
def test_control_in_one_session_the_statement_leaves_its_state(case, statement, probe, retail_duckdb: Path) -> None:  # noqa: F811
    def answer(session: duckdb.DuckDBPyConnection) -> object:
        try:
            return session.execute(probe).fetchall()
        except duckdb.Error as exc:
            return str(exc)

    fresh = duckdb.connect(str(retail_duckdb), read_only=True)
    clean = answer(fresh)
    fresh.close()
    session = duckdb.connect(str(retail_duckdb), read_only=True)
    session.execute(statement)
    assert answer(session) != clean
    session.close()


def test_the_settings_stay_locked_for_every_session(retail_duckdb: Path) -> None:  # noqa: F811
    """The read-only settings are the database's, global: a later session still has them, and may not change
    them."""
    with ReadOnlyExecutor(_url(retail_duckdb), timeout_s=5) as ex:
        for _ in range(2):
            assert ex.execute("SELECT current_setting('enable_external_access')").rows == [(False,)]
            with pytest.raises(ExecutionError, match="locked"):
                ex.execute("SET threads = 4")


PARENT = """
import sys
sys.path.insert(0, sys.argv[2])
import sqlalchemy as sa
from services.readonly.duckdb_process import worker_pid
from services.readonly.executor import ReadOnlyExecutor
ex = ReadOnlyExecutor(sa.URL.create("duckdb", database=sys.argv[1]).render_as_string(hide_password=False), timeout_s=5)
ex.execute("SELECT 1")
print(worker_pid(), flush=True)
ex.execute("SELECT SUM(hash(i)) FROM range(3000000000) t(i)")
"""


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads a process's CPU time from /proc")
def test_a_worker_whose_parent_was_killed_ends_without_a_traceback(retail_duckdb: Path) -> None:  # noqa: F811
    """SIGKILL of the process using the worker while a statement runs: the worker finishes the statement, finds
    nobody to answer (a broken pipe) and ends, printing nothing (it printed a BrokenPipeError traceback)."""
    with subprocess.Popen(
        [sys.executable, "-c", PARENT, str(retail_duckdb), str(Path(__file__).resolve().parents[2])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as parent:
        assert parent.stdout is not None and parent.stderr is not None
        worker = int(parent.stdout.readline())
        idle = _cpu_seconds(worker)
        while _cpu_seconds(worker) < idle + 0.3:  # the statement is running in the worker (CPU, not wall time)
            assert parent.poll() is None, parent.stderr.read()
            time.sleep(0.05)
        parent.kill()
        parent.wait()
        stderr = parent.stderr.read()  # the worker holds the pipe too: this reads until it lets go of it, ending
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
