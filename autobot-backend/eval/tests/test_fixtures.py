"""The fixture builder keeps every guarantee of spec 3.2, on every rotation, checked here with
independent SQL (raw sqlite3 and SQLite date functions), not with the builder's own checks."""

from __future__ import annotations

import hashlib
import itertools
import shutil
import sqlite3
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from eval.sql.fixtures import data as fixture_data
from eval.sql.fixtures import seeded as fixtures
from eval.sql.fixtures.checks import check_guarantees, period_collisions
from eval.sql.fixtures.schema import Money
from eval.sql.fixtures.seeded import FixtureError, build, build_rotations, write
from services.schema_context import inspect_schema

ROTATIONS = [(f, i) for f in fixtures.FIXTURE_NAMES for i in range(3)]
IDS = [f"{f}-rot{i}" for f, i in ROTATIONS]
REVENUE_BY_MONTH = """
    SELECT strftime('%Y-%m', o.order_date) AS month, SUM(oi.quantity * oi.unit_price)
    FROM orders o JOIN order_items oi ON oi.order_id = o.order_id
    WHERE o.status = 'completed' GROUP BY month ORDER BY month"""


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, list[Path]]:
    d = tmp_path_factory.mktemp("fixtures")
    build_rotations("retail", d)
    build_rotations("retail_24m", d)
    return {f: [d / f"{f}-seed{s}.sqlite" for s in range(3)] for f in fixtures.FIXTURE_NAMES}


class Db:
    """One rotation of one fixture, opened with plain sqlite3."""

    def __init__(self, path: Path, fixture: str):
        self.fixture = fixture
        self.conn = sqlite3.connect(path)

    def execute(self, sql: str) -> sqlite3.Cursor:
        return self.conn.execute(sql)


@pytest.fixture(params=ROTATIONS, ids=IDS)
def db(request, built) -> Db:
    fixture, rotation = request.param
    handle = Db(built[fixture][rotation], fixture)
    yield handle
    handle.conn.close()


def one(conn, sql: str):
    return conn.execute(sql).fetchone()[0]


def column(conn, sql: str) -> list:
    return [r[0] for r in conn.execute(sql)]


