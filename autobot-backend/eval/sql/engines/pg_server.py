"""A throwaway PostgreSQL server: found, initialised, started, and deleted again.

The tests start theirs with it (``tests/pg_server.py`` adds only the skip-or-fail rule), and
``python -m eval.run --suite sql --engine postgresql`` starts one when no ``--fixture-url`` is given.

:func:`start` finds the server binaries (``initdb`` and ``pg_ctl`` on ``PATH``, else the newest
``/usr/lib/postgresql/<version>/bin``), runs ``initdb`` into a fresh temporary folder and starts
the server on a free localhost port, with its unix sockets in that folder (so nothing outside it
is touched and a system PostgreSQL is never in the way). PostgreSQL refuses to run as root, so
when the tests run as root the server runs as the unprivileged ``postgres`` user, who owns the
folder. Durability is off (``fsync``, ``full_page_writes``): the data is thrown away anyway.

Three roles, all with random passwords, over TCP with SCRAM:

* ``admin`` (the bootstrap superuser): creates databases and roles and reads their state;
* :attr:`PgServer.OWNER`: no superuser, no CREATEROLE; owns every database it is given and
  builds the fixtures there (so it *can* write: the read-only transaction is what stops it);
* :attr:`PgServer.READER`: may connect and SELECT, nothing more (no CREATE, no TEMP).

:meth:`PgServer.state` (:func:`database_state`) fingerprints what a database holds, so a test can
show that a statement changed nothing. :meth:`PgServer.stop` stops the server with
``pg_ctl stop -m immediate`` and deletes the folder; it is registered with :mod:`atexit` too, so a
crashed test session leaves nothing behind.

Example:
    >>> server = start()  # doctest: +SKIP
    >>> db = server.create_database("shop")  # doctest: +SKIP
    >>> db.owner_url  # doctest: +SKIP
    'postgresql+psycopg://eval_owner:...@127.0.0.1:54321/shop'
    >>> server.stop()  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.core import outbound

__all__ = [
    "PgDatabase",
    "PgServer",
    "PgServerError",
    "PgUnavailable",
    "database_state",
    "find_bindir",
    "start",
]

REQUIRED = ("initdb", "pg_ctl")
DEBIAN_BINDIRS = "/usr/lib/postgresql/*/bin"
RUN_AS_ROOT_USER = "postgres"
START_TIMEOUT_S = 30
_SETTINGS = {  # speed over durability; sized for a 2-core test machine
    "listen_addresses": "127.0.0.1",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "40",
    "shared_buffers": "32MB",
    "max_wal_senders": "0",
    "wal_level": "minimal",
    "log_min_messages": "warning",
    "logging_collector": "off",
}


class PgUnavailable(Exception):
    """The PostgreSQL server binaries (or the psycopg driver) are not installed."""


class PgServerError(Exception):
    """The binaries are there but the server could not be set up; the message holds its log tail."""


def find_bindir() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``: ``PATH`` first, then the newest Debian version."""
    on_path = [shutil.which(name) for name in REQUIRED]
    if on_path[0] is not None and all(on_path):
        return Path(os.path.realpath(on_path[0])).parent
    candidates = sorted(Path("/").glob(DEBIAN_BINDIRS.lstrip("/")), key=_version_key, reverse=True)
    return next((d for d in candidates if all((d / name).is_file() for name in REQUIRED)), None)


def _version_key(bindir: Path) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", bindir.parent.name)) or (0,)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class PgDatabase:
    """One database on the server, owned by the owner role and readable by the reader role."""

    name: str
    owner_url: str
    """SQLAlchemy URL (psycopg 3) of the owner role: builds fixtures, can write."""
    reader_url: str
    """SQLAlchemy URL (psycopg 3) of the SELECT-only role."""


