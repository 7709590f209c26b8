"""The SQL suite on a real PostgreSQL server (``eval/sql/engines/pg_server.py``): fixtures, bounds, service, CLI.

Everything else runs on SQLite. The spec promises more: fixtures build on any SQLAlchemy engine,
and on a server the executor runs each statement alone in a read-only transaction with a
statement timeout. These tests hold that promise on PostgreSQL:

* the ``retail`` and ``retail_24m`` fixtures build there with every guarantee check passing;
* the time limit and row cap; the service and the ``--db-url`` CLI, as a SELECT-only role.

That nothing is written through the executor, whatever it is sent, is ``test_postgres_writes.py``.
Without the server binaries the tests skip (fail under ``EVAL_REQUIRE_POSTGRES=1``, as in CI).
"""

from __future__ import annotations

import gc
import json
import warnings
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa
import yaml
from sqlalchemy.pool import NullPool

from eval.run import main
from eval.sql.engines import pg_server as eval_pg_server
from eval.sql.fixtures.checks import check_guarantees
from eval.sql.fixtures.schema import TABLES, orders
from eval.sql.fixtures.seeded import build, spec_for
from eval.sql.fixtures.seeded import write as write_sqlite_fixture
from services.generation.protocol import Generation
from services.generation.recorded import RecordedGenerator
from services.nl_database_service import NLDatabaseService
from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from services.schema_context import inspect_schema
from tests import pg_server
from tests.pg_server import PgDatabase, PgServer

pytestmark = pytest.mark.slow


# --- databases -----------------------------------------------------------------------------


def _build(server: PgServer, name: str, fixture: str) -> PgDatabase:
    db = server.create_database(name)
    engine = sa.create_engine(db.owner_url, poolclass=NullPool)
    try:
        build(engine, fixture, 0)
    finally:
        engine.dispose()
    return db


@pytest.fixture(scope="module")
def retail(postgres: PgServer) -> PgDatabase:
    return _build(postgres, "retail", "retail")


@pytest.fixture(scope="module")
def retail_24m(postgres: PgServer) -> PgDatabase:
    return _build(postgres, "retail_24m", "retail_24m")


# --- the helper itself ---------------------------------------------------------------------


def test_missing_binaries_skip_with_the_install_hint(monkeypatch):
    monkeypatch.setattr(eval_pg_server, "find_bindir", lambda: None)
    with pytest.raises(pytest.skip.Exception, match=r"PostgreSQL server binaries not found: install postgresql-15"):
        pg_server.start_for_tests({})


def test_missing_binaries_fail_when_postgres_is_required(monkeypatch):
    monkeypatch.setattr(eval_pg_server, "find_bindir", lambda: None)
    with pytest.raises(pytest.fail.Exception, match=r"EVAL_REQUIRE_POSTGRES=1 .* may not be skipped"):
        pg_server.start_for_tests({pg_server.REQUIRE_ENV: "1"})


def test_stop_leaves_no_process_and_no_folder(postgres):  # postgres: skip like the rest without a server
    server = pg_server.start()
    pid = int((server.datadir / "postmaster.pid").read_text().split()[0])
    server.stop()
    server.stop()  # idempotent: atexit calls it again
    assert not server.root.exists()
    state = Path(f"/proc/{pid}/stat")
    assert not state.exists() or state.read_text().split(") ")[1].startswith("Z"), "postmaster still running"
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(server.dsn(server.OWNER), connect_timeout=2)


def test_reader_role_can_read_but_not_write(retail):
    engine = sa.create_engine(retail.reader_url, poolclass=NullPool)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM orders").scalar() > 0
        for statement in (
            "DELETE FROM orders",
            "CREATE TABLE t (a int)",
            "CREATE TEMP TABLE t (a int)",
            "REINDEX TABLE orders",
            "LOCK TABLE orders",
        ):
            with pytest.raises(sa.exc.ProgrammingError, match=r"permission denied|must be owner"):
                conn.exec_driver_sql(statement)
            conn.rollback()
    engine.dispose()


# --- 1. fixtures ---------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", ["retail", "retail_24m"])
def test_fixture_builds_with_every_guarantee(fixture, request):
    db: PgDatabase = request.getfixturevalue(fixture)
    engine = sa.create_engine(db.reader_url, poolclass=NullPool)
    with engine.connect() as conn:
        assert check_guarantees(conn, spec_for(fixture)) == []
        assert conn.exec_driver_sql("SELECT count(*) FROM order_items").scalar() > 1000
    engine.dispose()


