"""Reading numeric thresholds: "more than 15 orders" (a count of related rows), "longer than 1,500 km" (a
column in the unit named), "spent more than 8000" (a measure of each group), "checked in more than 30
times", "in 3 or more distinct months", "a 400-level course"."""

from __future__ import annotations

from services.embedded.index import Column
from services.embedded.joins import is_ancestor, primary_date
from services.embedded.lexicon import parse_number
from services.embedded.plan import ColRef, Filter, Having, Measure
from services.embedded.read_state import ReadState
from services.embedded.vocabulary import DURATION_UNITS, GENERAL_WORDS

_PERIOD_UNITS = {"days": "day", "weeks": "week", "months": "month", "quarters": "quarter", "years": "year"}


def thresholds(r: ReadState) -> None:
    """Each threshold cue with what it bounds: a column (in the unit written after the number), a count of
    the rows named before or after it, a metric or the money of each group, or the value of a column."""
    _hyphen_values(r)
    for th in r.cues.thresholds:
        if _distinct_periods(r, th):
            continue
        unit, factor = _unit_column(r, th)
        if unit is not None and th.number is not None:
            # "longer than 1,500 km": the column kept in that unit ("two hours" of a minutes column: 120)
            r.plan.filters.append(Filter("cmp", ColRef(unit.table, unit.name), op=th.op, number=th.number * factor))
            continue
        times = _times_counted(r, th)
        if times is not None:
            # "members who checked in more than 30 times": how many of the rows the verb names
            r.plan.having.append(Having(Measure("count", times), th.op, th.number))
            continue
        k = r.link_after(th.end, gap=1)
        counted = _counted_after(r, th.end)
        if counted is not None:
            k = counted  # "at least 12 paid (shipped) orders": the rows, not the grade
        if k is None and th.end < len(r.lows) and r.lows[th.end] in ("others", "other"):
            # "customers who referred two or more others": more of the rows named before
            k = next(
                (
                    j
                    for j in range(len(r.links) - 1, -1, -1)
                    if r.links[j].end <= th.start and r.links[j].best.kind == "table"
                ),
                None,
            )
            if k is not None:
                r.plan.having.append(Having(Measure("count", r.links[k].best.table_name), th.op, th.number))
                continue
        before = r.link_before(th.start, gap=2)
        if th.number is None and th.end - th.start > 1 and before is not None and before not in r.used:
            k = before  # "spent more than the average customer": the measure comes before
        if k is None or k in r.used or r.links[k].best.kind == "value":
            k = before
        money = _money_words(r, th)
        if money is not None and (k is None or r.links[k].best.kind == "table"):
            # "orders over 1000 in value", "customers worth more than 5000": the money measure
            r.plan.having.append(Having(money, th.op, th.number))
            continue
        if k is None:
            continue
        c = r.concept(k)
        if c.kind == "metric":
            metric = r.index.metrics[c.metric_name]
            r.used.add(k)
            r.plan.having.append(Having(Measure("metric", metric.base_table, metric=c.metric), th.op, th.number))
        elif c.kind == "table":
            r.used.add(k)
            distinct = r.links[k].start > 0 and r.lows[r.links[k].start - 1] in (
                "different",
                "distinct",
                "unique",
                "separate",
            )
            r.plan.having.append(Having(Measure("count", c.table_name, distinct=distinct), th.op, th.number))
        elif c.kind == "column" and (r.col(c).measurable or r.col(c).kind == "year"):
            if k not in r.used:
                r.used.add(k)
            elif not any(m.column == c.column and m.table == c.table for m in r.plan.measures):
                continue
            r.plan.filters.append(Filter("cmp", ColRef(c.table_name, c.column_name), op=th.op, number=th.number))
        elif (
            c.kind == "column"
            and r.col(c).kind in ("text", "bool")
            and r.links[k].start >= th.end
            and r.links[k].best.kind == "column"
        ):
            # "bought in over two regions": how many different values the rows have
            r.used.add(k)
            r.plan.having.append(Having(Measure("count", c.table_name, c.column_name, distinct=True), th.op, th.number))
        elif c.kind == "column" and r.links[k].start > th.end:
            # "more than 15 orders" where 'orders' linked through a column alternative
            tables = [x.table_name for x in r.links[k].concepts if x.kind == "table"]
            if tables:
                r.used.add(k)
                r.plan.having.append(Having(Measure("count", tables[0]), th.op, th.number))


