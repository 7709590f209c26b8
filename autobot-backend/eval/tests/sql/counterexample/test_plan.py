"""The neighbours the search tries first, on a real SQLite database a few rows big: each is an edit of the issue's
kinds aimed at the rows the queries single out, and each keeps the declared constraints.

The database is the retail shape in miniature: December's top customer (with a namesake far behind), a customer
whose only orders are on the day after the period, and an order line or two under each order.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import date
from pathlib import Path

import pytest

from eval.sql.counterexample.constraints import violation
from eval.sql.counterexample.data import Base, Working, read_base
from eval.sql.counterexample.edits import Clone, CloneEach, Drop, Keep, Put
from eval.sql.counterexample.neighbours import Proposer
from eval.sql.counterexample.reading import read_focus
from eval.sql.counterexample.values import period_of_literal
from eval.sql.fixtures.rules import Within

DDL = """
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, signup_date TEXT NOT NULL);
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
  order_date TEXT NOT NULL, shipped_date TEXT, status TEXT NOT NULL);
CREATE TABLE order_items (order_id INTEGER NOT NULL REFERENCES orders(order_id), line_no INTEGER NOT NULL,
  quantity INTEGER NOT NULL, unit_price REAL NOT NULL, PRIMARY KEY (order_id, line_no));
INSERT INTO customers VALUES (1, 'Ada Top', '2023-01-05'), (2, 'Ben Late', '2023-02-01'), (3, 'Ada Top', '2023-03-01'),
  (4, 'Cy Mid', '2023-04-01');
INSERT INTO orders VALUES
  (1, 1, '2024-11-15', '2024-11-17', 'completed'), (2, 1, '2024-12-01', '2024-12-05', 'completed'),
  (3, 3, '2024-12-10', '2024-12-12', 'completed'), (4, 4, '2024-12-20', NULL, 'cancelled'),
  (5, 4, '2024-12-31', '2024-12-31', 'completed'), (6, 2, '2025-01-01', NULL, 'completed');
INSERT INTO order_items VALUES (1, 1, 2, 10.0), (2, 1, 5, 40.0), (2, 2, 1, 5.0), (3, 1, 1, 3.0), (4, 1, 1, 9.0),
  (5, 1, 2, 7.5), (6, 1, 1, 1.0);
