"""The read-only executor: the second line of defence behind :mod:`services.readonly.guard`.

Whatever SQL reaches :meth:`ReadOnlyExecutor.execute` (the guard is the caller's job), the
connection it runs on cannot write:

* SQLite is opened read-only and hardened by :mod:`services.readonly.sqlite_file` (``mode=ro``, or
  ``immutable=1`` for a WAL file no writer has open, so no ``-wal``/``-shm`` appears beside it;
  ``query_only``; no attached databases, which also stops ``VACUUM INTO``; a cap on any one value's
  size and on SQLite's memory; an authorizer that allows only reads, allow-listed PRAGMAs and
  functions off the side-effect deny-list).
* DuckDB runs in a worker process (:mod:`services.readonly.duckdb_process`), the file opened with
  ``read_only=True`` (a missing file is reported, never created), external access off (no ``COPY ...
  TO``, ``read_csv``, ``ATTACH`` or extension install: the database file is all it can see), one
  thread, a memory limit and no temporary directory, and its configuration locked, so no statement
  can undo any of it. The worker's memory is capped by the kernel; a statement past its deadline is
  interrupted, and if DuckDB does not stop, the worker is killed.
* PostgreSQL runs each statement in ``SET TRANSACTION READ ONLY`` with ``SET LOCAL
  statement_timeout``; MySQL in ``START TRANSACTION READ ONLY`` with ``max_execution_time``
  (MariaDB: ``max_statement_time``); any other engine must accept ``SET TRANSACTION READ ONLY``
  or the executor refuses to run. Every transaction is rolled back. PostgreSQL and MySQL
  connections are also made read-only for their whole session when they are opened. Before a
  PostgreSQL connection goes back to the pool, ``pg_advisory_unlock_all()`` releases any advisory
  lock a statement took, so no later statement or session waits on it.
* Spark SQL (``spark://``, a Thrift server) has no transactions: each statement is submitted asynchronously,
  cancelled on the server at its deadline (:mod:`services.readonly.spark_statement`); what keeps it from
  writing is the guard and the server's own settings (docs/eval/safety.md).
* One statement per call, always: inside a script, ``COMMIT`` or ``SET TRANSACTION READ WRITE``
  would end read-only mode. SQLite's driver refuses scripts itself; for the others the executor
  splits with the dialect's tokenizer (:func:`services.readonly.guard.statement_count`), and with
  psycopg 3 every statement is prepared, so the server also refuses more than one.

Every statement has a time limit (SQLite: a progress handler; DuckDB: an interrupt, then a kill;
servers: the statement timeout), a row cap and a byte budget: rows are fetched in batches, at most
``row_cap + 1`` of them and while their values add up to no more than ``max_result_bytes``; past
either the statement is a ``row_cap`` error, because a truncated answer cannot be graded. On SQLite
no single value can even be built past the budget (``SQLITE_LIMIT_LENGTH``). Schema inspection reads
through the same limits (:mod:`services.readonly.inspection`).

Known limitations: engines other than SQLite, DuckDB, PostgreSQL and MySQL get no time limit of
their own; a DuckDB file cannot be open for writing and read-only at once (a fixture build must have
closed it); on a server, one row is fetched whole before it is measured (PostgreSQL caps a value at
1 GB); with psycopg2 the one-statement rule rests on sqlglot's tokenizer alone. A read-only transaction
does not stop a PostgreSQL superuser (or a member of pg_write_server_files /
pg_execute_server_program) from ``COPY ... TO PROGRAM``, ``lo_export``
or ``pg_terminate_backend``: for SQL that may not have passed the guard, connect as a role
with only SELECT privileges, used by nothing else (any role may still end its own role's sessions).
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection, make_url

from services.readonly import spark_statement
from services.readonly.budget import Overflow, fetch_bounded, memory_message, too_large
from services.readonly.drivers import driver_message, is_timeout, query_secrets, streamable
from services.readonly.duckdb_process import DuckDBFile, WorkerError
from services.readonly.engines import duckdb_file, server_engine, sqlite_file_engine
from services.readonly.guard import statement_count
from services.readonly.results import EXECUTION_ERROR_KINDS, ExecutionError, QueryResult
from services.readonly.sessions import read_only_preamble, session_read_only_statements
from services.readonly.sqlite_file import SQLITE_HEAP_LIMIT, TOO_BIG, deadline_handler, interrupt_at, policy_denials
from services.redaction import redact_url, scrub_secrets, url_secrets
from services.schema_context import sqlglot_dialect

__all__ = [
    "EXECUTION_ERROR_KINDS",
    "MAX_RESULT_BYTES",
    "ExecutionError",
    "QueryResult",
    "ReadOnlyExecutor",
    "read_only_preamble",
    "redact_url",
    "session_read_only_statements",
]

MAX_RESULT_BYTES = 64 * 1024 * 1024
"""Default byte budget of one result (64 MiB): 10,000 rows of a few hundred bytes fit many times over."""

_PROGRESS_OPS = 10_000  # SQLite VM instructions between deadline checks (well under a millisecond)


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
            length, other values 16 bytes); on SQLite also the largest any one value may be.

    Raises:
        ExecutionError: ``config`` for an unusable URL or settings, ``connect`` when the database
            cannot be opened (a missing SQLite file is reported, never created).
    """

    dialect: str
    """sqlglot dialect name of the engine (``sqlite``, ``postgres``, ``mysql``, ...)."""
    engine: sa.Engine
    """The read-only configured engine. The executor never connects it on DuckDB (statements run in the
    worker process); read a schema through :func:`services.readonly.inspection.inspect_read_only`."""

    def __init__(
        self, url: str, *, row_cap: int = 10_000, timeout_s: float = 10.0, max_result_bytes: int = MAX_RESULT_BYTES
    ) -> None:
        if isinstance(row_cap, bool) or not isinstance(row_cap, int) or row_cap < 0:
            raise ExecutionError("config", f"row_cap must be a whole number >= 0, got {row_cap!r}.")
        if isinstance(max_result_bytes, bool) or not isinstance(max_result_bytes, int) or max_result_bytes < 1:
            raise ExecutionError("config", f"max_result_bytes must be a whole number > 0, got {max_result_bytes!r}.")
        self.max_result_bytes = max_result_bytes
        self.timeout_s = _seconds(timeout_s, "timeout_s")
        self.row_cap = row_cap
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
        self._secrets = [s for s in (parsed.password, *query_secrets(parsed), *sorted(url_secrets(url))) if s]
        self._is_sqlite = parsed.get_backend_name() == "sqlite"
        self._is_spark = parsed.get_backend_name() == "spark"
        self._duckdb: DuckDBFile | None = None
        if self._is_sqlite:
            self.engine = sqlite_file_engine(
                parsed, self._shown_url, timeout_s=self.timeout_s, max_value_bytes=self.max_result_bytes
            )
        elif parsed.get_backend_name() == "duckdb":
            self.engine, self._duckdb = duckdb_file(parsed, self._shown_url, timeout_s=self.timeout_s)
        else:
            self.engine = server_engine(parsed, self._shown_url, self._scrub)
        self.dialect = sqlglot_dialect(self.engine)
        if self._duckdb is None:
            self._probe()  # DuckDB's file was opened by the worker already

    @property
    def shown_url(self) -> str:
        """The URL with its secrets masked: how messages and logs name this database."""
        return self._shown_url

    def __enter__(self) -> ReadOnlyExecutor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every pooled connection (on DuckDB, the file in the worker)."""
        self.engine.dispose()
        if self._duckdb is not None:
            self._duckdb.close()

    def execute(self, sql: str, *, timeout_s: float | None = None, row_cap: int | None = None) -> QueryResult:
        """Run one statement read-only and return all its rows (at most ``row_cap``).

        ``timeout_s`` replaces the executor's time limit for this statement (schema inspection gives a
        sampling query what is left of its own budget); ``row_cap`` its row cap (a reference's, which only
        the byte budget bounds). Does not call the guard: callers validate first. Raises :class:`ExecutionError`.
        """
        if not isinstance(sql, str):
            raise ExecutionError("database", f"Expected SQL text, got {type(sql).__name__}.")
        limit = self.timeout_s if timeout_s is None else _seconds(timeout_s, "timeout_s")
        cap = self.row_cap if row_cap is None else row_cap
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
            raise ExecutionError("config", f"row_cap must be a whole number >= 0, got {cap!r}.")
        if self._duckdb is not None:
            return self._run_duckdb(self._duckdb, sql, limit, cap)
        with self._boundary("connect"):
            conn = self.engine.connect()
        try:
            if self._is_spark:
                return self._run_spark(conn, sql, limit, cap)
            return self._run(conn, sql, limit, cap)
        finally:
            with self._boundary("connect"):
                conn.close()

    def _run(self, conn: Connection, sql: str, limit: float, row_cap: int) -> QueryResult:
        started = time.monotonic()
        fired: list[bool] = []
        raw = self._sqlite_connection(conn)
        alarm = None
        if raw is not None:
            raw.set_progress_handler(deadline_handler(lambda: started + limit, fired), _PROGRESS_OPS)
            alarm = interrupt_at(limit, fired, raw)
        try:
            with self._boundary("execute", timed_out=lambda: bool(fired), limit_s=limit):
                options: dict[str, object] = {"no_parameters": True}
                if not self._is_sqlite:
                    self._one_statement(sql)
                    for statement in read_only_preamble(self.engine.dialect.name, limit):
                        self._preamble(conn, statement)
                    # A server-side cursor, so the row cap bounds what is read, not just what is kept.
                    if self.engine.dialect.supports_server_side_cursors:
                        options["stream_results"] = streamable(sql, self.dialect)
                # no_parameters: the text goes to the driver as is, so '%' in a literal is not a placeholder.
                result = conn.exec_driver_sql(sql, execution_options=options)
                try:
                    columns = tuple(result.keys()) if result.returns_rows else ()
                    kinds: list[set[type]] = []
                    rows = self._fetch(result, row_cap, kinds) if result.returns_rows else []
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
        read = tuple(map(frozenset, kinds)) if len(kinds) == len(columns) else None
        return QueryResult(columns, rows, (time.monotonic() - started) * 1000.0, read)

    def _run_duckdb(self, database: DuckDBFile, sql: str, limit: float, row_cap: int) -> QueryResult:
        self._one_statement(sql)
        try:
            columns, rows, elapsed_ms = database.run(
                sql, timeout_s=limit, row_cap=row_cap, max_bytes=self.max_result_bytes
            )
        except WorkerError as exc:
            if exc.kind == "timeout":
                raise ExecutionError("timeout", _timed_out(limit)) from None
            if exc.kind == "database":
                raise ExecutionError("database", self._rejected(self._scrub(exc.message))) from None
            raise ExecutionError(exc.kind, self._scrub(exc.message)) from None
        return QueryResult(tuple(columns), rows, elapsed_ms)

    def _run_spark(self, conn: Connection, sql: str, limit: float, row_cap: int) -> QueryResult:
        self._one_statement(sql)
        started, kinds = time.monotonic(), list[set[type]]()
        raw = conn.connection.dbapi_connection
        try:
            columns, rows = spark_statement.run(raw, sql, started + limit, row_cap, self.max_result_bytes, kinds)
        except spark_statement.SparkTimeout:
            raise ExecutionError("timeout", _timed_out(limit)) from None
        except spark_statement.StatementFailed as exc:
            raise ExecutionError("database", self._rejected(self._scrub(exc.message))) from None
        except (spark_statement.ConnectionLost, Overflow) as exc:
            conn.invalidate()  # a session gone, or an operation stopped at a cap: never reused
            kind = "row_cap" if isinstance(exc, Overflow) else "connect"
            raise ExecutionError(kind, self._scrub(str(exc))) from None
        read = tuple(map(frozenset, kinds)) if len(kinds) == len(columns) else None
        return QueryResult(columns, rows, (time.monotonic() - started) * 1000.0, read)

    def _fetch(self, result: sa.CursorResult[Any], row_cap: int, kinds: list[set[type]]) -> list[tuple[Any, ...]]:
        """All rows, in batches, stopping at the row cap or the byte budget (an error either way).

        On SQLite straight from the driver's cursor: its rows are tuples already, and SQLAlchemy buffers
        nothing ahead of it there (no server-side cursor), so its ``Row`` per row would be pure cost.
        """
        fetchmany = result.cursor.fetchmany if self._is_sqlite else result.fetchmany
        try:
            return fetch_bounded(fetchmany, row_cap, self.max_result_bytes, kinds)
        except Overflow as exc:
            raise ExecutionError("row_cap", exc.message) from None

    @contextmanager
    def inspection_connection(self) -> Iterator[Connection]:
        """A connection for reading the catalog with SQLAlchemy's inspector, each statement on it under the
        time limit (SQLite: the progress handler, restarted per statement; servers: the read-only,
        time-limited transaction of :meth:`execute`). Rolled back after. Not on DuckDB, whose catalog is
        read with :meth:`execute`. Failures are :class:`ExecutionError`."""
        if self._duckdb is not None:
            raise ExecutionError("config", "DuckDB's catalog is read through execute(), in the worker process.")
        with self._boundary("connect"):
            conn = self.engine.connect()
        raw = self._sqlite_connection(conn)
        fired: list[bool] = []
        deadline = [0.0]

        def restart(*_args: object) -> None:
            deadline[0] = time.monotonic() + self.timeout_s

        try:
            with self._boundary("execute", timed_out=lambda: bool(fired)):
                if raw is not None:
                    restart()
                    raw.set_progress_handler(deadline_handler(lambda: deadline[0], fired), _PROGRESS_OPS)
                    sa.event.listen(conn, "before_cursor_execute", restart)
                else:
                    for statement in read_only_preamble(self.engine.dialect.name, self.timeout_s):
                        self._preamble(conn, statement)
                yield conn
            self._release_hook(raw)
            with self._boundary("connect"):
                conn.rollback()
                self._release_session(conn)
        except BaseException:
            self._discard(conn, raw)
            raise
        finally:
            with self._boundary("connect"):
                conn.close()

    def _sqlite_connection(self, conn: Connection) -> sqlite3.Connection | None:
        return cast(sqlite3.Connection, conn.connection.dbapi_connection) if self._is_sqlite else None

    def _release_session(self, conn: Connection) -> None:
        """Undo session state a statement may have left (PostgreSQL advisory locks) before the pool reuses it."""
        if self.engine.dialect.name == "postgresql":
            conn.exec_driver_sql("SELECT pg_advisory_unlock_all()")
            conn.rollback()

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

        SQLite's driver enforces this itself; psycopg2, psycopg's simple protocol and DuckDB do not.
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
                f"({self._scrub(driver_message(e))}); the executor will not run statements "
                "on a connection it cannot make read-only.",
            ) from None

    def _probe(self) -> None:
        """Open one connection now, so an unreachable database fails at construction."""
        with self._boundary("connect"), self.engine.connect() as conn:
            if self._is_sqlite:
                conn.exec_driver_sql("PRAGMA schema_version")  # reads the header: "not a database" here

    @contextmanager
    def _boundary(
        self, phase: str, timed_out: Callable[[], bool] = lambda: False, limit_s: float | None = None
    ) -> Iterator[None]:
        """The one place driver and SQLAlchemy exceptions become :class:`ExecutionError`.

        A SQLite statement "interrupted" though its deadline did not fire, or "not authorized" though the
        authorizer denied nothing, was stopped by a signal (Ctrl-C) that arrived inside one of the callbacks
        ``sqlite3`` calls (the progress handler, the authorizer), whose exception it swallowed: it is raised
        again as :class:`KeyboardInterrupt`.
        """
        denials = policy_denials()
        try:
            yield
        except ExecutionError:
            raise
        except MemoryError:
            raise ExecutionError("row_cap", memory_message("SQLite's heap limit", SQLITE_HEAP_LIMIT)) from None
        except (sa.exc.SQLAlchemyError, sqlite3.Error) as e:
            message = self._scrub(driver_message(e))
            if phase == "connect" or getattr(e, "connection_invalidated", False):
                raise ExecutionError(
                    "connect",
                    f"Could not open the database {self._shown_url}: {message}. "
                    "Check that it exists and is reachable, and the URL.",
                ) from None
            if TOO_BIG in message:
                raise ExecutionError("row_cap", too_large(self.max_result_bytes)) from None
            if timed_out() or is_timeout(e):
                raise ExecutionError("timeout", _timed_out(self.timeout_s if limit_s is None else limit_s)) from None
            if self._is_sqlite and (
                message == "interrupted" or (message == "not authorized" and policy_denials() == denials)
            ):
                raise KeyboardInterrupt from None
            raise ExecutionError("database", self._rejected(message)) from None

    @staticmethod
    def _rejected(message: str) -> str:
        hint = " (this connection is read-only)" if re.search(r"(?i)not authorized|read-?only", message) else ""
        return f"The database rejected the query: {message}{hint}"

    def _scrub(self, text: str) -> str:
        return scrub_secrets(text.replace(self._url, self._shown_url), self._secrets)


def _seconds(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ExecutionError("config", f"{name} must be a number of seconds > 0, got {value!r}.")
    return float(value)


def _timed_out(limit_s: float) -> str:
    return f"The query ran longer than the {limit_s:g} s limit and was stopped; simplify it or filter earlier."