def _hyphen_values(r: ReadState) -> None:
    """ "a 400-level course", "3-credit courses": the number is the value of the column named after it."""
    for k, lk in enumerate(r.links):
        i = lk.start
        if (
            k in r.used
            or i < 2
            or r.tokens[i - 1].text != "-"
            or r.tokens[i - 2].kind != "number"
            or lk.best.kind != "column"
            or not r.tokens[i - 2].low.replace(".", "", 1).isdigit()
        ):
            continue
        column = r.col(lk.best)
        if column.measurable or column.kind == "year":
            r.used.add(k)
            r.plan.filters.append(
                Filter("cmp", ColRef(column.table, column.name), op="=", number=parse_number(r.tokens[i - 2]))
            )


def _distinct_periods(r: ReadState, th) -> bool:
    """ "X in N or more distinct months": how many periods the related rows fall in."""
    j = th.end + (th.end < len(r.lows) and r.lows[th.end] in ("different", "distinct", "separate"))
    unit = _PERIOD_UNITS.get(r.lows[j]) if j < len(r.lows) else None
    before = r.link_before(th.start, gap=3)
    if unit is None or before is None or r.links[before].best.kind != "table":
        return False
    date = primary_date(r.index, r.links[before].best.table_name)
    if date is None:
        return False
    r.plan.having.append(
        Having(Measure("count", date.table, date.name, distinct=True, per_grain=unit), th.op, th.number)
    )
    return True


def _money_words(r: ReadState, th) -> Measure | None:
    after = r.lows[th.end : th.end + 3]
    before = r.lows[max(0, th.start - 1) : th.start]
    if not (
        after[:2] == ["in", "value"] or after[:3] == ["in", "total", "value"] or "worth" in before or "valued" in before
    ):
        return None
    if not r.index.metrics:
        return None
    metric = next(iter(r.index.metrics.values()))
    return Measure("metric", metric.base_table, metric=metric.name.lower())


def _times_counted(r: ReadState, th) -> str | None:
    """The table whose rows "N times" counts: the one the words just before the threshold name
    (a flag, a value or a table of rows under the entity asked about)."""
    if th.number is None or th.end >= len(r.lows) or r.lows[th.end] not in ("times", "time"):
        return None
    owner = next((lk.best.table for lk in r.links if lk.end <= th.start and lk.best.kind == "table"), None)
    for k in range(len(r.links) - 1, -1, -1):
        lk = r.links[k]
        if lk.end > th.start or th.start - lk.end > 3:
            continue
        table = lk.best.table
        if table and table != owner and (owner is None or is_ancestor(r.index, owner, table)):
            return table
    return None


def _counted_after(r: ReadState, start: int) -> int | None:
    """A table named within a few words after a threshold's number, past participles and values
    that qualify it ("12 paid (shipped) orders"), whose count the threshold is about."""
    for k, lk in enumerate(r.links):
        if lk.start < start or lk.start > start + 4:
            continue
        if lk.best.kind == "table":
            between = range(start, lk.start)
            ok = all(
                r.lows[j] in ("(", ")", ",", "and", "or")
                or r.lows[j].endswith("ed")
                or any(o.start <= j < o.end and o.best.kind == "value" for o in r.links)
                for j in between
            )
            return k if ok and lk.start > start else None
    return None


def _unit_column(r: ReadState, th) -> tuple[Column | None, float]:
    """The one measurable column whose name or comment gives the unit written after a number, and
    what the number is multiplied by to be in the column's unit (units of time convert)."""
    if (
        th.end >= len(r.tokens)
        or r.tokens[th.end].kind != "word"
        or r.lows[th.end] in GENERAL_WORDS
        and r.tokens[th.end].stem not in DURATION_UNITS
    ):
        return None, 1.0
    if any(lk.start <= th.end < lk.end and (lk.best.kind == "table" or lk.score >= 0.8) for lk in r.links):
        return None, 1.0  # "more than 10 orders": a count of rows, not a unit
    unit = r.tokens[th.end].stem
    named = {t for lk in r.links for t in lk.tables()}
    for units in ((unit,), tuple(DURATION_UNITS) if unit in DURATION_UNITS else ()):
        found = [c for c in r.index.columns() if c.measurable and any(u in c.stems for u in units)]
        found = found or [c for c in r.index.columns() if c.measurable and any(u in c.comment_words for u in units)]
        near = [c for c in found if c.table in named] or found
        if len(near) == 1:
            kept = next((u for u in units if u in near[0].stems or u in near[0].comment_words), unit)
            return near[0], DURATION_UNITS[unit] / DURATION_UNITS[kept] if unit in DURATION_UNITS else 1.0
    return None, 1.0
