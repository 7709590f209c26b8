"""Parts of a reference whose result depends on an order the query leaves open, as probes.

The outermost ORDER BY is :func:`eval.sql.oracle.lints.ordering_plan`'s: its ties are graded (any
tie-break is accepted). A tie anywhere else changes the answer in a way no tie-break of the output
rows can say, so the self-check runs each probe here on every rotation and a tie it shows is an
oracle defect with its reason:

* a ``LIMIT`` cut: a subquery's or a set operation's ``ORDER BY ... LIMIT`` cutting inside a tie,
  and a ``LIMIT`` without ``ORDER BY`` anywhere (every row ties). A cut whose choice cannot change
  the answer is not a defect: the rows tied at the cut must differ in a column the rest of the
  query reads (the outermost query's output, or what the enclosing query reads of a derived table
  or CTE: ``SELECT SUM(total) FROM (... ORDER BY total DESC LIMIT 3)`` sums the same values
  whichever of two tied rows is kept);
* a window whose value depends on which of two rows tied on its partition and order keys comes
  first: ``ROW_NUMBER``, ``NTILE``, ``LAG``, ``LEAD``, ``FIRST_VALUE``, ``LAST_VALUE``,
  ``NTH_VALUE``, and an aggregate over a ``ROWS`` frame (a frame of rows counts tied rows apart). A
  ``RANGE`` or ``GROUPS`` frame, and the default one, take a row's peers with it, so ties cannot
  change an aggregate over one; nor can they change ``RANK``, ``DENSE_RANK``, ``PERCENT_RANK``,
  ``CUME_DIST``, or a ``ROWS`` frame spanning the whole partition;
* an aggregate whose value depends on the order it reads its rows in (``GROUP_CONCAT`` and
  ``STRING_AGG``, ``ARRAY_AGG``, ``ANY_VALUE``, ``FIRST``, ``LAST``): a defect when two rows of one
  group that tie on its ``ORDER BY`` (all of them, without one) bring different values.

Each probe runs that part of the query on its own, with its keys and what the choice changes as the
output; a part that cannot run on its own (a correlated subquery) is not checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any, Literal

import sqlglot
from sqlglot import exp

from eval.sql.oracle.lints import resolve_key, show_key
from services.readonly.parsed import statement_tree

ORDER_SENSITIVE = (exp.RowNumber, exp.Ntile, exp.Lag, exp.Lead, exp.FirstValue, exp.LastValue, exp.NthValue)
"""Window functions whose result depends on which of two rows tied on the window's order comes first."""
ORDER_DEPENDENT_AGGREGATES = (exp.GroupConcat, exp.ArrayAgg, exp.AnyValue, exp.First, exp.Last)
"""Aggregates whose value depends on the order of the rows they read (STRING_AGG parses as GROUP_CONCAT)."""

Mode = Literal["cut", "unique", "same_rest"]


@dataclass(frozen=True)
class InnerProbe:
    """A query that reads the keys of an ordering inside the reference, and what a tie there changes."""

    what: str
    """What the keys order, for the defect's text."""
    sql: str
    """Selects the keys, then what the choice among tied rows changes (one row per row ordered)."""
    mode: Mode
    """``cut``: at each of :attr:`cuts`, rows tied on the key must not differ in the rest;
    ``unique``: no two rows may share a key (a window's values move with any tie);
    ``same_rest``: rows sharing a key must not differ in the rest (an aggregate's inputs)."""
    nkeys: int
    cuts: tuple[int, ...] = ()
    """0-based rows whose key must not tie with the next one's unless the rest is the same."""


@lru_cache(maxsize=4096)
def inner_orderings(sql: str, dialect: str) -> tuple[InnerProbe, ...] | str:
    """Probes for every part of ``sql`` that a tie would make arbitrary, or why one is arbitrary as written."""
    try:
        tree = statement_tree(sql, dialect)
    except sqlglot.errors.SqlglotError as e:
        return f"the query does not parse to find its orderings ({str(e).splitlines()[0]})"
    probes: list[InnerProbe] = []
    for node in tree.find_all(exp.Select, exp.SetOperation):
        limit = node.args.get("limit")
        if limit is not None and (node is not tree or not node.args.get("order")):
            probe = _cut_probe(node, tree, dialect)
            if isinstance(probe, str):
                return probe
            if probe is not None:
                probes.append(probe)
        if not isinstance(node, exp.Select):
            continue
        for window in node.find_all(exp.Window):
            if window.find_ancestor(exp.Select) is not node:
                continue
            found = _window_probe(node, tree, window, dialect)
            if isinstance(found, str):
                return found
            if found is not None:
                probes.append(found)
        for agg in node.find_all(*ORDER_DEPENDENT_AGGREGATES):
            if agg.find_ancestor(exp.Select) is node and not isinstance(agg.parent, exp.Window):
                probes.append(_aggregate_probe(node, tree, agg, dialect))
    return tuple(probes)


