"""Period-over-period comparisons: a series with its change from the previous period, or the
change between two named periods.

The change is computed with ``LAG`` over every period in the data and only then restricted to
the periods asked about, so the first month of "2024" is compared with December 2023 rather
than with nothing. A window that is exactly one period gives one number.
"""

from __future__ import annotations

import dataclasses

from sqlglot import exp

from services.embedded.period_phrases import Period
from services.embedded.plan import ColRef, Compare, Dim, Filter, Plan, Window
from services.embedded.sqlparts import (
    BuildError,
    Renderer,
    conjoin,
    lit,
    period_bounds,
    period_label,
    window_start,
)


def compare_select(b: Renderer, c: Compare) -> exp.Expr:
    """The plan's comparison ``c`` (its ``compare``): periods side by side, two periods, or a series."""
    date = c.date
    if date is None:
        raise BuildError("no date column to compare periods by")
    if c.columns:
        return _columns(b, c)
    if c.periods is not None:
        return _two_periods(b, date, c.periods, c.pct)
    return _series(b, c, date)


def _columns(b: Renderer, c: Compare) -> exp.Expr:
    """The measure once per named period, side by side (then the change, when asked): conditional
    aggregates over the rows of every period, grouped by the question's dimensions."""
    p = b.p
    conds = [b.filter(f) for f in c.columns]
    either = conds[0].copy()
    for cond in conds[1:]:
        either = exp.Or(this=either, expression=cond.copy())
    plan = dataclasses.replace(p, compare=None, rank=None, hide_measures=False)
    inner = b.of(plan)
    base = inner.select()
    base = base.where(exp.Paren(this=either), append=True)
    n = len(p.dims)
    measure = base.expressions[n]
    value = measure.this if isinstance(measure, exp.Alias) else measure
    values = [_only_when(value, cond) for cond in conds]
    outs = list(base.expressions[:n])
    if not c.only_change:
        outs += [exp.alias_(v, f"value_{k + 1}") for k, v in enumerate(values)]
    if c.change:
        # the later period minus the earlier, whatever order they were named in
        by_time = sorted(zip(c.columns, values), key=lambda fv: (fv[0].lo is None, fv[0].lo))
        first, last = by_time[0][1], by_time[-1][1]
        change: exp.Expr = exp.Sub(this=last.copy(), expression=first.copy())
        if c.pct:
            change = exp.Div(
                this=exp.Mul(this=exp.Literal.number("100.0"), expression=exp.Paren(this=change)),
                expression=first.copy(),
            )
        outs.append(exp.alias_(change, "change"))
    base.set("expressions", outs)
    if c.rank is not None:
        base.set("order", None)
        base = base.order_by(exp.Ordered(this=exp.column("change"), desc=c.rank.desc, nulls_first=not c.rank.desc))
        if c.rank.limit:
            base = base.limit(c.rank.limit)
        if p.hide_measures and n:
            base = exp.select(*[exp.column(e.alias_or_name) for e in outs[:n]]).from_(base.subquery("ranked"))
    return base


def _only_when(value: exp.Expr, cond: exp.Expr) -> exp.Expr:
    """``value`` with every outermost aggregate reading only the rows where ``cond`` holds."""
    out = value.copy()
    for agg in list(out.find_all(exp.AggFunc)):
        if agg.find_ancestor(exp.AggFunc) is not None:
            continue
        arg = agg.this
        if isinstance(arg, exp.Distinct):
            inner = arg.expressions[0]
            arg.set("expressions", [exp.Case(ifs=[exp.If(this=cond.copy(), true=inner.copy())])])
        elif isinstance(arg, exp.Star) or arg is None:
            agg.set("this", exp.Case(ifs=[exp.If(this=cond.copy(), true=exp.Literal.number(1))]))
        else:
            agg.set("this", exp.Case(ifs=[exp.If(this=cond.copy(), true=arg.copy())]))
    return out


def _measure_value(b: Renderer, plan: Plan) -> exp.Expr:
    return b.of(plan).build()


def _two_periods(b: Renderer, date: ColRef, periods: tuple[Period, Period], pct: bool) -> exp.Expr:
    values = []
    for period in periods:
        rng = Filter("range", date, lo=period.lo, hi=period.hi)
        plan = dataclasses.replace(b.p, compare=None, dims=[], rank=None, filters=b.p.filters + [rng])
        values.append(exp.Subquery(this=_measure_value(b, plan)))
    first, second = values
    change: exp.Expr = exp.Sub(this=second, expression=first)
    if pct:
        change = exp.Div(
            this=exp.Mul(this=exp.Literal.number("100.0"), expression=exp.Paren(this=change)), expression=first.copy()
        )
    return exp.select(exp.alias_(change, "change"))


def _period_window(window: list[Filter], period: str, unit: str, dialect: str) -> tuple[list[exp.Expr], bool]:
    """Date filters restated on a computed period label, applied after a window function has seen
    the earlier periods; and whether they pin a single period."""
    conds: list[exp.Expr] = []
    single = False
    for f in window:
        if f.kind == "relative":
            assert f.relative is not None  # a relative window has its length
            start = period_label(window_start(f.col, f.relative, dialect), unit)
            conds.append(exp.GTE(this=exp.column(period), expression=start))
            continue
        first, last = period_bounds(f.lo, f.hi, unit)
        if first is not None:
            conds.append(exp.GTE(this=exp.column(period), expression=lit(first)))
        if last is not None:
            conds.append(exp.LTE(this=exp.column(period), expression=lit(last)))
        single = single or (first is not None and first == last)
    return conds, single


