"""What the two queries read, with sqlglot: the tables and columns they name, and the literals they compare
with, each tied to the column it is compared against, so a neighbour can place rows on every literal of
either query and one unit either side of it.

A literal's column is the column on the other side of its comparison (``o.order_date BETWEEN '2024-12-01'
AND '2024-12-31'``, ``strftime('%Y-%m', order_date) = '2024-01'``, ``status IN ('completed', 'returned')``);
where the comparison names none, the literal goes to every column of the queries' tables that can hold it.
A literal outside any comparison (a format string, a LIMIT) is not read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp

from eval.sql.counterexample.schema import Schema
from eval.sql.counterexample.values import days_of_literal, fits_kind, period_of_literal, steps_of_number

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between, exp.In, exp.NullSafeEQ)


@dataclass(frozen=True)
class Target:
    """Values a neighbour may write into one column: a literal of the queries and its steps."""

    table: str
    column: int
    values: tuple[Any, ...]
    periods: tuple[tuple[date, date], ...] = ()
    """The days each date-like literal names (a day, a month, a year), first and last: the rows dated inside one
    are the rows the literal selects, which a neighbour thins out or doubles."""


@dataclass(frozen=True)
class Focus:
    tables: tuple[str, ...]
    """The schema's tables either query reads, in the schema's order."""
    columns: tuple[tuple[str, int], ...]
    """(table, column) the queries name."""
    targets: tuple[Target, ...]
    shown: frozenset[str]
    """Text the reference's answer shows on the graded database: rows holding it are the answer's."""


def _trees(sqls: Sequence[str], dialect: str) -> list[exp.Expr]:
    trees = []
    for sql in sqls:
        try:
            tree = sqlglot.parse_one(sql, read=dialect)
        except sqlglot.errors.SqlglotError:
            continue
        if tree is not None:
            trees.append(tree)
    return trees


def read_focus(schema: Schema, sqls: Sequence[str], dialect: str, shown: Iterable[Any] = ()) -> Focus:
    """The focus of ``sqls`` (the reference, the answer) on ``schema``."""
    trees = _trees(sqls, dialect)
    tables = []
    for tree in trees:
        for table in tree.find_all(exp.Table):
            t = schema.table(table.name)
            if t is not None and t.name not in tables:
                tables.append(t.name)
    ordered = tuple(t for t in schema.tables if t in tables)
    columns: list[tuple[str, int]] = []
    for tree in trees:
        for node in tree.find_all(exp.Column):
            columns += [c for c in _columns_named(schema, ordered, node.name) if c not in columns]
    targets: dict[tuple[str, int], list[Any]] = {}
    periods: dict[tuple[str, int], list[tuple[date, date]]] = {}
    for tree in trees:
        for literal in tree.find_all(exp.Literal):
            _place(schema, ordered, literal, targets, periods)
    return Focus(
        ordered,
        tuple(columns),
        tuple(
            Target(t, c, tuple(dict.fromkeys(vs)), tuple(dict.fromkeys(periods.get((t, c), ()))))
            for (t, c), vs in targets.items()
        ),
        frozenset(v for v in shown if isinstance(v, str)),
    )


def _columns_named(schema: Schema, tables: Sequence[str], name: str) -> list[tuple[str, int]]:
    found = []
    for t in tables:
        index = schema.tables[t].index(name)
        if index is not None:
            found.append((t, index))
    return found


def _comparison(literal: exp.Expr) -> exp.Expr | None:
    node = literal.parent
    while node is not None and not isinstance(node, exp.Query):
        if isinstance(node, _COMPARISONS):
            return node
        if isinstance(node, exp.Like | exp.ILike | exp.Limit | exp.Offset):
            return None
        node = node.parent
    return None


def literal_values(literal: exp.Literal) -> list[Any]:
    """The values a literal stands for, with one unit either side: days for a date, numbers for a number,
    the text itself otherwise."""
    text = literal.this
    if literal.is_string:
        days = days_of_literal(text)
        return list(days) if days else [text]
    try:
        number: int | float = int(text) if literal.is_int else float(Decimal(text))
    except (ValueError, ArithmeticError):
        return []
    return steps_of_number(number)


def _place(
    schema: Schema,
    tables: Sequence[str],
    literal: exp.Literal,
    targets: dict[tuple[str, int], list[Any]],
    periods: dict[tuple[str, int], list[tuple[date, date]]],
) -> None:
    comparison = _comparison(literal)
    if comparison is None:
        return
    values = literal_values(literal)
    if not values:
        return
    named = [c for node in comparison.find_all(exp.Column) for c in _columns_named(schema, tables, node.name)]
    candidates = named or [(t, i) for t in tables for i in range(len(schema.tables[t].columns))]
    for table, column in candidates:
        kind = schema.tables[table].columns[column].kind
        fitting = [
            v
            for v in values
            if fits_kind(v, "date" if kind == "datetime" else kind) or kind == "text" and not isinstance(v, int | float)
        ]
        if fitting and not _is_key(schema, table, column):
            targets.setdefault((table, column), []).extend(fitting)
            period = period_of_literal(literal.this) if literal.is_string else None
            if period is not None and kind in ("date", "datetime", "text"):
                periods.setdefault((table, column), []).append(period)


def _is_key(schema: Schema, table: str, column: int) -> bool:
    """A primary-key column (no edit writes one: keys are made by cloning)."""
    return column in schema.tables[table].key
