"""Lints on a reference result that make it unfit to grade against (spec 9), as pure functions.

Both readings of the SQL are cached per (query, dialect): a reference is parsed once per run,
not once per rotation. (Numbers the tolerance cannot tell apart: :mod:`eval.sql.oracle.information`.)

* :func:`ordering_plan` and :func:`tie_structure`: an ``ORDER BY`` whose key ties between
  different rows leaves their order to the engine, and a ``LIMIT`` that cuts between two tied
  rows leaves *which* rows are returned to the engine. Neither makes one answer right: the grader
  accepts any tie-break (``eval.sql.rows.Ties``), so the self-check learns the tie groups here.
  The ORDER BY keys of the outermost query are found by parsing the SQL (sqlglot) and located
  among the output columns (``ORDER BY 2``, ``ORDER BY alias``, or an expression equal to a
  projected one). A key that is not an output column (or any key of a query that selects ``*``)
  is appended to the projection of a *probe* query, which also drops the ``LIMIT`` so every row
  tied at the cut shows. Rows that tie on the key but are identical throughout are harmless.
  What cannot be resolved this way (a key that cannot be read, a tie across an OFFSET, SELECT
  DISTINCT with an unprojected key, a probe that fails) stays a defect, with why.
* Orderings below the outermost query, and aggregates whose value depends on an order: see
  :mod:`eval.sql.oracle.inner`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp

from eval.sql.rows import MAX_TIED_ROWS, Ties
from services.readonly.parsed import statement_tree


@dataclass(frozen=True)
class OrderingPlan:
    """How to read the ordering key of a query's rows."""

    keys: tuple[int, ...]
    """Column of each ORDER BY key in the probe's rows: an output column (``>= 0``), or ``-1 - j``
    for the ``j``-th key appended after the output columns (resolve with :meth:`key_columns`)."""
    probe_sql: str | None
    """The query with unprojected keys appended and without its LIMIT (so the rows tied at the
    cut show); None when the query's own rows suffice."""
    limit: int | None
    """The query's LIMIT, when it has a literal one."""
    width: int | None
    """Output columns of the original query (the probe's extra columns come after); None when it
    selects ``*`` and the width is the result's."""
    distinct: bool = False
    """The query is SELECT DISTINCT with appended keys: its rows may not line up with the probe's."""
    short_probe_sql: str | None = None
    """The probe with LIMIT n + 1 instead of none: enough to see whether the cut ties, when the
    whole result is too big to read."""
    offset: int = 0
    """The query's OFFSET: the probe starts at the first row, so the rows returned start here."""

    def key_columns(self, width: int) -> tuple[int, ...]:
        return tuple(k if k >= 0 else width + (-1 - k) for k in self.keys)


def _parse(sql: str, dialect: str) -> exp.Query:
    tree = statement_tree(sql, dialect)
    if not isinstance(tree, exp.Query):
        raise sqlglot.errors.ParseError(f"not a query: {type(tree).__name__}")
    return tree


@lru_cache(maxsize=4096)
def ordering_plan(sql: str, dialect: str) -> OrderingPlan | str | None:
    """The plan for the outermost ORDER BY; None without one; a reason string when it cannot be read."""
    try:
        tree = _parse(sql, dialect)
    except sqlglot.errors.SqlglotError as e:
        return f"the query does not parse to find its ORDER BY ({str(e).splitlines()[0]})"
    order = tree.args.get("order")
    if not order:
        return None
    projections = tree.selects
    star = any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and p.is_star) for p in projections)
    keys: list[int] = []
    extra: list[exp.Expr] = []
    for ordered in order.expressions:
        index = _locate(ordered.this, projections, star)
        if index is None:
            extra.append(ordered.this if star else resolve_key(ordered.this, projections))
            index = -len(extra)
        keys.append(index)
    limit_node = tree.args.get("limit")
    limit_expr = limit_node.expression if isinstance(limit_node, exp.Limit) else None
    limit = int(limit_expr.this) if isinstance(limit_expr, exp.Literal) and limit_expr.is_int else None
    if limit_node is not None and limit is None:
        return "the ordering cut cannot be checked: LIMIT is not a number"
    offset_node = tree.args.get("offset")
    offset_expr = offset_node.expression if isinstance(offset_node, exp.Offset) else None
    offset = int(offset_expr.this) if isinstance(offset_expr, exp.Literal) and offset_expr.is_int else 0
    if offset_node is not None and not (isinstance(offset_expr, exp.Literal) and offset_expr.is_int):
        return "the ordering cut cannot be checked: OFFSET is not a number"
    probe = short = None
    if extra or limit is not None or offset:
        if extra and not isinstance(tree, exp.Select):
            return "the ordering key of a set operation must be an output column"
        probe_tree = tree.copy()
        if extra:
            probe_tree = probe_tree.select(*(e.copy() for e in extra), append=True, copy=False)
        probe_tree.set("offset", None)
        if limit is not None:
            short = probe_tree.limit(offset + limit + 1, copy=True).sql(dialect=dialect)
            probe_tree.set("limit", None)
        probe = probe_tree.sql(dialect=dialect)
    distinct = bool(extra) and bool(tree.args.get("distinct"))
    return OrderingPlan(tuple(keys), probe, limit, None if star else len(projections), distinct, short, offset)


