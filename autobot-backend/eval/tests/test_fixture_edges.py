"""The rows placed on purpose (eval.sql.fixtures.edges) are there on every rotation, checked with
independent SQL, and placing them moved no revenue total and no order before its customer's signup."""

from __future__ import annotations

import copy
import sqlite3
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from eval.sql.fixtures import data as fixture_data
from eval.sql.fixtures import seeded as fixtures
from eval.sql.fixtures.edges import add_edges

ROTATIONS = [(f, i) for f in fixtures.FIXTURE_NAMES for i in range(3)]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, list[Path]]:
    d = tmp_path_factory.mktemp("edges")
    return {
        f: [Path(u.removeprefix("sqlite:///")) for u in fixtures.build_rotations(f, d)] for f in fixtures.FIXTURE_NAMES
    }


@pytest.fixture(params=ROTATIONS, ids=[f"{f}-rot{i}" for f, i in ROTATIONS])
def db(request, built):
    fixture, rotation = request.param
    conn = sqlite3.connect(built[fixture][rotation])
    yield fixture, conn
    conn.close()


def rows(conn, sql: str) -> list[tuple]:
    return conn.execute(sql).fetchall()


def test_each_countrys_biggest_spender_shares_a_name_with_its_second(db):
    # Names are not keys: grouping by a name instead of an id must merge somebody.
    _, conn = db
    spend = rows(
        conn,
        """SELECT c.country, c.name, SUM(oi.quantity * oi.unit_price) AS s FROM customers c
           JOIN orders o ON o.customer_id = c.customer_id JOIN order_items oi ON oi.order_id = o.order_id
           WHERE o.status = 'completed' GROUP BY c.customer_id ORDER BY c.country, s DESC""",
    )
    by_country: dict[str, list[str]] = {}
    for country, name, _ in spend:
        by_country.setdefault(country, []).append(name)
    assert all(names[0] == names[1] for names in by_country.values())


def test_the_best_seller_shares_a_name_with_another_product_of_its_category(db):
    _, conn = db
    (name, category), *_ = rows(
        conn,
        """SELECT p.name, p.category FROM products p JOIN order_items oi ON oi.product_id = p.product_id
           JOIN orders o ON o.order_id = oi.order_id WHERE o.status = 'completed'
           GROUP BY p.product_id ORDER BY SUM(oi.quantity * oi.unit_price) DESC LIMIT 1""",
    )
    assert rows(conn, f"SELECT COUNT(*) FROM products WHERE name = '{name}' AND category = '{category}'") == [(2,)]


def test_the_dearest_product_is_discontinued(db):
    _, conn = db
    assert rows(conn, "SELECT discontinued FROM products ORDER BY unit_price DESC LIMIT 1") == [(1,)]


def test_the_last_month_has_a_product_gone_one_on_its_first_day_only_and_one_on_its_last_only(db):
    fixture, conn = db
    end = fixtures.SPECS[fixture].order_end.isoformat()
    start = end[:8] + "01"
    days = rows(
        conn,
        f"""SELECT oi.product_id, group_concat(DISTINCT CASE WHEN o.order_date BETWEEN '{start}' AND '{end}'
                                                  THEN o.order_date END)
            FROM order_items oi JOIN orders o ON o.order_id = oi.order_id GROUP BY oi.product_id""",
    )
    in_last_month = Counter(d for _, d in days)
    assert in_last_month[None] and in_last_month[start] and in_last_month[end]


def test_the_day_after_the_period_holds_two_orders_and_a_signup_placed_on_purpose(db):
    fixture, conn = db
    end = fixtures.SPECS[fixture].order_end
    day, last_month = (end + timedelta(days=1)).isoformat(), end.isoformat()[:8] + "01"
    late = rows(
        conn,
        f"""SELECT o.status, o.channel, o.shipped_date, oi.quantity,
                   oi.product_id IN (SELECT oi2.product_id FROM order_items oi2
                                     JOIN orders o2 ON o2.order_id = oi2.order_id
                                     WHERE o2.order_date BETWEEN '{last_month}' AND '{end}'),
                   o.customer_id IN (SELECT customer_id FROM orders WHERE order_date <= '{end}')
            FROM orders o JOIN order_items oi ON oi.order_id = o.order_id
            WHERE o.order_date > '{end}' ORDER BY o.order_id""",
    )
    assert late == [("completed", "phone", None, 1, 0, 1), ("cancelled", "web", None, 1, 0, 1)]
    assert rows(conn, "SELECT (SELECT MAX(order_date) FROM orders), (SELECT MAX(signup_date) FROM customers)") == [
        (day, day)
    ]
    signed = rows(
        conn,
        f"""SELECT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id) FROM customers c
            WHERE c.signup_date > '{end}'""",
    )
    assert signed == [(0,)]


def test_two_customers_sign_up_on_the_last_years_first_day_and_only_one_orders(db):
    fixture, conn = db
    day = f"{fixtures.SPECS[fixture].order_end.year}-01-01"
    ordered = rows(
        conn,
        f"""SELECT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id) FROM customers c
            WHERE c.signup_date = '{day}' ORDER BY 1""",
    )
    assert ordered == [(0,), (1,)]


def test_a_customer_orders_only_on_new_years_days_where_the_period_holds_two(built):
    conn = sqlite3.connect(built["retail_24m"][0])
    found = rows(
        conn,
        """SELECT customer_id FROM orders GROUP BY customer_id
           HAVING group_concat(order_date, ',') = '2023-01-01,2024-01-01'""",
    )
    conn.close()
    assert len(found) == 1


def test_an_order_placed_on_the_first_of_december_ships_in_january(built):
    conn = sqlite3.connect(built["retail_24m"][0])
    late = rows(
        conn, "SELECT shipped_date FROM orders WHERE order_date = '2023-12-01' AND shipped_date >= '2024-01-01'"
    )
    conn.close()
    assert late == [("2024-01-02",)]


@pytest.mark.parametrize("fixture", fixtures.FIXTURE_NAMES)
def test_edges_move_no_revenue_total_and_no_order_before_its_signup(fixture, monkeypatch):
    spec = fixtures.SPECS[fixture]
    monkeypatch.setattr(fixture_data, "add_edges", lambda *args: None)
    raw = fixture_data.generate(spec, 0)  # the seed's rows before any edge
    edged = copy.deepcopy(raw)
    add_edges(spec.order_start, spec.order_end, edged.customers, edged.products, edged.orders, edged.order_items)
    assert edged != raw
    outside = (spec.order_end + timedelta(days=1)).strftime("%Y-%m")
    assert {m: v for m, v in monthly_revenue(edged).items() if m != outside} == dict(monthly_revenue(raw))
    signup = {c["customer_id"]: c["signup_date"] for c in edged.customers}
    assert all(o["order_date"] >= signup[o["customer_id"]] for o in edged.orders)


def monthly_revenue(data: fixture_data.FixtureData) -> Counter[str]:
    when = {o["order_id"]: o for o in data.orders if o["status"] == "completed"}
    total: Counter[str] = Counter()
    for line in data.order_items:
        if line["order_id"] in when:
            total[when[line["order_id"]]["order_date"].strftime("%Y-%m")] += line["quantity"] * line["unit_price"]
    return total
