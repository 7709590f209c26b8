"""DuckDB's two layers against reads that reach outside the database: the guard, and the connection's settings.

Each statement reads a file the test wrote beside the database, lists a folder, reads a file named as
a table, runs SQL from a string, or changes the configuration. On an ordinary connection (the control)
DuckDB does it. Through the service's guarded path the guard declines it (first layer). Sent straight
to the executor, the guard bypassed, DuckDB refuses it: external access is off and the configuration
locked (second layer). The few the second layer lets run are shown to be harmless there.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
import sqlalchemy as sa

from services.readonly.execute import ErrorKind, ReadOnlySQL
from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from tests.readonly.test_executor import directory_state

SECRET = "the-secret-line-7f3a"

# (id, statement): each one reaches outside the database file. {dir} is the test's folder, which is also the cwd.
REACHING = (
    ("read-text", "SELECT content FROM read_text('{dir}/secret.txt')"),
    ("read-text-etc-passwd", "SELECT content FROM read_text('/etc/passwd')"),
    ("read-blob", "SELECT content FROM read_blob('{dir}/secret.txt')"),
    ("read-csv", "SELECT * FROM read_csv('{dir}/data.csv')"),
    ("read-csv-auto", "SELECT * FROM read_csv_auto('{dir}/data.csv')"),
    ("read-json", "SELECT * FROM read_json('{dir}/data.json')"),
    ("read-ndjson", "SELECT * FROM read_ndjson('{dir}/data.json')"),
    ("read-parquet", "SELECT * FROM read_parquet('{dir}/data.parquet')"),
    ("parquet-metadata", "SELECT * FROM parquet_metadata('{dir}/data.parquet')"),
    ("parquet-scan", "SELECT * FROM parquet_scan('{dir}/data.parquet')"),
    ("sniff-csv", "SELECT * FROM sniff_csv('{dir}/data.csv')"),
    ("glob", "SELECT * FROM glob('{dir}/*')"),
    ("glob-root", "SELECT * FROM glob('/*')"),
    ("string-as-table", "SELECT * FROM '{dir}/data.csv'"),
    ("relative-file-as-table", "SELECT * FROM data.csv"),
    ("quoted-file-as-table", 'SELECT * FROM "data.csv"'),
    ("from-first", "FROM 'data.csv'"),
    ("describe-a-file", "DESCRIBE 'data.csv'"),
    ("query-table", "SELECT * FROM query_table('data.csv')"),
    ("query-string", "SELECT * FROM query('SELECT content FROM read_text(''{dir}/secret.txt'')')"),
    ("enable-logging", "SELECT * FROM enable_logging()"),
    ("enable-profiling", "SELECT * FROM enable_profiling()"),
    ("duckdb-secrets", "SELECT * FROM duckdb_secrets()"),
)
# What the second layer says: file access is off, or the configuration is locked.
REFUSED_BY_SETTINGS = ("disabled by configuration", "configuration has been locked")

# The guard is their only layer: DuckDB runs them on the read-only connection, and there they change
# nothing outside the connection (no file, no setting of the database; the log they touch is off).
GUARD_ONLY = (
    ("query-of-a-read", "SELECT * FROM query('SELECT 42')"),
    ("checkpoint", "SELECT * FROM checkpoint()"),
    ("truncate-logs", "SELECT * FROM truncate_duckdb_logs()"),
    ("write-log", "SELECT write_log('x')"),
    ("setseed", "SELECT setseed(0.5)"),
    ("sleep", "SELECT sleep_ms(1)"),
)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A database with one table, and beside it the files the statements reach for; the cwd is the folder."""
    (tmp_path / "secret.txt").write_text(SECRET + "\n")
    (tmp_path / "data.csv").write_text(f"a,b\n1,{SECRET}\n")
    (tmp_path / "data.json").write_text(f'{{"a": 1, "b": "{SECRET}"}}\n')
    with duckdb.connect(str(tmp_path / "shop.duckdb")) as conn:
        conn.execute("CREATE TABLE orders AS SELECT range AS id FROM range(5)")
        conn.execute(f"COPY (SELECT 1 AS a, '{SECRET}' AS b) TO '{tmp_path}/data.parquet' (FORMAT parquet)")
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def _url(folder: Path) -> str:
    return sa.URL.create("duckdb", database=str(folder / "shop.duckdb")).render_as_string(hide_password=False)