def test_fixture_rows_are_the_same_as_on_sqlite(retail, tmp_path):
    def fingerprint(url: str) -> dict[str, tuple]:
        engine = sa.create_engine(url, poolclass=NullPool)
        with engine.connect() as conn:
            out = {t.name: conn.execute(sa.select(sa.func.count()).select_from(t)).one() for t in TABLES}
            out["revenue_cents"] = conn.exec_driver_sql(
                "SELECT CAST(ROUND(SUM(quantity * unit_price) * 100) AS INTEGER) FROM order_items"
            ).one()
            out["last_order"] = conn.execute(sa.select(orders).order_by(orders.c.order_id.desc()).limit(1)).one()
        engine.dispose()
        return {k: tuple(v) for k, v in out.items()}

    assert fingerprint(retail.reader_url) == fingerprint(write_sqlite_fixture(tmp_path / "r.db", "retail", 0))


def test_column_comments_reach_postgres(retail):
    engine = sa.create_engine(retail.reader_url, poolclass=NullPool)
    context = inspect_schema(engine)
    engine.dispose()
    for table in TABLES:
        got = context.table(table.name)
        assert got.comment == table.comment
        assert {c.name: c.comment for c in got.columns} == {c.name: c.comment for c in table.columns}
    assert "[metric: revenue" in context.table("order_items").column("unit_price").comment


def test_money_comes_back_as_decimal_with_cents(retail):
    with ReadOnlyExecutor(retail.reader_url) as ex:
        prices = [p for (p,) in ex.execute("SELECT unit_price FROM products").rows]
        [(revenue,)] = ex.execute("SELECT SUM(quantity * unit_price) FROM order_items").rows
    assert all(isinstance(p, Decimal) and p.as_tuple().exponent == -2 for p in prices)
    assert any(p % 1 for p in prices), "some list price has cents"
    assert isinstance(revenue, Decimal) and revenue % 1 and revenue.as_tuple().exponent == -2


# --- 3. time limit and row cap -------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n",
        "SELECT count(*) FROM order_items a, order_items b, order_items c",
        "SELECT pg_sleep(60)",
    ],
    ids=["endless-recursion", "cartesian-join", "pg-sleep"],
)
def test_long_statements_are_stopped_as_timeouts(sql, retail):
    # Stopped by the server's statement timeout (the error says so), not run to the end (which raises nothing:
    # an endless recursion never ends, pg_sleep(60) returns a row); no wall time is read (tests.bounds).
    with ReadOnlyExecutor(retail.owner_url, timeout_s=0.5) as ex:
        with pytest.raises(ExecutionError) as err:
            ex.execute(sql)
        assert ex.execute("SELECT count(*) FROM customers").rows[0][0] > 0
    assert err.value.kind == "timeout" and "0.5 s" in err.value.message


def test_more_rows_than_the_cap_is_an_error_and_the_cap_itself_is_not(retail):
    with ReadOnlyExecutor(retail.owner_url, row_cap=25) as ex:
        with pytest.raises(ExecutionError) as err:
            ex.execute("SELECT * FROM orders")
        assert err.value.kind == "row_cap"
        assert len(ex.execute("SELECT * FROM orders ORDER BY order_id LIMIT 25").rows) == 25
        assert ex.execute("SELECT count(*) FROM orders").rows[0][0] > 25


def test_row_cap_stops_reading_at_the_cap(retail):
    # A row far past the cap divides by zero: only a reader that stops at the cap never gets there.
    with ReadOnlyExecutor(retail.owner_url, row_cap=10) as ex, pytest.raises(ExecutionError) as err:
        ex.execute("SELECT 1 / (g - 200000) FROM generate_series(1, 300000) g")
    assert err.value.kind == "row_cap", err.value.message


# --- 4. the service ------------------------------------------------------------------------

REVENUE_BY_CHANNEL = (
    "SELECT o.channel, SUM(oi.quantity * oi.unit_price)::numeric(12, 2) AS revenue "
    "FROM orders o JOIN order_items oi USING (order_id) WHERE o.status = 'completed' "
    "GROUP BY o.channel ORDER BY o.channel"
)


