"""The read-only executor: the second line of defence behind :mod:`services.readonly.guard`.

Whatever SQL reaches :meth:`ReadOnlyExecutor.execute` (the guard is the caller's job), the
connection it runs on cannot write:

* SQLite is opened read-only and hardened by :mod:`services.readonly.sqlite_file` (``mode=ro``, or
  ``immutable=1`` for a WAL file no writer has open, so no ``-wal``/``-shm`` appears beside it;
  ``query_only``; no attached databases, which also stops ``VACUUM INTO``; a cap on any one value's
  size; an authorizer that allows only reads, allow-listed PRAGMAs and functions off the
  side-effect deny-list).
* DuckDB is opened with ``read_only=True`` (a missing file is reported, never created), with
  external access off (no ``COPY ... TO``, ``read_csv``, ``ATTACH`` or extension install: the
  database file is all it can see) and its configuration locked, so no statement can undo either.
  DuckDB has no statement timeout: a timer interrupts the connection at the deadline.
* PostgreSQL runs each statement in ``SET TRANSACTION READ ONLY`` with ``SET LOCAL
  statement_timeout``; MySQL in ``START TRANSACTION READ ONLY`` with ``max_execution_time``
  (MariaDB: ``max_statement_time``); any other engine must accept ``SET TRANSACTION READ ONLY``
  or the executor refuses to run. Every transaction is rolled back. PostgreSQL and MySQL
  connections are also made read-only for their whole session when they are opened. Before a
  PostgreSQL connection goes back to the pool, ``pg_advisory_unlock_all()`` releases any advisory
  lock a statement took, so no later statement or session waits on it.
* One statement per call, always: inside a script, ``COMMIT`` or ``SET TRANSACTION READ WRITE``
  would end read-only mode. SQLite's driver refuses scripts itself; for servers the executor
  splits with the dialect's tokenizer (:func:`services.readonly.guard.statement_count`), and with
  psycopg 3 every statement is prepared, so the server also refuses more than one.

Every statement has a time limit (SQLite: a progress handler; DuckDB: an interrupt; servers: the
statement timeout),
a row cap and a byte budget: rows are fetched in batches, at most ``row_cap + 1`` of them and
while their values add up to no more than ``max_result_bytes``; past either the statement is a
``row_cap`` error, because a truncated answer cannot be graded. On SQLite no single value can
even be built past the budget (``SQLITE_LIMIT_LENGTH``).

Known limitations: engines other than SQLite, DuckDB, PostgreSQL and MySQL get no time limit of
their own; a DuckDB file cannot be open for writing and read-only at once (a fixture build must have
closed it);
on a server, one row is fetched whole before it is measured (PostgreSQL caps a value at 1 GB);
with psycopg2 the one-statement rule rests on sqlglot's tokenizer alone. A read-only transaction
does not stop a PostgreSQL superuser (or a member of pg_write_server_files /
pg_execute_server_program) from ``COPY ... TO PROGRAM``, ``lo_export``
or ``pg_terminate_backend``: for SQL that may not have passed the guard, connect as a role
with only SELECT privileges, used by nothing else (any role may still end its own role's sessions).
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection, make_url
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import TokenType  # type: ignore[attr-defined]  # sqlglot 30 re-exports it from tokenizer_core

from services.readonly.guard import statement_count
from services.readonly.sessions import DUCKDB_READ_ONLY_CONFIG, read_only_preamble, session_read_only_statements
from services.readonly.sqlite_file import TOO_BIG, deadline_handler, sqlite_engine
from services.redaction import is_secret_key, redact_url, scrub_secrets, url_secrets
from services.schema_context import sqlglot_dialect

__all__ = [
    "EXECUTION_ERROR_KINDS",
    "ExecutionError",
    "QueryResult",
    "ReadOnlyExecutor",
    "read_only_preamble",
    "redact_url",
    "session_read_only_statements",
]

MAX_RESULT_BYTES = 64 * 1024 * 1024
"""Default byte budget of one result (64 MiB): 10,000 rows of a few hundred bytes fit many times over."""
_FETCH_BATCH = 500

EXECUTION_ERROR_KINDS: dict[str, str] = {
    "timeout": "the statement ran past the time limit and was stopped",
    "row_cap": "the statement returned more rows than the row cap, or more bytes than the result budget",
    "database": "the database rejected or failed the statement (syntax, unknown column, not authorized...)",
    "connect": "the database could not be reached or opened (missing SQLite file, server down, bad login)",
    "config": "the URL or the settings cannot work (unparseable URL, unknown or missing driver, bad limits, "
    "an engine that cannot be made read-only)",
}
"""Every ``ExecutionError.kind``, with what it means."""

_PROGRESS_OPS = 10_000  # SQLite VM instructions between deadline checks (well under a millisecond)
_TIMEOUT_CODES = {"57014", 3024, 1969}  # PostgreSQL query_canceled; MySQL 3024; MariaDB 1969


class ExecutionError(Exception):
    """A statement could not be run or its result could not be returned in full."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        """One of :data:`EXECUTION_ERROR_KINDS`."""
        self.message = message
        """What happened and what to do; never holds a password or other secret from the URL."""


@dataclass(frozen=True)
class QueryResult:
    columns: tuple[str, ...]
    """Column names in order; duplicates are kept (``SELECT a.id, b.id`` gives two ``id``)."""
    rows: list[tuple[Any, ...]]
    """Rows as positional tuples of the driver's Python values."""
    elapsed_ms: float
    """Wall time of execution and fetch."""