def test_control_duckdb_reaches_out_on_an_ordinary_connection(folder):
    with duckdb.connect(str(folder / "shop.duckdb")) as conn:
        for case, sql in REACHING:
            rows = conn.execute(sql.format(dir=folder)).fetchall()  # raises if DuckDB itself refused it
            if case.startswith(("read-", "parquet-", "string-", "relative-", "quoted-", "from-", "query-")):
                assert case == "read-text-etc-passwd" or SECRET in repr(rows), case
            elif case.startswith("glob"):
                assert rows, case


@pytest.mark.parametrize(("case", "sql"), REACHING + GUARD_ONLY, ids=[c for c, _ in REACHING + GUARD_ONLY])
def test_first_layer_the_guard_declines_it(case, sql, folder):
    with ReadOnlySQL() as service:
        run = service.run_readonly(sql.format(dir=folder), _url(folder))
    assert run.error_kind is ErrorKind.GUARD_BLOCKED, run.reason
    assert SECRET not in (run.reason or "")


@pytest.mark.parametrize(("case", "sql"), REACHING, ids=[c for c, _ in REACHING])
def test_second_layer_the_connection_refuses_it_with_the_guard_bypassed(case, sql, folder):
    before = directory_state(folder)
    with ReadOnlyExecutor(_url(folder), timeout_s=5) as ex:
        with pytest.raises(ExecutionError) as caught:
            ex.execute(sql.format(dir=folder))
        assert ex.execute("SELECT count(*) FROM orders").rows == [(5,)]  # the connection is still usable
    assert caught.value.kind == "database"
    assert any(words in caught.value.message for words in REFUSED_BY_SETTINGS), caught.value.message
    assert SECRET not in caught.value.message
    assert directory_state(folder) == before


def test_the_guard_only_statements_run_on_the_read_only_connection_and_change_nothing(folder):
    before = directory_state(folder)
    with ReadOnlyExecutor(_url(folder), timeout_s=5) as ex:
        for _case, sql in GUARD_ONLY:
            ex.execute(sql)
        settings = ex.execute(
            "SELECT name, value FROM duckdb_settings() WHERE name IN ('enable_external_access', 'lock_configuration', "
            "'enable_logging') ORDER BY name"
        ).rows
    assert [(name, value in ("true", "1")) for name, value in settings] == [
        ("enable_external_access", False),
        ("enable_logging", False),
        ("lock_configuration", True),
    ]
    assert directory_state(folder) == before


def test_a_view_or_macro_that_reads_a_file_passes_the_guard_and_the_settings_refuse_it(folder):
    """The guard cannot see inside the database's own views and macros: there the second layer is what holds."""
    with duckdb.connect(str(folder / "shop.duckdb")) as conn:
        conn.execute(f"CREATE VIEW notes AS SELECT content FROM read_text('{folder}/secret.txt')")
        conn.execute(f"CREATE MACRO notes_m() AS TABLE SELECT content FROM read_text('{folder}/secret.txt')")
        assert SECRET in repr(conn.execute("SELECT * FROM notes").fetchall())  # the control
    with ReadOnlySQL() as service:
        for sql in ("SELECT * FROM notes", "SELECT * FROM notes_m()"):
            run = service.run_readonly(sql, _url(folder))
            assert run.error_kind is ErrorKind.DATABASE, run.reason
            assert "disabled by configuration" in (run.reason or "") and SECRET not in (run.reason or "")
