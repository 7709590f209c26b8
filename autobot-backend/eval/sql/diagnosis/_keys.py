"""Functional dependency through keys: when one SELECT's GROUP BY keys determine another's, so that grouping by
either gives the same groups on every database of the schema (a GROUP BY key the others determine is no
mistake)."""

from __future__ import annotations

from sqlglot import exp

from eval.sql.diagnosis._canonical import conjuncts, parts
from eval.sql.diagnosis._catalog import Catalog


def determined(keys: list[exp.Expr], select: exp.Select, catalog: Catalog) -> bool:
    """Every column of ``keys`` is determined by the GROUP BY keys of ``select``: one of them, equal to one
    through an inner join's equality, or a column of a table one of whose keys (primary or UNIQUE) they
    determine."""
    group = select.args.get("group")
    held = {_t_plain(x) for x in (group.expressions if group is not None else [])}
    equal: list[tuple[str, str]] = []
    for part in [*(select.args.get("joins") or [])]:
        if not part.args.get("side"):
            for e in conjuncts(part.args.get("on")):
                if isinstance(e, exp.EQ) and isinstance(e.this, exp.Column) and isinstance(e.expression, exp.Column):
                    equal.append((_t_plain(e.this), _t_plain(e.expression)))
    tables = {p.this.alias_or_name: (p.this.name if isinstance(p.this, exp.Table) else "") for p in parts(select)}
    changed = True
    while changed:
        changed = False
        for a, b in equal:
            for x, y in ((a, b), (b, a)):
                if x in held and y not in held:
                    held.add(y)
                    changed = True
        for alias, table in tables.items():
            columns = catalog.table(table)
            if columns is None:
                continue
            for key in catalog.keys(table):
                named = {_name(alias, k, len(tables)) for k in key}
                if named <= held and not {_name(alias, c, len(tables)) for c in columns.types} <= held:
                    held |= {_name(alias, c, len(tables)) for c in columns.types}
                    changed = True
    return all(_t_plain(k) in held for k in keys)


def _t_plain(node: exp.Expr) -> str:
    return node.sql()


def _name(alias: str, column: str, sources: int) -> str:
    return column if sources == 1 else f"{alias}.{column}"
