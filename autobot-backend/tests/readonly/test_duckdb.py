"""DuckDB as a database the service reads: the read-only executor, and the schema a generator is told.

The executor opens a DuckDB file read-only, with external access off and its configuration locked.
With the guard switched off, statements that write, copy out, attach, install or reconfigure go
straight to the executor on a copy of the ``retail`` fixture built on DuckDB; the folder must stay
byte-for-byte the same. A control run on an ordinary connection shows they do real damage there.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
import sqlalchemy as sa

from eval.sql.engines.setup import DuckDBHost
from eval.sql.fixtures.schema import TABLES
from eval.sql.fixtures.seeded import FIXTURES
from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from services.schema_context import inspect_schema
from tests.readonly.test_executor import directory_state

TABLE_COMMENTS = {t.name: t.comment for t in TABLES}

# (id, statement): each one writes the database or reaches outside it on a writable connection.
DANGEROUS = (
    ("insert", "INSERT INTO products SELECT product_id + 1000, name, category, unit_price, discontinued FROM products"),
    ("update", "UPDATE orders SET channel = 'web'"),
    ("delete", "DELETE FROM order_items"),
    ("create-table", "CREATE TABLE notes (x INTEGER)"),
    ("create-view", "CREATE VIEW v AS SELECT 1 AS x"),
    ("drop-table", "DROP TABLE order_items"),
    ("alter", "ALTER TABLE products ADD COLUMN note VARCHAR"),
    ("copy-to-file", "COPY orders TO '{out}/orders.csv'"),
    ("attach-new-file", "ATTACH '{out}/other.duckdb' AS other"),
    ("read-a-file", "SELECT * FROM read_csv('/etc/hostname')"),
    ("checkpoint", "CHECKPOINT"),
    ("set-option", "SET threads = 1"),
    ("turn-access-back-on", "SET enable_external_access = true"),
    ("script", "SELECT 1; DELETE FROM order_items"),
)


@pytest.fixture(scope="module")
def retail_duckdb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``retail`` fixture, seed 0, as a DuckDB file (built through SQLAlchemy, cached like SQLite's)."""
    folder = tmp_path_factory.mktemp("duck")
    DuckDBHost(folder).build_rotations(FIXTURES["retail"], 0, 1)
    return folder / "retail-seed0.duckdb"


def _copy(source: Path, folder: Path) -> tuple[Path, Path]:
    db, out = folder / "db", folder / "out"
    db.mkdir(parents=True)
    out.mkdir()
    return Path(shutil.copyfile(source, db / "shop.duckdb")), out


def _url(path: Path) -> str:
    return sa.URL.create("duckdb", database=str(path)).render_as_string(hide_password=False)


@pytest.mark.parametrize(("case", "sql"), DANGEROUS, ids=[c for c, _ in DANGEROUS])
def test_a_statement_the_guard_missed_still_changes_nothing(case, sql, retail_duckdb, tmp_path):
    path, out = _copy(retail_duckdb, tmp_path)
    before = directory_state(path.parent), directory_state(out)
    with ReadOnlyExecutor(_url(path), timeout_s=5) as ex:
        if case == "checkpoint":  # a no-op on a read-only database: it runs, and writes nothing
            ex.execute(sql)
        else:
            with pytest.raises(ExecutionError) as caught:
                ex.execute(sql.format(out=out))
            assert caught.value.kind == "database", caught.value.message
    assert (directory_state(path.parent), directory_state(out)) == before


def _state(conn: duckdb.DuckDBPyConnection) -> list[object]:
    """Every table and view with its columns, and each table's rows as one checksum."""
    tables = (
        conn.execute("SELECT table_name, column_count FROM duckdb_tables() ORDER BY 1").fetchall()
        + conn.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall()
    )
    sums = [
        conn.execute(
            f"SELECT count(*), md5(string_agg(CAST(t AS VARCHAR), ',' ORDER BY CAST(t AS VARCHAR))) FROM {n} t"
        ).fetchall()
        for n, *_ in tables[:4]
    ]
    return [tables, sums]