def resolve_key(key: exp.Expr, projections: Sequence[exp.Expr]) -> exp.Expr:
    """``key`` with output positions and output aliases replaced by what they name, so that it can be
    selected beside the output: ``ORDER BY total + 0`` reads ``total`` as the output column, but a
    SELECT list cannot name an alias it defines itself."""
    if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.this) <= len(projections):
        named = projections[int(key.this) - 1]
        return (named.this if isinstance(named, exp.Alias) else named).copy()
    aliases: dict[str, exp.Expr] = {p.alias: p.this for p in projections if isinstance(p, exp.Alias) and p.alias}

    def swap(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Column) and not node.table and node.name in aliases:
            return aliases[node.name].copy()
        return node

    return key.copy().transform(swap)


def _locate(key: exp.Expr, projections: Sequence[exp.Expr], star: bool) -> int | None:
    if isinstance(key, exp.Literal) and key.is_int and (star or 0 < int(key.this) <= len(projections)):
        return int(key.this) - 1
    if star:
        return None  # positions are unknown before the query runs: read the key beside the output
    if isinstance(key, exp.Column) and not key.table:
        for i, p in enumerate(projections):
            if p.alias_or_name == key.name:
                return i
    for i, p in enumerate(projections):
        if (p.this if isinstance(p, exp.Alias) else p) == key:
            return i
    return None


MAX_TIED = MAX_TIED_ROWS
"""Rows of one tie group at the cut that tie-aware grading will weigh (the grader's own limit, one per
mechanism); past this the lint stays."""


def tie_structure(
    rows: Sequence[Sequence[Any]], keys: Sequence[int], width: int, limit: int | None, *, ordered: bool, offset: int = 0
) -> Ties | str | None:
    """What the reference's order leaves open, from the probe's rows (ordered, keys beside the output,
    from the first row: an OFFSET is applied here).

    Returns None when nothing is open (no ties that matter), a :class:`Ties` for the grader, or a
    reason string when the ties cannot be resolved by tie-aware grading.
    """
    key_of = [tuple(row[k] for k in keys) for row in rows]
    if (
        0 < offset < len(rows)
        and key_of[offset - 1] == key_of[offset]
        and len({tuple(r[:width]) for r, k in zip(rows, key_of) if k == key_of[offset]}) > 1
    ):
        return (
            f"row {offset + 1} ties on the ordering key {show_key(key_of[offset])} with a row before OFFSET "
            f"{offset}, so which rows are returned is arbitrary"
        )
    rows, key_of = rows[offset:], key_of[offset:]
    returned = rows[:limit] if limit is not None else rows
    groups: list[int] = []
    for i in range(len(returned)):
        if i and key_of[i] == key_of[i - 1]:
            groups[-1] += 1
        else:
            groups.append(1)
    cut: tuple[tuple[Any, ...], ...] = ()
    if limit is not None and len(rows) > limit > 0 and key_of[limit - 1] == key_of[limit]:
        tied = [tuple(row[:width]) for row, k in zip(rows, key_of) if k == key_of[limit - 1]]
        if len(tied) > MAX_TIED:
            return (
                f"row {limit} ties on the ordering key {show_key(key_of[limit - 1])} with {len(tied)} rows past "
                f"LIMIT {limit}: too many to weigh every choice"
            )
        if len({tuple(r) for r in tied}) > 1:
            cut = tuple(tied)
    if not ordered:
        return Ties(tuple(groups), cut) if cut else None
    pos, open_ = 0, False
    for size in groups:
        members = {tuple(r[:width]) for r in returned[pos : pos + size]}
        open_ = open_ or len(members) > 1
        pos += size
    return Ties(tuple(groups), cut) if open_ or cut else None


def show_key(key: tuple[Any, ...]) -> str:
    text = ", ".join(repr(v) for v in key)
    return f"({text[:80]}{'…' if len(text) > 80 else ''})"
