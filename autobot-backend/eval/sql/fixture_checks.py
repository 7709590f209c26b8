"""The data guarantees of spec 3.2, checked in SQL over a built database.

The checks read the database back through SQLAlchemy Core rather than trusting the generator,
so they hold for whatever engine the fixture was built on. Each check returns the problems it
found as sentences; :func:`check_guarantees` runs them all, so a broken seed is reported whole.

Money is read as integer cents (``CAST(ROUND(x * 100) AS INTEGER)``): sums compare exactly, and
no Decimal has to cross an engine without a decimal type. Period totals are summed per day in
SQL and bucketed into months and quarters in Python, because date functions differ per engine.

Distinctness (``retail_24m``): monthly and quarterly revenue totals, and the absolute values of
the month-over-month, quarter-over-quarter and year-over-year (per month and per quarter) deltas,
are pairwise distinct within each family. Absolute values, so that "the biggest swing" has a
single answer, which also makes the signed deltas distinct.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import date
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from eval.sql.fixture_data import FixtureSpec, month_boundaries
from eval.sql.fixture_schema import (
    CATEGORIES,
    CHANNELS,
    COUNTRIES,
    SEGMENTS,
    STATUSES,
    customers,
    order_items,
    orders,
    products,
)

Check = Callable[[Connection, FixtureSpec], list[str]]


def _cents(expr: Any) -> sa.ColumnElement[int]:
    return sa.cast(sa.func.round(expr * 100), sa.Integer)


def _scalar(conn: Connection, stmt: Any) -> int:
    return int(conn.execute(stmt).scalar_one())


def _count(conn: Connection, table: sa.Table, *where: Any) -> int:
    return _scalar(conn, sa.select(sa.func.count()).select_from(table).where(*where))


def check_sizes(conn: Connection, spec: FixtureSpec) -> list[str]:
    problems = []
    for table, (low, high) in ((customers, spec.customers), (products, spec.products), (orders, spec.orders)):
        n = _count(conn, table)
        if not low <= n <= high:
            problems.append(f"{table.name} has {n} rows, expected {low}..{high}")
    if _count(conn, order_items) < _count(conn, orders):
        problems.append("fewer order lines than orders")
    return problems


def check_ids(conn: Connection, spec: FixtureSpec) -> list[str]:
    problems = []
    for table, col in (
        (customers, customers.c.customer_id),
        (products, products.c.product_id),
        (orders, orders.c.order_id),
    ):
        low, high, n = conn.execute(sa.select(sa.func.min(col), sa.func.max(col), sa.func.count())).one()
        if (low, high) != (1, n):
            problems.append(f"{table.name} ids run {low}..{high} over {n} rows, expected 1..{n}")
    return problems


def check_vocabularies(conn: Connection, spec: FixtureSpec) -> list[str]:
    problems = []
    for col, vocabulary in (
        (products.c.category, CATEGORIES),
        (customers.c.country, COUNTRIES),
        (customers.c.segment, SEGMENTS),
        (orders.c.status, STATUSES),
        (orders.c.channel, CHANNELS),
    ):
        present = set(conn.execute(sa.select(col).distinct()).scalars())
        if present != set(vocabulary):
            problems.append(f"{col.table.name}.{col.name} values {sorted(present)}, expected {sorted(vocabulary)}")
    return problems


def check_dates(conn: Connection, spec: FixtureSpec) -> list[str]:
    problems = []
    first, last = conn.execute(sa.select(sa.func.min(orders.c.order_date), sa.func.max(orders.c.order_date))).one()
    if (first, last) != (spec.order_start, spec.order_end):
        problems.append(f"orders run {first}..{last}, expected {spec.order_start}..{spec.order_end}")
    first, last = conn.execute(
        sa.select(sa.func.min(customers.c.signup_date), sa.func.max(customers.c.signup_date))
    ).one()
    if first < spec.signup_start or last > spec.signup_end:
        problems.append(f"signups run {first}..{last}, outside {spec.signup_start}..{spec.signup_end}")
    early = _count(
        conn, orders, sa.or_(orders.c.shipped_date < orders.c.order_date, orders.c.shipped_date > spec.order_end)
    )
    if early:
        problems.append(f"{early} orders shipped before they were placed or after {spec.order_end}")
    completed_days = set(
        conn.execute(sa.select(orders.c.order_date).where(orders.c.status == "completed").distinct()).scalars()
    )
    missing = [d for d in month_boundaries(spec.order_start, spec.order_end) if d not in completed_days]
    if missing:
        problems.append(f"no completed order on the period boundaries {', '.join(map(str, missing))}")
    return problems


def check_nulls(conn: Connection, spec: FixtureSpec) -> list[str]:
    problems = []
    referred = _count(conn, customers, customers.c.referred_by.is_not(None))
    if referred == 0 or referred == _count(conn, customers):
        problems.append(f"referred_by must be NULL for some customers and set for others ({referred} set)")
    bad_refs = _count(conn, customers, customers.c.referred_by >= customers.c.customer_id)
    if bad_refs:
        problems.append(f"{bad_refs} customers referred by themselves or by a later customer")
    if _count(conn, orders, orders.c.status == "cancelled", orders.c.shipped_date.is_not(None)):
        problems.append("a cancelled order has a shipped_date")
    if not _count(conn, orders, orders.c.status != "cancelled", orders.c.shipped_date.is_(None)):
        problems.append("no order is waiting to ship (shipped_date NULL on a non-cancelled order)")
    if not _count(conn, orders, orders.c.shipped_date.is_not(None)):
        problems.append("no order has shipped")
    return problems


def check_links(conn: Connection, spec: FixtureSpec) -> list[str]:
    problems = []
    never = _count(conn, customers, ~sa.exists().where(orders.c.customer_id == customers.c.customer_id))
    if never == 0:
        problems.append("every customer has ordered; some must have no orders")
    referrer = customers.alias("referrer")
    for child, fk, target in (
        (orders, orders.c.customer_id, customers.c.customer_id),
        (order_items, order_items.c.order_id, orders.c.order_id),
        (order_items, order_items.c.product_id, products.c.product_id),
        (customers, customers.c.referred_by, referrer.c.customer_id),
    ):
        orphans = _count(conn, child, fk.is_not(None), ~sa.exists().where(target == fk))
        if orphans:
            problems.append(f"{orphans} rows of {child.name}.{fk.name} point at no existing row")
    empty = _count(conn, orders, ~sa.exists().where(order_items.c.order_id == orders.c.order_id))
    if empty:
        problems.append(f"{empty} orders have no lines")
    return problems


def check_money(conn: Connection, spec: FixtureSpec) -> list[str]:
    problems = []
    revenue = _scalar(
        conn,
        sa.select(_cents(sa.func.sum(order_items.c.quantity * order_items.c.unit_price)))
        .join_from(order_items, orders)
        .where(orders.c.status == "completed"),
    )
    if revenue % 100 == 0:
        problems.append(f"total revenue {revenue / 100:.2f} has no cents")
    prices = conn.execute(sa.select(_cents(products.c.unit_price))).scalars()
    if all(p % 100 == 0 for p in prices):
        problems.append("no list price has cents")
    return problems


def monthly_revenue_cents(conn: Connection) -> dict[str, int]:
    """``YYYY-MM`` -> revenue in cents, from per-day sums in SQL."""
    day = orders.c.order_date
    stmt = (
        sa.select(day, _cents(sa.func.sum(order_items.c.quantity * order_items.c.unit_price)))
        .join_from(order_items, orders)
        .where(orders.c.status == "completed")
        .group_by(day)
    )
    months: dict[str, int] = defaultdict(int)
    for d, cents in conn.execute(stmt):
        months[f"{d.year:04d}-{d.month:02d}"] += cents
    return dict(sorted(months.items()))


def _collisions(family: str, values: Iterable[tuple[str, int]]) -> list[str]:
    by_value: dict[int, list[str]] = defaultdict(list)
    for label, cents in values:
        by_value[abs(cents)].append(label)
    return [
        f"{family} collide: {' and '.join(labels)} all {cents / 100:.2f}"
        for cents, labels in by_value.items()
        if len(labels) > 1
    ]


def _deltas(series: dict[str, int], lag: int) -> list[tuple[str, int]]:
    labels = list(series)
    return [
        (f"{labels[i]} vs {labels[i - lag]}", series[labels[i]] - series[labels[i - lag]])
        for i in range(lag, len(labels))
    ]


def period_collisions(months: dict[str, int]) -> list[str]:
    """Every colliding pair of periods, by family (empty when all are distinct)."""
    quarters: dict[str, int] = defaultdict(int)
    for label, cents in months.items():
        quarters[f"{label[:4]}-Q{(int(label[5:]) - 1) // 3 + 1}"] += cents
    return (
        _collisions("monthly revenue totals", months.items())
        + _collisions("quarterly revenue totals", quarters.items())
        + _collisions("month-over-month deltas", _deltas(months, 1))
        + _collisions("quarter-over-quarter deltas", _deltas(dict(quarters), 1))
        + _collisions("year-over-year deltas (months)", _deltas(months, 12))
        + _collisions("year-over-year deltas (quarters)", _deltas(dict(quarters), 4))
    )


def check_edges(conn: Connection, spec: FixtureSpec) -> list[str]:
    """The rows :mod:`eval.sql.fixture_edges` places on purpose are there."""
    problems = []
    dearest = conn.execute(sa.select(products.c.discontinued).order_by(products.c.unit_price.desc()).limit(1))
    if not dearest.scalar_one():
        problems.append("the dearest product is not discontinued")
    start = date(spec.order_end.year, spec.order_end.month, 1)
    lines = conn.execute(sa.select(order_items.c.product_id, orders.c.order_date).join_from(order_items, orders)).all()
    days: dict[int, set[date]] = defaultdict(set)
    for product, day in lines:
        days[product].add(day)
    last_month = {p: {d for d in ds if d >= start} for p, ds in days.items()}
    wanted = {
        "a product sold before the last month and not in it": set(),
        f"a product sold in the last month only on {start}": {start},
        f"a product sold in the last month only on {spec.order_end}": {spec.order_end},
    }
    problems += [f"no {what}" for what, sold in wanted.items() if sold not in last_month.values()]
    spend = (
        sa.select(customers.c.name, sa.func.count(sa.distinct(customers.c.customer_id)))
        .join_from(customers, orders)
        .where(orders.c.status == "completed")
        .group_by(customers.c.name)
        .having(sa.func.count(sa.distinct(customers.c.customer_id)) > 1)
    )
    if not conn.execute(spend).first():
        problems.append("no two customers with completed orders share a name")
    return problems


def check_distinct_periods(conn: Connection, spec: FixtureSpec) -> list[str]:
    if not spec.distinct_periods:
        return []
    return period_collisions(monthly_revenue_cents(conn))


CHECKS: tuple[Check, ...] = (
    check_sizes,
    check_ids,
    check_vocabularies,
    check_dates,
    check_nulls,
    check_links,
    check_money,
    check_edges,
    check_distinct_periods,
)


def check_guarantees(conn: Connection, spec: FixtureSpec) -> list[str]:
    """Every problem of every check, in check order; empty when the database keeps spec 3.2."""
    return [p for check in CHECKS for p in check(conn, spec)]
