"""The ``saas`` schema of the blind set: a subscription software business.

Five tables: ``plans`` (the price list), ``accounts`` (customer companies), ``subscriptions``
(an account on a plan for a number of seats), ``invoices`` (what each subscription was billed)
and ``support_tickets``. Written for the blind development set, independently of the embedded
generator, so its vocabulary is nobody's tuning target.

The column comments are the only place business terms are defined, in the same form as the
retail fixture's: a metric is ``[metric: <name> = <aggregate> WHERE <condition>]``.

The data is deterministic from ``seed`` (one local ``random.Random``) and carries what the
blind questions lean on: NULLs in every nullable column, accounts with no subscription and with
no ticket, plans with no active subscription on some seeds, dates on the first and last day of
months, money with cents, and an invoice window from mid-2022 to 2024-12-31.

API::

    build(engine, seed=0) -> None     tables + rows on an empty SQLAlchemy engine
    write(path, seed=0) -> str        a fresh SQLite file; returns its SQLAlchemy URL
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

import sqlalchemy as sa

import services.schema_context  # noqa: F401  (keeps column comments in SQLite's stored DDL)
from eval.sql.fixtures.schema import Money
from eval.sql.fixtures.seeded import create_and_fill, write_sqlite

D = dt.date
DATA_END = D(2024, 12, 31)

COLLECTED_METRIC = "[metric: collected_revenue = SUM(invoices.amount) WHERE invoices.status = 'paid']"
MRR_METRIC = "[metric: mrr = SUM(subscriptions.seats * plans.seat_price) WHERE subscriptions.end_date IS NULL]"

INDUSTRIES = ("software", "retail", "healthcare", "finance", "education", "logistics")
COUNTRIES = ("Australia", "Brazil", "Germany", "India", "Japan", "United States")
PRIORITIES = ("low", "normal", "high", "urgent")
TOPICS = ("billing", "bug", "how-to", "outage", "feature request")

metadata = sa.MetaData()

plans = sa.Table(
    "plans",
    metadata,
    sa.Column("plan_id", sa.Integer, primary_key=True, autoincrement=False, comment="Identifier of the plan."),
    sa.Column("name", sa.Text, nullable=False, unique=True, comment="Plan name as sold, e.g. 'Starter'."),
    sa.Column(
        "seat_price",
        Money,
        nullable=False,
        comment="List price of one seat for one month, in dollars with cents. " + MRR_METRIC,
    ),
    sa.Column(
        "is_legacy",
        sa.Boolean,
        nullable=False,
        comment="True when the plan is no longer offered to new subscribers; existing ones keep it.",
    ),
    sa.Column("launched_date", sa.Date, nullable=False, comment="Date the plan was first offered."),
    comment="The price list: every plan the company sells or has sold.",
)

accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column(
        "account_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the customer account, numbered from 1 in order of signup.",
    ),
    sa.Column("company_name", sa.Text, nullable=False, unique=True, comment="Name of the customer company."),
    sa.Column(
        "industry",
        sa.Text,
        nullable=False,
        comment="Industry of the customer: one of " + ", ".join(f"'{i}'" for i in INDUSTRIES) + ".",
    ),
    sa.Column("country", sa.Text, nullable=False, comment="Country of the customer's head office."),
    sa.Column(
        "employees",
        sa.Integer,
        nullable=True,
        comment="Number of employees the customer reported; NULL when they did not say.",
    ),
    sa.Column(
        "signup_date", sa.Date, nullable=False, comment="Date the account was created (start of the free trial)."
    ),
    sa.Column(
        "churned_date",
        sa.Date,
        nullable=True,
        comment="Date the customer left (closed the account); NULL for a customer who is still with us.",
    ),
    comment="Customer companies, including trial accounts that never subscribed.",
)

subscriptions = sa.Table(
    "subscriptions",
    metadata,
    sa.Column(
        "subscription_id", sa.Integer, primary_key=True, autoincrement=False, comment="Identifier of the subscription."
    ),
    sa.Column(
        "account_id",
        sa.Integer,
        sa.ForeignKey("accounts.account_id"),
        nullable=False,
        comment="The account that holds the subscription.",
    ),
    sa.Column("plan_id", sa.Integer, sa.ForeignKey("plans.plan_id"), nullable=False, comment="The plan subscribed to."),
    sa.Column("start_date", sa.Date, nullable=False, comment="First day of the subscription."),
    sa.Column(
        "end_date",
        sa.Date,
        nullable=True,
        comment="Last day of the subscription; NULL while it is active. A subscription with an "
        "end date has ended (cancelled, or replaced by an upgrade or downgrade).",
    ),
    sa.Column("seats", sa.Integer, nullable=False, comment="Number of user seats paid for."),
    sa.Column(
        "billing_cycle",
        sa.Text,
        nullable=False,
        comment="'monthly' (invoiced every month) or 'annual' (invoiced once a year, at a discount).",
    ),
    sa.Column(
        "auto_renew",
        sa.Boolean,
        nullable=False,
        comment="True when the subscription renews automatically at the end of its term.",
    ),
    comment="One row per subscription: an account on one plan for a number of seats, from start to end.",
)

invoices = sa.Table(
    "invoices",
    metadata,
    sa.Column(
        "invoice_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the invoice, numbered from 1 in order of issue date.",
    ),
    sa.Column(
        "subscription_id",
        sa.Integer,
        sa.ForeignKey("subscriptions.subscription_id"),
        nullable=False,
        comment="The subscription billed.",
    ),
    sa.Column(
        "issued_date",
        sa.Date,
        nullable=False,
        comment="Date the invoice was issued; an invoice's month, quarter and year are those of this date.",
    ),
    sa.Column("due_date", sa.Date, nullable=False, comment="Date payment is due: 30 days after issue."),
    sa.Column("amount", Money, nullable=False, comment="Amount billed, in dollars with cents. " + COLLECTED_METRIC),
    sa.Column(
        "status",
        sa.Text,
        nullable=False,
        comment="'paid' (money received), 'open' (not yet paid) or 'void' (cancelled, never to be paid).",
    ),
    sa.Column(
        "paid_date",
        sa.Date,
        nullable=True,
        comment="Date the payment arrived; NULL unless the invoice is paid. Paid after due_date means paid late.",
    ),
    comment="Invoices billed to subscriptions.",
)

support_tickets = sa.Table(
    "support_tickets",
    metadata,
    sa.Column(
        "ticket_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the support ticket, numbered from 1 in order of opening.",
    ),
    sa.Column(
        "account_id",
        sa.Integer,
        sa.ForeignKey("accounts.account_id"),
        nullable=False,
        comment="The account that opened the ticket.",
    ),
    sa.Column("opened_date", sa.Date, nullable=False, comment="Date the ticket was opened."),
    sa.Column("closed_date", sa.Date, nullable=True, comment="Date the ticket was resolved; NULL while still open."),
    sa.Column("priority", sa.Text, nullable=False, comment="'low', 'normal', 'high' or 'urgent'."),
    sa.Column(
        "topic",
        sa.Text,
        nullable=False,
        comment="What the ticket is about: " + ", ".join(f"'{t}'" for t in TOPICS) + ".",
    ),
    sa.Column(
        "satisfaction",
        sa.Integer,
        nullable=True,
        comment="Customer's rating of the support from 1 (poor) to 5 (excellent); NULL when not rated.",
    ),
    comment="Support requests opened by customers.",
)

TABLES = (plans, accounts, subscriptions, invoices, support_tickets)
"""In insert order (parents before children)."""

_PLANS = (
    ("Starter", 900, D(2019, 3, 1), True),
    ("Team", 1900, D(2019, 3, 1), False),
    ("Business", 3400, D(2020, 9, 15), False),
    ("Enterprise", 6900, D(2021, 6, 30), False),
    ("Nonprofit", 450, D(2022, 11, 1), False),
)
_NAME_A = (
    "Blue",
    "North",
    "Iron",
    "Bright",
    "Silver",
    "Quiet",
    "Rapid",
    "Green",
    "Cedar",
    "Lunar",
    "Summit",
    "Harbor",
    "Prairie",
    "Copper",
    "Velvet",
    "Atlas",
    "Falcon",
    "Maple",
    "Orbit",
    "Pioneer",
)
_NAME_B = (
    "Labs",
    "Works",
    "Systems",
    "Logistics",
    "Health",
    "Foods",
    "Capital",
    "Studio",
    "Analytics",
    "Freight",
    "Clinic",
    "Academy",
    "Retail",
    "Dynamics",
    "Partners",
)


def _days(a: dt.date, b: dt.date) -> int:
    return (b - a).days


def _rand_date(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    return start + dt.timedelta(days=rng.randint(0, _days(start, end)))


def _month_end(day: dt.date) -> dt.date:
    nxt = D(day.year + (day.month == 12), day.month % 12 + 1, 1)
    return nxt - dt.timedelta(days=1)


def _add_months(day: dt.date, months: int, anchor_day: int) -> dt.date:
    """``day`` moved by ``months``, on ``anchor_day`` or on the month's last day if the month is shorter."""
    y, m = divmod(day.month - 1 + months, 12)
    first = D(day.year + y, m + 1, 1)
    return first.replace(day=min(anchor_day, _month_end(first).day))


