"""WHERE conditions: each kind of :class:`~.plan.Filter` as a sqlglot condition, and (NOT) EXISTS
subqueries for related rows.

Dates are compared as half-open ranges of ISO literals; a year kept as a number is compared with
whole years.
"""

from __future__ import annotations

from sqlglot import exp

from services.embedded.index import SchemaIndex
from services.embedded.joins import join_tree, path
from services.embedded.plan import ColRef, Exists, Filter
from services.embedded.sqlparts import BuildError, col, conjoin, lit, recurring, table, window_start


def condition(f: Filter, index: SchemaIndex, subject: str | None) -> exp.Expr:
    """The WHERE condition a filter stands for (``subject``: the rows an EXISTS filter relates to)."""
    c = col(f.col)
    if f.kind == "exists":
        return exists_condition(Exists(f.values[0], f.op == "not", list(f.values[1:])), index, subject)
    column = index.column(f.col.table, f.col.column)
    if f.kind in ("eq", "ne"):
        e: exp.Expr
        if len(f.values) == 1:
            e = exp.EQ(this=c, expression=lit(f.values[0]))
            return exp.NEQ(this=c, expression=lit(f.values[0])) if f.kind == "ne" else e
        e = exp.In(this=c, expressions=[lit(v) for v in f.values])
        return exp.Not(this=e) if f.kind == "ne" else e
    if f.kind == "cmp":
        ops = {">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE, "=": exp.EQ}
        assert f.op is not None  # a comparison has its operator
        if f.number is None:  # "priced above the average": the column's own average
            average = exp.select(exp.Avg(this=col(f.col))).from_(table(f.col.table)).subquery()
            return ops[f.op](this=c, expression=average)
        return ops[f.op](this=c, expression=lit(f.number))
    if f.kind == "colcmp":
        ops = {">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE, "=": exp.EQ}
        assert f.op is not None  # a comparison has its operator
        return ops[f.op](this=c, expression=col(f.values[0]))
    if f.kind == "null":
        return exp.Is(this=c, expression=exp.Null())
    if f.kind == "notnull":
        return exp.Not(this=exp.Is(this=c, expression=exp.Null()))
    if f.kind == "bool":
        return exp.EQ(this=c, expression=lit(bool(f.values[0])))
    if f.kind == "relative":
        assert f.relative is not None  # a relative window has its length
        return exp.GTE(this=c, expression=window_start(f.col, f.relative, index.dialect))
    if f.kind == "recurring":
        return recurring(c, *f.values)
    if f.kind == "anyrange":
        parts = [condition(Filter("range", f.col, lo=lo, hi=hi), index, subject) for lo, hi in f.values]
        out = parts[0]
        for part in parts[1:]:
            out = exp.Or(this=out, expression=part)
        return exp.Paren(this=out) if len(parts) > 1 else out
    conds: list[exp.Expr] = []
    if column.kind == "year":
        if f.lo is not None:
            conds.append(exp.GTE(this=c, expression=lit(f.lo.year)))
        if f.hi is not None:
            hi_year = f.hi.year if (f.hi.month, f.hi.day) == (1, 1) else f.hi.year + 1
            conds.append(exp.LT(this=c, expression=lit(hi_year)))
    else:
        if f.lo is not None:
            conds.append(exp.GTE(this=c, expression=lit(f.lo)))
        if f.hi is not None:
            conds.append(exp.LT(this=c, expression=lit(f.hi)))
    return conjoin(conds) or exp.true()


def exists_condition(e: Exists, index: SchemaIndex, subject: str | None) -> exp.Expr:
    """(NOT) EXISTS a row of ``e.table`` related to the ``subject`` row, with ``e``'s conditions."""
    route = path(index, e.table, subject)
    if not route:  # no path, or the subject's own table
        raise BuildError(f"{e.table} is not related to {subject}")
    inner = exp.select(exp.Literal.number(1)).from_(table(e.table))
    inside = [edge for edge in route[:-1]]
    extra = join_tree(index, e.table, list(e.also)) or []
    joined = {e.table} | {edge.other for edge in inside}
    for edge in inside + [x for x in extra if x.other not in joined and x.other != subject]:
        on = conjoin(
            [
                exp.EQ(this=col(ColRef(edge.table, a)), expression=col(ColRef(edge.other, b)))
                for a, b in zip(edge.columns, edge.other_columns)
            ]
        )
        inner = inner.join(table(edge.other), on=on)
    last = route[-1]
    conds: list[exp.Expr] = [
        exp.EQ(this=col(ColRef(last.table, a)), expression=col(ColRef(last.other, b)))
        for a, b in zip(last.columns, last.other_columns)
    ]
    conds += [condition(f, index, subject) for f in e.filters]
    inner = inner.where(conjoin(conds))
    ex = exp.Exists(this=inner)
    return exp.Not(this=ex) if e.negate else ex
