"""SQL meant as SQLite means it, carried into another engine's dialect by sqlglot.

The corpus's references are written for SQLite, the default engine, and the built-in generator is
tuned there; on another engine a reference runs as :func:`from_sqlite` makes it, and the generator's
expression tree is rendered by :func:`render_as_sqlite_means`. Both annotate the expression's types
first (sqlglot's ``annotate_types``), so that SQLite's division of two integers stays integer
division on an engine whose ``/`` divides exactly (DuckDB). Neither rewrites SQL by hand.
"""

from __future__ import annotations

import functools

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError
from sqlglot.optimizer.annotate_types import annotate_types

from services.dialects import sqlglot_name

__all__ = ["from_sqlite", "render_as_sqlite_means"]


@functools.lru_cache(maxsize=4096)
def from_sqlite(sql: str, dialect: str) -> str:
    """One SQLite statement in ``dialect`` (SQLAlchemy or sqlglot name); itself on SQLite.

    Example:
        >>> from_sqlite("SELECT (CAST(strftime('%m', d) AS INTEGER) + 2) / 3 FROM t", "duckdb")
        "SELECT CAST(TRUNC((CAST(STRFTIME(CAST(d AS TIMESTAMP), '%m') AS INT) + 2) / NULLIF(3, 0)) AS BIGINT) FROM t"

    Raises:
        sqlglot.errors.SqlglotError: it does not parse as one statement, or uses a construct sqlglot
            cannot carry into ``dialect`` (raised, not dropped with a logged warning).
    """
    target = sqlglot_name(dialect)
    if target == "sqlite":
        return sql
    trees = sqlglot.parse(sql, read="sqlite")
    if len(trees) != 1 or trees[0] is None:
        raise ParseError(f"expected one statement, read {len(trees)}")
    return annotate_types(trees[0], dialect="sqlite").sql(dialect=target, unsupported_level=ErrorLevel.RAISE)


def render_as_sqlite_means(tree: exp.Expr, dialect: str) -> str:
    """An expression tree built to mean what it means on SQLite, rendered in ``dialect`` (SQLAlchemy or
    sqlglot name) natively, keeping that meaning where the dialect's own operators differ.

    Its types are annotated, so a division sqlglot read as SQLite's integer division of integers
    stays integer division on an engine whose ``/`` divides exactly (DuckDB); a division built
    without that mark is rendered as exact division everywhere, as SQLite's rendering of it is; and
    a division by zero is NULL, as on SQLite. On SQLite, this is ``tree.sql("sqlite")``.

    Raises:
        sqlglot.errors.SqlglotError: a construct ``dialect`` cannot express.
    """
    target = sqlglot_name(dialect)
    if target == "sqlite":
        return tree.sql(dialect="sqlite")
    tree = tree.copy()
    for div in tree.find_all(exp.Div):
        div.set("safe", True)
    return annotate_types(tree, dialect="sqlite").sql(dialect=target, unsupported_level=ErrorLevel.RAISE)