class ReadOnlyExecutor:
    """Runs single statements read-only on one database, with a row cap and a time limit.

    Example:
        >>> with ReadOnlyExecutor("sqlite:///shop.db", row_cap=100, timeout_s=2) as ex:  # doctest: +SKIP
        ...     ex.execute("SELECT count(*) FROM orders").rows
        [(42,)]

    Args:
        url: a SQLAlchemy URL (``sqlite:///path.db``, ``postgresql+psycopg://user:pw@host/db``).
        row_cap: the most rows a statement may return.
        timeout_s: the longest a statement may run, in seconds.
        max_result_bytes: the most bytes a result's values may add up to (strings and blobs by their
            length, other values 8 or 16 bytes); on SQLite also the largest any one value may be.

    Raises:
        ExecutionError: ``config`` for an unusable URL or settings, ``connect`` when the database
            cannot be opened (a missing SQLite file is reported, never created).
    """

    dialect: str
    """sqlglot dialect name of the engine (``sqlite``, ``postgres``, ``mysql``, ...)."""
    engine: sa.Engine
    """The read-only configured engine; fine for ``sqlalchemy.inspect`` (reflection is a read)."""

    def __init__(
        self, url: str, *, row_cap: int = 10_000, timeout_s: float = 10.0, max_result_bytes: int = MAX_RESULT_BYTES
    ) -> None:
        if isinstance(row_cap, bool) or not isinstance(row_cap, int) or row_cap < 0:
            raise ExecutionError("config", f"row_cap must be a whole number >= 0, got {row_cap!r}.")
        if isinstance(max_result_bytes, bool) or not isinstance(max_result_bytes, int) or max_result_bytes < 1:
            raise ExecutionError("config", f"max_result_bytes must be a whole number > 0, got {max_result_bytes!r}.")
        self.max_result_bytes = max_result_bytes
        if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not timeout_s > 0:
            raise ExecutionError("config", f"timeout_s must be a number of seconds > 0, got {timeout_s!r}.")
        self.row_cap = row_cap
        self.timeout_s = float(timeout_s)
        self._url = url
        self._shown_url = redact_url(url)
        try:
            parsed = make_url(url)
        except (sa.exc.ArgumentError, ValueError, TypeError):
            # Not echoed: nothing marks which part of an unparseable string is a secret.
            raise ExecutionError(
                "config",
                "The database URL does not parse as a SQLAlchemy URL; expected e.g. "
                "sqlite:///path/to/file.db or postgresql+psycopg://user@host/db.",
            ) from None
        self._secrets = [s for s in (parsed.password, *_query_secrets(parsed), *sorted(url_secrets(url))) if s]
        self._is_sqlite = parsed.get_backend_name() == "sqlite"
        self._is_duckdb = parsed.get_backend_name() == "duckdb"
        if self._is_sqlite:
            self.engine = self._sqlite_engine(parsed)
        elif self._is_duckdb:
            self.engine = self._duckdb_engine(parsed)
        else:
            self.engine = self._server_engine(parsed)
        self.dialect = sqlglot_dialect(self.engine)
        self._probe()

    def __enter__(self) -> ReadOnlyExecutor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    def execute(self, sql: str) -> QueryResult:
        """Run one statement read-only and return all its rows (at most ``row_cap``).

        Does not call the guard: callers validate first. Raises :class:`ExecutionError`.
        """
        if not isinstance(sql, str):
            raise ExecutionError("database", f"Expected SQL text, got {type(sql).__name__}.")
        with self._boundary("connect"):
            conn = self.engine.connect()
        try:
            return self._run(conn, sql)
        finally:
            with self._boundary("connect"):
                conn.close()

    def _run(self, conn: Connection, sql: str) -> QueryResult:
        started = time.monotonic()
        deadline = started + self.timeout_s
        fired: list[bool] = []
        raw = cast(sqlite3.Connection, conn.connection.dbapi_connection) if self._is_sqlite else None
        if raw is not None:
            raw.set_progress_handler(deadline_handler(deadline, fired), _PROGRESS_OPS)
        alarm = self._duckdb_alarm(conn, fired) if self._is_duckdb else None
        try:
            with self._boundary("execute", timed_out=lambda: bool(fired)):
                options: dict[str, object] = {"no_parameters": True}
                if not self._is_sqlite:
                    self._one_statement(sql)
                    for statement in read_only_preamble(self.engine.dialect.name, self.timeout_s):
                        self._preamble(conn, statement)
                    # A server-side cursor, so the row cap bounds what is read, not just what is kept.
                    if self.engine.dialect.supports_server_side_cursors:
                        options["stream_results"] = _streamable(sql, self.dialect)
                # no_parameters: the text goes to the driver as is, so '%' in a literal is not a placeholder.
                result = conn.exec_driver_sql(sql, execution_options=options)
                try:
                    columns = tuple(result.keys()) if result.returns_rows else ()
                    rows = self._fetch(result) if result.returns_rows else []
                finally:
                    result.close()  # a server-side cursor too, when the fetch stopped at a cap
        except BaseException:
            self._discard(conn, raw)
            raise
        finally:
            if alarm is not None:
                alarm.cancel()
        self._release_hook(raw)
        with self._boundary("connect"):
            conn.rollback()
            self._release_session(conn)
        return QueryResult(columns, rows, (time.monotonic() - started) * 1000.0)

    def _fetch(self, result: sa.CursorResult[Any]) -> list[tuple[Any, ...]]:
        """All rows, in batches, stopping at the row cap or the byte budget (an error either way)."""
        rows: list[tuple[Any, ...]] = []
        size = 0
        while batch := result.fetchmany(min(_FETCH_BATCH, self.row_cap + 1 - len(rows)) or 1):
            for row in batch:
                size += sum(_value_bytes(v) for v in row)
            rows.extend(tuple(r) for r in batch)
            if len(rows) > self.row_cap:
                raise ExecutionError(
                    "row_cap",
                    f"The query returned more than {self.row_cap} rows (the row cap); "
                    "add a LIMIT, a filter or an aggregate. A truncated answer cannot be graded.",
                )
            if size > self.max_result_bytes:
                raise ExecutionError("row_cap", self._too_large())
        return rows

    def _too_large(self) -> str:
        return (
            f"The result is larger than {self.max_result_bytes:,} bytes (the result budget); select fewer or "
            "shorter columns, or aggregate. A truncated answer cannot be graded."
        )

    def _release_session(self, conn: Connection) -> None:
        """Undo session state a statement may have left (PostgreSQL advisory locks) before the pool reuses it."""
        if self.engine.dialect.name == "postgresql":
            conn.exec_driver_sql("SELECT pg_advisory_unlock_all()")
            conn.rollback()

    def _duckdb_alarm(self, conn: Connection, fired: list[bool]) -> threading.Timer:
        """Interrupt the statement at the deadline: DuckDB has no statement timeout of its own."""
        raw = conn.connection.dbapi_connection
        assert raw is not None

        def interrupt() -> None:
            fired.append(True)
            raw.interrupt()

        alarm = threading.Timer(self.timeout_s, interrupt)
        alarm.daemon = True
        alarm.start()
        return alarm

    @staticmethod
    def _release_hook(raw: sqlite3.Connection | None) -> None:
        if raw is not None:
            raw.set_progress_handler(None, 0)

    def _discard(self, conn: Connection, raw: sqlite3.Connection | None) -> None:
        """End a failed statement's transaction without masking its error.

        A rollback can itself fail (psycopg left in COPY mode, a dropped connection); then the
        connection is invalidated, never returned to the pool in an unknown state.
        """
        self._release_hook(raw)
        try:
            conn.rollback()
            self._release_session(conn)
        except Exception:
            conn.invalidate()

    def _one_statement(self, sql: str) -> None:
        """Refuse a script: within one, ``COMMIT`` or ``SET TRANSACTION READ WRITE`` could end read-only mode.

        SQLite's driver enforces this itself; psycopg2 and psycopg's simple protocol do not.
        """
        count = statement_count(sql, self.dialect)
        if count is None or count > 1:
            found = "SQL it cannot split into statements" if count is None else f"{count} statements"
            raise ExecutionError("database", f"The executor runs exactly one statement per call; got {found}.")

    def _preamble(self, conn: Connection, statement: str) -> None:
        try:
            conn.exec_driver_sql(statement)
        except sa.exc.DBAPIError as e:
            raise ExecutionError(
                "config",
                f"{self.engine.dialect.name} refused {statement!r} "
                f"({self._scrub(_driver_message(e))}); the executor will not run statements "
                "on a connection it cannot make read-only.",
            ) from None

    def _sqlite_engine(self, parsed: sa.URL) -> sa.Engine:
        database = parsed.database or ""
        if not database or database == ":memory:" or database.startswith("file:") or parsed.query:
            raise ExecutionError(
                "config",
                f"Use a plain SQLite file URL (sqlite:///path/to/file.db), not "
                f"{self._shown_url!r}: the executor opens the file read-only itself, and an "
                "in-memory database would be empty.",
            )
        path = Path(database).expanduser()
        if not path.is_file():
            raise ExecutionError(
                "connect",
                f"SQLite database file not found: {path} (URL {self._shown_url}). "
                "Check the path, or build the database first; the read-only executor never "
                "creates a database.",
            )
        return sqlite_engine(path, busy_s=min(self.timeout_s, 5.0), max_value_bytes=self.max_result_bytes)

    def _duckdb_engine(self, parsed: sa.URL) -> sa.Engine:
        database = parsed.database or ""
        if not database or database == ":memory:" or parsed.query:
            raise ExecutionError(
                "config",
                f"Use a plain DuckDB file URL (duckdb:///path/to/file.duckdb), not {self._shown_url!r}: "
                "the executor opens the file read-only itself, and an in-memory database would be empty.",
            )
        path = Path(database).expanduser()
        if not path.is_file():
            raise ExecutionError(
                "connect",
                f"DuckDB database file not found: {path} (URL {self._shown_url}). Check the path, or build "
                "the database first; the read-only executor never creates a database.",
            )
        try:
            return sa.create_engine(
                sa.URL.create("duckdb", database=str(path.resolve())),
                connect_args={"read_only": True, "config": dict(DUCKDB_READ_ONLY_CONFIG)},
            )
        except (sa.exc.NoSuchModuleError, ImportError):
            raise ExecutionError(
                "config",
                "DuckDB's SQLAlchemy dialect is not installed: pip install duckdb duckdb-engine "
                "(or pip install -e . from autobot-backend/).",
            ) from None

    def _server_engine(self, parsed: sa.URL) -> sa.Engine:
        try:
            # psycopg 3: prepare every statement, so the server itself accepts only one per call.
            connect_args = {"prepare_threshold": 0} if parsed.get_driver_name() == "psycopg" else {}
            engine = sa.create_engine(parsed, pool_pre_ping=True, connect_args=connect_args)
        except sa.exc.NoSuchModuleError:
            raise ExecutionError(
                "config",
                f"No SQLAlchemy dialect or driver named {parsed.drivername!r} "
                f"(URL {self._shown_url}); use e.g. postgresql+psycopg://, mysql+pymysql://.",
            ) from None
        except ImportError as e:
            raise ExecutionError(
                "config",
                f"The database driver for {parsed.drivername!r} is not installed "
                f"(missing module {e.name!r}); install it in this environment, or name an "
                "installed driver in the URL.",
            ) from None
        except sa.exc.ArgumentError as e:
            raise ExecutionError("config", f"Bad database URL {self._shown_url}: {self._scrub(str(e))}") from None
        statements = session_read_only_statements(engine.dialect.name)
        if statements:
            # Every pooled connection is read-only for its whole session, so callers that borrow
            # .engine directly (schema inspection) get no write access either.
            @sa.event.listens_for(engine, "connect")
            def _read_only_session(dbapi_connection: Any, _record: Any) -> None:
                cursor = dbapi_connection.cursor()
                try:
                    for statement in statements:
                        cursor.execute(statement)
                finally:
                    cursor.close()
                dbapi_connection.commit()

        return engine

    def _probe(self) -> None:
        """Open one connection now, so an unreachable database fails at construction."""
        with self._boundary("connect"), self.engine.connect() as conn:
            if self._is_sqlite:
                conn.exec_driver_sql("PRAGMA schema_version")  # reads the header: "not a database" here

    @contextmanager
    def _boundary(self, phase: str, timed_out: Callable[[], bool] = lambda: False) -> Iterator[None]:
        """The one place driver and SQLAlchemy exceptions become :class:`ExecutionError`."""
        try:
            yield
        except ExecutionError:
            raise
        except (sa.exc.SQLAlchemyError, sqlite3.Error) as e:
            message = self._scrub(_driver_message(e))
            if phase == "connect" or getattr(e, "connection_invalidated", False):
                raise ExecutionError(
                    "connect",
                    f"Could not open the database {self._shown_url}: {message}. "
                    "Check that it exists and is reachable, and the URL.",
                ) from None
            if TOO_BIG in message:
                raise ExecutionError("row_cap", self._too_large()) from None
            if timed_out() or _is_timeout(e):
                raise ExecutionError(
                    "timeout",
                    f"The query ran longer than the {self.timeout_s:g} s limit and "
                    "was stopped; simplify it or filter earlier.",
                ) from None
            hint = " (this connection is read-only)" if re.search(r"(?i)not authorized|read-?only", message) else ""
            raise ExecutionError("database", f"The database rejected the query: {message}{hint}") from None

    def _scrub(self, text: str) -> str:
        return scrub_secrets(text.replace(self._url, self._shown_url), self._secrets)


