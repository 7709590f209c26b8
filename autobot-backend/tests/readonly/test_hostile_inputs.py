"""Hostile input and faults at the service: bounded SQL, bounded results, no files left, no secret shown."""

from __future__ import annotations

import sqlite3
import tracemalloc
from pathlib import Path

import pytest
import sqlalchemy as sa

from services.generation.protocol import Generation
from services.generation.recorded import RecordedGenerator
from services.nl_database_service import NLDatabaseService
from services.readonly import limits
from services.readonly.execute import ErrorKind, ReadOnlySQL, _guard
from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from services.readonly.guard import MAX_SQL_BYTES, validate_readonly_sql
from services.readonly.sqlite_file import is_wal
from services.redaction import redact_url

HUGE_SQL = "SELECT " + " + ".join(["1"] * 2_000_000)  # about 8 MB: one statement, all of it legal


@pytest.fixture
def shop(tmp_path: Path) -> str:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)")
        conn.executemany("INSERT INTO items (name) VALUES (?)", [(f"item {i}",) for i in range(200)])
    conn.close()
    return f"sqlite:///{path}"


# --- SQL length ---------------------------------------------------------------------------


def test_sql_over_the_limit_is_refused_unread():
    tracemalloc.start()
    verdict = validate_readonly_sql(HUGE_SQL)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert (verdict.allowed, verdict.code) == (False, "too_long")
    assert f"{len(HUGE_SQL):,} bytes" in verdict.reason and f"{MAX_SQL_BYTES:,}" in verdict.reason
    assert peak < 3 * len(HUGE_SQL), "the guard never tokenized it"


