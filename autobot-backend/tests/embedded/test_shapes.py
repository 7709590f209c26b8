"""Question shapes the embedded generator reads, graded by execution.

Each probe is a question written for the rule it pins (not taken from any test set) and a
hand-written reference query over the suite's own ``retail_24m`` fixture (orders 2023-01..2024-12);
the generated query must return the same rows (``eval.sql.rows`` at two decimals, column count
checked, order checked where the answer is an ordering). Grouped by the shape they pin: period
comparisons, LEFT-join-sensitive answers, money, boundary days, rankings and answer lists, averages
of per-entity or per-period totals.
"""

from __future__ import annotations

import sqlite3

import pytest
import sqlalchemy as sa

from eval.sql.fixtures.seeded import write
from eval.sql.rows import compare_results
from services.embedded import EmbeddedGenerator
from services.embedded.refusal import Refusal
from services.schema_context import SchemaContext, inspect_schema

REVENUE = "SUM(oi.quantity * oi.unit_price)"
DONE = "o.status = 'completed'"
IN_2024 = "BETWEEN '2024-01-01' AND '2024-12-31'"  # the year, not the data's span: the day after it holds rows


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> tuple[sqlite3.Connection, SchemaContext]:
    url = write(tmp_path_factory.mktemp("shapes") / "retail_24m.db", "retail_24m", 0)
    engine = sa.create_engine(url)
    ctx = inspect_schema(engine)
    engine.dispose()
    conn = sqlite3.connect(url.removeprefix("sqlite:///"))
    yield conn, ctx
    conn.close()


def check(shop, question: str, reference: str, ordered: bool = False) -> None:
    conn, ctx = shop
    sql = EmbeddedGenerator().explain(question, ctx)
    assert not isinstance(sql, Refusal), sql
    got = conn.execute(sql)
    got_rows, got_cols = got.fetchall(), len(got.description)
    want = conn.execute(reference)
    want_rows, want_cols = want.fetchall(), len(want.description)
    shape = "scalar" if want_cols == 1 and len(want_rows) == 1 else "rows"
    result = compare_results(
        want_rows, got_rows, shape=shape, ordered=ordered, decimals=2, expected_ncols=want_cols, actual_ncols=got_cols
    )
    assert result.match, f"{result.detail}\n{sql}"


def _orders(where: str) -> str:
    return f"SELECT {REVENUE} FROM order_items oi JOIN orders o ON o.order_id = oi.order_id WHERE {where}"


PERIODS = [
    (
        "By how much did revenue in the third quarter of 2024 exceed Q3 2023? How many more dollars, one number.",
        "SELECT ("
        + _orders(DONE + " AND o.order_date BETWEEN '2024-07-01' AND '2024-09-30'")
        + ") - ("
        + _orders(DONE + " AND o.order_date BETWEEN '2023-07-01' AND '2023-09-30'")
        + ")",
        False,
    ),
    (
        "How many more orders did we take in 2024 than in 2023?",
        f"SELECT (SELECT COUNT(*) FROM orders WHERE order_date {IN_2024}) - "
        "(SELECT COUNT(*) FROM orders WHERE order_date < '2024-01-01')",
        False,
    ),
    (
        "Which channel gained the most revenue from 2023 to 2024?",
        f"SELECT channel FROM (SELECT o.channel, SUM(CASE WHEN o.order_date {IN_2024} THEN oi.quantity * "
        "oi.unit_price ELSE 0 END) - SUM(CASE WHEN o.order_date < '2024-01-01' THEN oi.quantity * oi.unit_price "
        f"ELSE 0 END) AS d FROM order_items oi JOIN orders o ON o.order_id = oi.order_id WHERE {DONE} "
        "GROUP BY o.channel ORDER BY d DESC LIMIT 1)",
        False,
    ),
    (
        "Each month of 2024 with its order count and how it moved against the month before it.",
        "SELECT * FROM (SELECT m, n, n - LAG(n) OVER (ORDER BY m) FROM (SELECT STRFTIME('%Y-%m', order_date) m, "
        "COUNT(*) n FROM orders GROUP BY m)) WHERE m LIKE '2024-%' ORDER BY m",
        True,
    ),
    (
        "How many more orders were there in Q2 2024 than a year before, year over year?",
        "SELECT (SELECT COUNT(*) FROM orders WHERE order_date BETWEEN '2024-04-01' AND '2024-06-30') - "
        "(SELECT COUNT(*) FROM orders WHERE order_date BETWEEN '2023-04-01' AND '2023-06-30')",
        False,
    ),
    (
        "Quarter by quarter in 2024: order count and its change against the same quarter of 2023.",
        "SELECT * FROM (SELECT q, n, n - LAG(n, 4) OVER (ORDER BY q) FROM (SELECT STRFTIME('%Y', order_date) || '-Q' "
        "|| ((CAST(STRFTIME('%m', order_date) AS INT) + 2) / 3) q, COUNT(*) n FROM orders GROUP BY q)) "
        "WHERE q LIKE '2024-%' ORDER BY q",
        True,
    ),
    (
        "Which quarter of 2024 had the largest rise in order count over the quarter before? Just the quarter.",
        "SELECT q FROM (SELECT q, n - LAG(n) OVER (ORDER BY q) d FROM (SELECT STRFTIME('%Y', order_date) || '-Q' || "
        "((CAST(STRFTIME('%m', order_date) AS INT) + 2) / 3) q, COUNT(*) n FROM orders GROUP BY q)) "
        "WHERE q LIKE '2024-%' ORDER BY d DESC LIMIT 1",
        False,
    ),
]

