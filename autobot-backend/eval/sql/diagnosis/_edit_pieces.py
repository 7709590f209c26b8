"""Reading the pieces of a query an edit takes or replaces: its conditions, their columns and literals, the
conjuncts of a clause, what a SELECT reads."""

from __future__ import annotations

from collections.abc import Iterator

from rapidfuzz import fuzz
from sqlglot import exp

from eval.sql.diagnosis._canonical import parts

SIMILAR = 80
"""rapidfuzz's ratio above which two literals are taken for the same value written differently."""
ATOMIC = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike, exp.In, exp.Between, exp.Is)
"""Conditions an edit replaces whole."""


def atoms(tree: exp.Expr) -> list[exp.Expr]:
    """The query's conditions that an edit replaces whole, outermost ones only, in walk order."""
    out: list[exp.Expr] = []
    for node in tree.walk():
        if isinstance(node, ATOMIC) and not any(isinstance(a, ATOMIC) for a in _ancestors(node)):
            out.append(node)
    return out


def _ancestors(node: exp.Expr) -> Iterator[exp.Expr]:
    parent = node.parent
    while parent is not None and not isinstance(parent, exp.Select):
        yield parent
        parent = parent.parent


def _columns(node: exp.Expr) -> set[str]:
    return {c.name for c in node.find_all(exp.Column) if c.find_ancestor(exp.Select) is node.find_ancestor(exp.Select)}


def _literal_values(node: exp.Expr) -> list[str]:
    return [str(lit.this) for lit in node.find_all(exp.Literal) if lit.is_string]


def _norm(value: str) -> str:
    return "".join(ch for ch in value.lower() if ch.isalnum())


def correspond(p: exp.Expr, q: exp.Expr) -> int:
    """How much two conditions look like one condition written two ways: 2 for a value written alike or
    nearly so, 1 more for the same column; 0 for neither."""
    a, b = [_norm(v) for v in _literal_values(p)], [_norm(v) for v in _literal_values(q)]
    alike = any(x and y and (x == y or fuzz.ratio(x, y) >= SIMILAR) for x in a for y in b)
    return 2 * alike + bool(_columns(p) & _columns(q))


def literals_of(q: exp.Expr, p: exp.Expr) -> exp.Expr | None:
    """``p`` with ``q``'s operator and literals (``p``'s column kept), when both compare one column with literals."""
    if (
        not isinstance(p, ATOMIC)
        or not isinstance(q, ATOMIC)
        or isinstance(p, exp.Between) != isinstance(q, exp.Between)
    ):
        return None
    column = p.this
    if not isinstance(column, exp.Column) or not isinstance(q.this, exp.Column):
        return None
    if any(isinstance(v, exp.Column) for v in q.find_all(exp.Column) if v is not q.this):
        return None  # q compares two columns: there is no literal to take
    out = q.copy()
    out.set("this", column.copy())
    return out


def clause_of(node: exp.Expr) -> str:
    parent: exp.Expr | None = node
    while parent is not None and not isinstance(parent, exp.Select):
        if isinstance(parent, exp.Where):
            return "WHERE"
        if isinstance(parent, exp.Having):
            return "HAVING"
        if isinstance(parent, exp.Join):
            return "JOIN"
        parent = parent.parent
    return "WHERE"


def conj(node: exp.Expr | None) -> list[exp.Expr]:
    if node is None:
        return []
    inner = node.this if isinstance(node, (exp.Where, exp.Having)) else node
    return list(inner.flatten()) if isinstance(inner, exp.And) else [inner]


def remove_conjunct(node: exp.Expr) -> None:
    parent = node.parent
    if isinstance(parent, (exp.Where, exp.Having)):
        parent.pop()
        return
    if isinstance(parent, exp.And):
        other = parent.expression if parent.this is node else parent.this
        parent.replace(other.copy())
        return
    if isinstance(parent, exp.Paren):
        remove_conjunct(parent)


def side(part: exp.Expr) -> str:
    return str(part.args.get("side") or "").upper()


def read_name(part: exp.Expr) -> str:
    t = part.this
    return t.alias_or_name if isinstance(t, exp.Table) else (t.alias_or_name if t is not None else "")


def names(select: exp.Select) -> set[str]:
    return {read_name(p) for p in parts(select)}


def outer(tree: exp.Expr, select: exp.Select) -> exp.Expr:
    """Where a query's ORDER BY and LIMIT sit: the SELECT, or the set operation it is the first part of."""
    return tree if tree.find(exp.Select) is select and not isinstance(tree, exp.Select) else select


def clip(value: str, limit: int = 80) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"
