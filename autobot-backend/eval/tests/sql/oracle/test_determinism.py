"""The self-check's determinism run is made only where a second run could differ (issue 40 point 2)."""

from __future__ import annotations

import pytest

from eval.sql.oracle.determinism import may_differ


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT ABS(random()) % 1000000",
        "SELECT hex(randomblob(4))",
        "SELECT date('now')",
        "SELECT strftime('%Y', 'NOW') AS y",
        "SELECT julianday('now') - julianday(order_date) FROM orders",
        "SELECT COUNT(*) FROM orders WHERE order_date > date(CURRENT_TIMESTAMP, '-30 days')",
        "SELECT current_date",
        "SELECT changes(), last_insert_rowid(), total_changes()",
        "SELECT name FROM customers WHERE id IN (SELECT id FROM customers ORDER BY random() LIMIT 3)",
        "SELECT name FROM customers ORDER BY RANDOM()",
        "SELECT 1 FROM",  # does not parse: nothing can be told about it
    ],
)
def test_chance_the_clock_and_the_connection_may_differ_on_sqlite(sql):
    assert may_differ(sql, "sqlite")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM t",
        "SELECT category, SUM(price * quantity) FROM order_items GROUP BY category ORDER BY 2 DESC LIMIT 3",
        "SELECT strftime('%Y-%m', order_date), COUNT(*) FROM orders GROUP BY 1",
        "SELECT name FROM customers WHERE note = 'nowhere' LIMIT 5",
        "SELECT GROUP_CONCAT(name) FROM customers",
    ],
)
def test_a_statement_of_its_data_alone_cannot_differ_on_sqlite(sql):
    assert not may_differ(sql, "sqlite")


@pytest.mark.parametrize("dialect", ["postgres", "duckdb"])
def test_engines_that_work_in_parallel_always_run_a_reference_twice(dialect):
    """Another row order or another last bit of a float sum is theirs to give, whatever the statement."""
    assert may_differ("SELECT * FROM t", dialect)