LEFT_JOINS = [
    (
        "Give every category with its number of December 2024 orders, categories with none included.",
        "SELECT p.category, COUNT(DISTINCT o.order_id) FROM products p LEFT JOIN order_items oi ON oi.product_id = "
        "p.product_id LEFT JOIN orders o ON o.order_id = oi.order_id AND o.order_date BETWEEN '2024-12-01' AND "
        "'2024-12-31' GROUP BY p.category",
        False,
    ),
    (
        "What is the mean number of orders per customer, customers who never ordered counting as zero?",
        "SELECT AVG(n) FROM (SELECT c.customer_id, COUNT(o.order_id) n FROM customers c LEFT JOIN orders o ON "
        "o.customer_id = c.customer_id GROUP BY c.customer_id)",
        False,
    ),
    (
        "What percentage of customers placed an order in March 2024?",
        "SELECT 100.0 * SUM(CASE WHEN EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id AND "
        "o.order_date BETWEEN '2024-03-01' AND '2024-03-31') THEN 1 ELSE 0 END) / COUNT(*) FROM customers c",
        False,
    ),
]

MONEY = [
    (
        "What were cancelled orders in 2024 worth, i.e. the value of their lines?",
        f"SELECT {REVENUE} FROM order_items oi JOIN orders o ON o.order_id = oi.order_id WHERE o.status = 'cancelled' "
        f"AND o.order_date {IN_2024}",
        False,
    ),
    (
        "What would 2023 revenue have come to at list prices?",
        "SELECT SUM(oi.quantity * p.unit_price) FROM order_items oi JOIN orders o ON o.order_id = oi.order_id JOIN "
        f"products p ON p.product_id = oi.product_id WHERE {DONE} AND o.order_date < '2024-01-01'",
        False,
    ),
    (
        "Total discount on completed 2024 orders, a line's discount being list price minus the price charged, "
        "times its quantity?",
        "SELECT SUM((p.unit_price - oi.unit_price) * oi.quantity) FROM order_items oi JOIN orders o ON o.order_id = "
        f"oi.order_id JOIN products p ON p.product_id = oi.product_id WHERE {DONE} AND o.order_date {IN_2024}",
        False,
    ),
    (
        "How much did customers in Germany pay for completed orders in 2024?",
        f"SELECT {REVENUE} FROM order_items oi JOIN orders o ON o.order_id = oi.order_id JOIN customers c ON "
        f"c.customer_id = o.customer_id WHERE {DONE} AND c.country = 'Germany' AND o.order_date {IN_2024}",
        False,
    ),
]

DAYS = [
    (
        "How many orders came in on Boxing Day 2023?",
        "SELECT COUNT(*) FROM orders WHERE order_date = '2023-12-26'",
        False,
    ),
    (
        "Orders in the opening seven days of March 2024?",
        "SELECT COUNT(*) FROM orders WHERE order_date BETWEEN '2024-03-01' AND '2024-03-07'",
        False,
    ),
    (
        "How many orders between 10 May and 20 May 2023, both days counted?",
        "SELECT COUNT(*) FROM orders WHERE order_date BETWEEN '2023-05-10' AND '2023-05-20'",
        False,
    ),
    (
        "How many orders shipped on the day they were placed?",
        "SELECT COUNT(*) FROM orders WHERE shipped_date = order_date",
        False,
    ),
]

RANKINGS = [
    (
        "Which two quarters brought in the most revenue? Quarter labels, best first.",
        "SELECT q FROM (SELECT STRFTIME('%Y', o.order_date) || '-Q' || ((CAST(STRFTIME('%m', o.order_date) AS INT) + 2)"
        f" / 3) q, {REVENUE} r FROM order_items oi JOIN orders o ON o.order_id = oi.order_id WHERE {DONE} GROUP BY q "
        "ORDER BY r DESC LIMIT 2)",
        True,
    ),
    (
        "What was the quietest month of 2023 for orders?",
        "SELECT m FROM (SELECT STRFTIME('%Y-%m', order_date) m, COUNT(*) n FROM orders WHERE order_date < '2024-01-01' "
        "GROUP BY m ORDER BY n LIMIT 1)",
        False,
    ),
    (
        "Show each channel's 2024 revenue and its rank.",
        f"SELECT o.channel, {REVENUE} r, RANK() OVER (ORDER BY {REVENUE} DESC) FROM order_items oi JOIN orders o ON "
        f"o.order_id = oi.order_id WHERE {DONE} AND o.order_date {IN_2024} GROUP BY o.channel",
        False,
    ),
    (
        "Which five customers spent the most in 2024? Customer id, name and revenue.",
        f"SELECT c.customer_id, c.name, {REVENUE} r FROM order_items oi JOIN orders o ON o.order_id = oi.order_id JOIN "
        f"customers c ON c.customer_id = o.customer_id WHERE {DONE} AND o.order_date {IN_2024} GROUP BY "
        "c.customer_id ORDER BY r DESC LIMIT 5",
        True,
    ),
]

