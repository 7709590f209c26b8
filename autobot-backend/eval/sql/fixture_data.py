"""Rows of a retail fixture, generated deterministically from a seed (pure Python, no database).

Everything random comes from one local ``random.Random(seed)``, so a seed is a database. The
mix itself (country, channel and category popularity, the order volume of each month) is drawn
per seed too, so rotations differ in which country leads or which month peaks, not only in
row-level noise: an answer hard-coded from one rotation fails on the others.

Built in, not left to chance: ids from 1; orders on the first and last day of every month of the
order range (completed ones, so boundary days carry revenue); customers who never order;
referrals and unshipped orders; list prices with cents, discounted order lines, and a revenue
total with non-zero cents; and the edges of :mod:`eval.sql.fixture_edges` (namesakes, a
discontinued dearest product, products that stop or start selling on a month's boundary, ...).
Whether the result keeps every guarantee of spec 3.2 is checked afterwards, in SQL, by
``eval.sql.fixture_checks``.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import product as cartesian
from typing import Any

from eval.sql.fixture_edges import add_edges
from eval.sql.fixture_schema import CATEGORIES, CHANNELS, COUNTRIES

Record = dict[str, Any]
"""One row, keyed by column name."""

FIRST_NAMES = (
    "Ada",
    "Amara",
    "Anna",
    "Arjun",
    "Ben",
    "Camille",
    "Carlos",
    "Chloe",
    "Daniel",
    "Elena",
    "Emma",
    "Felix",
    "Grace",
    "Hannah",
    "Hugo",
    "Isla",
    "Jack",
    "James",
    "Jonas",
    "Julia",
    "Karim",
    "Laura",
    "Leon",
    "Lina",
    "Lucas",
    "Maya",
    "Mei",
    "Noah",
    "Nora",
    "Olivia",
    "Omar",
    "Paul",
    "Priya",
    "Rosa",
    "Sam",
    "Sofia",
    "Theo",
    "Wei",
    "Yuki",
    "Zoe",
)
LAST_NAMES = (
    "Bauer",
    "Bernard",
    "Brown",
    "Chen",
    "Clarke",
    "Dubois",
    "Evans",
    "Fischer",
    "Garcia",
    "Hall",
    "Hoffmann",
    "Jones",
    "Khan",
    "Klein",
    "Laurent",
    "Lee",
    "Martin",
    "Meyer",
    "Miller",
    "Moreau",
    "Murphy",
    "Nguyen",
    "Novak",
    "Patel",
    "Petit",
    "Roux",
    "Schmidt",
    "Schulz",
    "Singh",
    "Smith",
    "Taylor",
    "Thomas",
    "Tremblay",
    "Wagner",
    "Walker",
    "Weber",
    "White",
    "Wilson",
    "Wright",
    "Young",
)
CITIES = {
    "Canada": ("Toronto", "Montreal", "Vancouver", "Calgary", "Ottawa"),
    "France": ("Paris", "Lyon", "Marseille", "Toulouse", "Lille"),
    "Germany": ("Berlin", "Munich", "Hamburg", "Cologne", "Leipzig"),
    "United Kingdom": ("London", "Manchester", "Leeds", "Bristol", "Glasgow"),
    "United States": ("New York", "Chicago", "Austin", "Seattle", "Denver", "Boston"),
}
PRODUCT_NOUNS = {
    "books": (
        "Atlas",
        "Cookbook",
        "Novel",
        "Field Guide",
        "Biography",
        "Poetry Collection",
        "Travel Guide",
        "History",
        "Puzzle Book",
        "Sketchbook",
    ),
    "electronics": (
        "Headphones",
        "Speaker",
        "Tablet",
        "E-Reader",
        "Smartwatch",
        "Charger",
        "Webcam",
        "Keyboard",
        "Monitor",
        "Router",
    ),
    "garden": (
        "Hose",
        "Planter",
        "Pruner",
        "Seed Kit",
        "Watering Can",
        "Rake",
        "Bird Feeder",
        "Lantern",
        "Trowel",
        "Compost Bin",
    ),
    "home": ("Lamp", "Throw Blanket", "Kettle", "Mug Set", "Cushion", "Clock", "Vase", "Towel Set", "Rug", "Candle"),
    "toys": (
        "Puzzle",
        "Kite",
        "Robot",
        "Board Game",
        "Teddy Bear",
        "Train Set",
        "Building Blocks",
        "Yo-Yo",
        "Doll House",
        "Marble Run",
    ),
}
ADJECTIVES = (
    "Classic",
    "Compact",
    "Deluxe",
    "Essential",
    "Grand",
    "Little",
    "Modern",
    "Nordic",
    "Pocket",
    "Premium",
    "Rustic",
    "Smart",
    "Solar",
    "Vintage",
)
# List price range per category, in whole currency units; cents are added at random.
PRICE_RANGE = {"books": (7, 45), "electronics": (25, 480), "garden": (9, 140), "home": (11, 220), "toys": (6, 90)}
DOMAINS = ("example.com", "example.org", "example.net")


@dataclass(frozen=True)
class FixtureSpec:
    """What one fixture is: its periods and sizes (the seed decides everything else)."""

    name: str
    order_start: date
    order_end: date
    signup_start: date
    signup_end: date
    customers: tuple[int, int]
    """Inclusive range the customer count is drawn from."""
    products: tuple[int, int]
    orders: tuple[int, int]
    distinct_periods: bool = False
    """Assert pairwise-distinct monthly totals and MoM / QoQ / YoY deltas (retail_24m)."""


@dataclass(frozen=True)
class FixtureData:
    """Rows per table, as dicts keyed by column name; money in integer cents."""

    customers: list[Record]
    products: list[Record]
    orders: list[Record]
    order_items: list[Record]

    def rows(self) -> dict[str, list[Record]]:
        """Table name -> rows, parents before children."""
        return {
            "customers": self.customers,
            "products": self.products,
            "orders": self.orders,
            "order_items": self.order_items,
        }


def days_between(start: date, end: date) -> list[date]:
    return [start + timedelta(days=i) for i in range((end - start).days + 1)]


def month_starts(start: date, end: date) -> list[date]:
    out, d = [], date(start.year, start.month, 1)
    while d <= end:
        out.append(d)
        d = date(d.year + (d.month == 12), d.month % 12 + 1, 1)
    return out


def month_end(d: date) -> date:
    return date(d.year + (d.month == 12), d.month % 12 + 1, 1) - timedelta(days=1)


def month_boundaries(start: date, end: date) -> list[date]:
    """First and last day of every month in [start, end] (quarter boundaries are among them)."""
    out = []
    for first in month_starts(start, end):
        out += [d for d in (first, month_end(first)) if start <= d <= end]
    return out


def quarter_boundaries(start: date, end: date) -> list[date]:
    """First and last day of every calendar quarter in [start, end]."""
    return [d for d in month_boundaries(start, end) if (d.month - 1) % 3 == (0 if d.day == 1 else 2)]


def generate(spec: FixtureSpec, seed: int) -> FixtureData:
    """The rows of ``spec`` for ``seed``; same arguments, same rows."""
    rng = random.Random(seed)
    products = _products(rng, spec)
    customers, dormant = _customers(rng, spec)
    orders = _orders(rng, spec, customers, dormant)
    items = _items(rng, orders, products)
    add_edges(spec.order_start, spec.order_end, customers, products, orders, items)
    _ensure_revenue_has_cents(orders, items)
    return FixtureData(customers, products, orders, items)


def _products(rng: random.Random, spec: FixtureSpec) -> list[Record]:
    n = rng.randint(*spec.products)
    # Four per category first, so every category has products whatever the draw.
    cats = [c for c in CATEGORIES for _ in range(4)] + [rng.choice(CATEGORIES) for _ in range(n - 4 * len(CATEGORIES))]
    rng.shuffle(cats)
    used: set[str] = set()
    rows: list[Record] = []
    for pid, cat in enumerate(cats, start=1):
        name = f"{rng.choice(ADJECTIVES)} {rng.choice(PRODUCT_NOUNS[cat])}"
        while name in used:
            name = f"{rng.choice(ADJECTIVES)} {rng.choice(PRODUCT_NOUNS[cat])}"
        used.add(name)
        low, high = PRICE_RANGE[cat]
        cents = rng.randint(low, high) * 100 + rng.randint(1, 99)
        rows.append(
            {"product_id": pid, "name": name, "category": cat, "unit_price": cents, "discontinued": rng.random() < 0.15}
        )
    rows[0]["discontinued"], rows[1]["discontinued"] = True, False
    return rows


def _customers(rng: random.Random, spec: FixtureSpec) -> tuple[list[Record], set[int]]:
    n = rng.randint(*spec.customers)
    country_weight = {c: rng.uniform(0.6, 3.0) for c in COUNTRIES}
    p_business = rng.uniform(0.18, 0.35)
    p_referred = rng.uniform(0.2, 0.4)
    # Quarter boundaries of the signup range get a signup each: a window closed at the wrong end shows.
    boundary = quarter_boundaries(spec.signup_start, spec.signup_end)
    span = (spec.signup_end - spec.signup_start).days
    signups = boundary + [spec.signup_start + timedelta(days=rng.randint(0, span)) for _ in range(n - len(boundary))]
    signups.sort()
    countries = list(COUNTRIES) + rng.choices(
        COUNTRIES, weights=[country_weight[c] for c in COUNTRIES], k=n - len(COUNTRIES)
    )
    rng.shuffle(countries)
    names = rng.sample(list(cartesian(FIRST_NAMES, LAST_NAMES)), n)
    rows: list[Record] = []
    for cid, (signup, country, (first, last)) in enumerate(zip(signups, countries, names), start=1):
        referred = rng.randint(1, cid - 1) if cid > 1 and rng.random() < p_referred else None
        rows.append(
            {
                "customer_id": cid,
                "name": f"{first} {last}",
                "email": f"{first}.{last}@{rng.choice(DOMAINS)}".lower(),
                "city": rng.choice(CITIES[country]),
                "country": country,
                "segment": "business" if rng.random() < p_business else "consumer",
                "signup_date": signup,
                "referred_by": referred,
            }
        )
    # Both segments present, and the earliest customers can always order (they are never dormant).
    rows[0]["segment"], rows[1]["segment"] = "consumer", "business"
    dormant: set[int] = {r["customer_id"] for r in rows[3:] if rng.random() < 0.1}
    dormant.add(rows[-1]["customer_id"])
    return rows, dormant


def _day_weights(rng: random.Random, spec: FixtureSpec, days: list[date]) -> list[float]:
    """Order volume per day: a weekday pattern, and per month a random level on a gentle trend."""
    weekday = [rng.uniform(0.8, 1.3) for _ in range(7)]
    trend = rng.uniform(-0.01, 0.03)
    level = {
        m: rng.uniform(0.7, 1.4) * (1 + trend * i) for i, m in enumerate(month_starts(spec.order_start, spec.order_end))
    }
    return [weekday[d.weekday()] * level[date(d.year, d.month, 1)] for d in days]


def _orders(rng: random.Random, spec: FixtureSpec, customers: list[Record], dormant: set[int]) -> list[Record]:
    n = rng.randint(*spec.orders)
    days = days_between(spec.order_start, spec.order_end)
    boundary = month_boundaries(spec.order_start, spec.order_end)
    dates = boundary + rng.choices(days, weights=_day_weights(rng, spec, days), k=n - len(boundary))
    p_completed = rng.uniform(0.74, 0.84)
    channel_weight = [rng.uniform(0.5, 3.0) for _ in CHANNELS]

    signups = [c["signup_date"] for c in customers]
    cumulative, total = [], 0.0
    for c in customers:
        total += 0.0 if c["customer_id"] in dormant else rng.paretovariate(1.6)
        cumulative.append(total)

    rows: list[tuple[date, float, Record]] = []
    for i, day in enumerate(dates):
        eligible = bisect.bisect_right(signups, day)  # customers who had signed up by that day
        cid = customers[bisect.bisect_right(cumulative, rng.random() * cumulative[eligible - 1])]["customer_id"]
        if i < len(boundary):
            status = "completed"
        else:
            r = rng.random()
            status = "completed" if r < p_completed else ("cancelled" if r < (1 + p_completed) / 2 else "returned")
        shipped = None
        if status != "cancelled":
            shipped = day + timedelta(days=rng.choices(range(8), weights=(3, 10, 12, 9, 5, 3, 2, 1))[0])
            late = (spec.order_end - day).days < 10
            if shipped > spec.order_end or (late and status == "completed" and rng.random() < 0.4):
                shipped = None
        if status == "returned" and shipped is None:
            status = "completed"  # a return needs a shipment
        rows.append(
            (
                day,
                rng.random(),
                {
                    "customer_id": cid,
                    "order_date": day,
                    "shipped_date": shipped,
                    "status": status,
                    "channel": rng.choices(CHANNELS, weights=channel_weight)[0],
                },
            )
        )
    rows.sort(key=lambda r: r[:2])
    orders = [row for _, _, row in rows]
    for oid, row in enumerate(orders, start=1):
        row["order_id"] = oid
    return orders


def _items(rng: random.Random, orders: list[Record], products: list[Record]) -> list[Record]:
    popularity = [rng.paretovariate(1.2) * (0.4 if p["discontinued"] else 1.0) for p in products]
    p_discount = rng.uniform(0.08, 0.16)
    rows = []
    for order in orders:
        lines = rng.choices((1, 2, 3, 4), weights=(40, 30, 20, 10))[0]
        chosen: list[Record] = []
        while len(chosen) < lines:
            p = rng.choices(products, weights=popularity)[0]
            if p not in chosen:
                chosen.append(p)
        for line_no, p in enumerate(chosen, start=1):
            price = p["unit_price"]
            if rng.random() < p_discount:
                price = round(price * (1 - rng.choice((0.1, 0.15, 0.2, 0.25))))
            rows.append(
                {
                    "order_id": order["order_id"],
                    "line_no": line_no,
                    "product_id": p["product_id"],
                    "quantity": rng.choices((1, 2, 3, 4, 5), weights=(50, 25, 12, 8, 5))[0],
                    "unit_price": price,
                }
            )
    return rows


def revenue_cents(orders: list[Record], items: list[Record]) -> int:
    completed = {o["order_id"] for o in orders if o["status"] == "completed"}
    return sum(i["quantity"] * i["unit_price"] for i in items if i["order_id"] in completed)


def _ensure_revenue_has_cents(orders: list[Record], items: list[Record]) -> None:
    """A revenue total of whole units cannot expose an answer rounded to whole units: move it a cent."""
    if revenue_cents(orders, items) % 100:
        return
    completed = {o["order_id"] for o in orders if o["status"] == "completed"}
    line = next(i for i in items if i["order_id"] in completed and i["quantity"] == 1)
    line["unit_price"] += 1
