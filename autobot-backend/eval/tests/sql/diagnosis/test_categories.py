"""Why each wrong answer is wrong (issue 25): every category of the taxonomy on a hand-written pair of
queries run on a real SQLite file (DuckDB where it is cheap), the precedence when two mistakes are
made, the one line of evidence, and a candidate sqlglot cannot parse."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import duckdb
import pytest

from eval.sql.diagnosis import diagnose, diagnose_error, evidence
from eval.sql.model import codec
from eval.sql.model.diagnosis import CATEGORIES, Category, Diagnosis, category_counts, earliest

SCHEMA = """
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, status TEXT, total REAL, order_date TEXT);
CREATE TABLE order_items (order_id INTEGER, product TEXT, quantity INTEGER);
"""
CUSTOMERS = [(1, "Ana", "Lima"), (2, "Bo", "Oslo"), (3, "Cy", "Lima"), (4, "Di", "Rome")]
ORDERS = [
    (10, 1, "completed", 12.4, "2024-01-01"),
    (11, 1, "cancelled", 7.25, "2024-01-15"),
    (12, 2, "completed", 30.6, "2024-01-31"),
    (13, 3, "completed", 5.0, "2024-02-01"),
    (14, 3, "pending", 9.5, "2024-02-10"),
]
ITEMS = [(10, "pen", 1), (10, "ink", 2), (12, "pad", 1), (12, "pen", 3), (13, "ink", 1), (14, "pad", 2)]


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("diagnosis") / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(SCHEMA)
        con.executemany("INSERT INTO customers VALUES (?, ?, ?)", CUSTOMERS)
        con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", ORDERS)
        con.executemany("INSERT INTO order_items VALUES (?, ?, ?)", ITEMS)
    return path


def run(db: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return con.execute(sql).fetchall()


def diagnosed(db: Path, candidate: str, reference: str, **kw: object) -> Diagnosis:
    """Both queries run on the file, then diagnosed as the grader does."""
    return diagnose(candidate, reference, run(db, candidate), run(db, reference), dialect="sqlite", **kw)  # type: ignore[arg-type]


EVERY_CATEGORY = [
    pytest.param(
        "SELECT name FROM clients",
        "SELECT name FROM customers",
        Category.SCHEMA,
        id="schema",
    ),
    pytest.param(
        "SELECT c.name, COUNT(o.order_id) FROM customers c JOIN orders o ON o.customer_id = c.customer_id "
        "GROUP BY c.name",
        "SELECT c.name, COUNT(o.order_id) FROM customers c LEFT JOIN orders o ON o.customer_id = c.customer_id "
        "GROUP BY c.name",
        Category.JOIN,
        id="join-type",
    ),
    pytest.param(
        "SELECT o.order_id, SUM(o.total) FROM orders o JOIN order_items i ON i.order_id = o.order_id "
        "WHERE o.order_id IN (10, 12) GROUP BY o.order_id",
        "SELECT o.order_id, SUM(o.total) FROM orders o WHERE o.order_id IN (10, 12) GROUP BY o.order_id",
        Category.JOIN,
        id="join-fan-out",
    ),
    pytest.param(
        "SELECT order_id FROM orders WHERE total > 6",
        "SELECT order_id FROM orders WHERE status = 'completed' AND total > 6",
        Category.FILTER,
        id="filter-missing",
    ),
    pytest.param(
        "SELECT COUNT(*) FROM orders WHERE order_date <= '2024-01-31'",
        "SELECT COUNT(*) FROM orders WHERE order_date < '2024-01-31'",
        Category.FILTER,
        id="filter-date-boundary",
    ),
    pytest.param(
        "SELECT SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END) FROM orders",
        "SELECT SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) FROM orders",
        Category.FILTER,
        id="filter-in-a-case",
    ),
    pytest.param(
        "SELECT c.city, COUNT(*) FROM customers c",
        "SELECT c.city, COUNT(*) FROM customers c GROUP BY c.city",
        Category.GROUPING,
        id="grouping",
    ),
    pytest.param(
        "SELECT COUNT(*) FROM orders",
        "SELECT COUNT(DISTINCT customer_id) FROM orders",
        Category.AGGREGATION,
        id="aggregation-count",
    ),
    pytest.param(
        "SELECT customer_id FROM orders GROUP BY customer_id HAVING COUNT(DISTINCT status) > 1",
        "SELECT customer_id FROM orders GROUP BY customer_id HAVING COUNT(*) > 1",
        Category.AGGREGATION,
        id="aggregation-in-having",
    ),
    pytest.param(
        "SELECT DISTINCT city FROM customers",
        "SELECT city FROM customers",
        Category.DISTINCT,
        id="distinct",
    ),
    pytest.param(
        "SELECT name, city FROM customers",
        "SELECT name FROM customers",
        Category.PROJECTION,
        id="projection-extra",
    ),
    pytest.param(
        "SELECT city, name FROM customers",
        "SELECT name, city FROM customers",
        Category.PROJECTION,
        id="projection-reordered",
    ),
    pytest.param(
        "SELECT order_id FROM orders ORDER BY total ASC LIMIT 2",
        "SELECT order_id FROM orders ORDER BY total DESC LIMIT 2",
        Category.ORDERING,
        id="ordering-direction",
    ),
    pytest.param(
        "SELECT order_id FROM orders ORDER BY total DESC LIMIT 3",
        "SELECT order_id FROM orders ORDER BY total DESC LIMIT 2",
        Category.ORDERING,
        id="ordering-limit",
    ),
    pytest.param(
        "SELECT customer_id, ROUND(SUM(total)) AS spent FROM orders GROUP BY customer_id",
        "SELECT customer_id, SUM(total) AS spent FROM orders GROUP BY customer_id",
        Category.VALUE_FORMAT,
        id="value-format",
    ),
]


@pytest.mark.parametrize(("candidate", "reference", "category"), EVERY_CATEGORY)
def test_each_category_is_named_on_a_hand_written_pair(shop, candidate, reference, category):
    if category is Category.SCHEMA:  # the candidate's table does not exist: compared by its SQL and no rows
        found = diagnose(candidate, reference, [], run(shop, reference), dialect="sqlite")
    else:
        found = diagnosed(shop, candidate, reference, ordered="ORDER BY" in reference)
    assert found.primary is category, found
    assert category in found.tags and found.line


def test_the_issue_s_example_line(shop):
    found = diagnosed(shop, "SELECT order_id FROM orders", "SELECT order_id FROM orders WHERE status = 'completed'")
    assert found.primary is Category.FILTER
    assert found.line == (
        "WHERE: reference has `status = 'completed'`, candidate has none; candidate rows are a superset (+2)"
    )


def test_a_join_that_multiplies_rows_says_by_how_much(shop):
    found = diagnosed(
        shop,
        "SELECT o.order_id, SUM(o.total) FROM orders o JOIN order_items i ON i.order_id = o.order_id "
        "WHERE o.order_id IN (10, 12) GROUP BY o.order_id",
        "SELECT o.order_id, SUM(o.total) FROM orders o WHERE o.order_id IN (10, 12) GROUP BY o.order_id",
    )
    assert found.line.startswith("FROM/JOIN: candidate has `JOIN order_items ON")
    assert found.line.endswith("values are 2x the reference's (rows multiplied, as by a join)")


def test_aliases_and_the_order_of_a_comparison_are_no_difference(shop):
    found = diagnosed(
        shop,
        "SELECT x.name FROM customers AS x JOIN orders y ON x.customer_id = y.customer_id WHERE 'completed' = y.status",
        "SELECT c.name FROM orders o JOIN customers c ON o.customer_id = c.customer_id "
        "WHERE o.status = 'completed' AND o.total > 10",
    )
    assert found.primary is Category.FILTER and found.tags == (Category.FILTER,), found
    assert found.line.startswith("WHERE: reference has `orders.total > 10`, candidate has none")


def test_a_pair_met_again_is_compared_once_and_diagnosed_the_same(shop):
    """The SQL side is kept per (reference, candidate, context); the rows are read again every time."""
    from eval.sql.diagnosis._diagnose import _sql_side

    candidate, reference = "SELECT order_id FROM orders", "SELECT order_id FROM orders WHERE status = 'completed'"
    first = diagnosed(shop, candidate, reference)
    hits = _sql_side.cache_info().hits
    assert diagnosed(shop, candidate, reference) == first
    assert _sql_side.cache_info().hits == hits + 1
    # Other rows, the same texts: the result evidence is the new rows', not the kept ones'.
    other = diagnose(candidate, reference, [(1,)], [(1,), (2,)], dialect="sqlite")
    assert other.primary is Category.FILTER and other.line.endswith("candidate rows are a subset (-1)"), other.line
    # Another context is another pair: ordered, the same texts are compared afresh.
    misses = _sql_side.cache_info().misses
    diagnose(candidate, reference, [(1,)], [(1,), (2,)], dialect="sqlite", ordered=True)
    assert _sql_side.cache_info().misses == misses + 1


def test_two_mistakes_give_the_earliest_and_tag_both(shop):
    found = diagnosed(
        shop,
        "SELECT order_id FROM orders ORDER BY total ASC LIMIT 2",
        "SELECT order_id FROM orders WHERE status = 'completed' ORDER BY total DESC LIMIT 2",
        ordered=True,
    )
    assert found.primary is Category.FILTER
    assert found.tags == (Category.FILTER, Category.ORDERING)
    join_and_aggregate = diagnosed(
        shop,
        "SELECT c.name, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.name",
        "SELECT c.name, COUNT(o.order_id) FROM customers c LEFT JOIN orders o ON o.customer_id = c.customer_id "
        "GROUP BY c.name",
    )
    assert join_and_aggregate.primary is Category.JOIN
    assert {Category.JOIN, Category.AGGREGATION} <= set(join_and_aggregate.tags)


def test_an_order_that_decides_nothing_is_no_difference(shop):
    """An unordered question's outermost ORDER BY without LIMIT: its rows are compared as a multiset."""
    found = diagnosed(
        shop,
        "SELECT order_id FROM orders WHERE total > 6 ORDER BY total ASC",
        "SELECT order_id FROM orders WHERE total > 6 AND status = 'completed' ORDER BY total DESC",
    )
    assert found.tags == (Category.FILTER,), found


