"""What the service's tests share: a small shop database, a generator scripted at the edge, one question asked.

Imported by ``test_nl_database_service.py`` and the modules split from it, ``test_nl_service_async.py``,
``test_turn_capture.py`` and the eval's failure-verdict tests; the ``shop`` and ``service_for`` fixtures built
on them are in ``tests/conftest.py``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import sqlalchemy as sa

from services.generation.protocol import Generation
from services.nl_database_service import NLDatabaseService
from services.schema_context import SchemaContext

PASSWORD = "hunter2-Secr3t"
API_KEY = "sk-live-0123456789abcdef"
RUNAWAY = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n"


def build_shop(path: Path, extra_table: str | None = None) -> str:
    """A two-table shop with column comments; returns its SQLAlchemy URL."""
    meta = sa.MetaData()
    customers = sa.Table(
        "customers",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(60), nullable=False, comment="full name"),
        sa.Column("country", sa.String(40), comment="billing country"),
    )
    orders = sa.Table(
        "orders",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("customer_id", sa.ForeignKey("customers.id"), nullable=False),
        sa.Column("amount", sa.Numeric(10, 2), nullable=False, comment="order total in EUR, taxes included"),
        sa.Column("status", sa.String(20), nullable=False, comment="placed, shipped or cancelled"),
    )
    if extra_table:
        sa.Table(extra_table, meta, sa.Column("id", sa.Integer, primary_key=True))
    engine = sa.create_engine(f"sqlite:///{path}")
    try:
        meta.create_all(engine)
        with engine.begin() as conn:
            conn.execute(
                customers.insert(),
                [
                    {"id": 1, "name": "Ada", "country": "Canada"},
                    {"id": 2, "name": "Bo", "country": "France"},
                    {"id": 3, "name": "Cy", "country": "Canada"},
                ],
            )
            conn.execute(
                orders.insert(),
                [{"id": i, "customer_id": 1 + i % 3, "amount": 10 * i, "status": "shipped"} for i in range(1, 6)],
            )
    finally:
        engine.dispose()
    return f"sqlite:///{path}"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Scripted:
    """A generator at the edge: always the same outcome (a Generation, or an exception to raise)."""

    name, model = "scripted", "scripted-model"

    def __init__(self, outcome: Generation | BaseException | object) -> None:
        self.outcome = outcome
        self.calls: list[tuple[str, SchemaContext]] = []

    def generate(self, question: str, schema: SchemaContext) -> Generation:
        self.calls.append((question, schema))
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome  # type: ignore[return-value]


def sql(text: str) -> Scripted:
    return Scripted(Generation(sql=text))


def ask(service: NLDatabaseService, question: object = "Who are the customers?", **kwargs) -> dict:
    return service.query(question, **kwargs)  # type: ignore[arg-type]
