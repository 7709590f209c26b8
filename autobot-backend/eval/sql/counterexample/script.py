"""A counterexample as a runnable SQL script: the shrunk database's tables and rows, then both queries.

The DDL is the graded database's own: SQLite's and DuckDB's as they stored it (``sqlite_master``,
``duckdb_tables()``), PostgreSQL's made by SQLAlchemy from its reflected tables. Rows are written as literals,
parents first. Each query ends on a line of its own (``;`` after a newline), so a trailing comment in either
cannot swallow what follows, and the script is plain data: it runs only when a person runs it, on a database of
their choosing
(``sqlite3 :memory: < counterexample.sql``, ``psql -f``, ``duckdb < ...``).
"""

from __future__ import annotations

import warnings
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.schema import CreateTable

from eval.sql.counterexample.data import Working, reading_engine
from eval.sql.counterexample.writing import rows_of


def literal(value: Any, dialect: str) -> str:
    """A value as a SQL literal of ``dialect``."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return ("1" if value else "0") if dialect == "sqlite" else ("TRUE" if value else "FALSE")
    if isinstance(value, int | Decimal):
        return str(value)
    if isinstance(value, float):
        return repr(value) if value == value and value not in (float("inf"), float("-inf")) else "NULL"
    if isinstance(value, bytes):
        return f"X'{value.hex()}'"
    if isinstance(value, datetime | date | time):
        return "'" + value.isoformat(sep=" ") + "'" if isinstance(value, datetime) else "'" + value.isoformat() + "'"
    return "'" + str(value).replace("'", "''") + "'"


_STORED = {
    "sqlite": "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL",
    "duckdb": "SELECT table_name, sql FROM duckdb_tables() WHERE database_name = current_database() "
    "AND schema_name = current_schema() AND NOT internal",
}
"""Engines that keep each table's CREATE TABLE as it was written: the statement that reads them."""


def ddl(w: Working) -> list[str]:
    """The CREATE TABLE statements of the graded database, parents first, for its own engine."""
    engine, pg_schema = reading_engine(w.base.url)
    try:
        stored_sql = _STORED.get(engine.dialect.name)
        if stored_sql is not None:
            with engine.connect() as conn:
                stored: dict[str, str] = dict(conn.exec_driver_sql(stored_sql).all())
            return [stored[name].strip() for name in w.schema.tables if name in stored]
        metadata = sa.MetaData()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sa.exc.SAWarning)
            metadata.reflect(engine, schema=pg_schema, only=list(w.schema.tables))
        out = []
        prefix = engine.dialect.identifier_preparer.quote_schema(pg_schema) + "." if pg_schema else ""
        for name in w.schema.tables:
            table = metadata.tables.get(f"{pg_schema}.{name}" if pg_schema else name)
            if table is not None:  # written for the graded schema, then named without it: the script's own
                made = str(CreateTable(table).compile(dialect=engine.dialect)).strip()
                out.append(made.replace(prefix, "") if prefix else made)
        return out
    finally:
        engine.dispose()


def script(w: Working, question_id: str, reference: str, answer: str, engine: str) -> str:
    """The runnable script of the neighbour ``w`` for ``question_id``."""
    dialect = "sqlite" if engine == "sqlite" else engine
    lines = [
        f"-- A database on which the answer to {question_id} and its reference disagree ({engine}).",
        "-- Made by the counterexample search from the graded database; run it on an empty database.",
        "",
    ]
    lines += [statement.rstrip(";") + ";" for statement in ddl(w)]
    lines.append("")
    quote = sa.create_engine("sqlite://").dialect.identifier_preparer.quote if engine == "sqlite" else None
    for table, rows in rows_of(w):
        name = quote(table.name) if quote else '"' + table.name.replace('"', '""') + '"'
        for values in rows:
            lines.append(f"INSERT INTO {name} VALUES ({', '.join(literal(v, dialect) for v in values)});")
    lines += ["", "-- The reference:", reference.strip(), ";", "", "-- The answer:", answer.strip(), ";", ""]
    return "\n".join(lines)