def test_an_unparseable_candidate_is_diagnosed_by_its_rows():
    found = diagnose(
        "SELEKT city FROM customers",
        "SELECT city FROM customers",
        [("Lima",)],
        [("Lima",), ("Lima",)],
        dialect="sqlite",
    )
    assert found.primary is Category.DISTINCT
    assert "does not parse" in found.line and "duplicates differ (-1 rows)" in found.line


def test_nothing_seen_is_other():
    found = diagnose(None, None, [(1, "a")], [(2, "b")], dialect="sqlite")
    assert found.primary is Category.OTHER and found.tags == (Category.OTHER,)
    assert found.line == "1 rows against the reference's 1, 0 in common"


@pytest.mark.parametrize(
    ("ref", "got", "category", "text"),
    [
        ([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], Category.ORDERING, "the same rows in another order"),
        ([(1, "a"), (2, "b")], [("a", 1), ("b", 2)], Category.PROJECTION, "the same values in another column order"),
        ([(1, 12.4)], [(1, "12.40")], Category.VALUE_FORMAT, "the same rows, values rounded or written another way"),
        ([(1,), (2,)], [(1,)], Category.FILTER, "candidate rows are a subset (-1)"),
        ([(1, 5), (2, 6)], [(1, 15), (2, 18)], Category.JOIN, "values are 3x the reference's"),
        ([(1,)], [(1, "x")], Category.PROJECTION, "candidate returns 1 column(s) more, the reference's among them"),
    ],
)
def test_the_result_evidence(ref, got, category, text):
    found = evidence(ref, got, ordered=category is Category.ORDERING)
    assert found.category is category and found.text.startswith(text)


