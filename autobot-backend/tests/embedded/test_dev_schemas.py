"""The development schemas (:mod:`tests.schemas.dev`): the properties the dev set's questions rely on
(NULLs present, entities with no related rows, boundary dates), and that builds are deterministic."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from services.schema_context import inspect_schema
from tests.schemas.dev import BUILDERS, write_db

# ---------------------------------------------------------------------------------------- tests


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[str, sa.Engine]:
    root = tmp_path_factory.mktemp("embedded_schemas")
    return {name: sa.create_engine(write_db(root / f"{name}.db", name)) for name in BUILDERS}


def _scalar(engine: sa.Engine, sql: str):
    with engine.connect() as conn:
        return conn.exec_driver_sql(sql).scalar()


@pytest.mark.parametrize(
    "schema,sql,expected",
    [
        ("retail", "SELECT COUNT(*) FROM customers", 160),
        ("retail", "SELECT COUNT(*) FROM orders", 1300),
        ("retail", "SELECT COUNT(DISTINCT category) FROM products", 5),
        ("retail", "SELECT COUNT(DISTINCT country) FROM customers", 5),
        ("library", "SELECT COUNT(*) FROM books", 60),
        ("clinic", "SELECT COUNT(*) FROM appointments", 900),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 12 else None,
)
def test_row_counts(dbs, schema, sql, expected):
    assert _scalar(dbs[schema], sql) == expected


@pytest.mark.parametrize(
    "schema,sql",
    [
        (
            "retail",
            "SELECT COUNT(*) FROM customers c WHERE NOT EXISTS "
            "(SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id)",
        ),
        ("retail", "SELECT COUNT(*) FROM orders WHERE shipped_date IS NULL AND status <> 'cancelled'"),
        ("retail", "SELECT COUNT(*) FROM customers WHERE referred_by IS NULL"),
        ("retail", "SELECT COUNT(*) FROM orders WHERE order_date = '2024-03-31'"),
        ("library", "SELECT COUNT(*) FROM loans WHERE return_date IS NULL"),
        (
            "library",
            "SELECT COUNT(*) FROM members m WHERE NOT EXISTS (SELECT 1 FROM loans l WHERE l.member_id = m.member_id)",
        ),
        ("clinic", "SELECT COUNT(*) FROM patients WHERE insurance IS NULL"),
        (
            "clinic",
            "SELECT COUNT(*) FROM patients p WHERE NOT EXISTS "
            "(SELECT 1 FROM appointments a WHERE a.patient_id = p.patient_id)",
        ),
    ],
    ids=[
        "never-ordered",
        "completed-unshipped",
        "not-referred",
        "month-end-orders",
        "unreturned-loans",
        "members-never-borrowed",
        "uninsured",
        "patients-never-seen",
    ],
)
def test_properties_the_dev_set_relies_on_hold(dbs, schema, sql):
    assert _scalar(dbs[schema], sql) > 0


def test_builds_are_deterministic(tmp_path):
    digests = []
    for i in range(2):
        engine = sa.create_engine(write_db(tmp_path / f"r{i}.db", "retail"))
        digests.append(_scalar(engine, "SELECT SUM(quantity * unit_price * line_no) FROM order_items"))
        engine.dispose()
    assert digests[0] == digests[1]


def test_comments_reach_the_schema_context(dbs):
    ctx = inspect_schema(dbs["retail"])
    assert "[metric: revenue" in ctx.table("order_items").column("unit_price").comment
    assert ctx.table("customers").column("country").values_complete