def test_the_limit_counts_bytes_not_characters():
    at_limit = "SELECT '" + "é" * ((MAX_SQL_BYTES - 10) // 2) + "'"
    assert len(at_limit) < MAX_SQL_BYTES < len(at_limit.encode()) + 2 * 10
    over = at_limit + "é" * 10
    assert validate_readonly_sql(over).code == "too_long"
    assert validate_readonly_sql("SELECT 1", max_bytes=7).code == "too_long"
    assert validate_readonly_sql("SELECT 1", max_bytes=8).allowed


def test_the_service_blocks_long_sql_on_its_query_path_and_keeps_none_of_it(shop):
    generator = RecordedGenerator({"Everything?": Generation(sql=HUGE_SQL)})
    cached = _guard.cache_info().currsize
    with NLDatabaseService(generator, local_db_url=shop) as service:
        answer = service.query("Everything?")
        direct = service.run_readonly(HUGE_SQL)
    assert (answer["status"], answer["error_kind"]) == ("error", "guard_blocked")
    assert "over the guard's limit" in answer["reason"]
    assert direct.error_kind is ErrorKind.GUARD_BLOCKED
    assert _guard.cache_info().currsize == cached, "a blocked giant is not kept in the guard's cache"


def test_the_length_limit_is_configurable_and_a_bad_value_is_an_error(shop, monkeypatch):
    monkeypatch.setenv(limits.MAX_SQL_BYTES_ENV, "20")
    with NLDatabaseService(RecordedGenerator({}), local_db_url=shop) as service:
        assert service.run_readonly("SELECT name FROM items WHERE id = 1").error_kind is ErrorKind.GUARD_BLOCKED
        assert service.run_readonly("SELECT 1").ok
    monkeypatch.setenv(limits.MAX_SQL_BYTES_ENV, "lots")
    with pytest.raises(ValueError, match="NL_SQL_MAX_SQL_BYTES='lots': expected a whole number"):
        NLDatabaseService(RecordedGenerator({}), local_db_url=shop)


@pytest.mark.parametrize(
    "sql", ["SELECT '\ud800' AS x", "SELECT name FROM items -- \udfff"], ids=["in_a_literal", "in_a_comment"]
)
def test_sql_that_is_not_text_fails_to_run_and_is_not_an_internal_error(shop, sql):
    # A lone surrogate (``\ud800`` escaped in a JSON answers line or a model's reply) passes the guard; the
    # driver cannot encode it. The SQL failed to run (an ``error`` verdict), the service did not fail.
    generator = RecordedGenerator({"Which?": Generation(sql=sql)})
    with NLDatabaseService(generator, local_db_url=shop) as service:
        answer = service.answer("Which?")
        direct = service.run_readonly(sql)
    assert (answer.status, answer.error_kind) == ("error", ErrorKind.DATABASE)
    assert "a lone surrogate that is not text" in (answer.reason or "") and answer.sql == sql
    assert direct.error_kind is ErrorKind.DATABASE and direct.reason == answer.reason


# --- result size --------------------------------------------------------------------------


def test_a_value_past_the_budget_is_never_built(shop):
    tracemalloc.start()
    with ReadOnlyExecutor(shop, max_result_bytes=1_000_000) as ex, pytest.raises(ExecutionError) as caught:
        ex.execute("SELECT zeroblob(400000000), zeroblob(400000000), zeroblob(400000000)")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert caught.value.kind == "row_cap" and "larger than 1,000,000 bytes" in caught.value.message
    assert peak < 50_000_000


def test_many_rows_past_the_byte_budget_stop_the_fetch(shop):
    sql = "SELECT name, printf('%.500c', 'x') FROM items"  # 200 rows of about 507 bytes
    with ReadOnlyExecutor(shop, max_result_bytes=50_000) as ex, pytest.raises(ExecutionError) as caught:
        ex.execute(sql)
    assert caught.value.kind == "row_cap" and "result budget" in caught.value.message
    with ReadOnlyExecutor(shop, max_result_bytes=200_000) as ex:
        assert len(ex.execute(sql).rows) == 200


def test_the_result_budget_reaches_the_service_as_row_cap(shop, monkeypatch):
    monkeypatch.setenv(limits.MAX_RESULT_BYTES_ENV, "10_000")
    with NLDatabaseService(RecordedGenerator({}), local_db_url=shop) as service:
        got = service.run_readonly("SELECT name, printf('%.500c', 'x') FROM items")
    assert got.error_kind is ErrorKind.ROW_CAP and "10,000 bytes" in (got.reason or "")
    with pytest.raises(ExecutionError, match="max_result_bytes must be a whole number > 0"):
        ReadOnlyExecutor(shop, max_result_bytes=0)


# --- WAL ------------------------------------------------------------------------------------


def _wal_database(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (x INTEGER)")
    conn.execute("INSERT INTO t VALUES (1), (2)")
    conn.commit()
    conn.close()  # the last connection checkpoints and removes -wal and -shm


def test_a_wal_database_is_read_without_leaving_files_beside_it(tmp_path):
    path = tmp_path / "wal.db"
    _wal_database(path)
    assert is_wal(path) and sorted(p.name for p in tmp_path.iterdir()) == ["wal.db"]
    with ReadOnlySQL() as sql:
        assert list(sql.run_readonly("SELECT SUM(x) FROM t", f"sqlite:///{path}").rows) == [(3,)]
        assert sql.schema(f"sqlite:///{path}").table("t") is not None
        assert sorted(p.name for p in tmp_path.iterdir()) == ["wal.db"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wal.db"]


def test_a_wal_database_with_a_live_writer_is_read_through_its_log(tmp_path):
    path = tmp_path / "wal.db"
    _wal_database(path)
    with ReadOnlyExecutor(f"sqlite:///{path}") as ex:
        assert ex.execute("SELECT COUNT(*) FROM t").rows == [(2,)]
        writer = sqlite3.connect(path)
        writer.execute("INSERT INTO t VALUES (3)")
        writer.commit()  # in the -wal file, not yet in the main file
        try:
            assert ex.execute("SELECT COUNT(*) FROM t").rows == [(3,)]
        finally:
            writer.close()


# --- URLs -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["user:hunter2@127.0.0.1:1/x", "postgresql//bob:hunter2@db/x", "sqlite:///x.db?key=hunter2&mode=ro"],
)
def test_a_url_is_never_shown_with_its_secret(url):
    assert "hunter2" not in redact_url(url)
    with pytest.raises(ExecutionError) as caught:
        ReadOnlyExecutor(url)
    assert "hunter2" not in caught.value.message


def test_an_unparseable_local_url_never_reaches_a_response(monkeypatch):
    monkeypatch.setenv("NL_SQL_LOCAL_DB_URL", "user:hunter2@127.0.0.1:1/x")
    with NLDatabaseService(RecordedGenerator({"q?": Generation(sql="SELECT 1")})) as service:
        answer = service.query("q?")
    assert answer["status"] == "error" and "hunter2" not in repr(answer)
    assert all("hunter2" not in repr(r) for r in service.history)


def test_engines_are_not_left_open(shop):
    with ReadOnlyExecutor(shop) as ex:
        assert isinstance(ex.engine, sa.Engine)
