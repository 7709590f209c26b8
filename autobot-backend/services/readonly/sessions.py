"""How DuckDB and server connections are made read-only, for :class:`services.readonly.executor.ReadOnlyExecutor`.

DuckDB: the database opened read-only with :data:`DUCKDB_READ_ONLY_CONFIG`. Servers: the statements
each transaction starts with (:func:`read_only_preamble`) and each new session runs once
(:func:`session_read_only_statements`). SQLite's hardening is :mod:`services.readonly.sqlite_file`.
"""

from __future__ import annotations

__all__ = [
    "DUCKDB_READ_ONLY_CONFIG",
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
    if dialect_name == "spark":
        return ()  # no transactions: the time limit is a cancel (spark_statement), read-only the server's own
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