def test_the_same_rows_unordered_prove_nothing():
    """Rows the grader found wrong that read as the reference's (a tolerance the diagnosis does not apply, an
    order that does not count): no category is read into them, and no proof."""
    found = evidence([(1, "a"), (2, "b")], [(2, "b"), (1, "a")])
    assert found.category is None and not found.proof


def test_one_number_is_no_multiple():
    """4.0 against 2.0 is 2x, but one number is a multiple of any other: no join is read into it."""
    assert evidence([(2,)], [(4,)]).category is None


def test_the_first_rows_of_an_ordered_answer_are_a_limit():
    found = evidence([(1,), (2,), (3,)], [(1,), (2,)], ordered=True)
    assert found.category is Category.ORDERING and "first 2 of 3" in found.text


def test_an_error_is_runtime_unless_a_table_or_column_is_not_there(shop, tmp_path):
    with pytest.raises(sqlite3.OperationalError) as sqlite_missing:
        run(shop, "SELECT nme FROM customers")
    duck = duckdb.connect(str(tmp_path / "d.duckdb"))
    duck.execute("CREATE TABLE t (a INTEGER)")
    with pytest.raises(duckdb.Error) as duck_missing:
        duck.execute("SELECT b FROM t")
    with pytest.raises(duckdb.Error) as duck_table:
        duck.execute("SELECT a FROM nowhere")
    with pytest.raises(duckdb.Error) as duck_type:
        duck.execute("SELECT 'x'::INTEGER")
    duck.close()
    for message in (sqlite_missing.value, duck_missing.value, duck_table.value):
        assert diagnose_error(str(message)).primary is Category.SCHEMA, message
    assert diagnose_error(str(duck_type.value)).primary is Category.RUNTIME
    timeout = diagnose_error("the statement ran past 10 s and was stopped")
    assert timeout == Diagnosis(
        Category.RUNTIME, (Category.RUNTIME,), "did not run: the statement ran past 10 s and was stopped"
    )