# What each statement does on a writable connection with external access on: writes the database,
# writes a file beside it, or succeeds at what a read-only session must not do (read a file, reconfigure).
# ``turn-access-back-on`` is left out: DuckDB refuses it on any running database.
WRITES_FILES = {"copy-to-file", "attach-new-file"}
SUCCEEDS = {"read-a-file", "checkpoint", "set-option"}


def test_control_the_same_statements_do_damage_on_an_ordinary_connection(retail_duckdb, tmp_path):
    for i, (case, sql) in enumerate(DANGEROUS):
        if case == "turn-access-back-on":
            continue
        path, out = _copy(retail_duckdb, tmp_path / str(i))
        with duckdb.connect(str(path)) as conn:
            before = _state(conn), directory_state(out)
            conn.execute(sql.format(out=out)).fetchall()  # raises if DuckDB itself refused it
            after = _state(conn), directory_state(out)
        if case in WRITES_FILES:
            assert after[1] != before[1], f"{case} wrote no file on a writable connection"
        elif case not in SUCCEEDS:
            assert after[0] != before[0], f"{case} did not change the database on a writable connection"


def test_a_missing_file_is_reported_and_never_created(tmp_path):
    missing = tmp_path / "nowhere.duckdb"
    with pytest.raises(ExecutionError) as caught:
        ReadOnlyExecutor(_url(missing))
    assert caught.value.kind == "connect" and "DuckDB database file not found" in caught.value.message
    assert not missing.exists()


def test_a_long_statement_is_interrupted_at_the_time_limit(retail_duckdb):
    with ReadOnlyExecutor(_url(retail_duckdb), timeout_s=0.3) as ex:
        with pytest.raises(ExecutionError) as caught:
            ex.execute("SELECT count(*) FROM range(1000000000000) a")
        assert caught.value.kind == "timeout"
        assert ex.execute("SELECT count(*) FROM orders").rows[0][0] > 0  # the connection is usable after


def test_more_rows_than_the_cap_is_an_error(retail_duckdb):
    with ReadOnlyExecutor(_url(retail_duckdb), row_cap=10) as ex:
        assert len(ex.execute("SELECT * FROM orders LIMIT 10").rows) == 10
        with pytest.raises(ExecutionError) as caught:
            ex.execute("SELECT * FROM orders LIMIT 11")
    assert caught.value.kind == "row_cap"


def test_the_schema_a_generator_is_told_is_sqlites_but_for_type_names(retail_duckdb, tmp_path):
    from eval.sql.fixtures.seeded import write

    with ReadOnlyExecutor(_url(retail_duckdb)) as duck, ReadOnlyExecutor(write(tmp_path / "r.db", "retail", 0)) as lite:
        on_duck, on_lite = inspect_schema(duck.engine), inspect_schema(lite.engine)
    assert on_duck.dialect == "duckdb"

    def untyped(ctx):  # names, comments, keys, nullability, sampled values, counts: all but the type names
        return [
            (t.name, t.row_count, t.foreign_keys)
            + tuple((c.name, c.comment, c.nullable, c.primary_key, c.values, c.distinct_count) for c in t.columns)
            for t in ctx.tables
        ]

    assert untyped(on_duck) == untyped(on_lite)
    # ... and the tables' own comments, which SQLite has no place for.
    assert [t.comment for t in on_duck.tables] == [TABLE_COMMENTS[t.name] for t in on_duck.tables]
    assert {t.comment for t in on_lite.tables} == {""}
    items = on_duck.table("order_items")
    assert items is not None and [c.name for c in items.columns if c.primary_key] == ["order_id", "line_no"]
    assert items.column("unit_price").type == "DECIMAL(10,2)"
    assert "[metric: revenue" in items.column("unit_price").comment