def test_service_answers_and_blocks_on_postgres(postgres, retail):
    generator = RecordedGenerator(
        {
            "Revenue by channel?": Generation(sql=REVENUE_BY_CHANNEL),
            "Delete the cancelled orders.": Generation(sql="DELETE FROM orders WHERE status = 'cancelled'"),
            "Which orders were late?": Generation(sql="SELECT late_days FROM orders"),
        }
    )
    with NLDatabaseService(generator, timeout_s=5) as service:
        ok = service.query("Revenue by channel?", db_url=retail.reader_url, db_id="retail-pg")
        blocked = service.query("Delete the cancelled orders.", db_url=retail.reader_url, db_id="retail-pg")
        failed = service.query("Which orders were late?", db_url=retail.reader_url, db_id="retail-pg")
        wrong_login = service.query(
            "Revenue by channel?",
            db_id="retail-pg",
            db_url=retail.reader_url.replace(postgres.passwords[PgServer.READER], "not-it-s3cret"),
        )
        assert service.schema(retail.reader_url).dialect == "postgres"
    assert (ok["status"], ok["columns"], ok["row_count"]) == ("ok", ["channel", "revenue"], 3)
    assert [r["channel"] for r in ok["results"]] == ["phone", "store", "web"]
    assert all(isinstance(r["revenue"], Decimal) for r in ok["results"])
    assert (blocked["status"], blocked["error_kind"], blocked["row_count"]) == ("error", "guard_blocked", 0)
    assert (failed["status"], failed["error_kind"]) == ("error", "database")
    assert (wrong_login["status"], wrong_login["error_kind"]) == ("error", "db_unreachable")
    for response in (blocked, failed, wrong_login):
        for secret in (*postgres.passwords.values(), "not-it-s3cret"):
            assert secret not in response["reason"]
    assert [r.status for r in service.history] == ["ok", "error", "error", "error"]


# --- 5. the SQL suite over a user's own PostgreSQL database --------------------------------


@pytest.fixture(scope="module")
def suite_run(retail: PgDatabase, tmp_path_factory) -> tuple[int, str, list[str]]:
    """``eval.run --suite sql --db-url`` over the PostgreSQL retail database as the SELECT-only role:
    (exit code, the JSON report's text, the ResourceWarnings it left behind)."""
    work = tmp_path_factory.mktemp("suite")
    corpus = work / "pg.yaml"
    corpus.write_text(
        yaml.safe_dump(
            {
                "version": 1,
                "questions": [
                    {
                        "id": "pg-1",
                        "question": "How many orders came through each channel?",
                        "sql": "SELECT channel, count(*) FROM orders GROUP BY channel",
                    },
                    {
                        "id": "pg-2",
                        "question": "What was revenue in December 2024?",
                        "shape": "scalar",
                        "sql": "SELECT SUM(oi.quantity * oi.unit_price) FROM orders o "
                        "JOIN order_items oi USING (order_id) WHERE o.status = 'completed' "
                        "AND date_trunc('month', o.order_date) = DATE '2024-12-01'",
                    },
                    {
                        "id": "pg-3",
                        "question": "How many orders shipped more than 3 days after they were placed?",
                        "shape": "scalar",
                        "sql": "SELECT count(*) FILTER (WHERE shipped_date - order_date > 3) FROM orders",
                    },
                ],
            },
            sort_keys=False,
        )
    )
    answers = work / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps(line) + "\n"
            for line in [
                {"id": "pg-1", "sql": "SELECT o.channel, count(o.order_id) AS n FROM orders o GROUP BY 1 ORDER BY 2"},
                {
                    "id": "pg-2",
                    "sql": "SELECT SUM(oi.quantity * oi.unit_price) FROM orders o JOIN order_items oi "
                    "USING (order_id) WHERE EXTRACT(MONTH FROM o.order_date) = 12",
                },  # every status
                {
                    "id": "pg-3",
                    "sql": "SELECT count(*) FROM orders WHERE shipped_date > order_date + INTERVAL '3 days'",
                },
            ]
        )
    )
    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings(record=True) as caught:
        mp.chdir(work)
        warnings.simplefilter("always")
        code = main(
            [
                "--suite",
                "sql",
                "--candidate",
                "recorded",
                "--answers",
                str(answers),
                "--model",
                "m",
                "--corpus",
                str(corpus),
                "--db-url",
                retail.reader_url,
                "--json",
                "out.json",
            ]
        )
        gc.collect()  # connections nobody closed are found here, not at some later test
    leaked = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    others = [f"{w.category.__name__}: {w.message}" for w in caught if not issubclass(w.category, ResourceWarning)]
    assert others == []
    return code, (work / "out.json").read_text(), leaked


def test_sql_suite_grades_a_users_postgres_database(postgres, suite_run):
    code, text, _leaked = suite_run
    data = json.loads(text)
    assert code == 0
    assert {q["id"]: q["verdict"] for q in data["questions"]} == {"pg-1": "pass", "pg-2": "wrong", "pg-3": "pass"}
    assert data["run"]["engine"] == "postgresql" and data["oracle_defects"] == []
    assert postgres.passwords[PgServer.READER] not in text


def test_sql_suite_closes_its_database_connections(suite_run):
    # An unclosed psycopg connection warns when collected: under filterwarnings=error, in whichever test that is.
    assert suite_run[2] == []
