"""Rows placed on purpose, so that plausible mistakes show: what the near-miss study asked of the data.

Each edge is applied after every random draw of a seed, by moving, renaming or flagging rows the
seed already made (never by drawing more), so the rest of the data stays what the seed made it
and the revenue totals do not move (no line changes its quantity or price; an order keeps its
date). Each one names the mistake it is there for (``python -m eval.sql.near_miss``):

* namesakes: the biggest spender of each country shares a full name with the country's second,
  and the best-selling product with the second best-seller of its category (names are not keys:
  grouping by a name instead of an id merges them);
* the dearest product is discontinued (a question about what is still sold must filter);
* in the last month of the period, one product sold before is not sold at all, one only on its
  first day and one only on its last day (a month's range cut short at either end, or not
  applied, shows);
* two customers sign up on the first day of the period's last year, one who orders and one who
  never does (a signup range that loses its first day, or gains the next year's);
* where the period holds two New Year's Days, a customer orders only on those two days (a year's
  range that loses its first day);
* where the period runs from one December into January, the first order placed on December 1
  ships on January 2 (a backorder: shipped in the next year).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date
from typing import Any

Record = dict[str, Any]


def add_edges(
    order_start: date,
    order_end: date,
    customers: list[Record],
    products: list[Record],
    orders: list[Record],
    items: list[Record],
) -> None:
    """Apply every edge, in place (customers, then order lines, then names and flags)."""
    _late_signup_never_orders(order_end, customers, orders)
    _new_year_customer(order_start, order_end, customers, orders)
    _backorder(order_start, order_end, orders)
    _last_month_lifecycle(order_end, products, orders, items)
    _dearest_discontinued(products)
    _namesake_products(products, orders, items)
    _namesake_customers(customers, orders, items)


def completed_revenue(orders: list[Record], items: list[Record], key: str) -> Counter[int]:
    """Completed revenue in cents per ``customer_id`` (from orders) or ``product_id`` (from lines)."""
    by_order = {o["order_id"]: o for o in orders if o["status"] == "completed"}
    out: Counter[int] = Counter()
    for line in items:
        order = by_order.get(line["order_id"])
        if order is not None:
            owner = order["customer_id"] if key == "customer_id" else line["product_id"]
            out[owner] += line["quantity"] * line["unit_price"]
    return out


def _late_signup_never_orders(order_end: date, customers: list[Record], orders: list[Record]) -> None:
    """Two customers sign up on the first day of the last year: one orders, one never does."""
    first_day = date(order_end.year, 1, 1)
    day = [c for c in customers if c["signup_date"] == first_day]
    later = [c for c in customers if c["signup_date"] > first_day]
    if len(day) == 1 and later:
        nxt = min(later, key=lambda c: c["customer_id"])
        if nxt["customer_id"] == day[0]["customer_id"] + 1 and nxt["signup_date"].month == 1:
            nxt["signup_date"] = first_day  # a few days earlier: ids still follow signup order
            day.append(nxt)
    ordering = {o["customer_id"] for o in orders}
    earlier = [c for c in customers if c["signup_date"] < first_day]
    if len(day) < 2 or not earlier or not all(c["customer_id"] in ordering for c in day):
        return
    # The one who signed up before them may have placed what they did.
    heir = max(earlier, key=lambda c: (c["signup_date"], c["customer_id"]))["customer_id"]
    quitter = day[-1]["customer_id"]
    for o in orders:
        if o["customer_id"] == quitter:
            o["customer_id"] = heir


def _new_year_customer(order_start: date, order_end: date, customers: list[Record], orders: list[Record]) -> None:
    new_years = [date(y, 1, 1) for y in range(order_start.year, order_end.year + 1)]
    new_years = [d for d in new_years if order_start <= d <= order_end]
    if len(new_years) < 2:
        return
    ordering = {o["customer_id"] for o in orders}
    dormant = [c for c in customers if c["customer_id"] not in ordering and c["signup_date"] <= new_years[0]]
    if not dormant:
        return
    who = dormant[0]["customer_id"]
    for day in new_years:
        first = min((o for o in orders if o["order_date"] == day), key=lambda o: o["order_id"])
        first["customer_id"] = who


def _backorder(order_start: date, order_end: date, orders: list[Record]) -> None:
    for year in range(order_start.year, order_end.year):
        december, january = date(year, 12, 1), date(year + 1, 1, 2)
        if order_start <= december and january <= order_end:
            placed = [o for o in orders if o["order_date"] == december and o["status"] == "completed"]
            if placed:
                min(placed, key=lambda o: o["order_id"])["shipped_date"] = january


def _last_month_lifecycle(order_end: date, products: list[Record], orders: list[Record], items: list[Record]) -> None:
    """One product sold before the last month but not in it, one sold there only on its first day, one only
    on its last."""
    start = date(order_end.year, order_end.month, 1)
    day = {o["order_id"]: o["order_date"] for o in orders}
    last = [line for line in items if day[line["order_id"]] >= start]
    sold = Counter(line["product_id"] for line in last)
    on = {d: {line["product_id"] for line in last if day[line["order_id"]] == d} for d in (start, order_end)}
    chosen: list[int] = []

    def rarest(among: set[int] | None) -> int | None:
        pool = [p for p in sold if p not in chosen and (among is None or p in among)]
        return min(pool, key=lambda p: (sold[p], p)) if pool else None

    before = {line["product_id"] for line in items if day[line["order_id"]] < start}
    plan = [(None, before), (start, on[start]), (order_end, on[order_end])]
    for keep_day, among in plan:
        product = rarest(among)
        if product is None:
            continue
        chosen.append(product)
        for line in last:
            if line["product_id"] == product and day[line["order_id"]] != keep_day:
                _move_line(line, products, items, chosen)


def _move_line(line: Record, products: list[Record], items: list[Record], avoid: list[int]) -> None:
    """Give the line to another product: same category when one fits, priced at or above the line, not
    already on the order; the line keeps its quantity and price, so no total moves."""
    category = next(p["category"] for p in products if p["product_id"] == line["product_id"])
    on_order = {i["product_id"] for i in items if i["order_id"] == line["order_id"]}
    fits = [p for p in products if p["product_id"] not in avoid and p["product_id"] not in on_order]
    fits = [p for p in fits if p["unit_price"] >= line["unit_price"]] or fits
    same = [p for p in fits if p["category"] == category] or fits
    line["product_id"] = min(same, key=lambda p: (p["unit_price"], p["product_id"]))["product_id"]


def _dearest_discontinued(products: list[Record]) -> None:
    max(products, key=lambda p: (p["unit_price"], -p["product_id"]))["discontinued"] = True


def _namesake_products(products: list[Record], orders: list[Record], items: list[Record]) -> None:
    revenue = completed_revenue(orders, items, "product_id")
    ranked = sorted(products, key=lambda p: (-revenue[p["product_id"]], p["product_id"]))
    best = ranked[0]
    second = next((p for p in ranked[1:] if p["category"] == best["category"]), None)
    if second is not None and revenue[second["product_id"]]:
        second["name"] = best["name"]


def _namesake_customers(customers: list[Record], orders: list[Record], items: list[Record]) -> None:
    revenue = completed_revenue(orders, items, "customer_id")
    by_country: dict[str, list[Record]] = defaultdict(list)
    for c in sorted(customers, key=lambda c: (-revenue[c["customer_id"]], c["customer_id"])):
        if revenue[c["customer_id"]]:
            by_country[c["country"]].append(c)
    for spenders in by_country.values():
        if len(spenders) > 1:
            spenders[1]["name"] = spenders[0]["name"]
