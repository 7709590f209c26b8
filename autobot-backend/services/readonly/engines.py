"""The connections :class:`~services.readonly.executor.ReadOnlyExecutor` runs on, one builder per kind of database.

SQLite: a file opened read-only and hardened (:mod:`services.readonly.sqlite_file`). DuckDB: a file
opened read-only in the DuckDB worker process (:mod:`services.readonly.duckdb_process`), with an
SQLAlchemy engine beside it that the executor never connects (its dialect compiles the schema
inspection's queries). Servers: an engine whose every pooled connection is read-only for its session.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from services.readonly.duckdb_process import DuckDBFile, WorkerError
from services.readonly.results import ExecutionError
from services.readonly.sessions import DUCKDB_READ_ONLY_CONFIG, session_read_only_statements
from services.readonly.sqlite_file import sqlite_engine, sqlite_memory_engine
from services.readonly.sqlite_memory import is_memory_url, published

__all__ = ["duckdb_file", "server_engine", "sqlite_file_engine"]


def _existing_file(parsed: sa.URL, shown_url: str, engine: str, example: str) -> Path:
    database = parsed.database or ""
    if not database or database == ":memory:" or database.startswith("file:") or parsed.query:
        raise ExecutionError(
            "config",
            f"Use a plain {engine} file URL ({example}), not {shown_url!r}: the executor opens the file "
            "read-only itself, and an in-memory database would be empty.",
        )
    path = Path(database).expanduser()
    if not path.is_file():
        raise ExecutionError(
            "connect",
            f"{engine} database file not found: {path} (URL {shown_url}). Check the path, or build the "
            "database first; the read-only executor never creates a database.",
        )
    return path


def sqlite_file_engine(parsed: sa.URL, shown_url: str, *, timeout_s: float, max_value_bytes: int) -> sa.Engine:
    if is_memory_url(parsed):  # a database this process made in memory (:mod:`services.readonly.sqlite_memory`)
        name = parsed.database or ""
        if not published(name):
            raise ExecutionError(
                "connect",
                f"No in-memory database {shown_url} was made by this process; the read-only executor never "
                "creates a database.",
            )
        return sqlite_memory_engine(name, busy_s=min(timeout_s, 5.0), max_value_bytes=max_value_bytes)
    path = _existing_file(parsed, shown_url, "SQLite", "sqlite:///path/to/file.db")
    return sqlite_engine(path, busy_s=min(timeout_s, 5.0), max_value_bytes=max_value_bytes)


def duckdb_file(parsed: sa.URL, shown_url: str, *, timeout_s: float) -> tuple[sa.Engine, DuckDBFile]:
    """The file opened in the DuckDB worker, and an (unconnected) engine for its dialect."""
    path = _existing_file(parsed, shown_url, "DuckDB", "duckdb:///path/to/file.duckdb").resolve()
    try:
        engine = sa.create_engine(
            sa.URL.create("duckdb", database=str(path)),
            connect_args={"read_only": True, "config": dict(DUCKDB_READ_ONLY_CONFIG)},
        )
    except (sa.exc.NoSuchModuleError, ImportError):
        raise ExecutionError(
            "config",
            "DuckDB's SQLAlchemy dialect is not installed: pip install duckdb duckdb-engine "
            "(or pip install -e . from autobot-backend/).",
        ) from None
    try:
        return engine, DuckDBFile(path, DUCKDB_READ_ONLY_CONFIG, open_timeout_s=timeout_s)
    except WorkerError as exc:
        engine.dispose()
        detail = exc.message or "it did not open within the time limit"
        raise ExecutionError(
            "config" if exc.kind == "config" else "connect",
            f"Could not open the database {shown_url}: {detail}. Check that it is a DuckDB file.",
        ) from None


def server_engine(parsed: sa.URL, shown_url: str, scrub: Callable[[str], str]) -> sa.Engine:
    try:
        # psycopg 3: prepare every statement, so the server itself accepts only one per call.
        connect_args = {"prepare_threshold": 0} if parsed.get_driver_name() == "psycopg" else {}
        engine = sa.create_engine(parsed, pool_pre_ping=True, connect_args=connect_args)
    except sa.exc.NoSuchModuleError:
        raise ExecutionError(
            "config",
            f"No SQLAlchemy dialect or driver named {parsed.drivername!r} "
            f"(URL {shown_url}); use e.g. postgresql+psycopg://, mysql+pymysql://.",
        ) from None
    except ImportError as e:
        raise ExecutionError(
            "config",
            f"The database driver for {parsed.drivername!r} is not installed "
            f"(missing module {e.name!r}); install it in this environment, or name an "
            "installed driver in the URL.",
        ) from None
    except sa.exc.ArgumentError as e:
        raise ExecutionError("config", f"Bad database URL {shown_url}: {scrub(str(e))}") from None
    statements = session_read_only_statements(engine.dialect.name)
    if statements:
        # Every pooled connection is read-only for its whole session, so a connection borrowed for
        # schema inspection gets no write access either.
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
