"""Mistakes at the edges of a date range, and a WHERE condition left out.

A bound is a string literal that spells a day (``YYYY-MM-DD``) or a month (``YYYY-MM``), compared
with a column by BETWEEN or by ``<``, ``<=``, ``>``, ``>=``. Where the fixture's period is known,
each mutant also says when only rows outside that period could show it (``beyond``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta

from sqlglot import exp

from eval.sql.near_miss._mutant import DIALECT, Context, Found, Kind, Periods, apply, becomes, short, site

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MONTH = re.compile(r"^\d{4}-\d{2}$")


def _period(node: exp.Expr) -> str | None:
    if isinstance(node, exp.Literal) and node.is_string and (_DAY.match(node.this) or _MONTH.match(node.this)):
        return str(node.this)
    return None


def _next(period: str) -> str:
    """The next day (``YYYY-MM-DD``) or month (``YYYY-MM``)."""
    if _MONTH.match(period):
        year, month = map(int, period.split("-"))
        return f"{year + month // 12:04d}-{month % 12 + 1:02d}"
    return (date.fromisoformat(period) + timedelta(days=1)).isoformat()


def date_ranges(tree: exp.Expr, context: Context) -> Iterator[Found]:
    for node in list(tree.walk()):
        if isinstance(node, exp.Between) and _period(node.args["low"]) and _period(node.args["high"]):
            col, low, high = node.this, node.args["low"], node.args["high"]
            held = _held(col, tree, context.periods, len(high.this))
            beyond = {
                Kind.INCLUSIVE_END: _after(high.this, held),
                Kind.EXCLUSIVE_START: _before(low.this, held),
                Kind.BETWEEN_HALF_OPEN: None,
            }
            half_open = exp.and_(exp.GTE(this=col, expression=low), exp.LT(this=col, expression=high))
            late_start = exp.and_(exp.GT(this=col, expression=low), exp.LTE(this=col, expression=high))
            variants = [
                (Kind.BETWEEN_HALF_OPEN, exp.paren(half_open)),
                (Kind.INCLUSIVE_END, exp.Between(this=col, low=low, high=exp.Literal.string(_next(high.this)))),
                (Kind.EXCLUSIVE_START, exp.paren(late_start)),
            ]
            for kind, replacement in variants:
                sql, after = apply(tree, node, becomes(replacement))
                yield Found(kind, site(node, after), sql, beyond=beyond[kind])
        elif isinstance(node, exp.GTE | exp.GT | exp.LTE | exp.LT):
            yield from _bound(tree, node, context.periods)


def _held(column: exp.Expr, tree: exp.Expr, periods: Periods, width: int) -> tuple[str, str] | None:
    """The first and last day (or month, ``width`` 7) the fixture holds for ``column``: a date column, or
    an alias of ``strftime('%Y-%m', <date column>)`` in the query."""
    if not isinstance(column, exp.Column):
        return None
    span = periods.get(column.name)
    if span is None:
        for alias in tree.find_all(exp.Alias):
            inner = alias.this
            source = inner.find(exp.Column) if isinstance(inner, exp.TimeToStr) else None
            fmt = inner.args.get("format") if isinstance(inner, exp.TimeToStr) else None
            if (
                alias.alias == column.name
                and source is not None
                and source.name in periods
                and isinstance(fmt, exp.Literal)
                and fmt.this == "%Y-%m"
            ):
                span = periods[source.name]
    return None if span is None else (span[0][:width], span[1][:width])


def _after(end: str, held: tuple[str, str] | None) -> str | None:
    if held is None or end < held[1]:
        return None
    return f"the range already ends on or after {held[1]}, the last the fixture holds; the next period has no rows"


def _before(start: str, held: tuple[str, str] | None) -> str | None:
    if held is None or start >= held[0]:
        return None
    return f"the range starts before {held[0]}, the first the fixture holds; its first period has no rows"


def _covers(node: exp.Expr, tree: exp.Expr, periods: Periods) -> str | None:
    """Why a date condition keeps every row the fixture holds (so leaving it out changes nothing there), or None."""
    if not (isinstance(node, exp.Between) and _period(node.args["low"]) and _period(node.args["high"])):
        return None
    low, high = node.args["low"].this, node.args["high"].this
    held = _held(node.this, tree, periods, len(high))
    if held is None or low > held[0] or high < held[1]:
        return None
    return f"the condition keeps every row the fixture holds ({held[0]} to {held[1]})"


def _bound(tree: exp.Expr, node: exp.Binary, periods: Periods) -> Iterator[Found]:
    left, right = node.this, node.expression
    flipped = _period(left) is not None
    literal = left if flipped else right
    if _period(literal) is None or _period(right if flipped else left) is not None:
        return
    # Normalise to "column OP literal"; a literal on the left reverses the operator.
    op = type(node)
    if flipped:
        op = {exp.GTE: exp.LTE, exp.GT: exp.LT, exp.LTE: exp.GTE, exp.LT: exp.GT}[op]
    col = right if flipped else left
    nxt = exp.Literal.string(_next(literal.this))
    change: dict[type, tuple[Kind, exp.Expr]] = {
        exp.GTE: (Kind.EXCLUSIVE_START, exp.GT(this=col.copy(), expression=literal.copy())),
        exp.GT: (Kind.EXCLUSIVE_START, exp.GT(this=col.copy(), expression=nxt)),
        exp.LT: (Kind.INCLUSIVE_END, exp.LTE(this=col.copy(), expression=literal.copy())),
        exp.LTE: (Kind.INCLUSIVE_END, exp.LTE(this=col.copy(), expression=nxt)),
    }
    kind, replacement = change[op]
    sql, after = apply(tree, node, becomes(replacement))
    held = _held(col, tree, periods, len(literal.this))
    if kind is Kind.EXCLUSIVE_START:
        beyond = _before(literal.this, held)
    elif op is exp.LTE or (held is not None and literal.this > held[1]):  # "<= D" gains the period after D
        beyond = _after(literal.this, held)
    else:  # "< D" gains D itself, which the fixture holds
        beyond = None
    yield Found(kind, site(node, after), sql, beyond=beyond)


def drop_conjunct(tree: exp.Expr, context: Context) -> Iterator[Found]:
    for where in list(tree.find_all(exp.Where)):
        conjuncts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
        for i, dropped in enumerate(conjuncts):
            rest = [c.copy() for j, c in enumerate(conjuncts) if j != i]

            def keep(n: exp.Expr, rest: list[exp.Expr] = rest) -> exp.Expr | None:
                return exp.Where(this=exp.and_(*rest)) if rest else None

            sql, _ = apply(tree, where, keep)
            name = f"{short(dropped.sql(dialect=DIALECT))} -> (left out)"
            yield Found(Kind.DROP_CONJUNCT, name, sql, beyond=_covers(dropped, tree, context.periods))
