"""Lints on a reference result that make it unfit to grade against (spec 9), as pure functions.

* :func:`information_lost`: at the question's ``decimals``, a non-zero number that rounds to
  zero, or two distinct numbers of one column that the comparison could not tell apart (they
  differ by less than half a unit in the last place, the tolerance of spec 5). Values that agree
  to nine significant digits are one value: that is float summation noise
  (``100.10000000000001`` and ``100.1``), not two answers.
* :func:`ordering_plan` and :func:`tied_rows`: an ``ORDER BY`` whose key ties between different
  rows leaves their order to the engine, and a ``LIMIT`` that cuts between two tied rows leaves
  *which* rows are returned to the engine. Either way the "right" answer is an accident. The
  ORDER BY keys of the outermost query are found by parsing the SQL (sqlglot) and located among
  the output columns (``ORDER BY 2``, ``ORDER BY alias``, or an expression equal to a projected
  one). A key that is not an output column is appended to the projection of a *probe* query,
  which also asks for one row past the ``LIMIT`` so a tie at the cut shows. Rows that tie on
  the key but are identical throughout are harmless and not reported.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp

_NOISE = Decimal("1e-9")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)


def _exact(v: int | float | Decimal) -> Decimal:
    return v if isinstance(v, Decimal) else Decimal(v)


def _same_value(a: Decimal, b: Decimal) -> bool:
    return abs(a - b) <= _NOISE * max(Decimal(1), abs(a), abs(b))


def information_lost(rows: Sequence[Sequence[Any]], decimals: int) -> str | None:
    """Why ``rows`` lose information at ``decimals`` (first column that does), or None."""
    half = Decimal(5).scaleb(-(decimals + 1))
    width = max((len(r) for r in rows), default=0)
    for col in range(width):
        shown = {_exact(r[col]): r[col] for r in rows if col < len(r) and _is_number(r[col])}
        values = sorted(v for v in shown if v.is_finite())
        for v in values:
            if v and abs(v) < half and not _same_value(v, Decimal(0)):
                return f"column {col + 1}: {shown[v]!r} is not zero but rounds to zero at {decimals} decimals"
        for a, b in zip(values, values[1:]):
            if b - a < half and not _same_value(a, b):
                return (f"column {col + 1}: {shown[a]!r} and {shown[b]!r} are different values that compare "
                        f"equal at {decimals} decimals")
    return None


@dataclass(frozen=True)
class OrderingPlan:
    """How to read the ordering key of a query's rows."""

    keys: tuple[int, ...]
    """Column index of each ORDER BY key, in the rows of ``probe_sql`` (or of the query itself)."""
    probe_sql: str | None
    """The query with unprojected keys appended and LIMIT n+1; None when the rows suffice."""
    limit: int | None
    """The query's LIMIT, when it has a literal one."""
    width: int
    """Output columns of the original query (the probe's extra columns come after)."""


def ordering_plan(sql: str, dialect: str) -> OrderingPlan | str | None:
    """The plan for the outermost ORDER BY; None without one; a reason string when it cannot be read."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError as e:
        return f"the query does not parse to find its ORDER BY ({str(e).splitlines()[0]})"
    order = tree.args.get("order")
    if not order:
        return None
    projections = tree.selects
    if not projections or any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and p.is_star)
                              for p in projections):
        return "the ordering key cannot be located: the query selects *"
    keys: list[int] = []
    extra: list[exp.Expression] = []
    for ordered in order.expressions:
        index = _locate(ordered.this, projections)
        if index is None:
            extra.append(ordered.this)
            index = len(projections) + len(extra) - 1
        keys.append(index)
    limit_node = tree.args.get("limit")
    limit_expr = limit_node.expression if isinstance(limit_node, exp.Limit) else None
    limit = int(limit_expr.this) if isinstance(limit_expr, exp.Literal) and limit_expr.is_int else None
    if limit_node is not None and limit is None:
        return "the ordering cut cannot be checked: LIMIT is not a number"
    probe = None
    if extra or limit is not None:
        if extra and not isinstance(tree, exp.Select):
            return "the ordering key of a set operation must be an output column"
        probe_tree = tree.copy()
        if extra:
            probe_tree = probe_tree.select(*(e.copy() for e in extra), append=True, copy=False)
        if limit is not None:
            probe_tree = probe_tree.limit(limit + 1, copy=False)
        probe = probe_tree.sql(dialect=dialect)
    return OrderingPlan(tuple(keys), probe, limit, len(projections))


def _locate(key: exp.Expression, projections: Sequence[exp.Expression]) -> int | None:
    if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.this) <= len(projections):
        return int(key.this) - 1
    if isinstance(key, exp.Column) and not key.table:
        for i, p in enumerate(projections):
            if p.alias_or_name == key.name:
                return i
    for i, p in enumerate(projections):
        if (p.this if isinstance(p, exp.Alias) else p) == key:
            return i
    return None


def tied_rows(rows: Sequence[Sequence[Any]], keys: Sequence[int], width: int, limit: int | None,
              *, within: bool = True) -> str | None:
    """Rows that tie on ``keys`` but differ: among the returned ones (``within``, when order is
    part of the answer) or across the LIMIT cut (always: it decides which rows are returned)."""
    returned = rows[:limit] if limit is not None else rows
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, row in enumerate(returned if within else ()):
        groups[tuple(row[k] for k in keys)].append(i)
    for key, members in groups.items():
        distinct = {tuple(returned[i][:width]) for i in members}
        if len(distinct) > 1:
            shown = [str(i + 1) for i in members[:4]]
            where = ", ".join(shown[:-1]) + " and " + shown[-1] + (" (and more)" if len(members) > 4 else "")
            return f"rows {where} tie on the ordering key {_show(key)}"
    if limit is not None and len(rows) > limit > 0:
        last, beyond = rows[limit - 1], rows[limit]
        if tuple(last[k] for k in keys) == tuple(beyond[k] for k in keys) and tuple(last[:width]) != tuple(beyond[:width]):
            return (f"row {limit} ties on the ordering key {_show(tuple(last[k] for k in keys))} with the first "
                    f"row past LIMIT {limit}, so which rows are returned is arbitrary")
    return None


def _show(key: tuple) -> str:
    text = ", ".join(repr(v) for v in key)
    return f"({text[:80]}{'…' if len(text) > 80 else ''})"
