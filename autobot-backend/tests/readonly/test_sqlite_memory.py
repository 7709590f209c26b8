"""An in-memory SQLite database this process published is read through the read-only executor like a file: writes
refused, its contents replaced between statements seen at the next one; a name never published is missing."""

from __future__ import annotations

import pytest

from services.readonly.execute import ErrorKind, ReadOnlySQL
from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from services.readonly.sqlite_memory import publish, withdraw


def test_a_published_database_is_read_and_never_written() -> None:
    conn, url = publish("/test-readonly-memory-1")
    try:
        conn.execute("CREATE TABLE t (a INTEGER)")
        conn.execute("INSERT INTO t VALUES (1)")
        conn.commit()
        db = ReadOnlySQL(timeout_s=2)
        assert db.run_readonly("SELECT a FROM t", url).rows == [(1,)]
        blocked = db.run_readonly("DELETE FROM t", url)
        assert blocked.error_kind is ErrorKind.GUARD_BLOCKED
        with pytest.raises(ExecutionError, match="read-only"):  # past the guard, the connection refuses
            db.executor(url).execute("INSERT INTO t VALUES (2)")
        conn.execute("DELETE FROM t")  # the writer replaces the contents; the same executor reads them
        conn.execute("INSERT INTO t VALUES (3)")
        conn.commit()
        assert db.run_readonly("SELECT a FROM t", url).rows == [(3,)]
        db.forget(url)
    finally:
        withdraw("/test-readonly-memory-1", conn)


def test_a_statement_on_it_keeps_its_deadline() -> None:
    conn, url = publish("/test-readonly-memory-2")
    try:
        with ReadOnlyExecutor(url, timeout_s=0.3) as ex, pytest.raises(ExecutionError) as caught:
            ex.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
        assert caught.value.kind == "timeout"
    finally:
        withdraw("/test-readonly-memory-2", conn)


def test_a_name_never_published_is_missing() -> None:
    with pytest.raises(ExecutionError) as caught:
        ReadOnlyExecutor("sqlite:////never-published?vfs=memdb")
    assert caught.value.kind == "connect"
    conn, url = publish("/test-readonly-memory-3")
    withdraw("/test-readonly-memory-3", conn)
    with pytest.raises(ExecutionError) as gone:  # withdrawn: missing again
        ReadOnlyExecutor(url)
    assert gone.value.kind == "connect"
