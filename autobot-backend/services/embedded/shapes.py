"""Query shapes built from a plain grouped SELECT: the top rows of each group, aggregates of
aggregates ("average order value": a total per order, then the average), counts of the groups
that pass a HAVING ("customers with more than ten orders": how many), and rows with their rank."""

from __future__ import annotations

from sqlglot import exp

from services.embedded.joins import default_date
from services.embedded.plan import Dim, Measure, Plan, Rank
from services.embedded.sqlparts import BuildError, Renderer, dim_alias, lit, measure_alias


def top_per_group(b: Renderer, select: exp.Select, rank: Rank) -> exp.Select:
    """The top ``rank.limit`` rows of each group, by the first measure (ROW_NUMBER per partition)."""
    p = b.p
    names = [e.alias_or_name for e in select.expressions]
    groups = [exp.column(n) for n in names[: rank.partition]]
    key = exp.Ordered(this=exp.column(names[len(p.dims)]), desc=rank.desc, nulls_first=not rank.desc)
    numbered = exp.select(
        *[exp.column(n) for n in names],
        exp.alias_(
            exp.Window(this=exp.RowNumber(), partition_by=groups, order=exp.Order(expressions=[key])), "rank_in_group"
        ),
    ).from_(select.subquery("grouped"))
    outer = exp.select(*[exp.column(n) for n in names]).from_(numbered.subquery("ranked"))
    outer = outer.where(exp.LTE(this=exp.column("rank_in_group"), expression=lit(rank.limit or 1)))
    return outer.order_by(*[exp.Ordered(this=g.copy(), nulls_first=True) for g in groups], key.copy())


def two_level(b: Renderer, m: Measure) -> exp.Expr:
    """Aggregate per row of ``m.per`` (or per period) first, then average (or total) those."""
    p = b.p
    if m.per_grain:
        date = default_date(b.ix, m.table)
        if date is None:
            raise BuildError("no date column to place rows in periods")
        step = Dim("grain", date.table, date.name, m.per_grain)
    else:
        assert m.per is not None  # measured per row of a table, when not per period
        step = Dim("entity", m.per)
    inner = b.of(
        Plan(
            subject=p.subject,
            measures=[Measure(m.func, m.table, m.column, m.metric, m.distinct, since=m.since, raw=m.raw)],
            dims=p.dims + [step],
            filters=p.filters,
            keep_empty=p.keep_empty and not m.per_grain,
            exists=p.exists,
            joins=p.joins | ({m.per} if m.per else set()),
        )
    )
    sub = inner.select()
    sub.set("order", None)
    value_alias = measure_alias(m, 0)
    outer_cols = [exp.column(dim_alias(d, n)) for n, d in enumerate(p.dims)]
    agg = {"avg": exp.Avg, "sum": exp.Sum, "max": exp.Max, "min": exp.Min}[m.outer](this=exp.column(value_alias))
    select = exp.select(*outer_cols, exp.alias_(agg, value_alias)).from_(sub.subquery("per_entity"))
    if outer_cols:
        select = select.group_by(*[c.copy() for c in outer_cols])
    return b.order(select)


def count_of_groups(b: Renderer) -> exp.Expr:
    p = b.p
    inner = b.of(Plan(subject=p.subject, filters=p.filters, having=p.having, exists=p.exists, joins=p.joins))
    sub = inner.select()
    return exp.select(exp.Count(this=exp.Star())).from_(sub.subquery("qualifying"))


def with_rank(b: Renderer, tree: exp.Select) -> exp.Select:
    """The rows with their rank by the first measure (within all but the last grouping), as a column."""
    p = b.p
    names = [e.alias_or_name for e in tree.expressions]
    n = len(p.dims)
    groups = [exp.column(x) for x in names[: n - 1]] if n >= 2 else []
    desc = p.rank.desc if p.rank is not None else True
    rank = exp.Window(
        this=exp.Anonymous(this="RANK", expressions=[]),
        partition_by=groups or None,
        order=exp.Order(expressions=[exp.Ordered(this=exp.column(names[n]), desc=desc, nulls_first=not desc)]),
    )
    shown = names[:n] if p.hide_measures else names
    inner = tree.copy()
    if not p.rank or not p.rank.limit:
        inner.set("order", None)
    outer = exp.select(*[exp.column(x) for x in shown], exp.alias_(rank, "rank_no")).from_(
        inner.subquery("ranked_rows")
    )
    return outer.order_by(*[g.copy() for g in groups], exp.column("rank_no"))


def only_dims(tree: exp.Select, n: int) -> exp.Select:
    """The first ``n`` output columns of ``tree``, its rows and their order unchanged."""
    names = [e.alias_or_name for e in tree.expressions]
    if len(names) <= n or len(set(names)) != len(names):
        return tree
    outer = exp.select(*[exp.column(x) for x in names[:n]]).from_(tree.subquery("ranked"))
    order = tree.args.get("order")
    if order is not None:
        keys = [
            k for k in order.expressions if isinstance(k.this, exp.Column) and not k.this.table and k.this.name in names
        ]
        if keys:
            outer = outer.order_by(*[k.copy() for k in keys])
    return outer
