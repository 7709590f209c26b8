"""The fixtures' guarantees hold on every engine, checked in SQL on that engine.

The build runs :func:`eval.sql.fixtures.checks.check_guarantees` on the engine it built on; here the
same checks are shown to see a broken guarantee there (they are not vacuous on DuckDB or PostgreSQL)
and to read the same period totals SQLite does, to the cent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from eval.sql.engines.setup import DuckDBHost
from eval.sql.fixtures import cache as fixture_cache
from eval.sql.fixtures.checks import check_guarantees, monthly_revenue_cents
from eval.sql.fixtures.schema import customers
from eval.sql.fixtures.seeded import FIXTURES, build, parents_first, spec_for, write


def _engine(kind: str, fixture: str, tmp_path: Path, request: pytest.FixtureRequest) -> sa.Engine:
    """A writable database holding ``fixture`` (seed 0) on ``kind``."""
    if kind == "duckdb":
        DuckDBHost(tmp_path).build_rotations(FIXTURES[fixture], 0, 1)  # a copy: from the cache when it is there
        return sa.create_engine(sa.URL.create("duckdb", database=str(tmp_path / f"{fixture}-seed0.duckdb")))
    server = request.getfixturevalue("postgres")
    engine = sa.create_engine(server.create_database(f"g_{fixture}_{tmp_path.name[-12:].lower()}").owner_url)
    build(engine, fixture, 0)
    return engine


@pytest.fixture(params=["duckdb", "postgresql"])
def retail(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[sa.Engine]:
    engine = _engine(request.param, "retail", tmp_path, request)
    yield engine
    engine.dispose()


def test_a_broken_guarantee_is_seen_in_sql_on_the_engine(retail):
    spec = spec_for("retail")
    with retail.connect() as conn:
        assert check_guarantees(conn, spec) == []
    with retail.begin() as conn:
        conn.exec_driver_sql("UPDATE order_items SET unit_price = ROUND(unit_price)")
        conn.exec_driver_sql("UPDATE products SET unit_price = ROUND(unit_price)")
        conn.exec_driver_sql(
            "UPDATE orders SET status = 'cancelled', shipped_date = NULL WHERE order_date = DATE '2024-10-31'"
        )
    with retail.connect() as conn:
        problems = check_guarantees(conn, spec)
    assert any(p.startswith("total revenue") and p.endswith("has no cents") for p in problems), problems
    assert "no list price has cents" in problems
    assert "no completed order on the period boundaries 2024-10-31" in problems


@pytest.mark.parametrize("kind", ["duckdb", "postgresql"])
def test_period_totals_are_read_to_the_cent_as_on_sqlite(kind, tmp_path, request):
    engine = _engine(kind, "retail_24m", tmp_path, request)
    lite = sa.create_engine(write(tmp_path / "r.db", "retail_24m", 0))
    try:
        with engine.connect() as conn, lite.connect() as lite_conn:
            months = monthly_revenue_cents(conn)
            assert len(months) == 24 + 1 and months == monthly_revenue_cents(lite_conn)  # and the day after the period
    finally:
        engine.dispose()
        lite.dispose()


def test_a_referrer_is_inserted_before_those_it_referred():
    rows = [
        {"customer_id": 1, "referred_by": None},
        {"customer_id": 2, "referred_by": 1},  # refers to a row of the first batch: a new batch
        {"customer_id": 3, "referred_by": None},
        {"customer_id": 4, "referred_by": 3},  # ... and again
        {"customer_id": 5, "referred_by": 1},
    ]
    batches = parents_first(customers, rows)
    assert [[r["customer_id"] for r in b] for b in batches] == [[1], [2, 3], [4, 5]]
    assert [r for b in batches for r in b] == rows  # the same rows, in the same order


def test_duckdb_files_are_cached_under_their_own_key(tmp_path, monkeypatch):
    monkeypatch.setenv(fixture_cache.CACHE_ENV, str(tmp_path / "cache"))
    sources = fixture_cache.source_digest(FIXTURES["retail"].sources)
    assert fixture_cache.cache_key("retail", 0, sources, "duckdb") != fixture_cache.cache_key("retail", 0, sources)
    first = DuckDBHost(tmp_path / "a").build_rotations(FIXTURES["retail"], 0, 1)
    cached = sorted(p.suffix for p in (tmp_path / "cache").iterdir())
    assert cached == [".duckdb", ".json"]
    (tmp_path / "b").mkdir()
    second = DuckDBHost(tmp_path / "b").build_rotations(FIXTURES["retail"], 0, 1)
    assert first != second
    copies = [(tmp_path / folder / "retail-seed0.duckdb").read_bytes() for folder in ("a", "b")]
    assert copies[0] == copies[1]  # the second is the cached file itself, not a rebuild
