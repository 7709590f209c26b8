"""Read-only on Spark SQL (issue 39 point 5): the guard reads Spark SQL with sqlglot's Spark dialect and declines
what writes or reaches outside; the executor stops a statement at its time limit and a result past its caps.

The guard cases need no server. The executor's run on the tests' session server (``spark``).
"""

from __future__ import annotations

import pytest

from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from services.readonly.guard import validate_readonly_sql

DECLINED = [
    ("INSERT INTO orders VALUES (1)", "write"),
    ("INSERT OVERWRITE TABLE orders SELECT * FROM orders", "write"),
    ("INSERT OVERWRITE DIRECTORY '/tmp/x' USING parquet SELECT 1", "write"),
    ("INSERT OVERWRITE LOCAL DIRECTORY '/tmp/x' SELECT 1", "write"),
    ("LOAD DATA LOCAL INPATH '/etc/passwd' INTO TABLE orders", "write"),
    ("DELETE FROM orders", "write"),
    ("UPDATE orders SET status = 'x'", "write"),
    ("MERGE INTO orders USING orders s ON 1 = 1 WHEN MATCHED THEN DELETE", "write"),
    ("CREATE TABLE t (a INT)", "ddl"),
    ("CREATE TEMPORARY VIEW v AS SELECT 1", "ddl"),
    ("CREATE OR REPLACE TEMP VIEW v USING parquet OPTIONS (path '/etc')", "ddl"),
    ("CREATE FUNCTION f AS 'x.Y' USING JAR '/tmp/x.jar'", "ddl"),
    ("DROP TABLE orders", "ddl"),
    ("ALTER TABLE orders ADD COLUMNS (x INT)", "ddl"),
    ("TRUNCATE TABLE orders", "ddl"),
    ("CACHE TABLE orders", "maintenance"),
    ("CACHE LAZY TABLE c AS SELECT 1", "maintenance"),
    ("UNCACHE TABLE orders", "maintenance"),
    ("REFRESH TABLE orders", "maintenance"),
    ("ANALYZE TABLE orders COMPUTE STATISTICS", "maintenance"),
    ("CLEAR CACHE", "unrecognised"),
    ("ADD JAR /tmp/x.jar", "unrecognised"),
    ("ADD FILE /etc/passwd", "unrecognised"),
    ("MSCK REPAIR TABLE orders", "unrecognised"),
    ("SET spark.sql.ansi.enabled=true", "session"),
    ("SET", "session"),
    ("RESET", "session"),
    ("USE other_db", "session"),
    ("EXECUTE IMMEDIATE 'DROP TABLE orders'", "call"),
    ("SELECT * FROM parquet.`/tmp/x`", "restricted_table"),
    ("SELECT * FROM json.`/etc/passwd`", "restricted_table"),
    ("SELECT * FROM text.`file:///etc/passwd`", "restricted_table"),
    ("SELECT * FROM csv.`http://example.com/x.csv`", "restricted_table"),
    ("SELECT a FROM (SELECT * FROM orc.`/data/part-0.orc`) t", "restricted_table"),
    ("SELECT reflect('java.lang.Runtime', 'getRuntime')", "side_effect_function"),
    ("SELECT java_method('java.lang.System', 'exit', 0)", "side_effect_function"),
    ("SELECT try_reflect('java.lang.System', 'exit', 0)", "side_effect_function"),
    ("SELECT input_file_name() FROM orders", "side_effect_function"),
    ("SELECT count(*) FROM orders WHERE channel IN (SELECT reflect('a', 'b'))", "side_effect_function"),
    ("SELECT * FROM read_files('/etc')", "side_effect_function"),
]

ALLOWED = [
    "SELECT 1",
    "SELECT o.order_id FROM orders o WHERE o.channel = 'web'",
    "WITH t AS (SELECT 1 AS a) SELECT a FROM t",
    "SELECT * FROM orders TABLESAMPLE (10 ROWS)",
    "SELECT * FROM VALUES (1, 2) AS t(a, b)",
    "SELECT `order`.id FROM shop.`order`",  # a quoted name is a table, not a path
    "SHOW TABLES",
    "DESCRIBE orders",
]


@pytest.mark.parametrize(("sql", "code"), DECLINED, ids=[s for s, _ in DECLINED])
def test_the_guard_declines_what_writes_or_reaches_outside_on_spark(sql, code):
    verdict = validate_readonly_sql(sql, "spark")
    assert not verdict.allowed
    assert verdict.code == code, verdict.reason


@pytest.mark.parametrize("sql", ALLOWED)
def test_the_guard_allows_reads_on_spark(sql):
    verdict = validate_readonly_sql(sql, "spark")
    assert verdict.allowed, verdict.reason


# --- the executor's bounds on a real server ------------------------------------------------------

SLOW = "SELECT count(*) FROM range(0, 200000) a CROSS JOIN range(0, 200000) b WHERE (a.id * b.id) % 7 = 3"


@pytest.mark.slow
def test_a_long_statement_is_cancelled_at_its_limit_and_the_server_answers_after(spark):
    with ReadOnlyExecutor(spark.url(), timeout_s=2) as ex:
        with pytest.raises(ExecutionError) as caught:
            ex.execute(SLOW)  # minutes of work on two cores
        assert caught.value.kind == "timeout" and "2 s limit" in caught.value.message
        # The cancelled job's tasks may hold both cores a while longer: the next statement gets a limit to spare.
        assert ex.execute("SELECT 41 + 1", timeout_s=120).rows == [(42,)]


@pytest.mark.slow
def test_rows_past_the_cap_and_bytes_past_the_budget_are_errors_and_the_cap_itself_is_not(spark):
    with ReadOnlyExecutor(spark.url(), row_cap=10, timeout_s=30, max_result_bytes=100_000) as ex:
        assert len(ex.execute("SELECT id FROM range(10)").rows) == 10
        with pytest.raises(ExecutionError) as rows:
            ex.execute("SELECT id FROM range(11)")
        assert rows.value.kind == "row_cap" and "more than 10 rows" in rows.value.message
        with pytest.raises(ExecutionError) as size:
            ex.execute("SELECT repeat('x', 50000) FROM range(5)")
        assert size.value.kind == "row_cap" and "result budget" in size.value.message
        assert ex.execute("SELECT 'still here'").rows == [("still here",)]


@pytest.mark.slow
def test_a_script_and_a_server_error_are_database_errors(spark):
    with ReadOnlyExecutor(spark.url(), timeout_s=30) as ex:
        with pytest.raises(ExecutionError) as script:
            ex.execute("SELECT 1; SELECT 2")
        assert script.value.kind == "database" and "exactly one statement" in script.value.message
        with pytest.raises(ExecutionError) as missing:
            ex.execute("SELECT * FROM no_such_table")
        assert missing.value.kind == "database" and "TABLE_OR_VIEW_NOT_FOUND" in missing.value.message
        assert "\tat " not in missing.value.message  # the server's message, not its Java stack
