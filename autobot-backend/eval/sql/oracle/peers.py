"""Which of a reference's rows tie on its ORDER BY, as the engine itself decides it.

Two rows tie when the engine cannot order them: their keys are equal under the ORDER BY's
collation (NOCASE makes 'apple' and 'Apple' one key; RTRIM, a column declared ``COLLATE
NOCASE``, DuckDB's ``NOACCENT`` and PostgreSQL's collations likewise), which Python's ``==`` on
the values does not know. So the engine is asked: the reference runs as a *peer probe*, with each
ORDER BY key appended to its output (``__key0`` ...) and, around it, each key's
``DENSE_RANK() OVER (ORDER BY key)`` (``__peer0`` ...), the window ordering by the key exactly as
the ORDER BY does (direction, NULLS, collation, which the engines carry through the subquery).
Rows with equal ranks on every key are peers: the engine's own definition of a tie. The probe
has no LIMIT or OFFSET (every row tied at a cut shows) and orders by the ranks, which is the
reference's order.

Keys also tie when they are the same number up to float noise (:func:`same_number`: nine
significant digits, the rule the self-check's lints use): ``0.6000000000000001`` and ``0.6`` are
one value summed in two orders, and the engine's order between them is an accident. Such keys are
merged between neighbouring rows only.

Only text has a collation: where every key is an output column and none holds text, the caller
reads the ties from the values without a probe. Where the probe cannot be written (a query sqlglot
cannot read, a set operation whose key is not a named output column) or does not run, the caller
keeps that plain reading too (Python's equality of the key values, NaN equal to NaN, plus the noise
rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp

from services.readonly.parsed import statement_tree

NOISE = 1e-9
"""Numbers this close, relative to ``max(1, |a|, |b|)``, are one key (the lints' nine significant digits)."""


@dataclass(frozen=True)
class PeerProbe:
    """A query that returns the reference's rows with each ORDER BY key and its engine rank beside them."""

    sql: str
    """The rows, in the reference's order: its output columns, then ``__key0 ..``, then ``__peer0 ..``."""
    short_sql: str | None
    """The same with ``LIMIT offset + limit + 1``: enough to see whether the cut ties, when the whole
    result is too big to read; None without a LIMIT."""
    keys: int
    """How many ORDER BY keys (so the row's last ``2 * keys`` values are keys, then ranks)."""


@lru_cache(maxsize=4096)
def peer_probe(sql: str, dialect: str) -> PeerProbe | None:
    """The peer probe of a query with ORDER BY, or None when it cannot be written."""
    try:
        tree = statement_tree(sql, dialect)
    except sqlglot.errors.SqlglotError:
        return None
    if not isinstance(tree, exp.Query) or not tree.args.get("order"):
        return None
    orders = list(tree.args["order"].expressions)
    limit = _literal(tree.args.get("limit"))
    offset = _literal(tree.args.get("offset")) or 0
    inner = tree.copy()
    for arg in ("limit", "offset"):
        inner.set(arg, None)
    if isinstance(inner, exp.Select):
        keys = [_resolve(o.this, inner.expressions) for o in orders]
        if any(k is None for k in keys):
            return None
        inner = inner.select(*(k.as_(f"__key{n}") for n, k in enumerate(keys) if k is not None), copy=False)
    else:
        names = inner.named_selects
        columns = [_output_name(o.this, names) for o in orders]
        if any(c is None for c in columns):
            return None
        inner.set("order", None)
        inner = exp.select(
            "*", *(exp.column(c, table="__s").as_(f"__key{n}") for n, c in enumerate(columns) if c)
        ).from_(inner.subquery("__s"))
    ranks = [
        exp.Window(
            this=exp.Anonymous(this="DENSE_RANK"),
            order=exp.Order(expressions=[_ordered_like(o, exp.column(f"__key{n}", table="__p"))]),
        ).as_(f"__peer{n}")
        for n, o in enumerate(orders)
    ]
    probe = exp.select(exp.Star(), *ranks).from_(inner.subquery("__p"))
    probe = probe.order_by(*(exp.column(f"__peer{n}") for n in range(len(orders))), copy=False)
    short = probe.limit(offset + limit + 1) if limit is not None else None
    return PeerProbe(probe.sql(dialect=dialect), None if short is None else short.sql(dialect=dialect), len(orders))


def _literal(node: exp.Expr | None) -> int | None:
    value = node.expression if isinstance(node, exp.Limit | exp.Offset) else None
    return int(value.this) if isinstance(value, exp.Literal) and value.is_int else None


def _resolve(key: exp.Expr, projections: Sequence[exp.Expr]) -> exp.Expr | None:
    """The key as an expression of the SELECT's own scope: ``ORDER BY 2`` and ``ORDER BY alias`` are
    the projected expression (a window cannot read an alias or a position)."""
    if isinstance(key, exp.Literal) and key.is_int:
        index = int(key.this) - 1
        if not 0 <= index < len(projections) or isinstance(projections[index], exp.Star):
            return None
        chosen = projections[index]
        return (chosen.this if isinstance(chosen, exp.Alias) else chosen).copy()
    if isinstance(key, exp.Column) and not key.table:
        for p in projections:
            if isinstance(p, exp.Alias) and p.alias == key.name:
                aliased: exp.Expr = p.this
                return aliased.copy()
    return key.copy()


def _output_name(key: exp.Expr, names: Sequence[str]) -> str | None:
    """A set operation's key as the name of one of its output columns."""
    if isinstance(key, exp.Literal) and key.is_int:
        index = int(key.this) - 1
        return names[index] if 0 <= index < len(names) and names[index] else None
    if isinstance(key, exp.Column) and not key.table and key.name in names:
        return key.name
    return None


def _ordered_like(order: exp.Ordered, key: exp.Expr) -> exp.Ordered:
    return exp.Ordered(this=key, desc=order.args.get("desc"), nulls_first=order.args.get("nulls_first"))


def same_number(a: Any, b: Any) -> bool:
    """Whether two key values are the same number up to float noise (never a boolean).

    Example:
        >>> same_number(0.1 + 0.2, 0.3), same_number(0.6, 0.61), same_number(True, 1)
        (True, False, False)
    """
    numbers = (int, float, Decimal)
    if not (isinstance(a, numbers) and isinstance(b, numbers)) or isinstance(a, bool) or isinstance(b, bool):
        return False
    try:
        x, y = float(a), float(b)
    except (OverflowError, ValueError):
        return False
    return abs(x - y) <= NOISE * max(1.0, abs(x), abs(y))


def peer_groups(rows: Sequence[Sequence[Any]], keys: Sequence[int], ranks: Sequence[int] | None) -> list[int]:
    """A group number per row (rows in the reference's order): a row joins the previous row's group
    when, on every key, the two are the engine's peers (equal ranks; without ranks, equal values)
    or the same number up to noise."""
    groups: list[int] = []
    for n, row in enumerate(rows):
        if n:
            before = rows[n - 1]
            tied = all(
                (before[r] == row[r] if ranks is not None else _equal(before[k], row[k]))
                or same_number(before[k], row[k])
                for k, r in zip(keys, ranks if ranks is not None else keys)
            )
            if tied:
                groups.append(groups[-1])
                continue
        groups.append(n)
    return groups


def _equal(a: Any, b: Any) -> bool:
    """Python's equality, except that NaN is NaN (engines sort NaNs as one key)."""
    return bool(a == b) or (a != a and b != b)