JOINS = [
    (
        "Which customers referred two or more others? Their name and how many they referred.",
        "SELECT r.name, COUNT(*) FROM customers c JOIN customers r ON r.customer_id = c.referred_by "
        "GROUP BY r.customer_id HAVING COUNT(*) >= 2",
        False,
    ),
    (
        "Who was the biggest-spending customer in 2023?",
        f"SELECT c.name FROM order_items oi JOIN orders o ON o.order_id = oi.order_id JOIN customers c ON "
        f"c.customer_id = o.customer_id WHERE {DONE} AND o.order_date < '2024-01-01' GROUP BY c.customer_id "
        f"ORDER BY {REVENUE} DESC LIMIT 1",
        False,
    ),
    (
        "How do the channels stack up on 2024 revenue?",
        f"SELECT o.channel, {REVENUE} FROM order_items oi JOIN orders o ON o.order_id = oi.order_id WHERE {DONE} "
        f"AND o.order_date {IN_2024} GROUP BY o.channel",
        False,
    ),
    (
        "How many customers bought toys in 2024?",
        "SELECT COUNT(DISTINCT o.customer_id) FROM orders o JOIN order_items oi ON oi.order_id = o.order_id JOIN "
        f"products p ON p.product_id = oi.product_id WHERE p.category = 'toys' AND o.order_date {IN_2024}",
        False,
    ),
]

AVERAGES = [
    (
        "On average, how many lines are on an order?",
        "SELECT AVG(n) FROM (SELECT order_id, COUNT(*) n FROM order_items GROUP BY order_id)",
        False,
    ),
    (
        "What was the highest daily order count in 2024?",
        f"SELECT MAX(n) FROM (SELECT order_date, COUNT(*) n FROM orders WHERE order_date {IN_2024} "
        "GROUP BY order_date)",
        False,
    ),
    (
        "Taking each 2024 month's revenue, what is the mean of those twelve figures?",
        f"SELECT AVG(r) FROM (SELECT STRFTIME('%Y-%m', o.order_date) m, {REVENUE} r FROM order_items oi JOIN orders o "
        f"ON o.order_id = oi.order_id WHERE {DONE} AND o.order_date {IN_2024} GROUP BY m)",
        False,
    ),
    (
        "Monthly revenue for 2024 with a running total — month, revenue, cumulative revenue.",
        f"SELECT m, r, SUM(r) OVER (ORDER BY m) FROM (SELECT STRFTIME('%Y-%m', o.order_date) m, {REVENUE} r FROM "
        f"order_items oi JOIN orders o ON o.order_id = oi.order_id WHERE {DONE} AND o.order_date {IN_2024} "
        "GROUP BY m) ORDER BY m",
        True,
    ),
]


def _ids(probe) -> str:
    return probe[0][:48]


@pytest.mark.parametrize("question,reference,ordered", PERIODS, ids=map(_ids, PERIODS))
def test_period_comparisons(shop, question, reference, ordered):
    check(shop, question, reference, ordered)


@pytest.mark.parametrize("question,reference,ordered", LEFT_JOINS, ids=map(_ids, LEFT_JOINS))
def test_entities_with_none_still_count(shop, question, reference, ordered):
    check(shop, question, reference, ordered)


@pytest.mark.parametrize("question,reference,ordered", MONEY, ids=map(_ids, MONEY))
def test_money(shop, question, reference, ordered):
    check(shop, question, reference, ordered)


@pytest.mark.parametrize("question,reference,ordered", DAYS, ids=map(_ids, DAYS))
def test_boundary_days(shop, question, reference, ordered):
    check(shop, question, reference, ordered)


@pytest.mark.parametrize("question,reference,ordered", RANKINGS, ids=map(_ids, RANKINGS))
def test_rankings_and_answer_lists(shop, question, reference, ordered):
    check(shop, question, reference, ordered)


@pytest.mark.parametrize("question,reference,ordered", JOINS, ids=map(_ids, JOINS))
def test_joins_self_references_and_groupings(shop, question, reference, ordered):
    check(shop, question, reference, ordered)


@pytest.mark.parametrize("question,reference,ordered", AVERAGES, ids=map(_ids, AVERAGES))
def test_averages_of_totals_and_windows(shop, question, reference, ordered):
    check(shop, question, reference, ordered)


def test_a_discount_the_question_does_not_define_is_declined(shop):
    _conn, ctx = shop
    outcome = EmbeddedGenerator().explain("What is the average discount per order line?", ctx)
    assert isinstance(outcome, Refusal) and outcome.kind == "out_of_schema"
