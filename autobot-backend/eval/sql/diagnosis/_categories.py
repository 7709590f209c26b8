"""What kind of mistake a difference is, by where it sits: the first rule that holds (the methodology's "Why it
is wrong" names them in this order):

1. one side is the other wrapped in ROUND/CAST/a format function: ``value_format`` (in ORDER BY too:
   ordering by the rounded value follows from rounding it);
2. ORDER BY, LIMIT, OFFSET, or a window's ORDER BY: ``ordering`` (an outermost ORDER BY without a
   LIMIT is left out when the question is not ordered: its rows are compared as a multiset);
3. SELECT DISTINCT added or removed: ``distinct``;
4. inside a condition (a comparison, BETWEEN, IN, LIKE, AND/OR/NOT, CASE WHEN's condition): ``filter``,
   wherever the condition is (WHERE, HAVING, a join's ON against a literal, a CASE in the projection),
   unless the condition only compares two aggregates' results and the aggregate itself differs;
5. inside an aggregate: ``aggregation``;
6. WHERE or HAVING: ``filter``; GROUP BY: ``grouping``; a window's PARTITION BY: ``grouping``;
7. FROM and JOINs: ``join`` (:mod:`._clauses` says when two queries' sources differ only in shape, or in
   which tables they read: ``other``, ``schema``); an equality of two tables' columns is a join's condition,
   wherever it is written;
8. the projection: an aggregate added or left out (a column in place of one) is ``aggregation``, anything
   else ``projection``.
"""

from __future__ import annotations

from sqlglot import exp

from eval.sql.diagnosis._tree import ancestor, diff, is_ancestor, under, wrapped
from eval.sql.model.diagnosis import Category, earliest

PREDICATES = (
    exp.Predicate,
    exp.Connector,
    exp.Not,
    exp.Between,
    exp.In,
    exp.Like,
    exp.ILike,
    exp.Is,
    exp.If,
)


def category(clause_key: str, a: exp.Expr | None, b: exp.Expr | None) -> Category:
    node = a if isinstance(a, exp.Expr) else b if isinstance(b, exp.Expr) else None
    if wrapped(a, b) or wrapped(b, a):
        return Category.VALUE_FORMAT
    if clause_key in ("order", "limit", "offset") or under(node, exp.Window, "order"):
        return Category.ORDERING
    if clause_key == "distinct":
        return Category.DISTINCT
    agg = ancestor(node, exp.AggFunc)
    predicate = ancestor(node, *PREDICATES)
    if predicate is not None and (agg is None or is_ancestor(agg, predicate)):
        return Category.FILTER  # a condition, wherever it is, or one inside an aggregate (SUM(CASE WHEN ..))
    if agg is not None:
        return Category.AGGREGATION
    if clause_key in ("where", "having"):
        return Category.FILTER
    if clause_key == "group" or under(node, exp.Window, "partition_by"):
        return Category.GROUPING
    if clause_key in ("joins", "from", "from_"):
        return Category.JOIN
    if clause_key == "expressions" and isinstance(a, exp.AggFunc) != isinstance(b, exp.AggFunc):
        return Category.AGGREGATION  # a column for an aggregate, or the other way: an aggregate added or left out
    return Category.PROJECTION


def quoted(node: exp.Expr | None, category: Category) -> exp.Expr | None:
    """What a line quotes for a differing node: its condition (a filter) or its aggregate, not a bare literal;
    a column, not the name of its table."""
    if isinstance(node, exp.Identifier) and isinstance(node.parent, (exp.Column, exp.Table)):
        node = node.parent
    if category is Category.FILTER:
        return ancestor(node, *PREDICATES) or node
    if category is Category.ORDERING and node is not None and isinstance(node.parent, (exp.Limit, exp.Offset)):
        return node.parent  # `LIMIT 3`, not `3`
    if category is Category.AGGREGATION:
        agg = ancestor(node, exp.AggFunc)
        return agg.parent if isinstance(agg, exp.Distinct) and agg.parent else (agg or node)
    return node


def change_category(key: str, x: exp.Expr, y: exp.Expr, *, nested: bool = True, default: Category) -> Category:
    """The category of putting ``y`` where ``x`` is, in clause ``key`` (``where``, ``expressions``, ...): the
    earliest category of their smallest differing nodes, by the rules above (an equality of two tables' columns
    is a join's condition); ``default`` when they differ only in what no rule names."""
    if linking(x) or linking(y):
        return Category.JOIN
    found = {category(key, p, q) for p, q in diff(x, y, nested)} - {Category.PROJECTION}
    return earliest(found) if found else default


def linking(node: exp.Expr | None) -> bool:
    """``node`` is an equality between columns of two tables: a join's condition, wherever it is written."""
    return (
        isinstance(node, exp.EQ)
        and isinstance(node.this, exp.Column)
        and isinstance(node.expression, exp.Column)
        and node.this.table != node.expression.table
    )
