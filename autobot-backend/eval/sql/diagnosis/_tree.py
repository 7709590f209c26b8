"""Walking two query trees in parallel: the smallest nodes where they differ, and where a node sits (its
condition, its aggregate, a window's ORDER BY), for :mod:`._clauses` to categorise."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

WRAPPERS = (exp.Round, exp.Cast, exp.TryCast, exp.Floor, exp.Ceil, exp.Trunc, exp.TimeToStr, exp.Anonymous)
"""Functions that change how a value is written, not which value: ROUND, CAST, printf/format, ..."""


def ancestor(node: exp.Expr | None, *types: type[exp.Expr]) -> exp.Expr | None:
    """The nearest of ``node`` and its ancestors of one of ``types``, within its own SELECT."""
    while node is not None and not isinstance(node, exp.Select):
        if isinstance(node, types):
            return node
        node = node.parent
    return None


def is_ancestor(outer: exp.Expr, inner: exp.Expr) -> bool:
    node: exp.Expr | None = inner.parent
    while node is not None:
        if node is outer:
            return True
        node = node.parent
    return False


def under(node: exp.Expr | None, kind: type[exp.Expr], key: str) -> bool:
    """``node`` sits in the ``key`` argument of an ancestor of type ``kind`` (a window's ORDER BY)."""
    while node is not None and node.parent is not None and not isinstance(node, exp.Select):
        if isinstance(node.parent, kind) and node.arg_key == key:
            return True
        if isinstance(node.parent, exp.Order) and isinstance(node.parent.parent, kind) and key == "order":
            return True
        node = node.parent
    return False


def wrapped(outer: object, inner: object) -> bool:
    """``outer`` is ``inner`` wrapped in a function that only changes how a value is written."""
    if not isinstance(outer, WRAPPERS) or not isinstance(inner, exp.Expr):
        return False
    return outer.this == inner or (isinstance(outer.this, WRAPPERS) and wrapped(outer.this, inner))


def diff(a: object, b: object, nested: bool = True) -> Iterator[tuple[exp.Expr | None, exp.Expr | None]]:
    """The smallest differing node pairs of two trees walked in parallel (nested SELECTs skipped)."""
    if isinstance(a, exp.Select) and isinstance(b, exp.Select) and a.parent is not None and nested:
        return
    if isinstance(a, list) or isinstance(b, list):
        la: list[object] = list(a) if isinstance(a, list) else []
        lb: list[object] = list(b) if isinstance(b, list) else []
        if len(la) != len(lb):
            yield _owner(la), _owner(lb)
            return
        for x, y in zip(la, lb):
            yield from diff(x, y, nested)
        return
    if isinstance(a, exp.Expr) and isinstance(b, exp.Expr):
        if type(a) is not type(b):
            yield a, b
            return
        scalars = [k for k in set(a.args) | set(b.args) if not _is_tree(a.args.get(k)) and not _is_tree(b.args.get(k))]
        if any(_scalar(a.args.get(k)) != _scalar(b.args.get(k)) for k in scalars):
            yield a, b
            return
        for k in sorted(set(a.args) | set(b.args)):
            if k not in scalars:
                yield from diff(a.args.get(k), b.args.get(k), nested)
        return
    if _scalar(a) != _scalar(b):
        yield (a if isinstance(a, exp.Expr) else None), (b if isinstance(b, exp.Expr) else None)


def _owner(items: list[object]) -> exp.Expr | None:
    """A list argument's owner, to name in a finding (the list itself is no node)."""
    first = next((x for x in items if isinstance(x, exp.Expr)), None)
    return first.parent if first is not None else None


def _is_tree(v: object) -> bool:
    return isinstance(v, (exp.Expr, list))


def _scalar(v: object) -> object:
    return v.lower() if isinstance(v, str) else (v or None)