def _signup(rng: random.Random) -> dt.date:
    day = _rand_date(rng, D(2022, 6, 1), D(2024, 11, 30))
    roll = rng.random()
    if roll < 0.1:
        return day.replace(day=1)
    if roll < 0.18:
        return _month_end(day)
    return day


def _generate(seed: int) -> dict[str, list[dict]]:
    rng = random.Random(seed)
    plan_rows = [
        dict(plan_id=i, name=name, seat_price=base + rng.randint(-150, 150), is_legacy=legacy, launched_date=launched)
        for i, (name, base, launched, legacy) in enumerate(_PLANS, start=1)
    ]
    names = rng.sample([f"{a} {b}" for a in _NAME_A for b in _NAME_B], rng.randint(190, 240))
    signups = sorted(_signup(rng) for _ in names)
    account_rows, sub_rows, inv_rows, ticket_rows = [], [], [], []
    for aid, (name, signup) in enumerate(zip(names, signups), start=1):
        account = dict(
            account_id=aid,
            company_name=name,
            industry=rng.choice(INDUSTRIES),
            country=rng.choices(COUNTRIES, weights=(3, 2, 4, 2, 2, 6))[0],
            employees=None if rng.random() < 0.15 else int(rng.lognormvariate(4, 1.2)) + 2,
            signup_date=signup,
            churned_date=None,
        )
        account_rows.append(account)
        if rng.random() < 0.14:  # a trial that never converted
            if rng.random() < 0.5:
                account["churned_date"] = min(signup + dt.timedelta(days=rng.randint(14, 60)), DATA_END)
            continue
        start = signup + dt.timedelta(days=rng.choice((0, 14, 14, 30)))
        if start > DATA_END:
            continue
        plan = rng.choices(range(1, 6), weights=(4, 5, 3, 1, 1))[0]
        if plan == 1 and start >= D(2023, 7, 1) or plan == 5 and start < _PLANS[4][2]:
            plan = 2  # Starter closed to newcomers mid-2023; Nonprofit did not exist yet
        seats = rng.randint(1, 12) if plan in (1, 2, 5) else rng.randint(8, 120)
        while start <= DATA_END:
            cycle = "annual" if rng.random() < 0.3 else "monthly"
            roll = rng.random()
            end = None
            if roll < 0.22:
                end = _rand_date(rng, start + dt.timedelta(days=40), start + dt.timedelta(days=500))
                end = None if end > DATA_END else end
            sub = dict(
                subscription_id=len(sub_rows) + 1,
                account_id=aid,
                plan_id=plan,
                start_date=start,
                end_date=end,
                seats=seats,
                billing_cycle=cycle,
                auto_renew=rng.random() < 0.7,
            )
            sub_rows.append(sub)
            inv_rows += _invoices(rng, sub, plan_rows[plan - 1]["seat_price"])
            if end is None:
                break
            if rng.random() < 0.5:  # left for good
                account["churned_date"] = end
                break
            start = end + dt.timedelta(days=1)  # moved to another plan or seat count
            plan = rng.choice([p for p in (2, 3, 4, 5) if p != plan])
            seats = max(1, seats + rng.randint(-3, 15))
    for aid in range(1, len(account_rows) + 1):
        account = account_rows[aid - 1]
        if rng.random() < 0.2:
            continue
        last = account["churned_date"] or DATA_END
        for _ in range(rng.choice((1, 1, 2, 3, 4, 6))):
            opened = _rand_date(rng, account["signup_date"], last)
            closed = None if rng.random() < 0.12 else opened + dt.timedelta(days=rng.randint(0, 20))
            if closed is not None and closed > DATA_END:
                closed = None
            ticket_rows.append(
                dict(
                    account_id=aid,
                    opened_date=opened,
                    closed_date=closed,
                    priority=rng.choices(PRIORITIES, weights=(4, 8, 3, 1))[0],
                    topic=rng.choice(TOPICS),
                    satisfaction=None
                    if closed is None or rng.random() < 0.35
                    else rng.choices((1, 2, 3, 4, 5), weights=(1, 1, 2, 4, 4))[0],
                )
            )
    inv_rows.sort(key=lambda r: (r["issued_date"], r["subscription_id"]))
    for i, row in enumerate(inv_rows, start=1):
        row["invoice_id"] = i
    ticket_rows.sort(key=lambda r: (r["opened_date"], r["account_id"]))
    for i, row in enumerate(ticket_rows, start=1):
        row["ticket_id"] = i
    return {
        "plans": plan_rows,
        "accounts": account_rows,
        "subscriptions": sub_rows,
        "invoices": inv_rows,
        "support_tickets": ticket_rows,
    }


