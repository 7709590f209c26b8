"""PostgreSQL sessions behind the executor: nothing a statement took outlives it, results are bounded in bytes,
and schema inspection samples values under the statement limit.

The guard refuses advisory locks; these statements go to the executor directly, as SQL that got past
a guard would.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from services.readonly.execute import ReadOnlySQL
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


@pytest.fixture(scope="module")
def bulky(postgres: PgServer) -> Iterator[PgDatabase]:
    """A table whose text column takes a sort of 300,000 distinct 230-byte values to count."""
    db = postgres.create_database("bulky")
    postgres.admin("CREATE TABLE notes (id integer PRIMARY KEY, kind text, body text)", "bulky")
    postgres.admin(
        "INSERT INTO notes SELECT i, 'k' || i % 2, md5(i::text) || repeat('y', 200) FROM generate_series(1, 300000) i",
        "bulky",
    )
    postgres.admin("GRANT SELECT ON notes TO eval_reader", "bulky")
    yield db
    postgres.drop_database("bulky")


def test_inspection_on_postgres_samples_under_the_statement_limit_and_leaves_out_what_passes_it(bulky, caplog):
    with ReadOnlySQL(timeout_s=0.1) as service:  # counting the bodies takes about 0.5 s, longer on a busy machine
        notes = service.schema(bulky.reader_url).table("notes")
    assert notes is not None and [c.name for c in notes.columns] == ["id", "kind", "body"]
    body, kind = notes.column("body"), notes.column("kind")
    assert body is not None and body.values == () and body.values_skipped == "sampling them ran past the time limit"
    assert kind is not None and (kind.values_skipped or kind.values == ("k0", "k1"))
    assert "left out, sampling them ran past the time limit" in caplog.text  # the limit fired: no wall time read
    with ReadOnlySQL(timeout_s=30) as service:  # a control: given the time, the same column is sampled
        body = service.schema(bulky.reader_url).table("notes").column("body")  # type: ignore[union-attr]
    assert body is not None and len(body.values) == 5 and body.distinct_count == 300_000
