"""Small sqlglot builders shared by the SQL renderer: columns, period labels, date windows.

Dates are compared as half-open ranges of ISO literals (portable, and correct on SQLite where
dates are ``YYYY-MM-DD`` text). Period labels are ``YYYY``, ``YYYY-Qn``, ``YYYY-MM``, ``YYYY-WW``
and ``YYYY-MM-DD``. Windows relative to the data ("last 3 months") read the latest date with a
scalar subquery, because only the database knows it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol

from sqlglot import exp

from services.embedded.dates import label as period_text
from services.embedded.index import SchemaIndex
from services.embedded.period_phrases import Relative
from services.embedded.plan import ColRef, Dim, Filter, Measure, Plan


class BuildError(Exception):
    """A plan that cannot become SQL: tables no foreign-key path connects, no date to group by."""


class Renderer(Protocol):
    """What the query shapes (:mod:`.shapes`, :mod:`.periods`) ask of the plan renderer
    (:class:`.build.Builder`): the plan, its pieces as SQL, and a renderer of a derived plan."""

    p: Plan
    ix: SchemaIndex
    dialect: str

    def of(self, plan: Plan) -> Renderer:
        """A renderer of another plan over the same schema."""
        ...

    def build(self) -> exp.Expr: ...

    def select(self, filters: list[Filter] | None = None) -> exp.Select: ...

    def order(self, select: exp.Select) -> exp.Select: ...

    def filter(self, f: Filter) -> exp.Expr: ...

    def grain_ref(self, d: Dim) -> ColRef | None: ...


_FORMATS = {"year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d", "week": "%Y-%W", "weekday": "%w"}


def col(ref: ColRef) -> exp.Column:
    return exp.column(ref.column, table=ref.table, quoted=_needs_quotes(ref.column) or None)


def _needs_quotes(name: str) -> bool:
    return not name.replace("_", "a").isalnum() or name[:1].isdigit()


def table(name: str) -> exp.Table:
    return exp.to_table(name) if not _needs_quotes(name) else exp.Table(this=exp.to_identifier(name, quoted=True))


def lit(value) -> exp.Expr:
    if isinstance(value, bool):
        return exp.true() if value else exp.false()
    if isinstance(value, (int, float)):
        return exp.Literal.number(int(value) if float(value).is_integer() else value)
    if isinstance(value, dt.date):
        return exp.Literal.string(value.isoformat())
    return exp.Literal.string(str(value))


def _fmt(expr: exp.Expr, fmt: str) -> exp.Expr:
    return exp.TimeToStr(this=expr.copy(), format=exp.Literal.string(fmt))


def period_label(expr: exp.Expr, unit: str, is_year_column: bool = False) -> exp.Expr:
    """The label of the ``unit`` period ``expr`` falls in."""
    if unit == "decade":
        year = expr.copy() if is_year_column else exp.cast(_fmt(expr, "%Y"), "INT")
        return exp.Mul(
            this=exp.Paren(this=exp.Div(this=year, expression=exp.Literal.number(10), typed=True)),
            expression=exp.Literal.number(10),
        )
    if is_year_column:
        return expr.copy()
    if unit == "quarter":
        month = exp.cast(_fmt(expr, "%m"), "INT")
        quarter = exp.Div(
            this=exp.Paren(this=exp.Add(this=month, expression=exp.Literal.number(2))),
            expression=exp.Literal.number(3),
            typed=True,
        )
        return exp.Concat(
            expressions=[_fmt(expr, "%Y"), exp.Literal.string("-Q"), exp.cast(quarter, "TEXT")], safe=True
        )
    return _fmt(expr, _FORMATS.get(unit, "%Y-%m"))


def recurring(c: exp.Expr, kind: str, n: int) -> exp.Expr:
    """Rows in a period that recurs: a month or quarter of any year, or the first or last day of
    any month (``n`` = 1), quarter (3) or year (12)."""
    month = exp.cast(_fmt(c, "%m"), "INT")
    if kind == "month":
        return exp.EQ(this=month, expression=exp.Literal.number(n))
    if kind == "quarter":
        return exp.In(this=month, expressions=[exp.Literal.number(3 * n - k) for k in (2, 1, 0)])
    day = (
        c if kind == "first_day" else exp.DateAdd(this=c.copy(), expression=exp.Literal.number(1), unit=exp.var("DAY"))
    )
    cond: exp.Expr = exp.EQ(this=exp.cast(_fmt(day, "%d"), "INT"), expression=exp.Literal.number(1))
    if n > 1:
        shift = 1 if kind == "first_day" else 0
        months = [m for m in range(1, 13) if (m - shift) % n == 0]
        cond = exp.And(
            this=cond, expression=exp.In(this=month.copy(), expressions=[exp.Literal.number(m) for m in months])
        )
    return cond


def latest(ref: ColRef) -> exp.Expr:
    return exp.Subquery(this=exp.select(exp.Max(this=col(ref))).from_(table(ref.table)))


def window_start(ref: ColRef, rel: Relative, dialect: str) -> exp.Expr:
    """First day of the last ``n`` whole ``unit`` periods up to the latest date in the data."""
    top = latest(ref)
    n = rel.n
    if dialect == "sqlite":

        def date(*mods: exp.Expr) -> exp.Expr:
            return exp.Anonymous(this="DATE", expressions=[top.copy(), *mods])

        s = exp.Literal.string
        if rel.unit == "day":
            return date(s(f"-{n - 1} days"))
        if rel.unit == "week":
            return date(s(f"-{7 * n - 1} days"))
        if rel.unit == "month":
            return date(s("start of month"), s(f"-{n - 1} months"))
        if rel.unit == "year":
            return date(s("start of year"), s(f"-{n - 1} years"))
        month = exp.cast(_fmt(top, "%m"), "INT")
        back = exp.Add(
            this=exp.Mod(
                this=exp.Paren(this=exp.Sub(this=month, expression=exp.Literal.number(1))),
                expression=exp.Literal.number(3),
            ),
            expression=exp.Literal.number(3 * (n - 1)),
        )
        modifier = exp.DPipe(this=exp.DPipe(this=s("-"), expression=exp.cast(back, "TEXT")), expression=s(" months"))
        return date(s("start of month"), modifier)
    if rel.unit in ("day", "week"):
        days = n - 1 if rel.unit == "day" else 7 * n - 1
        return exp.DateSub(this=top, expression=exp.Literal.number(days), unit=exp.var("DAY"))
    unit = {"month": "MONTH", "quarter": "QUARTER", "year": "YEAR"}[rel.unit]
    start = exp.DateTrunc(this=top, unit=exp.Literal.string(unit))
    return exp.DateSub(this=start, expression=exp.Literal.number(n - 1), unit=exp.var(unit))


def conjoin(conds: Sequence[exp.Expr | None]) -> exp.Expr | None:
    """The conditions joined by AND; None when there are none."""
    out: exp.Expr | None = None
    for c in conds:
        out = c if out is None else exp.And(this=out, expression=c)
    return out


def dim_alias(d: Dim, n: int) -> str:
    if d.kind == "grain":
        return d.unit or "period"
    return (d.column or d.table or f"d{n}").lower()


def measure_alias(m: Measure, n: int) -> str:
    if m.metric:
        base = m.metric.replace(" ", "_")
    elif m.func == "count":
        base = f"{m.table}_count" if not m.column else f"{m.column}_count"
    else:
        base = f"{m.func}_{m.column}"
    if m.share:
        base = f"{base}_share_pct"
    return base if n == 0 else f"{base}_{n}"


def period_bounds(lo: dt.date | None, hi: dt.date | None, unit: str) -> tuple[str | None, str | None]:
    """Labels of the first and last ``unit`` periods of ``[lo, hi)``."""
    first = period_text(lo, unit) if lo else None
    last = period_text(hi - dt.timedelta(days=1), unit) if hi else None
    return first, last


def swap_column(expr: exp.Expr, old: ColRef, new: ColRef) -> exp.Expr:
    """``expr`` with every reference to the column ``old`` read from ``new`` instead."""
    out = expr.copy()
    for c in list(out.find_all(exp.Column)):
        if c.table == old.table and c.name == old.column:
            c.replace(col(new))
    return out


def reads(cond: exp.Expr, table_name: str) -> bool:
    """Whether ``cond`` reads a column of ``table_name``."""
    return any(c.table == table_name for c in cond.find_all(exp.Column))
