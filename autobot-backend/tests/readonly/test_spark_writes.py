"""Nothing written through the executor on Spark with the guard bypassed (issue 39 point 5, the second layer).

The throwaway server carries a check rule of its own (``eval/sql/engines/spark_readonly/ReadOnly.java``): every
session not opened writable may only read. Here the guard is not called at all: every statement of the battery
the other engines face (``tests/readonly/test_guard.py``'s ``REJECTED``) and of Spark's own
(``tests/readonly/test_spark_guard.py``'s ``DECLINED``) goes straight to :meth:`ReadOnlyExecutor.execute` on the
session server, one executor surviving them all in sequence; then the databases, tables, rows and the server's
files are what they were. A control runs the writes in a writable session and sees them change the database,
so the battery is not harmless by accident. Whatever Spark parses and would run is refused by the check rule
(``EVAL_READ_ONLY``), not merely failed.
"""

from __future__ import annotations

import hashlib

import pytest
import sqlalchemy as sa
from sqlalchemy.pool import NullPool

from eval.sql.engines.spark_server import WRITABLE_SESSION
from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from tests.readonly.test_guard import REJECTED
from tests.readonly.test_spark_guard import DECLINED

pytestmark = pytest.mark.slow

SHOP = (
    "CREATE DATABASE shop",
    "CREATE TABLE shop.customers (id BIGINT, name STRING, country STRING, deleted BIGINT) USING parquet",
    "CREATE TABLE shop.orders (id BIGINT, customer_id BIGINT, amount DECIMAL(10,2)) USING parquet",
    "INSERT INTO shop.customers VALUES (1, 'Ana', 'Peru', 0), (2, 'Bo', 'Chile', 0)",
    "INSERT INTO shop.orders VALUES (1, 1, 10.50), (2, 2, 20.00), (3, 1, 5.25)",
)
REFUSED_BY_THE_SERVER = (
    "INSERT INTO orders SELECT * FROM orders",
    "CREATE TABLE evil (a INT)",
    "CREATE VIEW v AS SELECT * FROM orders",
    "DROP TABLE orders",
    "ALTER TABLE orders RENAME TO orders_old",
    "TRUNCATE TABLE orders",
    "CACHE TABLE orders",
    "ADD JAR /tmp/x.jar",
    "SET spark.eval.writable=true",
    "LOAD DATA LOCAL INPATH '/etc/passwd' INTO TABLE orders",
    "INSERT OVERWRITE DIRECTORY '{tmp}/out' USING parquet SELECT 1",
    "SELECT reflect('java.util.UUID', 'randomUUID')",
    "SELECT count(*) FROM orders WHERE id IN (SELECT length(java_method('java.util.UUID', 'randomUUID')))",
    "SELECT input_file_name() FROM orders",
    "CREATE TEMPORARY VIEW v AS SELECT 1",
)


def _writer(spark):
    return sa.create_engine(spark.url(), poolclass=NullPool, connect_args={"configuration": dict(WRITABLE_SESSION)})


def _state(spark) -> dict[str, object]:
    """Databases, their tables with a digest of their rows, and every file under the server's warehouse."""
    state: dict[str, object] = {}
    engine = _writer(spark)
    with engine.connect() as conn:
        for (database,) in conn.exec_driver_sql("SHOW DATABASES").fetchall():
            tables = conn.exec_driver_sql(f"SHOW TABLES IN `{database}`").fetchall()
            for _ns, table, temporary in tables:
                rows = conn.exec_driver_sql(f"SELECT * FROM `{database}`.`{table}`").fetchall()
                digest = hashlib.sha256(repr(sorted(map(repr, rows))).encode()).hexdigest()
                state[f"{database}.{table}"] = (temporary, len(rows), digest)
            state[f"database {database}"] = len(tables)
    engine.dispose()
    state["files"] = sorted(str(p.relative_to(spark.warehouse)) for p in spark.warehouse.rglob("*"))
    return state


@pytest.fixture(scope="module")
def shop(spark):
    engine = _writer(spark)
    with engine.connect() as conn:
        for sql in SHOP:
            conn.exec_driver_sql(sql)
    engine.dispose()
    yield spark.url("shop")
    engine = _writer(spark)
    with engine.connect() as conn:
        conn.exec_driver_sql("DROP DATABASE IF EXISTS shop CASCADE")
    engine.dispose()


def test_the_battery_changes_nothing_with_the_guard_bypassed(spark, shop, tmp_path):
    (tmp_path / "rows.json").write_text('{"a": 1}\n')
    battery = [c.sql for c in REJECTED if c.sql.strip()] + [sql for sql, _code in DECLINED]
    battery += [sql.format(tmp=tmp_path) for sql in REFUSED_BY_THE_SERVER]
    battery.append(f"SELECT * FROM json.`{tmp_path}/rows.json`")  # Spark 4 fails a direct file query here itself
    before = _state(spark)
    ran: list[str] = []
    refused: dict[str, str] = {}
    with ReadOnlyExecutor(shop, timeout_s=60) as ex:
        for sql in battery:
            try:
                ex.execute(sql)
            except ExecutionError as exc:
                refused[sql] = exc.message
            else:
                ran.append(sql)
        assert ex.execute("SELECT count(*) FROM orders").rows == [(3,)]  # the executor survived them all
    assert _state(spark) == before
    assert not (tmp_path / "out").exists()
    for sql in REFUSED_BY_THE_SERVER:
        message = refused.get(sql.format(tmp=tmp_path), "it ran")
        assert "EVAL_READ_ONLY" in message, f"{sql}: {message}"
    assert f"SELECT * FROM json.`{tmp_path}/rows.json`" in refused
    # What ran is a read to the server (USE of a database, a query): nothing the battery means as a write.
    assert all(not sql.upper().lstrip().startswith(("INSERT", "CREATE", "DROP", "ALTER", "SET")) for sql in ran), ran


def test_control_the_same_writes_in_a_writable_session_change_the_database(spark, shop):
    engine = _writer(spark)
    with engine.connect() as conn:
        conn.exec_driver_sql("CREATE TABLE shop.scratch (a BIGINT) USING parquet")
        conn.exec_driver_sql("INSERT INTO shop.scratch SELECT id FROM shop.orders")
        assert conn.exec_driver_sql("SELECT count(*) FROM shop.scratch").fetchall() == [(3,)]
        conn.exec_driver_sql("DROP TABLE shop.scratch")
    engine.dispose()


def test_without_a_writable_session_the_fixture_builder_is_refused_too(spark):
    engine = sa.create_engine(spark.url(), poolclass=NullPool)
    with engine.connect() as conn, pytest.raises(sa.exc.OperationalError, match="EVAL_READ_ONLY"):
        conn.exec_driver_sql("CREATE DATABASE sneaky")
    engine.dispose()