_STREAMABLE_FIRST = frozenset({TokenType.SELECT, TokenType.WITH, TokenType.VALUES, TokenType.L_PAREN})


def _streamable(sql: str, dialect: str) -> bool:
    """Whether a server-side cursor can hold this statement: a query, not EXPLAIN or SHOW."""
    try:
        tokens = Dialect.get_or_raise(dialect).tokenize(sql)
    except Exception:
        return False
    return bool(tokens) and tokens[0].token_type in _STREAMABLE_FIRST


def _query_secrets(parsed: sa.URL) -> list[str]:
    values: list[str] = []
    for key, value in parsed.query.items():
        if is_secret_key(key):
            values.extend(value if isinstance(value, tuple) else (value,))
    return values


def _value_bytes(value: Any) -> int:
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        return len(value)
    return 16 if value is not None else 0


def _driver_message(error: BaseException) -> str:
    orig = getattr(error, "orig", None) or error
    text = str(orig).strip() or type(orig).__name__
    return " ".join(text.split())


def _is_timeout(error: BaseException) -> bool:
    orig = getattr(error, "orig", None) or error
    code = getattr(orig, "pgcode", None) or getattr(orig, "sqlstate", None)
    if code is None and getattr(orig, "args", None):
        code = orig.args[0]
    return isinstance(code, (str, int)) and code in _TIMEOUT_CODES
