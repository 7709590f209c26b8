"""Nothing written through the executor on a real PostgreSQL server (``eval/sql/engines/pg_server.py``).

On a server the executor runs each statement alone in a read-only transaction with a statement timeout.
Every must-reject statement of the guard table, and PostgreSQL-specific writes, sent straight to
``ReadOnlyExecutor.execute`` (guard bypassed) as the role that *owns* the tables, leave the content and
catalog of the database unchanged. A control run of the same statements on an ordinary connection of the
same role shows that most of them do real damage there. The fixtures, bounds, service and CLI on the same
server are ``test_postgres.py``.

Without the server binaries the tests skip (fail under ``EVAL_REQUIRE_POSTGRES=1``, as in CI).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import psycopg
import pytest
import sqlalchemy as sa
from sqlalchemy.pool import NullPool

from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from services.readonly.guard import validate_readonly_sql
from tests.pg_server import PgDatabase, PgServer, database_state
from tests.readonly.test_executor import write_shop_database
from tests.readonly.test_guard import REJECTED, Case

pytestmark = pytest.mark.slow

SYNTAX_ERROR = "42601"
STATEMENT_TIMEOUT_S = 0.3

# PostgreSQL writes the guard table (written for SQLite first) does not spell out. Each is one
# call to execute(); scripts are there because psycopg's simple protocol would run them whole.
PG_WRITES: tuple[Case, ...] = tuple(
    Case(i, s, dialect="postgres")
    for i, s in (
        ("pg-set-read-write-delete-commit", "SET TRANSACTION READ WRITE; DELETE FROM orders; COMMIT"),
        ("pg-begin-delete-commit", "BEGIN; DELETE FROM orders; COMMIT"),
        ("pg-commit-then-delete", "COMMIT; DELETE FROM orders"),
        ("pg-savepoint-delete-release", "SAVEPOINT s; DELETE FROM orders; RELEASE s"),
        ("pg-cte-delete-count", "WITH d AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM d"),
        (
            "pg-explain-analyze-cte-delete",
            "EXPLAIN ANALYZE WITH d AS (DELETE FROM orders RETURNING 1) SELECT count(*) FROM d",
        ),
        ("pg-setval", "SELECT setval('orders_id_seq', 1)"),
        ("pg-setval-qualified-no-call", "SELECT pg_catalog.setval('orders_id_seq', 1, false)"),
        ("pg-setval-lateral", "SELECT o.id FROM orders o, LATERAL (SELECT setval('orders_id_seq', o.id + 1000)) s"),
        ("pg-nextval-values", "VALUES (nextval('customers_id_seq'))"),
        ("pg-create-temp-table-as", "CREATE TEMP TABLE scratch AS SELECT * FROM orders"),
        ("pg-select-into-temp", "SELECT * INTO TEMP scratch FROM orders"),
        ("pg-copy-to-stdout", "COPY orders TO STDOUT"),
        ("pg-copy-from-stdin", "COPY orders FROM STDIN"),
        ("pg-begin", "BEGIN"),
        ("pg-set-transaction-read-write", "SET TRANSACTION READ WRITE"),
        ("pg-set-default-read-write", "SET default_transaction_read_only = off"),
        ("pg-set-session-read-write", "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE"),
        ("pg-set-config-read-write", "SELECT set_config('default_transaction_read_only', 'off', false)"),
        ("pg-alter-role-read-write", "ALTER ROLE CURRENT_USER SET default_transaction_read_only = off"),
        ("pg-sleep-5s", "SELECT pg_sleep(5)"),
        ("pg-do-delete", "DO $$BEGIN DELETE FROM orders; END$$"),
        ("pg-do-commit-delete", "DO $$BEGIN COMMIT; DELETE FROM orders; END$$"),
        ("pg-prepare-delete", "PREPARE wipe AS DELETE FROM orders"),
        ("pg-truncate-cascade", "TRUNCATE customers CASCADE"),
        ("pg-drop-schema-cascade", "DROP SCHEMA public CASCADE"),
        ("pg-create-function", "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'"),
        ("pg-grant-writes-to-reader", f"GRANT INSERT, UPDATE, DELETE ON orders TO {PgServer.READER}"),
        ("pg-lo-create", "SELECT lo_create(0)"),
        ("pg-advisory-lock", "SELECT pg_advisory_lock(42)"),
        # Allowed in a read-only transaction by design (no change pg_dump would see); the guard rejects them.
        ("pg-analyze", "ANALYZE orders"),
        ("pg-cluster", "CLUSTER orders USING orders_pkey"),
        ("pg-reindex", "REINDEX TABLE orders"),
    )
)
CASES: tuple[Case, ...] = tuple(c for c in REJECTED if c.sql.strip()) + PG_WRITES

# What the control run must see destroy or create something on an ordinary connection.
MUST_BE_DESTRUCTIVE = {
    "update",
    "delete",
    "delete-mixed-case",
    "delete-leading-comment",
    "create-table",
    "create-table-as",
    "create-index",
    "create-view",
    "drop-table",
    "drop-after-empty-comment",
    "drop-index",
    "alter-add-column",
    "alter-rename",
    "pg-truncate",
    "pg-grant",
    "pg-comment-on",
    "pg-merge",
    "pg-cte-delete",
    "pg-cte-update",
    "fn-setval",
    "fn-nextval",
    "select-then-drop",
    "select-newlines-delete",
    "string-looks-like-comment",
    "comment-before-semicolon",
    "string-semicolon-then-drop",
    "comment-hides-newline",
    "pg-explain-analyze-delete",
    "explain-then-drop",
    "sqlite-backslash-trick",
    "pg-select-into",
    "sqlite-select-into",
    "pg-set-read-write-delete-commit",
    "pg-begin-delete-commit",
    "pg-commit-then-delete",
    "pg-savepoint-delete-release",
    "pg-cte-delete-count",
    "pg-explain-analyze-cte-delete",
    "pg-setval",
    "pg-setval-qualified-no-call",
    "pg-setval-lateral",
    "pg-nextval-values",
    "pg-alter-role-read-write",
    "pg-do-delete",
    "pg-truncate-cascade",
    "pg-drop-schema-cascade",
    "pg-create-function",
    "pg-grant-writes-to-reader",
    "pg-lo-create",
}
# PostgreSQL lets these run in a read-only transaction; the executor's rollback is what undoes them.
RUN_THEN_ROLLED_BACK = {"pg-lo-create"}


# --- databases -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shop_template(postgres: PgServer, tmp_path_factory) -> dict[str, object]:
    """The guard table's small shop (``test_sql_executor``), copied from SQLite; ids are serials, so
    ``orders_id_seq`` exists. Returns the template's state: every copy must keep it."""
    source = sa.create_engine(f"sqlite:///{write_shop_database(tmp_path_factory.mktemp('shop') / 'shop.db')}")
    meta = sa.MetaData()
    meta.reflect(source)
    db = postgres.create_database("shop_template")
    target = sa.create_engine(db.owner_url, poolclass=NullPool)
    meta.create_all(target)
    with source.connect() as src, target.begin() as dst:
        for table in meta.sorted_tables:
            dst.execute(table.insert(), [dict(row._mapping) for row in src.execute(table.select())])
            dst.exec_driver_sql(
                f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), max(id)) FROM {table.name}"
            )
    source.dispose()
    target.dispose()
    return postgres.state("shop_template")


