"""PostgreSQL's two layers against reads that reach past the database, and the warning a privileged role gets.

Each statement reads a server file, the password hashes or the login rules, or administers the server
or another session. As the superuser on an ordinary connection (the control) PostgreSQL does it. Through
the service's guarded path the guard declines it, even for the superuser (first layer). Sent straight to
the executor as the SELECT-only role, the guard bypassed, PostgreSQL refuses it (second layer: the role).
Ending a session of one's own role is the exception PostgreSQL allows any role: there the guard is the
only layer, shown here. A run whose role is a superuser, or a member of ``pg_read_server_files``-style
roles, prints one warning and keeps it in the report.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa
import yaml

from eval.run import main
from services.readonly.execute import ErrorKind, ReadOnlySQL
from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from services.readonly.privileges import RISKY_ROLES, privilege_warning
from tests.pg_server import PgDatabase, PgServer
from tests.readonly.test_executor import write_shop_database

pytestmark = pytest.mark.slow

DB = "reach"
PRIVILEGED = "eval_files"  # a login role holding two of the predefined roles, made and dropped here

# (id, statement): {pid} is a session of the superuser, started for the statement.
REACHING = (
    ("pg-read-file", "SELECT pg_read_file('postgresql.conf')"),
    ("pg-read-binary-file", "SELECT pg_read_binary_file('postgresql.conf')"),
    ("pg-ls-dir", "SELECT * FROM pg_ls_dir('.')"),
    ("pg-stat-file", "SELECT * FROM pg_stat_file('postgresql.conf')"),
    ("pg-ls-waldir", "SELECT * FROM pg_ls_waldir()"),
    ("pg-shadow", "SELECT usename, passwd FROM pg_shadow"),
    ("pg-authid", "SELECT rolname, rolpassword FROM pg_catalog.pg_authid"),
    ("pg-hba-file-rules", "SELECT * FROM pg_hba_file_rules"),
    ("pg-file-settings", "SELECT * FROM pg_file_settings"),
    ("pg-show-all-file-settings", "SELECT * FROM pg_show_all_file_settings()"),
    ("lo-import", "SELECT lo_import('/etc/hostname')"),
    ("pg-reload-conf", "SELECT pg_reload_conf()"),
    ("pg-terminate-backend", "SELECT pg_terminate_backend({pid})"),
    ("pg-cancel-backend", "SELECT pg_cancel_backend({pid})"),
)
# What the second layer says (PostgreSQL 15's words for a function, a relation, a superuser's session).
REFUSED_TO_THE_ROLE = ("permission denied", "must be a superuser")


@pytest.fixture(scope="module")
def reach(postgres: PgServer) -> Iterator[PgDatabase]:
    db = postgres.create_database(DB)
    postgres.admin("CREATE TABLE t (id integer)", DB)
    postgres.admin("INSERT INTO t SELECT generate_series(1, 3)", DB)
    postgres.admin(f"GRANT SELECT ON t TO {PgServer.READER}", DB)
    yield db
    postgres.drop_database(DB)


@pytest.fixture(scope="module")
def privileged_url(postgres: PgServer, reach: PgDatabase) -> Iterator[str]:
    """A role that is no superuser but holds ``pg_read_server_files`` and ``pg_signal_backend``."""
    password = secrets.token_hex(12)
    postgres.admin(f"CREATE ROLE {PRIVILEGED} LOGIN NOSUPERUSER PASSWORD '{password}'")
    postgres.admin(f"GRANT pg_read_server_files, pg_signal_backend TO {PRIVILEGED}")
    postgres.admin(f"GRANT CONNECT ON DATABASE {DB} TO {PRIVILEGED}")
    postgres.admin(f"GRANT USAGE ON SCHEMA public TO {PRIVILEGED}", DB)
    postgres.admin(f"GRANT SELECT ON t TO {PRIVILEGED}", DB)
    url = sa.URL.create("postgresql+psycopg", PRIVILEGED, password, postgres.HOST, postgres.port, DB)
    yield url.render_as_string(hide_password=False)
    postgres.admin(f"REVOKE ALL ON t FROM {PRIVILEGED}", DB)
    postgres.admin(f"REVOKE ALL ON SCHEMA public FROM {PRIVILEGED}", DB)
    postgres.admin(f"REVOKE ALL ON DATABASE {DB} FROM {PRIVILEGED}")
    postgres.admin(f"DROP ROLE {PRIVILEGED}")


def _session(postgres: PgServer, role: str) -> psycopg.Connection:
    return psycopg.connect(postgres.dsn(role, DB), autocommit=True)


def _alive(conn: psycopg.Connection) -> bool:
    try:
        conn.execute("SELECT 1")
        return True
    except psycopg.Error:
        return False


def test_control_the_superuser_does_all_of_it_on_an_ordinary_connection(postgres, reach):
    for case, sql in REACHING:
        with _session(postgres, PgServer.ADMIN) as victim, psycopg.connect(postgres.dsn(PgServer.ADMIN, DB)) as conn:
            rows = conn.execute(sql.format(pid=victim.info.backend_pid)).fetchall()
            conn.rollback()  # lo_import made a large object
            assert rows, case
            if case == "pg-terminate-backend":
                assert rows == [(True,)] and not _alive(victim)


@pytest.mark.parametrize(("case", "sql"), REACHING, ids=[c for c, _ in REACHING])
def test_first_layer_the_guard_declines_it_even_for_a_superuser(case, sql, postgres, reach):
    with _session(postgres, PgServer.ADMIN) as victim, ReadOnlySQL() as service:
        run = service.run_readonly(sql.format(pid=victim.info.backend_pid), postgres.url(PgServer.ADMIN, DB))
        assert run.error_kind is ErrorKind.GUARD_BLOCKED, run.reason
        assert _alive(victim)


@pytest.mark.parametrize(("case", "sql"), REACHING, ids=[c for c, _ in REACHING])
def test_second_layer_a_select_only_role_is_refused_with_the_guard_bypassed(case, sql, postgres, reach):
    with _session(postgres, PgServer.ADMIN) as victim, ReadOnlyExecutor(reach.reader_url, timeout_s=5) as ex:
        with pytest.raises(ExecutionError) as caught:
            ex.execute(sql.format(pid=victim.info.backend_pid))
        assert caught.value.kind == "database"
        assert any(w in caught.value.message.lower() for w in REFUSED_TO_THE_ROLE), caught.value.message
        assert _alive(victim)
        assert ex.execute("SELECT count(*) FROM t").rows == [(3,)]


def test_ending_a_session_of_its_own_role_is_stopped_by_the_guard_alone(postgres, reach):
    """PostgreSQL lets any role end its own role's sessions: for that the guard is the only layer."""
    sql = "SELECT pg_terminate_backend({pid})"
    with _session(postgres, PgServer.READER) as victim, ReadOnlySQL() as service:
        run = service.run_readonly(sql.format(pid=victim.info.backend_pid), reach.reader_url)
        assert run.error_kind is ErrorKind.GUARD_BLOCKED and _alive(victim)
        with ReadOnlyExecutor(reach.reader_url) as ex:
            assert ex.execute(sql.format(pid=victim.info.backend_pid)).rows == [(True,)]
        assert not _alive(victim)