def _invoices(rng: random.Random, sub: dict, seat_price: int) -> list[dict]:
    """Invoices for ``sub`` from its start to its end (or the end of the data), prices in cents."""
    step = 12 if sub["billing_cycle"] == "annual" else 1
    monthly = sub["seats"] * seat_price
    rows, k, anchor = [], 0, sub["start_date"].day
    last_day = sub["end_date"] or DATA_END
    while True:
        issued = sub["start_date"] if k == 0 else _add_months(sub["start_date"], k, anchor)
        if issued > last_day:
            return rows
        amount = monthly * 12 * 85 // 100 if step == 12 else monthly
        if rng.random() < 0.08:
            amount = amount * rng.choice((80, 85, 90)) // 100  # a promotional discount
        due = issued + dt.timedelta(days=30)
        roll = rng.random()
        if roll < 0.03:
            status, paid = "void", None
        elif issued > DATA_END - dt.timedelta(days=40) and roll < 0.6 or roll < 0.07:
            status, paid = "open", None
        else:
            paid = issued + dt.timedelta(days=rng.choice((0, 1, 3, 7, 12, 20, 28, 35, 44)))
            status = "paid" if paid <= DATA_END else "open"
            paid = paid if status == "paid" else None
        rows.append(
            dict(
                subscription_id=sub["subscription_id"],
                issued_date=issued,
                due_date=due,
                amount=amount,
                status=status,
                paid_date=paid,
            )
        )
        k += step


def build(engine: sa.Engine, seed: int = 0) -> None:
    """Create the five tables and insert the rows of ``seed`` on an empty database."""
    create_and_fill(engine, metadata, TABLES, _generate(seed))


def write(path: Path, seed: int = 0) -> str:
    """Build the schema for ``seed`` into a new SQLite file at ``path`` (replaced if present); its URL."""
    return write_sqlite(path, lambda engine: build(engine, seed))