def dump_hash(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return hashlib.sha256("\n".join(conn.iterdump()).encode()).hexdigest()
    finally:
        conn.close()


def cents(x: float) -> int:
    return round(x * 100)


# -- spec 3.2, on every rotation ------------------------------------------------------------


def test_sizes(db):
    customers, products, orders = (one(db, f"SELECT COUNT(*) FROM {t}") for t in ("customers", "products", "orders"))
    assert 200 <= customers <= 1000  # a few hundred
    assert 24 <= products <= 60  # a few dozen
    if db.fixture == "retail":
        assert 1000 <= orders <= 2000  # one to two thousand
    else:
        assert orders >= 24 * 100


def test_order_and_signup_ranges(db):
    first, last = db.execute(
        "SELECT MIN(order_date), MAX(order_date) FROM orders WHERE order_date <= '2024-12-31'"
    ).fetchone()
    expected = ("2024-10-01", "2024-12-31") if db.fixture == "retail" else ("2023-01-01", "2024-12-31")
    assert (first, last) == expected
    # past the period, only the rows placed on its next day on purpose (test_fixture_edges)
    assert column(db, "SELECT DISTINCT order_date FROM orders WHERE order_date > '2024-12-31'") == ["2025-01-01"]
    first, last = db.execute("SELECT MIN(signup_date), MAX(signup_date) FROM customers").fetchone()
    assert last == "2025-01-01"
    assert one(db, "SELECT COUNT(*) FROM customers WHERE signup_date > '2024-12-31'") == 1
    assert first >= ("2023-01-01" if db.fixture == "retail" else "2022-01-01")


def test_ids_start_at_one(db):
    for table, key in (("customers", "customer_id"), ("products", "product_id"), ("orders", "order_id")):
        assert db.execute(f"SELECT MIN({key}), MAX({key}) FROM {table}").fetchone() == (
            1,
            one(db, f"SELECT COUNT(*) FROM {table}"),
        )
    assert one(db, "SELECT MIN(line_no) FROM order_items") == 1


@pytest.mark.parametrize(
    ("sql", "vocabulary"),
    [
        ("SELECT DISTINCT category FROM products", {"books", "electronics", "garden", "home", "toys"}),
        ("SELECT DISTINCT country FROM customers", {"Canada", "France", "Germany", "United Kingdom", "United States"}),
        ("SELECT DISTINCT segment FROM customers", {"consumer", "business"}),
        ("SELECT DISTINCT status FROM orders", {"completed", "cancelled", "returned"}),
        ("SELECT DISTINCT channel FROM orders", {"web", "store", "phone"}),
    ],
    ids=["category", "country", "segment", "status", "channel"],
)
def test_every_vocabulary_value_present_and_no_other(db, sql, vocabulary):
    assert set(column(db, sql)) == vocabulary


def test_money_has_cents(db):
    revenue = one(
        db,
        "SELECT SUM(oi.quantity * oi.unit_price) FROM order_items oi "
        "JOIN orders o ON o.order_id = oi.order_id WHERE o.status = 'completed'",
    )
    assert cents(revenue) % 100 != 0
    assert any(cents(p) % 100 for p in column(db, "SELECT unit_price FROM products"))
    # Some lines were charged below list price, so list price and charged price are different answers.
    assert (
        one(
            db,
            "SELECT COUNT(*) FROM order_items oi JOIN products p ON p.product_id = oi.product_id "
            "WHERE oi.unit_price < p.unit_price",
        )
        > 0
    )


def test_completed_orders_on_every_month_and_quarter_boundary(db):
    days = set(column(db, "SELECT DISTINCT order_date FROM orders WHERE status = 'completed'"))
    first, last = db.execute(
        "SELECT MIN(order_date), MAX(order_date) FROM orders WHERE order_date <= '2024-12-31'"
    ).fetchone()
    months = column(
        db,
        f"""WITH RECURSIVE m(d) AS (SELECT '{first}' UNION ALL
            SELECT date(d, '+1 month') FROM m WHERE date(d, '+1 month') <= '{last}') SELECT d FROM m""",
    )
    for month_start in months:
        assert month_start in days
        assert one(db, f"SELECT date('{month_start}', '+1 month', '-1 day')") in days


def test_quarter_boundary_signups(db):
    days = set(column(db, "SELECT signup_date FROM customers"))
    assert {"2023-12-31", "2024-01-01", "2024-03-31", "2024-04-01", "2024-09-30", "2024-10-01"} <= days


def test_nulls_where_the_schema_allows_them(db):
    assert (
        0
        < one(db, "SELECT COUNT(*) FROM customers WHERE referred_by IS NULL")
        < one(db, "SELECT COUNT(*) FROM customers")
    )
    assert one(db, "SELECT COUNT(*) FROM orders WHERE status = 'cancelled' AND shipped_date IS NOT NULL") == 0
    assert one(db, "SELECT COUNT(*) FROM orders WHERE status <> 'cancelled' AND shipped_date IS NULL") > 0
    assert one(db, "SELECT COUNT(*) FROM orders WHERE shipped_date < order_date") == 0


def test_customers_without_orders_make_left_join_differ(db):
    inner = one(
        db, "SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN orders o ON o.customer_id = c.customer_id"
    )
    left = one(
        db, "SELECT COUNT(DISTINCT c.customer_id) FROM customers c LEFT JOIN orders o ON o.customer_id = c.customer_id"
    )
    assert left > inner


def test_every_category_has_products_and_every_country_customers(db):
    assert min(column(db, "SELECT COUNT(*) FROM products GROUP BY category")) >= 1
    assert len(column(db, "SELECT country FROM customers GROUP BY country")) == 5


def test_24m_periods_are_pairwise_distinct(built):
    for path in built["retail_24m"]:
        conn = sqlite3.connect(path)
        months = {m: cents(v) for m, v in conn.execute(REVENUE_BY_MONTH) if m <= "2024-12"}
        conn.close()
        assert len(months) == 24
        quarters: dict[str, int] = {}
        for m, v in months.items():
            q = f"{m[:4]}Q{(int(m[5:]) - 1) // 3}"
            quarters[q] = quarters.get(q, 0) + v
        values = list(months.values())
        qvalues = list(quarters.values())
        for family in (
            values,
            qvalues,
            [abs(b - a) for a, b in itertools.pairwise(values)],
            [abs(b - a) for a, b in itertools.pairwise(qvalues)],
            [abs(values[i + 12] - values[i]) for i in range(12)],
            [abs(qvalues[i + 4] - qvalues[i]) for i in range(4)],
        ):
            assert len(set(family)) == len(family)


# -- determinism, rotations, failures --------------------------------------------------------


def test_same_seed_gives_byte_identical_data(tmp_path, built):
    write(tmp_path / "again.sqlite", "retail", 1)
    assert dump_hash(tmp_path / "again.sqlite") == dump_hash(built["retail"][1])


@pytest.mark.parametrize("fixture", fixtures.FIXTURE_NAMES)
def test_rotations_differ_in_their_rows(built, fixture):
    hashes = {dump_hash(p) for p in built[fixture]}
    assert len(hashes) == 3
    revenues = set()
    for p in built[fixture]:
        conn = sqlite3.connect(p)
        revenues.add(one(conn, "SELECT SUM(quantity * unit_price) FROM order_items"))
        conn.close()
    assert len(revenues) == 3


def test_rotation_urls_in_seed_order(tmp_path):
    urls = build_rotations("retail", tmp_path, seed=5, rotations=2)
    assert [u.rsplit("/", 1)[-1] for u in urls] == ["retail-seed5.sqlite", "retail-seed6.sqlite"]
    assert all(u.startswith("sqlite:///") for u in urls)


def _add_order_equalising(data: fixture_data.FixtureData, low_month: str, high_month: str) -> None:
    completed = {o["order_id"]: o for o in data.orders if o["status"] == "completed"}
    totals: dict[str, int] = {}
    for item in data.order_items:
        order = completed.get(item["order_id"])
        if order:
            key = order["order_date"].strftime("%Y-%m")
            totals[key] = totals.get(key, 0) + item["quantity"] * item["unit_price"]
    low, high = sorted((low_month, high_month), key=totals.__getitem__)
    order_id = len(data.orders) + 1
    day = date(int(low[:4]), int(low[5:]), 15)
    data.orders.append(
        {
            "order_id": order_id,
            "customer_id": 1,
            "order_date": day,
            "shipped_date": day,
            "status": "completed",
            "channel": "web",
        }
    )
    data.order_items.append(
        {"order_id": order_id, "line_no": 1, "product_id": 1, "quantity": 1, "unit_price": totals[high] - totals[low]}
    )


def test_colliding_months_fail_the_build_naming_fixture_seed_and_periods(monkeypatch, tmp_path):
    real = fixtures.generate

    def colliding(spec, seed):
        data = real(spec, seed)
        _add_order_equalising(data, "2023-03", "2024-05")
        return data

    monkeypatch.setattr(fixtures, "generate", colliding)
    with pytest.raises(FixtureError) as err:
        write(tmp_path / "broken.sqlite", "retail_24m", 0)
    message = str(err.value)
    assert "'retail_24m' seed 0" in message
    assert "monthly revenue totals collide: 2023-03 and 2024-05" in message
    assert not (tmp_path / "broken.sqlite").exists()


@pytest.mark.parametrize(
    ("months", "expected"),
    [
        ({"2023-01": 100, "2023-02": 200, "2023-03": 400}, []),
        (
            {"2023-01": 100, "2023-02": 300, "2023-03": 250, "2023-04": 100},
            ["monthly revenue totals collide: 2023-01 and 2023-04"],
        ),
        # +100 then -100: the same swing, so "the biggest change" would have two answers
        (
            {"2023-01": 100, "2023-02": 200, "2023-03": 50, "2023-04": 150},
            ["month-over-month deltas collide: 2023-02 vs 2023-01 and 2023-04 vs 2023-03"],
        ),
    ],
    ids=["distinct", "equal-months", "equal-absolute-deltas"],
)
def test_period_collisions(months, expected):
    found = period_collisions(months)
    assert [f.split(" all ")[0] for f in found if "quarter" not in f] == expected


@pytest.mark.parametrize(
    ("mutation", "problem"),
    [
        ("DELETE FROM customers WHERE customer_id > 100", "customers has 100 rows"),
        ("DELETE FROM products WHERE product_id = 1", "products ids run 2.."),
        ("UPDATE products SET category = 'books' WHERE category = 'toys'", "products.category values"),
        (
            "DELETE FROM orders WHERE order_date = '2024-11-30'",
            "no completed order on the period boundaries 2024-11-30",
        ),
        ("UPDATE customers SET referred_by = NULL", "referred_by must be NULL for some"),
        ("UPDATE customers SET referred_by = customer_id", "referred by themselves"),
        (
            "UPDATE orders SET shipped_date = order_date WHERE status = 'cancelled'",
            "a cancelled order has a shipped_date",
        ),
        ("UPDATE orders SET shipped_date = order_date WHERE status <> 'cancelled'", "no order is waiting to ship"),
        ("UPDATE orders SET shipped_date = '2025-01-03' WHERE order_id = 1", "after 2024-12-31"),
        (
            "INSERT INTO orders SELECT (SELECT MAX(order_id) FROM orders) + customer_id, customer_id, '2024-11-15', "
            "NULL, 'cancelled', 'web' FROM customers",
            "every customer has ordered",
        ),
        (
            "UPDATE order_items SET product_id = 9999 WHERE order_id = 1",
            "order_items.product_id point at no existing row",
        ),
        ("UPDATE order_items SET unit_price = ROUND(unit_price)", "has no cents"),
        ("UPDATE products SET discontinued = 0", "the dearest product is not discontinued"),
        (
            "DELETE FROM order_items WHERE order_id IN (SELECT order_id FROM orders WHERE order_date = '2024-12-01')",
            "no a product sold in the last month only on 2024-12-01",
        ),
        ("UPDATE customers SET name = name || customer_id", "no two customers with completed orders share a name"),
    ],
    ids=[
        "size",
        "ids",
        "vocabulary",
        "boundary",
        "no-null",
        "self-referral",
        "cancelled-shipped",
        "all-shipped",
        "shipped-late",
        "no-dormant-customer",
        "orphan",
        "whole-money",
        "dearest-still-sold",
        "no-product-stops-on-the-first",
        "no-namesakes",
    ],
)
def test_each_guarantee_check_can_fail(tmp_path, built, mutation, problem):
    copy = tmp_path / "mutated.sqlite"
    shutil.copy(built["retail"][0], copy)
    conn = sqlite3.connect(copy)
    conn.execute(mutation)
    conn.commit()
    conn.close()
    engine = sa.create_engine(f"sqlite:///{copy}")
    with engine.connect() as c:
        problems = check_guarantees(c, fixtures.SPECS["retail"])
    engine.dispose()
    assert any(problem in p for p in problems), problems


def test_built_fixtures_have_no_problems(built):
    for fixture, paths in built.items():
        engine = sa.create_engine(f"sqlite:///{paths[0]}")
        with engine.connect() as c:
            assert check_guarantees(c, fixtures.SPECS[fixture]) == []
        engine.dispose()


def test_unknown_fixture_suggests_the_closest():
    with pytest.raises(FixtureError, match=r"unknown fixture 'retail24m'.*did you mean 'retail_24m'"):
        build(sa.create_engine("sqlite://"), "retail24m", 0)


def test_build_refuses_a_database_that_already_has_the_tables(tmp_path, built):
    engine = sa.create_engine(f"sqlite:///{built['retail'][0]}")
    with pytest.raises(FixtureError, match="already has tables"):
        build(engine, "retail", 0)
    engine.dispose()


def test_build_works_on_another_engine():
    engine = sa.create_engine("sqlite://")  # in-memory: one connection per thread keeps the data
    build(engine, "retail", 2)
    with engine.connect() as conn:
        n = conn.exec_driver_sql("SELECT COUNT(*) FROM orders").scalar_one()
        shipped = conn.exec_driver_sql("SELECT MAX(shipped_date) FROM orders").scalar_one()
    engine.dispose()
    assert 1000 <= n <= 2000
    assert shipped <= "2024-12-31"


# -- schema ----------------------------------------------------------------------------------


def test_column_comments_reach_the_sqlite_schema(built):
    engine = sa.create_engine(f"sqlite:///{built['retail'][0]}")
    schema = inspect_schema(engine, sample_values=False)
    engine.dispose()
    assert [t.name for t in schema.tables] == ["customers", "order_items", "orders", "products"]
    assert all(c.comment for t in schema.tables for c in t.columns)
    comment = {f"{t.name}.{c.name}": c.comment for t in schema.tables for c in t.columns}
    assert (
        "[metric: revenue = SUM(order_items.quantity * order_items.unit_price) WHERE orders.status = 'completed']"
    ) in comment["order_items.unit_price"]
    assert "NULL until shipped" in comment["orders.shipped_date"]
    assert "NULL when nobody referred" in comment["customers.referred_by"]
    assert "month" in comment["orders.order_date"]


def test_schema_types_match_the_spec(built):
    conn = sqlite3.connect(built["retail"][0])
    types = {
        (t, r[1]): r[2]
        for t in ("customers", "products", "orders", "order_items")
        for r in conn.execute(f"PRAGMA table_info({t})")
    }
    conn.close()
    assert types[("products", "unit_price")] == "NUMERIC(10, 2)"
    assert types[("orders", "order_date")] == "DATE"
    assert types[("products", "discontinued")] == "BOOLEAN"
    assert types[("customers", "name")] == "TEXT"


@pytest.mark.parametrize(
    ("dialect", "expected"),
    [
        (postgresql.dialect(), Decimal("19.99")),
        (sqlite.dialect(), 19.99),
    ],
    ids=["native-decimal", "sqlite-float"],
)
def test_money_binds_cents_per_engine(dialect, expected):
    value = Money().process_bind_param(1999, dialect)
    assert value == expected and type(value) is type(expected)


def test_money_literals_in_expressions_are_currency_units(built):
    from eval.sql.fixtures.schema import products

    engine = sa.create_engine(f"sqlite:///{built['retail'][0]}")
    with engine.connect() as conn:
        scaled = conn.execute(
            sa.select(sa.cast(sa.func.round(products.c.unit_price * 100), sa.Integer)).where(products.c.product_id == 1)
        ).scalar_one()
        raw = conn.exec_driver_sql("SELECT unit_price FROM products WHERE product_id = 1").scalar_one()
    engine.dispose()
    assert scaled == cents(raw)


def test_money_rejects_anything_but_cents():
    with pytest.raises(TypeError):
        Money().process_bind_param(19.99, sqlite.dialect())


def test_generation_is_pure():
    spec = fixtures.SPECS["retail"]
    assert fixture_data.generate(spec, 7) == fixture_data.generate(spec, 7)
    assert fixture_data.generate(spec, 7) != fixture_data.generate(spec, 8)


def test_boundary_helpers():
    assert fixture_data.quarter_boundaries(date(2024, 1, 1), date(2024, 6, 30)) == [
        date(2024, 1, 1),
        date(2024, 3, 31),
        date(2024, 4, 1),
        date(2024, 6, 30),
    ]
    assert fixture_data.month_end(date(2024, 2, 10)) == date(2024, 2, 29)
    assert fixture_data.month_end(date(2024, 12, 1)) + timedelta(days=1) == date(2025, 1, 1)


# -- the on-disk cache of built fixtures ----------------------------------------------------------


def _cached(tmp_path, monkeypatch):
    from eval.sql.fixtures import cache as fixture_cache

    monkeypatch.setenv(fixture_cache.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_second_build_is_copied_from_the_cache_byte_for_byte(tmp_path, monkeypatch):
    cache = _cached(tmp_path, monkeypatch)
    first = build_rotations("retail", tmp_path / "a", rotations=1)
    assert len(list(cache.glob("retail-seed0-*.sqlite"))) == 1
    second = build_rotations("retail", tmp_path / "b", rotations=1)
    a, b = (Path(u.removeprefix("sqlite:///")) for u in (first[0], second[0]))
    assert a.read_bytes() == b.read_bytes()


def test_a_cached_file_that_changed_is_rebuilt_not_used(tmp_path, monkeypatch):
    cache = _cached(tmp_path, monkeypatch)
    build_rotations("retail", tmp_path / "a", rotations=1)
    [cached] = cache.glob("retail-seed0-*.sqlite")
    cached.write_bytes(b"not a database")
    [url] = build_rotations("retail", tmp_path / "b", rotations=1)
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT COUNT(*) FROM customers").scalar() > 0
    engine.dispose()
    assert cached.read_bytes() != b"not a database"  # and the cache holds a sound copy again


def test_the_cache_key_changes_with_the_builders_source(tmp_path, monkeypatch):
    from eval.sql.fixtures import cache as fixture_cache

    src = tmp_path / "builder.py"
    src.write_text("x = 1\n")
    before = fixture_cache.cache_key("f", 0, fixture_cache.source_digest([src]))
    src.write_text("x = 2\n")
    assert fixture_cache.cache_key("f", 0, fixture_cache.source_digest([src])) != before
    assert fixture_cache.cache_key("f", 1, fixture_cache.source_digest([src])) != fixture_cache.cache_key(
        "f", 0, fixture_cache.source_digest([src])
    )


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch):
    from eval.sql.fixtures import cache as fixture_cache

    monkeypatch.setenv(fixture_cache.CACHE_ENV, "off")
    assert fixture_cache.cache_dir() is None
    assert build_rotations("retail", tmp_path, rotations=1)
