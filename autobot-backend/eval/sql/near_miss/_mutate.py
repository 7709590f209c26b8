"""Plausible mistakes, applied one at a time to a reference query with sqlglot.

Each operator (:mod:`._dates`, :mod:`._operators`) finds the places in the parsed query where its
mistake can be made and returns one mutant per place (and per variant: a status value swapped for
each other value). Mutants are distinct by their SQL; a mutant is named by its ``site``, the piece
of SQL before and after.
"""

from __future__ import annotations

from collections import Counter

import sqlglot

from eval.sql.near_miss import _dates, _operators
from eval.sql.near_miss._mutant import DIALECT, Context, Kind, Mutant, Operator, Periods

OPERATORS: tuple[Operator, ...] = (
    _dates.date_ranges,
    _operators.inner_for_left,
    _dates.drop_conjunct,
    _operators.count_swap,
    _operators.sum_for_avg,
    _operators.distinct,
    _operators.asc_for_desc,
    _operators.limit_off_by_one,
    _operators.money_rounded,
    _operators.status_swap,
    _operators.group_by_dropped,
)
"""In the order their mutants are listed."""


def mutants(question_id: str, sql: str, *, ordered: bool, periods: Periods | None = None) -> list[Mutant]:
    """Every mutant of ``sql`` (SQLite), distinct by SQL, in a stable order."""
    tree = sqlglot.parse_one(sql, read=DIALECT)
    context = Context(ordered, periods or {})
    original = tree.sql(dialect=DIALECT)
    out: dict[str, Mutant] = {}
    names: Counter[tuple[Kind, str]] = Counter()
    for operator in OPERATORS:
        for found in operator(tree, context):
            if found.sql in out or found.sql == original:
                continue
            names[found.kind, found.site] += 1
            n = names[found.kind, found.site]
            name = found.site if n == 1 else f"{found.site} [{n}]"  # the same text in two places
            out[found.sql] = Mutant(question_id, found.kind, name, found.sql, found.equivalent, found.beyond)
    return list(out.values())