def _standalone(node: exp.Query, root: exp.Expr) -> exp.Query:
    """``node`` as a query of its own, with the root's CTEs attached so their names resolve."""
    query = node.copy()
    with_ = root.args.get("with") or root.args.get("with_")
    key = "with_" if "with_" in exp.Select.arg_types else "with"
    if node is not root and with_ is not None and not query.args.get(key):
        query.set(key, with_.copy())
    return query


def _literal(node: exp.Expr | None) -> int | None:
    value = node.expression if isinstance(node, exp.Limit | exp.Offset) else node
    return int(value.this) if isinstance(value, exp.Literal) and value.is_int else None


def _read_columns(node: exp.Query, root: exp.Expr) -> set[str] | None:
    """The output columns of ``node`` the rest of the query reads; None for all of them.

    Only a derived table or a CTE is narrowed: elsewhere (the outermost query, ``IN (...)``, a
    scalar subquery, a set operation's operand) every column counts. The reading is conservative:
    an unqualified column of another scope with an output's name counts as read, and so does a
    ``*`` anywhere outside ``node``.
    """
    parent = node.parent
    if isinstance(parent, exp.Subquery) and parent.alias and not isinstance(parent.parent, exp.SetOperation):
        names = {parent.alias}
        if parent.args["alias"].columns:
            return None
    elif isinstance(parent, exp.CTE) and parent.alias:
        if parent.args["alias"].columns:
            return None
        names = {parent.alias}
        names |= {t.alias for t in root.find_all(exp.Table) if t.name == parent.alias and t.alias}
    else:
        return None
    outputs = set(node.named_selects)
    if "*" in outputs:
        return None
    inside = {id(n) for n in node.walk()}
    read: set[str] = set()
    for col in root.find_all(exp.Column):
        if id(col) in inside:
            continue
        if col.is_star and (not col.table or col.table in names):
            return None
        if col.table in names or (not col.table and col.name in outputs):
            read.add(col.name)
    for star in root.find_all(exp.Star):
        if id(star) not in inside and not isinstance(star.parent, exp.Count):
            return None
    return read & outputs


# Complexity (radon E or F), kept as one function: one branch per shape of a LIMIT cut (its literal, offset, order and
# what the enclosing query reads), each ending in its own reason.
def _cut_probe(node: exp.Query, root: exp.Expr, dialect: str) -> InnerProbe | str | None:
    """The probe of a LIMIT cut; None when the enclosing query reads nothing the choice could change."""
    limit, offset = _literal(node.args.get("limit")), _literal(node.args.get("offset")) or 0
    if limit is None:
        return "a LIMIT below the outermost query is not a number, so which rows go on cannot be checked"
    read = _read_columns(node, root)
    order = node.args.get("order")
    edges = ((offset - 1,) if offset else ()) + (offset + limit - 1,)
    part = "set operation" if isinstance(node, exp.SetOperation) else "subquery"
    what = f"the ORDER BY ... LIMIT {limit} of a {part}"
    if order is None:
        what = f"LIMIT {limit} without ORDER BY"
    if isinstance(node, exp.Select):
        projections = node.expressions
        if any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and p.is_star) for p in projections):
            rest: list[exp.Expr] = [exp.Star()]
            read = None
        else:
            keep = [p for p in projections if read is None or p.alias_or_name in read]
            rest = [(p.this if isinstance(p, exp.Alias) else p).copy() for p in keep]
            if node.args.get("distinct"):
                rest = [(p.this if isinstance(p, exp.Alias) else p).copy() for p in projections]
        keys = [resolve_key(o.this, projections) for o in (order.expressions if order else [])]
        query = _standalone(node, root)
        assert isinstance(query, exp.Select)
        query.set("limit", None)
        query.set("offset", None)
        query.set("expressions", [k.as_(f"__k{i}") for i, k in enumerate(keys)] + _aliased(rest))
    else:
        outputs = node.named_selects
        keys = []
        for o in order.expressions if order else []:
            key = o.this
            if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.this) <= len(outputs):
                key = exp.column(outputs[int(key.this) - 1])
            elif not (isinstance(key, exp.Column) and key.name in outputs):
                return f"{what} orders by something other than its output columns, which cannot be checked"
            keys.append(exp.column(key.name))
        body = _standalone(node, root)
        for arg in ("order", "limit", "offset"):
            body.set(arg, None)
        rest = [exp.column(c) for c in outputs if read is None or c in read]
        query = exp.select(*[k.as_(f"__k{i}") for i, k in enumerate(keys)], *_aliased(rest)).from_(body.subquery("__u"))
    if not rest:
        return None
    if order is not None:
        query.set(
            "order",
            exp.Order(
                expressions=[
                    exp.Ordered(
                        this=exp.column(f"__k{i}"), desc=o.args.get("desc"), nulls_first=o.args.get("nulls_first")
                    )
                    for i, o in enumerate(order.expressions)
                ]
            ),
        )
    else:
        query.set("order", None)
    return InnerProbe(what, query.sql(dialect=dialect), "cut", len(keys), edges)