def _fresh_shop(server: PgServer, name: str) -> PgDatabase:
    server.drop_database(name)
    return server.create_database(name, template="shop_template")


def _put_back(server: PgServer, name: str, baseline: dict[str, object]) -> bool:
    """Make ``name`` (and the roles) equal the template again; whether anything had changed.

    Sequences are not transactional, so they are reset in place; role settings are server-wide,
    so they are reset too; any other change means a fresh copy of the template.
    """
    state = server.state(name)
    if state == baseline:
        return False
    if state["role_settings"] != baseline["role_settings"]:
        for role in (server.OWNER, server.READER):
            server.admin(f"ALTER ROLE {role} RESET ALL")
    with psycopg.connect(server.dsn(server.ADMIN, name), autocommit=True) as conn:
        for key in [k for k in baseline if k.startswith("S ") and state.get(k) != baseline[k]]:
            try:
                conn.execute("SELECT setval(%s, %s, %s)", (key[2:], *baseline[key][-1]))
            except psycopg.Error:
                break  # the sequence itself changed: the fresh copy below puts it back
    if server.state(name) != baseline:
        _fresh_shop(server, name)
    return True


@pytest.fixture(scope="module")
def shop_live(postgres: PgServer, shop_template) -> PgDatabase:
    return _fresh_shop(postgres, "shop")


@pytest.fixture
def shop(postgres: PgServer, shop_live: PgDatabase, shop_template) -> Iterator[PgDatabase]:
    """The shop database, put back after a test that changed it."""
    yield shop_live
    _put_back(postgres, shop_live.name, shop_template)


def _writable_control(case: Case, server: PgServer, db: PgDatabase, baseline: dict[str, object]) -> tuple[bool, bool]:
    """(valid PostgreSQL, changed something) for ``case`` on an ordinary connection of the owner role.

    The connection is closed without a commit, so only what the statement committed itself stays.
    """
    conn = psycopg.connect(server.dsn(server.OWNER, db.name), options="-c statement_timeout=200")
    try:
        conn.execute(case.sql)  # simple protocol: a script runs whole, as any client would send it
        return True, database_state(conn) != baseline  # sees its own uncommitted changes
    except psycopg.Error as e:
        return e.sqlstate != SYNTAX_ERROR, False
    finally:
        conn.close()


