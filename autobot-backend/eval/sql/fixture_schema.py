"""The retail schema (spec 3.1) as SQLAlchemy Core metadata, shared by both retail fixtures.

The column comments are the schema's documentation and the only place the business terms are
defined: a generator reads them (through ``services.schema_context``), so they say what a
column means, in plain sentences, and never hint at any question of the corpus. A comment that
defines a metric carries it in the machine-readable form
``[metric: <name> = <aggregate> WHERE <condition>]`` with qualified ``table.column`` names.

Money is generated as integer cents and stored through :class:`Money`, a ``NUMERIC(10, 2)``
column that binds an exact ``Decimal`` on every engine but SQLite, and there a float rounded to
two places (SQLite has no decimal type; binding one would rely on an implicit,
version-dependent Decimal-to-float conversion that SQLAlchemy warns about). Cents in the generator mean sums can be
checked exactly, whatever the engine.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.types import TypeDecorator

CATEGORIES = ("books", "electronics", "garden", "home", "toys")
COUNTRIES = ("Canada", "France", "Germany", "United Kingdom", "United States")
SEGMENTS = ("consumer", "business")
STATUSES = ("completed", "cancelled", "returned")
CHANNELS = ("web", "store", "phone")

REVENUE_METRIC = (
    "[metric: revenue = SUM(order_items.quantity * order_items.unit_price) WHERE orders.status = 'completed']"
)


class Money(TypeDecorator[Decimal | float]):
    """``NUMERIC(10, 2)`` that takes integer cents from Python."""

    impl = sa.Numeric(10, 2)
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: sa.Dialect) -> Decimal | float | None:
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"Money binds integer cents, got {value!r}")
        if dialect.name == "sqlite":
            return round(value / 100, 2)
        return Decimal(value).scaleb(-2)

    def coerce_compared_value(self, op: Any, value: Any) -> sa.types.TypeEngine[Any]:
        # Cents are for inserted rows only: in an expression (price * 100, price > 10) a literal
        # is a plain number in currency units, never run through process_bind_param.
        return sa.Numeric(10, 2)


def _text(length: int = 255) -> sa.types.TypeEngine[str]:
    # TEXT everywhere; MySQL cannot index or constrain TEXT without a length, so VARCHAR there.
    return sa.Text().with_variant(sa.String(length), "mysql", "mariadb")


metadata = sa.MetaData()

customers = sa.Table(
    "customers",
    metadata,
    sa.Column(
        "customer_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the customer, numbered from 1 in order of signup.",
    ),
    sa.Column("name", _text(), nullable=False, comment="Customer's full name."),
    sa.Column("email", _text(), nullable=False, unique=True, comment="Customer's email address; unique per customer."),
    sa.Column("city", _text(), nullable=False, comment="City the customer lives in."),
    sa.Column("country", _text(), nullable=False, comment="Country the customer lives in."),
    sa.Column(
        "segment",
        _text(),
        nullable=False,
        comment="Kind of customer: 'consumer' for individuals, 'business' for companies.",
    ),
    sa.Column("signup_date", sa.Date, nullable=False, comment="Date the customer created their account."),
    sa.Column(
        "referred_by",
        sa.Integer,
        sa.ForeignKey("customers.customer_id"),
        nullable=True,
        comment="customer_id of the customer who referred this one; NULL when nobody referred them.",
    ),
    comment="People and companies with an account at the shop, whether or not they have ordered.",
)

products = sa.Table(
    "products",
    metadata,
    sa.Column(
        "product_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the product, numbered from 1.",
    ),
    sa.Column("name", _text(), nullable=False, comment="Product name as shown in the catalogue."),
    sa.Column(
        "category",
        _text(),
        nullable=False,
        comment="Product category: one of 'books', 'electronics', 'garden', 'home', 'toys'.",
    ),
    sa.Column(
        "unit_price",
        Money,
        nullable=False,
        comment="Current list price of one unit, in currency units with cents. What an order "
        "line was actually charged is order_items.unit_price.",
    ),
    sa.Column(
        "discontinued",
        sa.Boolean,
        nullable=False,
        comment="True when the product is no longer sold; past orders may still include it.",
    ),
    comment="The catalogue: every product the shop sells or has sold.",
)

orders = sa.Table(
    "orders",
    metadata,
    sa.Column(
        "order_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the order, numbered from 1 in order of order_date.",
    ),
    sa.Column(
        "customer_id",
        sa.Integer,
        sa.ForeignKey("customers.customer_id"),
        nullable=False,
        comment="The customer who placed the order.",
    ),
    sa.Column(
        "order_date",
        sa.Date,
        nullable=False,
        comment="Date the order was placed; an order's month, quarter and year are the calendar periods of this date.",
    ),
    sa.Column(
        "shipped_date",
        sa.Date,
        nullable=True,
        comment="Date the order shipped; NULL until shipped; cancelled orders never ship.",
    ),
    sa.Column(
        "status",
        _text(),
        nullable=False,
        comment="Outcome of the order: 'completed' (paid and kept), 'cancelled' (called off before "
        "shipping) or 'returned' (shipped and sent back). Only completed orders count as "
        "revenue.",
    ),
    sa.Column("channel", _text(), nullable=False, comment="Where the order was placed: 'web', 'store' or 'phone'."),
    comment="One row per order a customer placed.",
)

order_items = sa.Table(
    "order_items",
    metadata,
    sa.Column(
        "order_id",
        sa.Integer,
        sa.ForeignKey("orders.order_id"),
        primary_key=True,
        autoincrement=False,
        comment="The order this line belongs to.",
    ),
    sa.Column(
        "line_no",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Position of the line within its order, from 1.",
    ),
    sa.Column(
        "product_id",
        sa.Integer,
        sa.ForeignKey("products.product_id"),
        nullable=False,
        comment="The product bought on this line.",
    ),
    sa.Column("quantity", sa.Integer, nullable=False, comment="Number of units bought on this line."),
    sa.Column(
        "unit_price",
        Money,
        nullable=False,
        comment="Price charged per unit on this line, with cents; can be below the list price "
        "when a discount applied. The line's amount is quantity * unit_price. " + REVENUE_METRIC,
    ),
    comment="The lines of each order: which products, how many, at what price.",
)

TABLES = (customers, products, orders, order_items)
"""In insert order (parents before children)."""
