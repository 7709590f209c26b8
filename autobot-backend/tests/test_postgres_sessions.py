"""PostgreSQL sessions behind the executor: nothing a statement took outlives it, results are bounded in bytes.

The guard refuses advisory locks; these statements go to the executor directly, as SQL that got past
a guard would.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from tests.pg_server import PgDatabase, PgServer


@pytest.fixture(scope="module")
def scratch(postgres: PgServer) -> Iterator[PgDatabase]:
    db = postgres.create_database("sessions")
    postgres.admin("CREATE TABLE words (w text)", "sessions")
    postgres.admin("INSERT INTO words SELECT repeat('x', 500) FROM generate_series(1, 200)", "sessions")
    postgres.admin("GRANT SELECT ON words TO eval_reader", "sessions")
    yield db
    postgres.drop_database("sessions")


def _other_session_can_lock(postgres: PgServer, key: int) -> bool:
    with psycopg.connect(postgres.dsn(PgServer.OWNER, "sessions"), autocommit=True) as conn:
        (got,) = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone() or (False,)
        conn.execute("SELECT pg_advisory_unlock_all()")
        return bool(got)


def test_an_advisory_lock_a_statement_took_is_released_before_the_connection_is_reused(postgres, scratch):
    with ReadOnlyExecutor(scratch.reader_url) as ex:
        assert ex.execute("SELECT pg_advisory_lock(4242)").rows == [("",)]
        assert _other_session_can_lock(postgres, 4242), "the pooled session still holds the lock"
        with pytest.raises(ExecutionError):
            ex.execute("SELECT pg_advisory_lock(4343), 1 / 0")  # takes the lock, then fails
        assert _other_session_can_lock(postgres, 4343)


def test_a_control_shows_an_unreleased_lock_blocks_another_session(postgres, scratch):
    with psycopg.connect(postgres.dsn(PgServer.READER, "sessions"), autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(4444)")
        assert not _other_session_can_lock(postgres, 4444)


def test_results_are_bounded_in_bytes_on_postgres(scratch):
    sql = "SELECT w FROM words"
    with ReadOnlyExecutor(scratch.reader_url, max_result_bytes=50_000) as ex, pytest.raises(ExecutionError) as caught:
        ex.execute(sql)
    assert caught.value.kind == "row_cap" and "50,000 bytes" in caught.value.message
    with ReadOnlyExecutor(scratch.reader_url, max_result_bytes=200_000) as ex:
        assert len(ex.execute(sql).rows) == 200