@pytest.fixture(scope="module")
def controls(postgres: PgServer, shop_template) -> dict[str, tuple[bool, bool]]:
    scratch = _fresh_shop(postgres, "shop_scratch")
    results = {}
    for case in CASES:
        valid, changed = _writable_control(case, postgres, scratch, shop_template)
        # A script that does not parse never ran; anything else may have committed (or moved a sequence).
        committed = valid and _put_back(postgres, scratch.name, shop_template)
        results[case.id] = (valid, changed or committed)
    postgres.drop_database(scratch.name)
    return results


# --- 2. nothing written through the executor -----------------------------------------------


def test_control_run_shows_the_statements_are_dangerous(controls):
    destructive = {cid for cid, (_valid, changed) in controls.items() if changed}
    assert destructive >= MUST_BE_DESTRUCTIVE, sorted(MUST_BE_DESTRUCTIVE - destructive)
    assert sum(valid for valid, _changed in controls.values()) >= 120


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rejected_statement_cannot_change_the_database(case, postgres, shop, shop_template, controls):
    with ReadOnlyExecutor(shop.owner_url, timeout_s=STATEMENT_TIMEOUT_S) as ex:
        try:
            ex.execute(case.sql)
            outcome = "ran"
        except ExecutionError as e:
            outcome = e.kind
    assert postgres.state(shop.name) == shop_template
    if controls[case.id][1] and case.id not in RUN_THEN_ROLLED_BACK:
        assert outcome == "database", "a statement that writes elsewhere must fail here, not silently succeed"


@pytest.mark.parametrize("case", PG_WRITES, ids=[c.id for c in PG_WRITES])
def test_postgres_writes_are_rejected_by_the_guard_too(case):
    assert not validate_readonly_sql(case.sql, "postgres").allowed


def test_one_executor_survives_every_statement_in_sequence(postgres, shop, shop_template):
    # Session state must not leak from one call to the next: a read-write default, a search_path.
    with ReadOnlyExecutor(shop.owner_url, timeout_s=0.2) as ex:
        for case in CASES + CASES:
            with contextlib.suppress(ExecutionError):
                ex.execute(case.sql)
        assert ex.execute("SELECT count(*) FROM orders").rows == [(120,)]
        settings = ex.execute(
            "SELECT current_setting('default_transaction_read_only'), "
            "current_setting('transaction_read_only'), current_setting('search_path'), current_user"
        )
        assert settings.rows == [("on", "on", '"$user", public', PgServer.OWNER)]
        with pytest.raises(ExecutionError) as err:
            ex.execute("DELETE FROM orders")
        assert err.value.kind == "database" and "read-only" in err.value.message
    assert postgres.state(shop.name) == shop_template


def test_the_server_refuses_a_script_even_when_the_splitter_is_fooled(postgres, shop, shop_template, monkeypatch):
    # psycopg prepares every statement (prepare_threshold=0): the server's own one-statement rule.
    monkeypatch.setattr("services.readonly.executor.statement_count", lambda sql, dialect: 1)
    with ReadOnlyExecutor(shop.owner_url) as ex, pytest.raises(ExecutionError) as err:
        ex.execute("SET TRANSACTION READ WRITE; DELETE FROM orders; COMMIT")
    assert err.value.kind == "database" and "multiple commands" in err.value.message
    assert postgres.state(shop.name) == shop_template


def test_copy_to_stdout_is_a_database_error_not_a_connection_failure(shop):
    with ReadOnlyExecutor(shop.owner_url) as ex:
        with pytest.raises(ExecutionError) as err:
            ex.execute("COPY orders TO STDOUT")
        assert ex.execute("SELECT count(*) FROM orders").rows == [(120,)]
    assert err.value.kind == "database", err.value.message


LOWRITE = "SELECT lowrite(lo_open({oid}, 131072), 'written')"  # 131072 = INV_WRITE


def test_lowrite_is_a_write_the_executor_stops(postgres, shop, shop_template):
    conn = psycopg.connect(postgres.dsn(PgServer.OWNER, shop.name))  # control: on an ordinary connection it writes
    try:
        [(oid,)] = conn.execute("SELECT lo_create(0)").fetchall()
        conn.execute(LOWRITE.format(oid=oid))
        assert conn.execute(f"SELECT convert_from(lo_get({oid}), 'UTF8')").fetchall() == [("written",)]
    finally:
        conn.close()  # without a commit
    with ReadOnlyExecutor(shop.owner_url) as ex, pytest.raises(ExecutionError) as err:
        ex.execute(LOWRITE.format(oid=1))
    assert err.value.kind == "database"
    assert postgres.state(shop.name) == shop_template


def test_guard_rejects_lowrite():
    assert not validate_readonly_sql(LOWRITE.format(oid=1), "postgres").allowed
