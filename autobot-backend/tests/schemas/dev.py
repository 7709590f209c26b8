"""Development schemas for the embedded generator: a retail shop, a library, a clinic.

Each builder writes a small database, deterministically from a seed, through SQLAlchemy, with
comments on the columns (the generator's only source of business meaning). The dev set in
``tests/data/embedded_dev/`` asks questions over them on the seeds the builders default to (the
``dev_*`` fixtures of :mod:`tests.schemas`); blind set 1 asks of the library and the clinic on
seeds 0, 1 and 2. ``tests/embedded/test_dev_schemas.py`` pins the properties the questions rely on
(NULLs present, entities with no related rows, boundary dates).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa

import services.schema_context  # noqa: F401  (registers the SQLite column-comment DDL hook)

D = dt.date


def _days(start: dt.date, end: dt.date) -> int:
    return (end - start).days


def _rand_date(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    return start + dt.timedelta(days=rng.randint(0, _days(start, end)))


def _month_edges(start: dt.date, end: dt.date) -> list[dt.date]:
    """First and last day of every month in [start, end], so rows sit on period boundaries."""
    edges, cur = [], D(start.year, start.month, 1)
    while cur <= end:
        nxt = D(cur.year + (cur.month == 12), cur.month % 12 + 1, 1)
        edges += [cur, nxt - dt.timedelta(days=1)]
        cur = nxt
    return [d for d in edges if start <= d <= end]


def _cents(rng: random.Random, lo: float, hi: float) -> float:
    return round(rng.uniform(lo, hi), 2)


# --------------------------------------------------------------------------------------- retail

REVENUE_COMMENT = (
    "Price charged on this line. "
    "[metric: revenue = SUM(order_items.quantity * order_items.unit_price) "
    "WHERE orders.status = 'completed']"
)


def retail_metadata() -> sa.MetaData:
    md = sa.MetaData()
    sa.Table(
        "customers",
        md,
        sa.Column("customer_id", sa.Integer, primary_key=True),
        sa.Column("name", sa.Text, nullable=False, comment="Customer's full name"),
        sa.Column("email", sa.Text, nullable=False, unique=True, comment="Contact email address"),
        sa.Column("city", sa.Text, nullable=False, comment="City the customer lives in"),
        sa.Column("country", sa.Text, nullable=False, comment="Country the customer lives in"),
        sa.Column("segment", sa.Text, nullable=False, comment="Customer segment: 'consumer' or 'business'"),
        sa.Column("signup_date", sa.Date, nullable=False, comment="Date the customer signed up"),
        sa.Column(
            "referred_by",
            sa.Integer,
            sa.ForeignKey("customers.customer_id"),
            nullable=True,
            comment="Customer who referred this one; NULL when not referred",
        ),
    )
    sa.Table(
        "products",
        md,
        sa.Column("product_id", sa.Integer, primary_key=True),
        sa.Column("name", sa.Text, nullable=False, comment="Product name"),
        sa.Column("category", sa.Text, nullable=False, comment="Product category"),
        sa.Column("unit_price", sa.Numeric(10, 2), nullable=False, comment="List price, with cents"),
        sa.Column("discontinued", sa.Boolean, nullable=False, comment="True when no longer sold"),
    )
    sa.Table(
        "orders",
        md,
        sa.Column("order_id", sa.Integer, primary_key=True),
        sa.Column(
            "customer_id",
            sa.Integer,
            sa.ForeignKey("customers.customer_id"),
            nullable=False,
            comment="Customer who placed the order",
        ),
        sa.Column("order_date", sa.Date, nullable=False, comment="Date the order was placed"),
        sa.Column(
            "shipped_date",
            sa.Date,
            nullable=True,
            comment="Date the order shipped; NULL until shipped; cancelled orders never ship",
        ),
        sa.Column("status", sa.Text, nullable=False, comment="'completed', 'cancelled' or 'returned'"),
        sa.Column("channel", sa.Text, nullable=False, comment="Sales channel: 'web', 'store' or 'phone'"),
    )
    sa.Table(
        "order_items",
        md,
        sa.Column("order_id", sa.Integer, sa.ForeignKey("orders.order_id"), primary_key=True),
        sa.Column("line_no", sa.Integer, primary_key=True, comment="Line number within the order"),
        sa.Column("product_id", sa.Integer, sa.ForeignKey("products.product_id"), nullable=False),
        sa.Column("quantity", sa.Integer, nullable=False, comment="Units ordered on this line"),
        sa.Column("unit_price", sa.Numeric(10, 2), nullable=False, comment=REVENUE_COMMENT),
    )
    return md


_COUNTRIES = {
    "Canada": ["Toronto", "Montreal", "Vancouver"],
    "France": ["Paris", "Lyon", "Nice"],
    "Germany": ["Berlin", "Munich", "Hamburg"],
    "United Kingdom": ["London", "Leeds", "Bristol"],
    "United States": ["Boston", "Denver", "Seattle"],
}
_FIRST = [
    "Ada",
    "Ben",
    "Chloe",
    "Dev",
    "Elena",
    "Felix",
    "Grace",
    "Hugo",
    "Iris",
    "Jonas",
    "Kira",
    "Liam",
    "Mona",
    "Nils",
    "Olga",
    "Pablo",
    "Quinn",
    "Rosa",
    "Sami",
    "Tara",
]
_LAST = [
    "Archer",
    "Brandt",
    "Costa",
    "Dubois",
    "Evans",
    "Fischer",
    "Garcia",
    "Hale",
    "Ito",
    "Jensen",
    "Klein",
    "Lopez",
    "Moreau",
    "Novak",
    "Olsen",
    "Price",
]
_PRODUCTS = {
    "books": ["Atlas of Rivers", "Cooking Basics", "Deep Space Guide", "Garden Year", "History of Maps", "Poetry Box"],
    "electronics": ["USB Hub", "Noise Headphones", "Smart Lamp", "E-Reader", "Bluetooth Speaker", "Webcam HD"],
    "garden": ["Hose Reel", "Pruning Shears", "Seed Kit", "Rain Barrel", "Lawn Rake", "Bird Feeder"],
    "home": ["Linen Sheets", "Desk Lamp", "Coffee Grinder", "Wall Clock", "Throw Blanket", "Spice Rack"],
    "toys": ["Puzzle 1000", "Wooden Train", "Kite Flyer", "Robot Kit", "Board Game Night", "Plush Bear"],
}


_RETAIL_START, _RETAIL_END = D(2023, 1, 1), D(2024, 12, 31)


def build_retail(engine: sa.Engine, seed: int = 7, start: dt.date = _RETAIL_START, end: dt.date = _RETAIL_END) -> None:
    rng = random.Random(seed)
    md = retail_metadata()
    md.create_all(engine)
    t = md.tables
    customers = []
    n_customers = 160
    for i in range(1, n_customers + 1):
        country = rng.choice(sorted(_COUNTRIES))
        referred = rng.randint(1, i - 1) if i > 5 and rng.random() < 0.35 else None
        customers.append(
            dict(
                customer_id=i,
                name=f"{rng.choice(_FIRST)} {rng.choice(_LAST)}",
                email=f"user{i}@example.com",
                city=rng.choice(_COUNTRIES[country]),
                country=country,
                segment=rng.choice(["consumer", "business"]),
                signup_date=_rand_date(rng, D(2023, 1, 1), D(2024, 12, 31)),
                referred_by=referred,
            )
        )
    products, pid = [], 0
    for category in sorted(_PRODUCTS):
        for name in _PRODUCTS[category]:
            pid += 1
            products.append(
                dict(
                    product_id=pid,
                    name=name,
                    category=category,
                    unit_price=_cents(rng, 4, 300),
                    discontinued=rng.random() < 0.2,
                )
            )
    # A fifth of the customers never order: they exercise LEFT JOIN and anti-joins.
    buyers = [c for c in customers if c["customer_id"] % 5 != 0]
    edges = _month_edges(start, end)
    orders, items = [], []
    for oid in range(1, 1301):
        order_date = edges[oid % len(edges)] if oid % 7 == 0 else _rand_date(rng, start, end)
        cust = rng.choice(buyers)
        status = rng.choices(["completed", "cancelled", "returned"], [75, 12, 13])[0]
        shipped = None
        if status != "cancelled" and not (order_date >= end - dt.timedelta(days=10) and rng.random() < 0.6):
            shipped = order_date + dt.timedelta(days=rng.randint(0, 6))
        orders.append(
            dict(
                order_id=oid,
                customer_id=cust["customer_id"],
                order_date=order_date,
                shipped_date=shipped,
                status=status,
                channel=rng.choice(["web", "store", "phone"]),
            )
        )
        for line in range(1, rng.randint(1, 4) + 1):
            prod = rng.choice(products)
            price = round(prod["unit_price"] * rng.choice([1, 1, 1, 0.9, 0.85]), 2)
            items.append(
                dict(
                    order_id=oid,
                    line_no=line,
                    product_id=prod["product_id"],
                    quantity=rng.randint(1, 5),
                    unit_price=price,
                )
            )
    with engine.begin() as conn:
        conn.execute(t["customers"].insert(), customers)
        conn.execute(t["products"].insert(), products)
        conn.execute(t["orders"].insert(), orders)
        conn.execute(t["order_items"].insert(), items)


# -------------------------------------------------------------------------------------- library


def library_metadata() -> sa.MetaData:
    md = sa.MetaData()
    sa.Table(
        "authors",
        md,
        sa.Column("author_id", sa.Integer, primary_key=True),
        sa.Column("name", sa.Text, nullable=False, comment="Author's name"),
        sa.Column("nationality", sa.Text, nullable=False, comment="Country the author comes from"),
        sa.Column("birth_year", sa.Integer, nullable=True, comment="Year of birth, when known"),
    )
    sa.Table(
        "books",
        md,
        sa.Column("book_id", sa.Integer, primary_key=True),
        sa.Column("title", sa.Text, nullable=False, comment="Title of the book"),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("authors.author_id"), nullable=False),
        sa.Column("genre", sa.Text, nullable=False, comment="Genre of the book"),
        sa.Column("published_year", sa.Integer, nullable=False, comment="Year the book was published"),
        sa.Column("pages", sa.Integer, nullable=False, comment="Number of pages"),
    )
    sa.Table(
        "members",
        md,
        sa.Column("member_id", sa.Integer, primary_key=True),
        sa.Column("name", sa.Text, nullable=False, comment="Member's name"),
        sa.Column("city", sa.Text, nullable=False, comment="City the member lives in"),
        sa.Column(
            "membership_type", sa.Text, nullable=False, comment="Membership plan: 'standard', 'premium' or 'student'"
        ),
        sa.Column("joined_date", sa.Date, nullable=False, comment="Date the member joined the library"),
    )
    sa.Table(
        "loans",
        md,
        sa.Column("loan_id", sa.Integer, primary_key=True),
        sa.Column("book_id", sa.Integer, sa.ForeignKey("books.book_id"), nullable=False),
        sa.Column("member_id", sa.Integer, sa.ForeignKey("members.member_id"), nullable=False),
        sa.Column("loan_date", sa.Date, nullable=False, comment="Date the book was borrowed"),
        sa.Column("due_date", sa.Date, nullable=False, comment="Date the book is due back"),
        sa.Column("return_date", sa.Date, nullable=True, comment="Date the book was returned; NULL while not returned"),
        sa.Column(
            "late_fee",
            sa.Numeric(6, 2),
            nullable=True,
            comment="Fee charged for a late return; NULL when none was charged",
        ),
    )
    return md


_GENRES = ["fantasy", "history", "mystery", "poetry", "science"]
_NATIONS = ["Brazil", "Japan", "Kenya", "Norway", "Spain"]
_WORDS = [
    "Silent",
    "River",
    "Glass",
    "Winter",
    "Hidden",
    "Garden",
    "Stone",
    "Night",
    "Paper",
    "Crown",
    "Salt",
    "Mirror",
    "Harbor",
    "Lantern",
    "Orchard",
    "Thread",
]


def build_library(engine: sa.Engine, seed: int = 11) -> None:
    rng = random.Random(seed)
    md = library_metadata()
    md.create_all(engine)
    t = md.tables
    authors = [
        dict(
            author_id=i,
            name=f"{rng.choice(_FIRST)} {rng.choice(_LAST)}",
            nationality=_NATIONS[i % len(_NATIONS)],
            birth_year=None if i % 6 == 0 else rng.randint(1930, 1990),
        )
        for i in range(1, 19)
    ]
    titles: set[str] = set()
    books = []
    for i in range(1, 61):
        title = f"The {rng.choice(_WORDS)} {rng.choice(_WORDS)}"
        while title in titles:
            title = f"{title} II"
        titles.add(title)
        books.append(
            dict(
                book_id=i,
                title=title,
                author_id=rng.randint(1, 18),
                genre=_GENRES[i % 5],
                published_year=rng.randint(1960, 2023),
                pages=rng.randint(90, 900),
            )
        )
    members = [
        dict(
            member_id=i,
            name=f"{rng.choice(_FIRST)} {rng.choice(_LAST)}",
            city=rng.choice(["Oslo", "Bergen", "Tromso", "Stavanger"]),
            membership_type=rng.choice(["standard", "standard", "premium", "student"]),
            joined_date=_rand_date(rng, D(2020, 1, 1), D(2024, 6, 30)),
        )
        for i in range(1, 81)
    ]
    loans = []
    active = [m for m in members if m["member_id"] % 8 != 0]  # some members never borrow
    lendable = [b for b in books if b["book_id"] % 10 != 0]  # some books are never lent
    edges = _month_edges(D(2023, 1, 1), D(2024, 12, 31))
    for lid in range(1, 701):
        loan_date = edges[lid % len(edges)] if lid % 9 == 0 else _rand_date(rng, D(2023, 1, 1), D(2024, 12, 31))
        due = loan_date + dt.timedelta(days=21)
        returned = None if rng.random() < 0.15 else loan_date + dt.timedelta(days=rng.randint(2, 35))
        fee = _cents(rng, 0.5, 12) if returned is not None and returned > due else None
        loans.append(
            dict(
                loan_id=lid,
                book_id=rng.choice(lendable)["book_id"],
                member_id=rng.choice(active)["member_id"],
                loan_date=loan_date,
                due_date=due,
                return_date=returned,
                late_fee=fee,
            )
        )
    with engine.begin() as conn:
        conn.execute(t["authors"].insert(), authors)
        conn.execute(t["books"].insert(), books)
        conn.execute(t["members"].insert(), members)
        conn.execute(t["loans"].insert(), loans)


# --------------------------------------------------------------------------------------- clinic

FEES_COMMENT = (
    "Fee billed for the visit. [metric: billings = SUM(appointments.fee) WHERE appointments.status = 'completed']"
)


def clinic_metadata() -> sa.MetaData:
    md = sa.MetaData()
    sa.Table(
        "doctors",
        md,
        sa.Column("doctor_id", sa.Integer, primary_key=True),
        sa.Column("name", sa.Text, nullable=False, comment="Doctor's name"),
        sa.Column("specialty", sa.Text, nullable=False, comment="Medical specialty"),
        sa.Column("hired_date", sa.Date, nullable=False, comment="Date the doctor joined the clinic"),
    )
    sa.Table(
        "patients",
        md,
        sa.Column("patient_id", sa.Integer, primary_key=True),
        sa.Column("name", sa.Text, nullable=False, comment="Patient's name"),
        sa.Column("birth_date", sa.Date, nullable=False, comment="Patient's date of birth"),
        sa.Column("sex", sa.Text, nullable=False, comment="'F' or 'M'"),
        sa.Column(
            "insurance", sa.Text, nullable=True, comment="Insurance type: 'public' or 'private'; NULL when uninsured"
        ),
    )
    sa.Table(
        "appointments",
        md,
        sa.Column("appointment_id", sa.Integer, primary_key=True),
        sa.Column("patient_id", sa.Integer, sa.ForeignKey("patients.patient_id"), nullable=False),
        sa.Column("doctor_id", sa.Integer, sa.ForeignKey("doctors.doctor_id"), nullable=False),
        sa.Column("appointment_date", sa.Date, nullable=False, comment="Day of the visit"),
        sa.Column("status", sa.Text, nullable=False, comment="'completed', 'cancelled' or 'no-show'"),
        sa.Column("fee", sa.Numeric(8, 2), nullable=False, comment=FEES_COMMENT),
    )
    sa.Table(
        "prescriptions",
        md,
        sa.Column("prescription_id", sa.Integer, primary_key=True),
        sa.Column("appointment_id", sa.Integer, sa.ForeignKey("appointments.appointment_id"), nullable=False),
        sa.Column("drug", sa.Text, nullable=False, comment="Name of the prescribed drug"),
        sa.Column("dose_mg", sa.Integer, nullable=False, comment="Dose in milligrams"),
        sa.Column("refills", sa.Integer, nullable=False, comment="Number of refills allowed"),
    )
    return md


_SPECIALTIES = ["cardiology", "dermatology", "pediatrics", "neurology", "general practice"]
_DRUGS = ["amoxicillin", "ibuprofen", "lisinopril", "metformin", "atorvastatin", "cetirizine"]


def build_clinic(engine: sa.Engine, seed: int = 5) -> None:
    rng = random.Random(seed)
    md = clinic_metadata()
    md.create_all(engine)
    t = md.tables
    doctors = [
        dict(
            doctor_id=i,
            name=f"Dr. {rng.choice(_LAST)} {i}",
            specialty=_SPECIALTIES[i % 5],
            hired_date=_rand_date(rng, D(2010, 1, 1), D(2023, 6, 30)),
        )
        for i in range(1, 13)
    ]
    patients = [
        dict(
            patient_id=i,
            name=f"{rng.choice(_FIRST)} {rng.choice(_LAST)}",
            birth_date=_rand_date(rng, D(1940, 1, 1), D(2020, 12, 31)),
            sex=rng.choice("FM"),
            insurance=rng.choice(["public", "public", "private", None]),
        )
        for i in range(1, 121)
    ]
    seen = [p for p in patients if p["patient_id"] % 6 != 0]  # some registered patients never visit
    appts, rx, rx_id = [], [], 0
    edges = _month_edges(D(2023, 1, 1), D(2024, 12, 31))
    for aid in range(1, 901):
        day = edges[aid % len(edges)] if aid % 8 == 0 else _rand_date(rng, D(2023, 1, 1), D(2024, 12, 31))
        status = rng.choices(["completed", "cancelled", "no-show"], [80, 12, 8])[0]
        appts.append(
            dict(
                appointment_id=aid,
                patient_id=rng.choice(seen)["patient_id"],
                doctor_id=rng.randint(1, 12),
                appointment_date=day,
                status=status,
                fee=_cents(rng, 40, 400),
            )
        )
        if status == "completed":
            for _ in range(rng.choice([0, 0, 1, 1, 2])):
                rx_id += 1
                rx.append(
                    dict(
                        prescription_id=rx_id,
                        appointment_id=aid,
                        drug=rng.choice(_DRUGS),
                        dose_mg=rng.choice([5, 10, 20, 250, 500]),
                        refills=rng.randint(0, 3),
                    )
                )
    with engine.begin() as conn:
        conn.execute(t["doctors"].insert(), doctors)
        conn.execute(t["patients"].insert(), patients)
        conn.execute(t["appointments"].insert(), appts)
        conn.execute(t["prescriptions"].insert(), rx)


BUILDERS: dict[str, Callable[[sa.Engine], None]] = {
    "retail": build_retail,
    "library": build_library,
    "clinic": build_clinic,
}


def write_db(path: Path, schema: str) -> str:
    """Build the named dev schema into a SQLite file; returns its SQLAlchemy URL."""
    url = f"sqlite:///{path}"
    engine = sa.create_engine(url)
    try:
        BUILDERS[schema](engine)
    finally:
        engine.dispose()
    return url
