"""How each engine's connection is made read-only, for :class:`services.sql_executor.ReadOnlyExecutor`.

SQLite: ``query_only``, no extension loading, no attached databases, defensive mode, and an
authorizer that allows reads and nothing else (:func:`harden_sqlite`); a progress handler stops a
statement at its deadline (:func:`deadline_handler`). DuckDB: the database opened read-only with
:data:`DUCKDB_READ_ONLY_CONFIG`. Servers: the statements each transaction starts with
(:func:`read_only_preamble`) and each new session runs once (:func:`session_read_only_statements`).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

from services.sql_guard import SIDE_EFFECT_FUNCTIONS, SQLITE_READ_PRAGMAS, SQLITE_READ_PRAGMAS_WITH_ARGUMENT

__all__ = [
    "DUCKDB_READ_ONLY_CONFIG",
    "deadline_handler",
    "harden_sqlite",
    "read_only_preamble",
    "session_read_only_statements",
]

DUCKDB_READ_ONLY_CONFIG: dict[str, object] = {
    "enable_external_access": False,  # no file, network or extension access: the database is all it sees
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "lock_configuration": True,  # last: no SET can switch the others back
}
"""DuckDB settings of every read-only connection, beside ``read_only=True``."""


def read_only_preamble(dialect_name: str, timeout_s: float) -> tuple[str, ...]:
    """Statements that make the next transaction read-only and time-limited, per SQLAlchemy dialect.

    Example:
        >>> read_only_preamble("postgresql", 2.5)
        ('SET TRANSACTION READ ONLY', 'SET LOCAL statement_timeout = 2500')
    """
    ms = max(1, int(timeout_s * 1000))
    if dialect_name == "postgresql":
        return ("SET TRANSACTION READ ONLY", f"SET LOCAL statement_timeout = {ms}")
    if dialect_name == "mysql":
        return (f"SET SESSION max_execution_time = {ms}", "START TRANSACTION READ ONLY")
    if dialect_name == "mariadb":
        return (f"SET SESSION max_statement_time = {ms / 1000:g}", "START TRANSACTION READ ONLY")
    if dialect_name == "duckdb":
        return ()  # the whole database is opened read-only; the time limit is an interrupt
    return ("SET TRANSACTION READ ONLY",)


def session_read_only_statements(dialect_name: str) -> tuple[str, ...]:
    """Statements run once per new connection to make its whole session read-only, per dialect.

    Example:
        >>> session_read_only_statements("postgresql")
        ('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY',)
    """
    if dialect_name == "postgresql":
        return ("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",)
    if dialect_name in ("mysql", "mariadb"):
        return ("SET SESSION TRANSACTION READ ONLY",)
    return ()


def harden_sqlite(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA query_only = ON")  # before the authorizer, which forbids setting pragmas
    if hasattr(conn, "enable_load_extension"):
        conn.enable_load_extension(False)
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    if hasattr(conn, "setconfig"):  # Python 3.12+
        conn.setconfig(sqlite3.SQLITE_DBCONFIG_DEFENSIVE, True)  # type: ignore[attr-defined,unused-ignore]
        conn.setconfig(sqlite3.SQLITE_DBCONFIG_TRUSTED_SCHEMA, False)  # type: ignore[attr-defined,unused-ignore]
    conn.set_authorizer(_sqlite_authorizer)


_SQLITE_READ_ACTIONS = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE})
# SQLite reports the first use of an eponymous virtual table on a connection (a read such as
# ``SELECT * FROM pragma_table_info('t')``) as an UPDATE of the schema table's columns. A real
# UPDATE of the schema table is still refused by SQLite itself (writable_schema is off, and
# setting it is a denied PRAGMA), by query_only and by the read-only open.
_SCHEMA_TABLES = frozenset({"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"})


def _sqlite_authorizer(action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None) -> int:
    """Allow reads only: everything not positively a read is denied."""
    if action in _SQLITE_READ_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_UPDATE and (arg1 or "").lower() in _SCHEMA_TABLES:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION:
        return sqlite3.SQLITE_DENY if (arg2 or "").lower() in SIDE_EFFECT_FUNCTIONS else sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA:
        name = (arg1 or "").lower()
        if name in SQLITE_READ_PRAGMAS_WITH_ARGUMENT or (name in SQLITE_READ_PRAGMAS and arg2 is None):
            return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def deadline_handler(deadline: float, fired: list[bool]) -> Callable[[], int]:
    def handler() -> int:
        if time.monotonic() > deadline:
            fired.append(True)
            return 1  # non-zero interrupts the statement
        return 0

    return handler
