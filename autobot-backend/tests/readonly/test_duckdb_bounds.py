"""DuckDB under bounds: memory, threads, the result budget while the result is produced, the deadline, inspection.

DuckDB's own ``memory_limit`` does not cover the strings a vector of 2,048 rows holds, so the
executor runs DuckDB in a worker process whose memory the kernel caps
(:mod:`services.readonly.duckdb_process`). Each bound is shown on a hostile statement or file; peak
memory is measured in a fresh process (:mod:`tests.bounds`). A bound is shown by its effect, never by wall
time (:mod:`tests.bounds`): the work done (CPU seconds, the worker's included), the outcome, a worker killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
import sqlalchemy as sa

from services.readonly import duckdb_process
from services.readonly.duckdb_process import GRACE_S, WORKER_MEMORY_BYTES
from services.readonly.execute import ReadOnlySQL
from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from services.readonly.inspection import inspect_read_only
from services.schema_context import inspect_schema
from tests.bounds import BACKEND, GB, MB, PATIENCE_S, as_typed_at_a_terminal, cpu_seconds, measure, run_python
from tests.readonly.test_executor import directory_state

HOSTILE = "SELECT repeat('x', 100000000) FROM range(30)"  # 3 GB in one vector: the statement


def _url(path: Path) -> str:
    return sa.URL.create("duckdb", database=str(path)).render_as_string(hide_password=False)


@pytest.fixture
def small(tmp_path: Path) -> Path:
    folder = tmp_path / "db"
    folder.mkdir()
    path = folder / "small.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute("CREATE TABLE t (i INTEGER, name VARCHAR)")
        conn.execute("INSERT INTO t SELECT i, 'n' || (i % 3) FROM range(100) r(i)")
    return path


def test_the_hostile_statement_ends_in_time_as_too_large_with_bounded_memory(small):
    got = measure(_url(small), HOSTILE, timeout_s=10)
    assert got["kind"] in ("row_cap", "timeout"), got
    assert "memory" in got["message"] or "limit" in got["message"]
    assert got["cpu_seconds"] < 10 + GRACE_S + 2
    assert got["after"] == [[1]], "the database answers the next statement"
    assert got["self_rss"] < 500 * MB, "the executor's own process holds no result"
    assert got["worker_rss"] < WORKER_MEMORY_BYTES + 200 * MB
    assert got["self_rss"] + got["worker_rss"] < 1.5 * GB


def test_control_duckdbs_own_memory_limit_does_not_bound_a_vector_of_large_strings(small):
    # Why a worker process: in process, with memory_limit at 64 MB, 30 strings of 10 MB are built whole.
    script = (
        "import duckdb, sys\n"
        "conn = duckdb.connect(sys.argv[1], read_only=True, config={'memory_limit': '64MB', 'threads': 1})\n"
        "conn.execute(\"SELECT repeat('x', 10000000) FROM range(30)\").fetchmany(1)\n"
        "print(next(int(l.split()[1]) * 1024 for l in open('/proc/self/status') if l.startswith('VmHWM:')))\n"
    )
    assert int(run_python(script, str(small))) > 300 * MB


def test_the_worker_has_its_memory_limit_and_one_thread_and_no_statement_can_change_them(small):
    with ReadOnlyExecutor(_url(small)) as ex:
        settings = ex.execute(
            "SELECT current_setting('memory_limit'), current_setting('threads'), current_setting('temp_directory'),"
            " current_setting('enable_external_access'), current_setting('lock_configuration')"
        ).rows
        assert settings == [("512.0 MiB", 1, "", False, True)]
        for sql in ("SET memory_limit = '10GB'", "SET threads = 8", "RESET memory_limit", "PRAGMA threads = 4",
                    "SET temp_directory = '/tmp'", "SET max_temp_directory_size = '10GB'"):  # fmt: skip
            with pytest.raises(ExecutionError) as caught:
                ex.execute(sql)
            assert caught.value.kind == "database" and "configuration" in caught.value.message, sql
        assert ex.execute("SELECT current_setting('memory_limit')").rows == [("512.0 MiB",)]


def test_the_byte_budget_stops_a_long_result_while_it_streams(small):
    sql = "SELECT repeat('x', 1000) FROM range(1000000)"  # 1 GB in all, in rows of 1 KB
    with ReadOnlyExecutor(_url(small), row_cap=2_000_000, max_result_bytes=5_000_000, timeout_s=PATIENCE_S) as ex:
        worker = duckdb_process.worker_pid()
        assert worker is not None
        worked = cpu_seconds() + cpu_seconds(worker)
        with pytest.raises(ExecutionError) as caught:
            ex.execute(sql)
        assert caught.value.kind == "row_cap" and "larger than 5,000,000 bytes" in caught.value.message
        assert cpu_seconds() + cpu_seconds(worker) - worked < 5  # the work of 5 MB, not of the whole 1 GB
        hwm = _peak_rss(duckdb_process.worker_pid())
    assert hwm < 400 * MB, "the worker stopped reading at the budget, not after the whole result"


def _peak_rss(pid: int | None) -> int:
    assert pid is not None
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def test_a_worker_that_does_not_answer_by_the_deadline_is_killed_and_replaced(small):
    with ReadOnlyExecutor(_url(small), timeout_s=0.5) as ex:
        stuck = duckdb_process.worker_pid()
        assert stuck is not None
        os.kill(stuck, signal.SIGSTOP)  # it can neither interrupt its statement nor answer
        started = time.monotonic()
        with pytest.raises(ExecutionError) as caught:
            ex.execute("SELECT count(*) FROM t")
        took = time.monotonic() - started
        assert caught.value.kind == "timeout" and "0.5 s limit" in caught.value.message
        assert took >= 0.5  # it waited the limit out (a busy machine only makes that longer); it came back at all
        with pytest.raises(ProcessLookupError):
            os.kill(stuck, 0)  # killed and reaped
        assert ex.execute("SELECT count(*) FROM t").rows == [(100,)]  # a new worker, the file opened again
        assert duckdb_process.worker_pid() not in (None, stuck)


def test_a_statement_that_would_spill_fails_and_leaves_no_file_beside_the_database(small):
    before = directory_state(small.parent)
    with ReadOnlyExecutor(_url(small), timeout_s=60) as ex, pytest.raises(ExecutionError) as caught:
        ex.execute("SELECT count(*) FROM (SELECT DISTINCT i::VARCHAR || 'x' FROM range(40000000) r(i))")
    assert caught.value.kind == "row_cap" and "memory" in caught.value.message
    assert directory_state(small.parent) == before  # no small.duckdb.tmp/


WORKER_LIFETIME = r"""
import os, sys
from services.readonly import duckdb_process
from services.readonly.executor import ReadOnlyExecutor