class PgServer:
    """A running throwaway server; see the module docstring."""

    ADMIN = "admin"
    OWNER = "eval_owner"
    READER = "eval_reader"
    HOST = "127.0.0.1"

    def __init__(self, bindir: Path, root: Path, port: int, run_as: pwd.struct_passwd | None) -> None:
        self.bindir, self.root, self.port, self._run_as = bindir, root, port, run_as
        self.datadir = root / "data"
        self.logfile = root / "server.log"
        self.passwords = {role: secrets.token_hex(12) for role in (self.ADMIN, self.OWNER, self.READER)}
        """Role -> password; random per server, so a test can look for them in messages. Secrets of the run that
        neither the environment nor the command line holds: registered, so no output shows them."""
        outbound.register(self.passwords.values())
        self._running = False
        self._kept: dict[str, Any] = {}  # database -> superuser psycopg connection, for state()

    # --- lifecycle ---------------------------------------------------------------------------

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        user: dict[str, Any] = (
            {}
            if self._run_as is None
            else {"user": self._run_as.pw_uid, "group": self._run_as.pw_gid, "extra_groups": []}
        )
        env = {**os.environ, "LC_ALL": "C", "PGTZ": "UTC"}
        if self._run_as is not None:
            env["HOME"] = str(self.root)
        return subprocess.run(
            [str(self.bindir / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            env=env,
            cwd=self.root,
            stdin=subprocess.DEVNULL,
            timeout=START_TIMEOUT_S + 10,
            start_new_session=True,  # a terminal's Ctrl-C is the harness's to act on, not initdb's or pg_ctl's
            **user,
        )

    def _check(self, step: str, done: subprocess.CompletedProcess[str]) -> None:
        if done.returncode != 0:
            log = self.logfile.read_text(errors="replace")[-2000:] if self.logfile.exists() else ""
            raise PgServerError(
                f"PostgreSQL {step} failed (exit {done.returncode}) in {self.root}:\n"
                f"{done.stdout[-1000:]}{done.stderr[-2000:]}{log}"
            )

    def _initdb(self) -> None:
        pwfile = self.root / "pwfile"
        pwfile.write_text(self.passwords[self.ADMIN] + "\n")
        self._chown(pwfile)
        done = self._run(
            "initdb",
            "-D",
            str(self.datadir),
            "-U",
            self.ADMIN,
            f"--pwfile={pwfile}",
            "--auth-host=scram-sha-256",
            "--auth-local=scram-sha-256",
            "--encoding=UTF8",
            "--no-locale",
            "--no-sync",
            "--no-instructions",
        )
        pwfile.unlink()
        self._check("initdb", done)

    def _start(self) -> None:
        for _attempt in range(3):
            options = " ".join(
                f"-c {key}={value}"
                for key, value in {**_SETTINGS, "port": self.port, "unix_socket_directories": self.root}.items()
            )
            # -w: pg_ctl returns once the server accepts connections (or fails / times out).
            done = self._run(
                "pg_ctl",
                "-D",
                str(self.datadir),
                "-l",
                str(self.logfile),
                "-o",
                options,
                "-w",
                "-t",
                str(START_TIMEOUT_S),
                "start",
            )
            self._running = done.returncode == 0 or (self.datadir / "postmaster.pid").exists()
            log = self.logfile.read_text(errors="replace") if self.logfile.exists() else ""
            if done.returncode == 0 or "already in use" not in log:
                break
            self.port = _free_port()  # another process took the port between probe and bind
        self._check("start", done)

    def stop(self) -> None:
        """Stop the server at once (``-m immediate``) and delete its folder; safe to call twice."""
        try:
            for database in list(self._kept):
                self._forget(database)
            if self._running and (self.datadir / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.datadir), "-m", "immediate", "-w", "stop")
        finally:
            self._running = False
            shutil.rmtree(self.root, ignore_errors=True)

    def _chown(self, path: Path) -> None:
        if self._run_as is not None:
            os.chown(path, self._run_as.pw_uid, self._run_as.pw_gid)

    # --- roles and databases -----------------------------------------------------------------

    def url(self, role: str, database: str = "postgres", driver: str = "postgresql+psycopg") -> str:
        """SQLAlchemy URL (psycopg 3) for ``role`` on ``database``, password included."""
        import sqlalchemy as sa

        return sa.URL.create(
            driver, username=role, password=self.passwords[role], host=self.HOST, port=self.port, database=database
        ).render_as_string(hide_password=False)

    def dsn(self, role: str, database: str = "postgres") -> str:
        """The same as :meth:`url`, as a libpq connection URI for ``psycopg.connect``."""
        return self.url(role, database, driver="postgresql")

    def admin(self, sql: str, database: str = "postgres") -> None:
        """Run one statement as the superuser, in autocommit (``CREATE DATABASE`` needs it)."""
        import psycopg

        with psycopg.connect(
            host=self.HOST,
            port=self.port,
            user=self.ADMIN,
            password=self.passwords[self.ADMIN],
            dbname=database,
            autocommit=True,
            connect_timeout=10,
        ) as conn:
            conn.execute(sql)

    def _create_roles(self) -> None:
        self.admin(
            f"CREATE ROLE {self.OWNER} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE "
            f"PASSWORD '{self.passwords[self.OWNER]}'"
        )
        self.admin(
            f"CREATE ROLE {self.READER} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE "
            f"PASSWORD '{self.passwords[self.READER]}'"
        )

    def create_database(self, name: str, template: str | None = None) -> PgDatabase:
        """A new database owned by the owner role; the reader may SELECT from every table the owner makes.

        With ``template``, a copy of that database (which nobody may be connected to).
        """
        for given in (name, template or name):
            if not re.fullmatch(r"[a-z_][a-z0-9_]*", given):
                raise ValueError(f"database name {given!r}: use lower-case letters, digits and _")
        if template:
            self._forget(template)
        self.admin(f"CREATE DATABASE {name} OWNER {self.OWNER}" + (f" TEMPLATE {template}" if template else ""))
        for sql in (
            f"REVOKE ALL ON DATABASE {name} FROM PUBLIC",
            f"GRANT CONNECT ON DATABASE {name} TO {self.READER}",
            "REVOKE ALL ON SCHEMA public FROM PUBLIC",
            f"GRANT USAGE ON SCHEMA public TO {self.READER}",
            # Tables the owner creates later (the fixture build) become readable, nothing more.
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {self.OWNER} IN SCHEMA public GRANT SELECT ON TABLES TO {self.READER}",
        ):
            self.admin(sql, database=name)
        return PgDatabase(name, self.url(self.OWNER, name), self.url(self.READER, name))

    def drop_database(self, name: str) -> None:
        """Drop ``name``, ending any session still connected to it."""
        self._forget(name)
        self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def state(self, database: str) -> dict[str, object]:
        """:func:`database_state` of ``database`` read as the superuser, on a connection kept for the next call."""
        import psycopg

        conn = self._kept.get(database)
        if conn is None or conn.closed:
            conn = self._kept[database] = psycopg.connect(self.dsn(self.ADMIN, database), autocommit=True)
        return database_state(conn)

    def _forget(self, database: str) -> None:
        conn = self._kept.pop(database, None)
        if conn is not None:
            conn.close()


_RELATIONS = """
SELECT n.nspname, c.relname, c.relkind::text, coalesce(c.relacl::text, ''),
       coalesce(obj_description(c.oid, 'pg_class'), ''),
       coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                                   || coalesce(' -- ' || col_description(c.oid, a.attnum), ''), ', ' ORDER BY a.attnum)
                 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname !~ '^(pg_|information_schema$)'
ORDER BY 1, 2
"""
_CATALOG = {
    "schemas": "SELECT nspname, coalesce(nspacl::text, '') FROM pg_namespace WHERE nspname !~ '^pg_' ORDER BY 1",
    "functions": "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
    "WHERE n.nspname !~ '^(pg_|information_schema$)' ORDER BY 1",
    "triggers": "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1",
    "role_settings": "SELECT coalesce(setdatabase::text, ''), coalesce(setrole::regrole::text, ''), setconfig::text "
    "FROM pg_db_role_setting ORDER BY 1, 2",
    "large_objects": "SELECT count(*) FROM pg_largeobject_metadata",
    "database": "SELECT coalesce(datacl::text, ''), datallowconn FROM pg_database WHERE datname = current_database()",
}


def database_state(conn: Any) -> dict[str, object]:
    """What a database holds, for before/after comparisons: catalog, a checksum per table, sequence positions.

    Keys: the :data:`_CATALOG` names (schemas, functions, triggers, role settings, large objects, the
    database's grants), then ``"<relkind> <schema>.<name>"`` per relation (grants, comment, columns
    with their comments, and for a table ``(row count, md5 of its rows in text order)``, for a
    sequence ``(last_value, is_called)``). Read through ``conn`` (psycopg 3), so it sees what that
    session sees, its own uncommitted changes included.
    """
    from psycopg import sql

    state: dict[str, object] = {name: conn.execute(query).fetchall() for name, query in _CATALOG.items()}
    for schema, name, kind, *definition in conn.execute(_RELATIONS).fetchall():
        relation = sql.Identifier(schema, name)
        if kind in ("r", "p", "m"):
            definition.append(
                conn.execute(
                    sql.SQL(
                        "SELECT count(*), md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM {} t"
                    ).format(relation)
                ).fetchone()
            )
        elif kind == "S":
            definition.append(conn.execute(sql.SQL("SELECT last_value, is_called FROM {}").format(relation)).fetchone())
        state[f"{kind} {schema}.{name}"] = definition
    return state


def start(run_as: str | None = None) -> PgServer:
    """Initialise and start a throwaway server; :meth:`PgServer.stop` (or exit) removes it.

    Args:
        run_as: the unprivileged user to run the server as when this process is root
            (default ``postgres``); ignored when not root.

    Raises:
        PgUnavailable: no ``initdb``/``pg_ctl`` found, or psycopg is not installed.
        PgServerError: the server could not be initialised or started (the message has its log).
    """
    bindir = find_bindir()
    if bindir is None:
        raise PgUnavailable(
            "PostgreSQL server binaries not found: install postgresql-15 (Debian: apt-get install "
            "postgresql) or put initdb and pg_ctl on PATH"
        )
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise PgUnavailable(
            "the psycopg driver is not installed: pip install -e '.[test]' from autobot-backend/"
        ) from None
    user = None
    if os.geteuid() == 0:
        name = run_as or RUN_AS_ROOT_USER
        try:
            user = pwd.getpwnam(name)
        except KeyError:
            raise PgServerError(
                f"PostgreSQL refuses to run as root and there is no user {name!r} to run it as; "
                "create one (Debian's postgresql package does) or run the tests as a normal user"
            ) from None
    root = Path(tempfile.mkdtemp(prefix="eval-pg-"))
    server = PgServer(bindir, root, _free_port(), user)
    atexit.register(server.stop)
    try:
        server._chown(root)
        server._initdb()
        server._start()
        server._create_roles()
    except BaseException:
        server.stop()
        raise
    return server