def _series(b: Renderer, c: Compare, date: ColRef) -> exp.Expr:
    p = b.p
    window = [f for f in p.filters if f.col == date and f.kind in ("range", "relative")]
    rest = [f for f in p.filters if f not in window]
    other_dims = list(p.dims)
    unit = c.grain or c.unit
    grain = Dim("grain", date.table, date.column, unit)
    base_plan = dataclasses.replace(p, compare=None, rank=None, filters=rest, dims=other_dims + [grain])
    base = b.of(base_plan).select()
    base.set("order", None)
    names = [e.alias_or_name for e in base.expressions]
    dim_names, period, value = names[: len(other_dims)], names[len(other_dims)], names[-1]
    lag_args: list[exp.Expr] = [exp.column(value), *([exp.Literal.number(c.offset)] if c.offset != 1 else [])]
    prev = exp.Window(
        this=exp.Anonymous(this="LAG", expressions=lag_args),
        partition_by=[exp.column(n) for n in dim_names] or None,
        order=exp.Order(expressions=[exp.Ordered(this=exp.column(period), nulls_first=True)]),
    )
    change: exp.Expr = exp.Sub(this=exp.column(value), expression=prev)
    if c.pct:
        change = exp.Div(
            this=exp.Mul(this=exp.Literal.number("100.0"), expression=exp.Paren(this=change)), expression=prev.copy()
        )
    inner = exp.select(
        *[exp.column(n) for n in dim_names], exp.column(period), exp.column(value), exp.alias_(change, "change")
    ).from_(base.subquery("series"))
    conds, scalar = _period_window(window, period, unit, b.dialect)
    shown = [exp.column(n) for n in dim_names]
    if c.previous:
        inner.set("expressions", inner.expressions[:-1] + [exp.alias_(prev.copy(), "previous")])
        outs = shown + [exp.column(period), exp.column(value), exp.column("previous")]
    elif scalar and not dim_names:
        outs = [exp.column("change")]
    elif c.rank is not None and p.hide_measures:
        outs = shown + [exp.column(period)]  # a wh-question over ranked changes: the period itself
    else:
        outs = shown + [exp.column(period)] + ([exp.column(value)] if c.with_measure else []) + [exp.column("change")]
    outer = exp.select(*outs).from_(inner.subquery("changes"))
    where = conjoin(conds)
    if where is not None:
        outer = outer.where(where)
    if c.rank is not None:
        # a period with no previous one has no change: it is not a candidate
        rankable = exp.Not(this=exp.Is(this=exp.column("change"), expression=exp.Null()))
        outer = outer.where(rankable) if where is None else outer.where(rankable, append=True)
        key = exp.Ordered(this=exp.column("change"), desc=c.rank.desc, nulls_first=not c.rank.desc)
        return outer.order_by(key).limit(c.rank.limit or 1)
    return outer.order_by(*[exp.Ordered(this=x.copy(), nulls_first=True) for x in shown + [exp.column(period)]])


def window_select(b: Renderer, w: Window) -> exp.Expr:
    """A per-period series turned into a running total or a moving average/sum.

    A running total starts at the first period asked about (a year-to-date total); a moving
    average reaches back before it, so its first periods average over full windows.
    """
    p = b.p
    grains = [d for d in p.dims if d.kind == "grain"]
    if grains:
        unit = grains[0].grain_unit
        date = ColRef(grains[0].table, grains[0].column_name) if grains[0].table else None
    else:
        unit, date = "month", None
    if date is None:
        ref = b.grain_ref(Dim("grain", "", None, unit))
        if ref is None:
            raise BuildError("no date column to place rows in periods")
        date = ref
    others = [d for d in p.dims if d.kind != "grain"]
    window = [f for f in p.filters if f.col == date and f.kind in ("range", "relative")]
    keep = p.filters if w.kind == "running" else [f for f in p.filters if f not in window]
    base_plan = dataclasses.replace(
        p, window=None, rank=None, filters=keep, dims=others + [Dim("grain", date.table, date.column, unit)]
    )
    base = b.of(base_plan).select()
    base.set("order", None)
    names = [e.alias_or_name for e in base.expressions]
    dims, period, value = names[: len(others)], names[len(others)], names[-1]
    order = exp.Order(expressions=[exp.Ordered(this=exp.column(period), nulls_first=True)])
    if w.kind == "running":
        spec = exp.WindowSpec(kind="ROWS", start="UNBOUNDED", start_side="PRECEDING", end="CURRENT ROW")
        func: exp.Expr = exp.Sum(this=exp.column(value))
    else:
        spec = exp.WindowSpec(
            kind="ROWS", start=exp.Literal.number(max(w.n - 1, 0)), start_side="PRECEDING", end="CURRENT ROW"
        )
        func = (exp.Avg if w.func == "avg" else exp.Sum)(this=exp.column(value))
    over = exp.Window(this=func, partition_by=[exp.column(n) for n in dims] or None, order=order, spec=spec)
    shown = [exp.column(value)] if w.show_value else []
    inner = exp.select(*[exp.column(n) for n in dims], exp.column(period), *shown, exp.alias_(over, w.kind)).from_(
        base.subquery("series")
    )
    outer = exp.select(
        *[exp.column(n) for n in dims], exp.column(period), *[x.copy() for x in shown], exp.column(w.kind)
    ).from_(inner.subquery("windowed"))
    conds = _period_window(window, period, unit, b.dialect)[0] if w.kind == "moving" else []
    where = conjoin(conds)
    if where is not None:
        outer = outer.where(where)
    return outer.order_by(*[exp.Ordered(this=exp.column(n), nulls_first=True) for n in dims + [period]])