assert duckdb_process.worker_pid() is None
first = ReadOnlyExecutor(sys.argv[1], timeout_s=float(sys.argv[3]))
second = ReadOnlyExecutor(sys.argv[2], timeout_s=float(sys.argv[3]))
pid = duckdb_process.worker_pid()
first.close()
print(duckdb_process.worker_pid() == pid, second.execute("SELECT 1").rows == [(1,)])
second.close()
try:
    os.kill(pid or 0, 0)
    print(duckdb_process.worker_pid(), "alive")
except ProcessLookupError:
    print(duckdb_process.worker_pid(), "gone")
"""


def test_the_worker_starts_with_the_first_duckdb_database_and_stops_with_the_last(small, tmp_path):
    """In a process of its own: the worker is one per process, and another test's database still open in this
    one (a fixture kept for the session, or the test order of a parallel run) would keep it running."""
    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).close()
    # no limit under test: none a busy machine hits
    said = run_python(WORKER_LIFETIME, _url(small), _url(other), str(PATIENCE_S)).split()
    assert said == ["True", "True", "None", "gone"]


def test_ctrl_c_while_waiting_for_the_worker_stops_it_and_reaches_the_caller(small):
    script = (
        "import os, signal, sys, threading, time\n"
        "from services.readonly import duckdb_process\n"
        "from services.readonly.executor import ReadOnlyExecutor\n"
        "ex = ReadOnlyExecutor(sys.argv[1], timeout_s=30)\n"
        "pid = duckdb_process.worker_pid()\n"
        "threading.Timer(1, os.kill, (os.getpid(), signal.SIGINT)).start()\n"
        "try:\n"
        "    ex.execute('SELECT count(*) FROM range(1000000000000) a')\n"
        "    print('finished')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', duckdb_process.worker_pid(), os.path.exists(f'/proc/{pid}'))\n"
        "except Exception as exc:\n"
        "    print('failed', type(exc).__name__, getattr(exc, 'kind', ''), repr(str(exc))[:300])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, _url(small)],
        cwd=BACKEND,
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
        preexec_fn=as_typed_at_a_terminal,
    )
    # Interrupted, not ended by its 30 s limit (a timeout error): Ctrl-C reached the caller while it waited.
    assert done.stdout.split() == ["interrupted", "None", "False"], done.stdout + done.stderr


def test_a_hostile_duckdb_file_is_inspected_in_time_and_the_column_left_out_says_why(tmp_path):
    path = tmp_path / "hostile.duckdb"
    run_python(  # in a process of its own: DuckDB computes the generated column once as it inserts (2 GB)
        "import duckdb, sys\n"
        "with duckdb.connect(sys.argv[1]) as conn:\n"
        '    conn.execute("CREATE TABLE t (x INTEGER, name VARCHAR, big VARCHAR GENERATED ALWAYS AS"\n'
        "                 \" (repeat('xxxxxxxxxxxxxxxxxxxx', 1000000 + x)) VIRTUAL)\")\n"
        "    conn.execute(\"INSERT INTO t (x, name) SELECT i, 'n' || (i % 3) FROM range(100) r(i)\")\n",
        str(path),
    )
    got = measure(_url(path), "schema", timeout_s=PATIENCE_S)  # the worker's memory cap is the bound, not time
    assert "name VARCHAR [values: 'n0', 'n1', 'n2']" in got["schema"]
    assert "big VARCHAR [values not sampled: they are too large to sample]" in got["schema"]
    assert "schema inspection of" in got["stderr"] and "left out" in got["stderr"]
    assert got["cpu_seconds"] < 2 * 5 + 2 * GRACE_S
    assert got["self_rss"] + got["worker_rss"] < 1.5 * GB


def test_bounded_inspection_reads_what_the_trusted_one_reads(tmp_path):
    from eval.sql.engines.setup import DuckDBHost
    from eval.sql.fixtures.seeded import FIXTURES, write

    DuckDBHost(tmp_path).build_rotations(FIXTURES["retail"], 0, 1)
    duck_url, lite_url = _url(tmp_path / "retail-seed0.duckdb"), write(tmp_path / "r.db", "retail", 0)
    for url, args in ((duck_url, {"read_only": True}), (lite_url, {})):
        trusted = sa.create_engine(url, connect_args=args)
        try:
            with ReadOnlyExecutor(url) as ex:
                assert inspect_read_only(ex) == inspect_schema(trusted)
                assert inspect_read_only(ex, sample_values=False) == inspect_schema(trusted, sample_values=False)
        finally:
            trusted.dispose()
    with ReadOnlySQL() as service:
        assert service.schema(duck_url).table("orders") is not None