def test_the_categories_and_their_counts_keep_the_precedence():
    assert [c.value for c in CATEGORIES] == [
        "runtime", "schema", "join", "filter", "grouping", "aggregation", "distinct", "projection", "ordering",
        "value_format", "other",
    ]  # fmt: skip
    assert earliest([Category.ORDERING, Category.JOIN]) is Category.JOIN
    assert earliest([]) is Category.OTHER
    assert list(category_counts([Category.ORDERING, Category.FILTER, Category.ORDERING])) == ["filter", "ordering"]
    d = Diagnosis(Category.JOIN, (Category.JOIN, Category.FILTER), "x")
    assert codec.from_json(Diagnosis, codec.to_json(d)) == d


def test_a_long_line_is_clipped():
    long = "SELECT " + " + ".join(f"c{i}" for i in range(300)) + " FROM t"
    found = diagnose(long, "SELECT 1 FROM t", [(1,)], [(2,)], dialect="sqlite")
    assert len(found.line) <= 400


def test_a_diagnoser_that_fails_leaves_the_verdict_and_says_so(shop, monkeypatch, caplog):
    from eval.sql.corpus.questions import Question
    from eval.sql.grading import diagnosed
    from services.readonly.execute import Execution

    def boom(*_a: object, **_k: object) -> Diagnosis:
        raise RecursionError("too deep")

    monkeypatch.setattr(diagnosed, "diagnose", boom)
    monkeypatch.setattr(diagnosed.log, "disabled", False)  # another test's logging config may have disabled it
    caplog.set_level(logging.WARNING, logger=diagnosed.log.name)
    q = Question(id="q1", question="?", expect="answer", stratum="s", sql="SELECT 1")
    found = diagnosed.of_wrong(q, "SELECT 2", Execution("SELECT 1", ("a",), [(1,)]), Execution("SELECT 2"), "sqlite")
    assert found is not None and found.primary is Category.OTHER and "RecursionError" in found.line
    assert "q1: the diagnosis failed" in caplog.text


def test_a_pair_on_duckdb(tmp_path):
    """The diagnoser reads DuckDB's dialect: a LIMIT off by one on a DuckDB file."""
    con = duckdb.connect(str(tmp_path / "shop.duckdb"))
    con.execute("CREATE TABLE orders (order_id INTEGER, total DECIMAL(10, 2))")
    con.execute("INSERT INTO orders VALUES (1, 5.00), (2, 7.50), (3, 2.25), (4, 9.00)")
    ref_sql = "SELECT order_id, total FROM orders ORDER BY total DESC LIMIT 2"
    got_sql = "SELECT order_id, total FROM orders ORDER BY total DESC LIMIT 3"
    ref, got = con.execute(ref_sql).fetchall(), con.execute(got_sql).fetchall()
    con.close()
    found = diagnose(got_sql, ref_sql, got, ref, dialect="duckdb", ordered=True)
    assert found.primary is Category.ORDERING
    assert found.line == (
        "the rows show it: reference rows are the candidate's first 2 of 3; "
        "LIMIT: reference has `LIMIT 2`, candidate has `LIMIT 3`"
    )


def test_the_same_rows_a_period_off():
    found = evidence([("2024-01", 5), ("2024-02", 6)], [("2024-02", 5), ("2024-03", 6)])
    assert found.category is Category.FILTER
    assert found.text == "the same rows off by one period (column 1 one period later than the reference's)"


def test_another_shape_over_the_same_tables_is_no_join_mistake(shop):
    """A CTE where the reference reads the table directly: the same tables, another shape (``other``), which
    the real mistake (a condition left out) outranks."""
    found = diagnosed(
        shop,
        "WITH o AS (SELECT order_id, total FROM orders) SELECT order_id FROM o WHERE total > 6",
        "SELECT order_id FROM orders WHERE total > 6 AND status = 'completed'",
    )
    assert found.primary is Category.FILTER, found
    assert Category.JOIN not in found.tags and Category.OTHER in found.tags
    only_shape = diagnosed(
        shop, "WITH o AS (SELECT order_id FROM orders) SELECT order_id FROM o", "SELECT order_id FROM orders LIMIT 2"
    )
    assert only_shape.primary is Category.ORDERING  # the LIMIT, not the shape