# --- the warning -------------------------------------------------------------------------------


def test_a_superuser_url_gets_a_warning_saying_what_it_exposes(postgres, reach):
    with ReadOnlyExecutor(postgres.url(PgServer.ADMIN, DB)) as ex:
        warning = privilege_warning(ex)
    assert warning is not None
    assert "'admin', a superuser" in warning
    for exposed in ("pg_read_file", "pg_shadow", "pg_hba_file_rules", "COPY ... TO PROGRAM", "pg_terminate_backend"):
        assert exposed in warning
    assert "only SELECT" in warning and postgres.passwords[PgServer.ADMIN] not in warning


def test_a_member_of_server_file_roles_gets_a_warning_naming_them(privileged_url):
    with ReadOnlyExecutor(privileged_url) as ex:
        warning = privilege_warning(ex)
    assert warning is not None and "superuser" not in warning.split(".")[0]
    assert "pg_read_server_files, pg_signal_backend" in warning
    assert RISKY_ROLES["pg_read_server_files"] in warning and RISKY_ROLES["pg_signal_backend"] in warning


@pytest.mark.parametrize("role", [PgServer.READER, PgServer.OWNER])
def test_a_role_without_those_privileges_gets_no_warning(postgres, reach, role):
    with ReadOnlyExecutor(postgres.url(role, DB)) as ex:
        assert privilege_warning(ex) is None


def test_other_engines_get_no_warning(tmp_path):
    with ReadOnlyExecutor(f"sqlite:///{write_shop_database(tmp_path / 'shop.db')}") as ex:
        assert privilege_warning(ex) is None


def _run(url: str, work: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object], str]:
    (work / "q.yaml").write_text(
        yaml.safe_dump(
            {
                "version": 1,
                "questions": [
                    {"id": "n", "question": "How many rows in t?", "shape": "scalar", "sql": "SELECT count(*) FROM t"}
                ],
            }
        )
    )
    (work / "a.jsonl").write_text(json.dumps({"id": "n", "sql": "SELECT count(id) FROM t"}) + "\n")
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(work)
        code = main(
            ["--suite", "sql", "--candidate", "recorded", "--answers", "a.jsonl", "--model", "m", "--corpus", "q.yaml"]
            + ["--db-url", url, "--json", "out.json"]
        )
    return code, json.loads((work / "out.json").read_text()), capsys.readouterr().err


def test_a_run_as_a_superuser_prints_one_warning_and_keeps_it_in_the_report(postgres, reach, tmp_path, capsys):
    code, report, err = _run(postgres.url(PgServer.ADMIN, DB), tmp_path, capsys)
    assert code == 0
    printed = [line for line in err.splitlines() if line.startswith("warning: PostgreSQL:")]
    assert len(printed) == 1 and "a superuser" in printed[0]
    warnings = report["warnings"]
    assert isinstance(warnings, list) and printed[0].removeprefix("warning: ") in warnings
    assert postgres.passwords[PgServer.ADMIN] not in err + json.dumps(report)


def test_a_run_as_a_select_only_role_prints_no_warning(postgres, reach, tmp_path, capsys):
    code, report, err = _run(reach.reader_url, tmp_path, capsys)
    assert code == 0 and "warning:" not in err
    assert not any("PostgreSQL:" in w for w in report["warnings"])  # type: ignore[union-attr]