"""

REFERENCE = """
SELECT c.name, SUM(oi.quantity * oi.unit_price) AS spend
FROM customers c JOIN orders o ON o.customer_id = c.customer_id JOIN order_items oi ON oi.order_id = o.order_id
WHERE o.status = 'completed' AND o.order_date BETWEEN '2024-12-01' AND '2024-12-31'
GROUP BY c.customer_id, c.name ORDER BY spend DESC LIMIT 3
"""
ANSWER = REFERENCE.replace("'2024-12-31'", "'2025-01-01'")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Base:
    path = Path(tmp_path_factory.mktemp("plan")) / "tiny.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(DDL)
    conn.close()
    return read_base(f"sqlite:///{path}")


def _proposer(base: Base, seed: int = 0) -> Proposer:
    conn = sqlite3.connect(base.url.removeprefix("sqlite:///"))
    shown = [v for row in conn.execute(REFERENCE).fetchall() for v in row]
    conn.close()
    return Proposer(base, read_focus(base.schema, [REFERENCE, ANSWER], "sqlite", shown), random.Random(seed))


def _by_id(base: Base, table: str, key: int) -> int:
    return next(r for r, v in base.rows[table].items() if v[0] == key)


def test_a_date_literal_names_its_day_month_or_year():
    assert period_of_literal("2024-12-31") == (date(2024, 12, 31), date(2024, 12, 31))
    assert period_of_literal("2024-02") == (date(2024, 2, 1), date(2024, 2, 29))
    assert period_of_literal("2024") == (date(2024, 1, 1), date(2024, 12, 31))
    assert period_of_literal("completed") is None


def test_the_plan_aims_each_kind_at_the_rows_the_queries_single_out(base):
    proposer = _proposer(base)
    plan = proposer.plan
    late_customer = _by_id(base, "customers", 2)
    # the customer whose orders are all on the day after the period, alone (with the period's last day's)
    assert [Keep("customers", frozenset({late_customer}))] in plan
    # a customer the answer shows, cloned: a namesake with the same spend
    shown = {_by_id(base, "customers", k) for k in (1, 3, 4)}
    assert any(len(p) == 1 and isinstance(p[0], Clone) and p[0].row in shown for p in plan)
    # the days the literals name emptied and doubled (the period's first day holds order 2)
    first_day = frozenset({_by_id(base, "orders", 2)})
    assert [Drop("orders", first_day)] in plan and [CloneEach("orders", first_day)] in plan
    # a shown customer's order placed on the day after the period, its shipping date cleared
    theirs = {r for r, v in base.rows["orders"].items() if v[1] in (1, 3, 4)}
    placed = [p for p in plan if isinstance(p[0], Put) and p[0].value == "2025-01-01"]
    assert placed and all(p[0].row in theirs and p[1:] == [Put("orders", 3, p[0].row, None)] for p in placed)
    assert _proposer(base).plan == plan  # seeded: the same plan again


def test_every_planned_neighbour_keeps_the_declared_constraints(base):
    for edits in _proposer(base, seed=7).plan:
        w = Working(base)
        for edit in edits:
            edit.apply(w)
        assert violation(w, ()) is None, edits


def test_a_period_doubled_copies_its_rows_with_their_lines_under_fresh_keys(base):
    december = frozenset(r for r, v in base.rows["orders"].items() if v[2].startswith("2024-12"))
    w = Working(base)
    CloneEach("orders", december).apply(w)
    assert len(w.rows("orders")) == len(base.rows["orders"]) + len(december)
    keys = [v[0] for v in w.rows("orders").values()]
    assert len(set(keys)) == len(keys)
    lines = [(v[0], v[1]) for v in w.rows("order_items").values()]
    assert len(set(lines)) == len(lines) == len(base.rows["order_items"]) + 5  # December's orders hold 5 lines
    assert violation(w, ()) is None


def test_a_value_the_fixtures_rules_forbid_is_never_planned(base):
    """The day after the period is a day orders may hold; the day after that is not: no planned turn is spent on it."""

    def placed(proposer: Proposer) -> set[object]:
        return {p[0].value for p in proposer.plan if isinstance(p[0], Put) and p[0].column == 2}

    assert "2025-01-02" in placed(_proposer(base))
    ranged = _proposer(base)
    ranged = Proposer(
        base, ranged.focus, random.Random(0), rules=(Within("orders", "order_date", None, date(2025, 1, 1)),)
    )
    assert "2025-01-01" in placed(ranged) and "2025-01-02" not in placed(ranged)


def test_a_referenced_key_changed_under_rows_that_refer_to_it_breaks_the_foreign_key(base):
    """Found on Spider (car_1): a model's name set to NULL left the car names that named it referring to nothing, and
    the refutation stood on data the declared foreign key forbids. Changing a key nobody refers to is allowed."""
    referred = Working(base)
    Put("customers", 0, 3, 40).apply(referred)  # customer 4 (the fourth row) has orders
    assert violation(referred, ()) == "FOREIGN KEY: orders -> customers"
    alone = Working(base)
    Put("customers", 0, 3, 40).apply(alone)
    Put("orders", 1, 3, 40).apply(alone)
    Put("orders", 1, 4, 40).apply(alone)  # its orders follow it
    assert violation(alone, ()) is None
    named_twice = Working(base)
    Put("orders", 0, 5, 60).apply(named_twice)  # order 6's line still refers to order 6
    assert violation(named_twice, ()) == "FOREIGN KEY: order_items -> orders"


def test_a_key_changed_and_then_deleted_still_leaves_its_referrers_orphaned(base):
    """Why the foreign-key check reads a neighbour's removed rows as well as its changed ones: deleting a row takes
    with it the rows that refer to its key *now*, so a key changed first and then deleted leaves the rows that
    referred to its old key pointing at nothing. Deleting a row whose key never changed is allowed."""
    moved_then_dropped = Working(base)
    Put("customers", 0, 3, 40).apply(moved_then_dropped)  # customer 4 (the fourth row) has orders
    Drop("customers", frozenset({3})).apply(moved_then_dropped)
    assert violation(moved_then_dropped, ()) == "FOREIGN KEY: orders -> customers"
    dropped = Working(base)
    Drop("customers", frozenset({3})).apply(dropped)  # its orders and their lines go with it
    assert violation(dropped, ()) is None