def _aliased(rest: Sequence[exp.Expr]) -> list[exp.Expr]:
    return [r if isinstance(r, exp.Star) else r.as_(f"__r{i}") for i, r in enumerate(rest)]


def _whole_partition(spec: exp.Expr | None) -> bool:
    return (
        isinstance(spec, exp.WindowSpec)
        and str(spec.args.get("start") or "").upper() == "UNBOUNDED"
        and str(spec.args.get("end") or "").upper() == "UNBOUNDED"
    )


def _window_probe(node: exp.Select, root: exp.Expr, window: exp.Window, dialect: str) -> InnerProbe | str | None:
    func = window.this
    spec = window.args.get("spec")
    rows_frame = isinstance(spec, exp.WindowSpec) and str(spec.args.get("kind") or "").upper() == "ROWS"
    name = func.sql_name() if not isinstance(func, exp.Anonymous) else str(func.this).upper()
    if rows_frame and not _whole_partition(spec) and not isinstance(func, ORDER_SENSITIVE):
        what = f"{name} over a ROWS frame, over its partition and order keys"
    elif isinstance(func, ORDER_DEPENDENT_AGGREGATES):
        return _aggregate_probe(node, root, func, dialect, window)
    elif isinstance(func, ORDER_SENSITIVE):
        what = f"{name} over its partition and order keys"
    else:
        return None
    if window.args.get("order") is None:
        return f"{what.split(' over ')[0]} without ORDER BY depends on an arbitrary row order"
    keys = [p.copy() for p in window.args.get("partition_by") or []]
    keys += [o.this.copy() for o in window.args["order"].expressions]
    query = _standalone(node, root)
    for arg in ("order", "limit", "offset", "distinct"):
        query.set(arg, None)
    query.set("expressions", [k.as_(f"__k{i}") for i, k in enumerate(keys)])
    return InnerProbe(what, query.sql(dialect=dialect), "unique", len(keys))


def _aggregate_probe(
    node: exp.Select, root: exp.Expr, agg: exp.Expr, dialect: str, window: exp.Window | None = None
) -> InnerProbe:
    arg = agg.this
    order_keys: list[exp.Expr] = []
    if isinstance(arg, exp.Order):
        order_keys = [o.this for o in arg.expressions]
        arg = arg.this
    if isinstance(arg, exp.Distinct):
        arg = arg.expressions[0] if arg.expressions else None
    query = _standalone(node, root)
    for key in ("order", "limit", "offset", "distinct"):
        query.set(key, None)
    if window is not None:
        groups = list(window.args.get("partition_by") or [])
        order_keys += [o.this for o in (window.args.get("order") or exp.Order()).expressions]
    else:
        group = node.args.get("group")
        groups = [resolve_key(g, node.expressions) for g in (group.expressions if group else [])]
        query.set("group", None)
        query.set("having", None)
    keys = [k.copy() for k in groups + order_keys]
    values = [arg.copy()] if arg is not None else []
    query.set("expressions", [k.as_(f"__k{i}") for i, k in enumerate(keys)] + _aliased(values))
    how = "within each tie of its ORDER BY" if order_keys else "without ORDER BY"
    return InnerProbe(
        f"{agg.sql_name() if isinstance(agg, exp.Func) else agg.key.upper()} {how}",
        query.sql(dialect=dialect),
        "same_rest",
        len(keys),
    )


def inner_tie(probe: InnerProbe, rows: Sequence[Sequence[Any]]) -> str | None:
    """Why the probe's rows show a tie that makes the reference's answer arbitrary, or None."""
    n = probe.nkeys
    keys = [tuple(_key(v) for v in row[:n]) for row in rows]
    rests = [tuple(_key(v) for v in row[n:]) for row in rows]
    if probe.mode == "cut":
        for i in probe.cuts:
            if 0 <= i < len(keys) - 1 and keys[i] == keys[i + 1]:
                tied = {r for k, r in zip(keys, rests) if k == keys[i]}
                if len(tied) > 1:
                    where = f" on {show_key(keys[i])}" if n else ""
                    return (
                        f"{probe.what} cuts inside a tie{where} (rows {i + 1} and {i + 2}) among rows that differ "
                        "in what the query reads, so which rows go on is arbitrary"
                    )
        return None
    seen: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for key, rest in zip(keys, rests):
        if key in seen and (probe.mode == "unique" or seen[key] != rest):
            if probe.mode == "unique":
                return f"{probe.what} tie on {show_key(key)}, so its values are arbitrary"
            group = f" {show_key(key)}" if n else ""
            return (
                f"{probe.what}: rows of one group{group} bring different values ({show_key(seen[key])} and "
                f"{show_key(rest)}), so the order it reads them in is arbitrary"
            )
        seen.setdefault(key, rest)
    return None


def _key(value: Any) -> Any:
    """A key for tie detection: exact, but blind to float noise in the last digits."""
    if isinstance(value, float | Decimal) and not isinstance(value, bool):
        return round(float(value), 9) + 0.0
    return value
