"""SQL meant as SQLite means it, carried into another engine's dialect by sqlglot.

The corpus's references are written for SQLite, the default engine, and the built-in generator is
tuned there; on another engine a reference runs as :func:`from_sqlite` makes it, and the generator's
expression tree is rendered by :func:`render_as_sqlite_means`. Both annotate the expression's types
first (sqlglot's ``annotate_types``), so that SQLite's division of two integers stays integer
division on an engine whose ``/`` divides exactly (DuckDB). Neither rewrites SQL by hand.

Spark SQL has neither SQLite's ``julianday`` nor ``date``'s modifiers, and sqlglot passes both through
unchanged, so for Spark :func:`spark_dates` rewrites the tree first: ``julianday(x)`` is the Julian day
number from the Unix epoch (``unix_timestamp(x) / 86400 + 2440587.5``, a double, as SQLite's is a real;
exact while the server's time zone is UTC, as the throwaway server's is), and ``date(x, '±N days' |
'±N months' | '±N years', ...)`` is ``date_add`` / ``add_months`` on ``CAST(x AS DATE)``. Any other
modifier is refused (a ``sql_spark`` override is the way). ``add_months`` keeps a month-end a month-end
(Jan 31 + 1 month is Feb 29) where SQLite overflows (Mar 2): a documented dialect rule.
"""

from __future__ import annotations

import functools
import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, UnsupportedError
from sqlglot.optimizer.annotate_types import annotate_types

from services.dialects import sqlglot_name

__all__ = ["from_sqlite", "render_as_sqlite_means", "spark_dates"]

_MODIFIER = re.compile(r"\s*([+-]?\d+)\s+(day|month|year)s?\s*", re.IGNORECASE)


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
    tree = spark_dates(trees[0]) if target == "spark" else trees[0]
    return annotate_types(tree, dialect="sqlite").sql(dialect=target, unsupported_level=ErrorLevel.RAISE)


def spark_dates(tree: exp.Expr) -> exp.Expr:
    """``tree`` (read as SQLite) with ``julianday`` and ``date``'s modifiers in functions Spark has; see the module
    docstring. A copy; the tree given is left as it is.

    Raises:
        sqlglot.errors.UnsupportedError: a ``date`` modifier other than whole days, months or years.
    """

    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Anonymous):
            return node
        name, args = str(node.this).lower(), list(node.expressions)
        if name == "julianday" and len(args) == 1:
            seconds = exp.func("UNIX_TIMESTAMP", exp.cast(args[0], "TIMESTAMP"))
            days = exp.Div(this=seconds, expression=exp.cast(exp.Literal.number(86400), "DOUBLE"))
            return exp.paren(exp.Add(this=exp.paren(days), expression=exp.Literal.number("2440587.5")))
        if name == "date" and len(args) > 1:
            out: exp.Expr = exp.cast(args[0], "DATE")
            for modifier in args[1:]:
                found = _MODIFIER.fullmatch(modifier.name) if isinstance(modifier, exp.Literal) else None
                if found is None or not modifier.is_string:
                    raise UnsupportedError(f"date() modifier {modifier.sql('sqlite')} has no Spark equivalent")
                n, unit = int(found.group(1)), found.group(2).lower()
                if unit == "day":
                    out = exp.func("DATE_ADD", out, exp.Literal.number(n))
                else:
                    out = exp.func("ADD_MONTHS", out, exp.Literal.number(n * (12 if unit == "year" else 1)))
            return out
        return node

    return tree.copy().transform(rewrite, copy=False)


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
    tree = spark_dates(tree) if target == "spark" else tree.copy()
    for div in tree.find_all(exp.Div):
        div.set("safe", True)
    return annotate_types(tree, dialect="sqlite").sql(dialect=target, unsupported_level=ErrorLevel.RAISE)
