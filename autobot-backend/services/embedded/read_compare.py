"""Reading comparisons of periods: two named periods and the change between them (for each group
too), a series against the period before or a year before, ranked changes, and the related-row
contrasts of periods ("ordered in 2023 but not in 2024", "whose first order was in 2024")."""

from __future__ import annotations

import re
from itertools import pairwise

from services.embedded.date_columns import date_ref, main_table, range_filter, resolve_dates
from services.embedded.dates import DateSpec
from services.embedded.index import Column
from services.embedded.joins import is_ancestor
from services.embedded.plan import ColRef, Compare, Dim, Exists, Filter, Having, Measure, Rank
from services.embedded.read_state import ReadState
from services.embedded.side_by_side import period_columns, previous_values

_FIRST_LAST = frozenset({"first", "earliest", "last", "latest", "most-recent"})
_PERIODS_IN = {("year", "quarter"): 4, ("year", "month"): 12, ("quarter", "month"): 3, ("year", "week"): 52}
_CHANGE_NOUNS = frozenset(
    """change changes changed growth grew increase increased decrease decreased difference
delta rise rose drop dropped decline declined fall fell gain gained""".split()
)
_CHANGE_STEMS = frozenset({"chang", "grow", "increas", "decreas", "differ", "declin"})
_GRAIN_ORDER = {"day": 0, "days": 0, "week": 1, "month": 2, "months": 2, "quarter": 3, "half": 4, "year": 5}


def compare(r: ReadState) -> None:
    """The periods said, once their date columns are resolved: "first order in 2024" and "in 2023 but
    not in 2024" conditions, periods side by side, a :class:`~.plan.Compare` when a change is asked for,
    or else plain period filters."""
    cues = r.cues
    resolve_dates(r)
    _first_events(r)
    _period_contrast(r)
    pending = r.dated
    if previous_values(r, pending) or period_columns(r, pending):
        return
    if not cues.change or not (
        cues.compare_unit
        or len(pending) >= 2
        or any(s.parts for s, _ in pending)
        or any(d.kind == "grain" for d in r.plan.dims)
    ):
        if not cues.change and _several_periods(r, pending):
            return
        for spec, column in pending:
            r.plan.filters.append(range_filter(spec, column))
        return
    periods = [s for s, _ in pending if s.period is not None]
    parts = [s for s, _ in pending if s.parts]
    if cues.same_unit and len(periods) == 2 and {s.named_period.grain for s in periods} == {"year"}:
        # "monthly revenue in 2024 against the same month in 2023": each month against a year before
        later = max(periods, key=lambda s: s.named_period.lo)
        column = next(c for s, c in pending if s is later)
        r.plan.dims = [d for d in r.plan.dims if d.kind != "grain"]
        r.plan.compare = Compare(
            "year",
            cues.compare_pct,
            with_measure=_measure_listed(r),
            date=ColRef(column.table, column.name),
            grain=cues.same_unit,
            offset=_PERIODS_IN.get(("year", cues.same_unit), 1),
        )
        if r.plan.rank is not None:
            r.plan.compare.rank = Rank(r.plan.rank.desc != cues.change_down, r.plan.rank.limit or 1)
            r.plan.rank = None
        r.plan.filters.append(range_filter(later, column))
        return
    grain_dims = [d for d in r.plan.dims if d.kind == "grain"]
    if (len(periods) == 2 or parts) and not (
        grain_dims and cues.compare_unit != grain_dims[0].unit is not None or grain_dims and _names_previous(r)
    ):
        pair = (
            (periods[0].named_period, periods[1].named_period)
            if len(periods) == 2
            else (parts[0].parts[0], parts[0].parts[1])
        )
        if pair[0].lo > pair[1].lo and any(w in ("from", "since") for w in r.lows) is False:
            pair = (pair[1], pair[0])
        date = pending[0][1]
        groups = [d for d in r.plan.dims if d.kind != "grain"]
        if groups and r.plan.measures:
            # "which category grew the most between 2023 and 2024": each group's change, ranked when asked
            ref = ColRef(date.table, date.name)
            compare = Compare(
                "period",
                cues.compare_pct,
                columns=[Filter("range", ref, lo=p.lo, hi=p.hi) for p in pair],
                change=True,
                date=ref,
                only_change=not _measure_listed(r),
            )
            if r.plan.rank is not None:
                compare.rank = Rank(r.plan.rank.desc != cues.change_down, r.plan.rank.limit)
                r.plan.rank = None
            r.plan.compare = compare
            for spec, column in pending:
                if spec.period is None and not spec.parts:
                    r.plan.filters.append(range_filter(spec, column))
            return
        r.plan.compare = Compare(pair[0].grain, cues.compare_pct, periods=pair, date=ColRef(date.table, date.name))
        for spec, column in pending:
            if spec.period is None and not spec.parts:
                r.plan.filters.append(range_filter(spec, column))
        return
    unit = cues.compare_unit
    if unit is None:
        grains = [d for d in r.plan.dims if d.kind == "grain"]
        if not grains:
            for spec, column in pending:
                r.plan.filters.append(range_filter(spec, column))
            return
        unit = grains[0].grain_unit
    grains = [d for d in r.plan.dims if d.kind == "grain"]
    named = [s for s, _ in pending if s.period is not None and s.period.grain in ("month", "quarter")]
    if not grains and unit == "year" and len(named) == 1 and len(pending) == 1:
        # "year-over-year growth for Q4 2024": that quarter against the same quarter a year before
        date = pending[0][1]
        grain = named[0].named_period.grain
        r.plan.compare = Compare(
            "year",
            cues.compare_pct,
            with_measure=_measure_listed(r),
            date=ColRef(date.table, date.name),
            grain=grain,
            offset=_PERIODS_IN[("year", grain)],
        )
        r.plan.filters.append(range_filter(named[0], date))
        return
    main = main_table(r)
    series_date = ColRef(grains[0].table, grains[0].column_name) if grains and grains[0].table else date_ref(r, main)
    series = grains[0].grain_unit if grains else unit
    offset = _PERIODS_IN.get((unit, series), 1)
    compare = Compare(
        unit, cues.compare_pct, with_measure=_measure_listed(r), date=series_date, grain=series, offset=offset
    )
    if r.plan.rank is not None:
        # "which month had the largest increase": rank the changes, a fall ranks by the most negative
        compare.rank = Rank(r.plan.rank.desc != cues.change_down, r.plan.rank.limit or 1)
        r.plan.rank = None
    r.plan.compare = compare
    r.plan.dims = [d for d in r.plan.dims if d.kind != "grain"]
    for spec, column in _series_window(pending, series):
        r.plan.filters.append(range_filter(spec, column))


def _names_previous(r: ReadState) -> bool:
    """ "the change from the month before", "versus the previous quarter": each period against the last."""
    text = " ".join(r.lows)
    return bool(
        re.search(
            r"\b(?:previous|prior|preceding|last)\s+(?:day|week|month|quarter|year)\b"
            r"|\b(?:day|week|month|quarter|year)\s+before\b|-over-|\bover\s+the\s+previous\b",
            text,
        )
    )


def _measure_listed(r: ReadState) -> bool:
    """Whether the measure is asked for in its own right beside its change ("each month's sales and how
    they moved"), not only as what changes ("the change in revenue", "revenue growth")."""
    changes = [i for i, t in enumerate(r.tokens) if t.low in _CHANGE_NOUNS or t.stem in _CHANGE_STEMS]
    mentions = [
        lk.start for lk in r.links if lk.best.kind == "metric" or lk.best.kind == "column" and r.col(lk.best).measurable
    ] + [a.start for a in r.cues.aggs if a.func == "count"]
    if not mentions:
        return False
    if not changes:
        return True  # "quarterly revenue compared with the same quarter a year earlier": the values and the change
    for m in mentions:
        bound = any(
            0 < m - c <= 5
            and any(w in ("in", "of") for w in r.lows[c:m])
            or 0 < c - m <= 8
            and not any(w in ("and", ",", "with", "plus", "alongside", ";") for w in r.lows[m:c])
            for c in changes
        )
        listed = any(w in ("and", ",", "plus", "with") for w in r.lows[m + 1 : m + 3])
        if not bound and (listed or not any(r.lows[j] in ("which", "what") for j in range(max(0, m - 2), m))):
            return True
    return False


def _first_events(r: ReadState) -> None:
    """ "customers whose first order was in 2024": the earliest related date falls in the period."""
    subject = r.plan.subject
    keep = []
    for spec, column in r.dated:
        k = next(
            (
                k
                for k, lk in enumerate(r.links)
                if lk.best.kind == "table"
                and lk.best.table_name == column.table
                and lk.end <= spec.start
                and lk.start > 0
                and r.lows[lk.start - 1] in _FIRST_LAST
            ),
            None,
        )
        if k is None or subject is None or not is_ancestor(r.index, subject, column.table) or spec.relative:
            keep.append((spec, column))
            continue
        func = "min" if r.lows[r.links[k].start - 1] in ("first", "earliest") else "max"
        r.used.add(k)
        ref = ColRef(column.table, column.name)
        r.plan.having.append(
            Having(Measure(func, column.table, column.name), "range", 0, Filter("range", ref, lo=spec.lo, hi=spec.hi))
        )
    r.dated = keep


def _period_contrast(r: ReadState) -> None:
    """ "customers who ordered in 2023 but not in 2024": related rows in one period, none in the other."""
    subject = r.plan.subject
    if len(r.dated) != 2 or subject is None:
        return
    (a, col_a), (b, col_b) = r.dated
    if col_a.name != col_b.name or col_a.table == subject or not is_ancestor(r.index, subject, col_a.table):
        return
    between = r.lows[a.end : b.start]
    if not any(w in ("not", "never", "no", "none", "nothing", "zero") or w.endswith("n't") for w in between):
        return
    ref = ColRef(col_a.table, col_a.name)
    r.plan.exists.append(Exists(col_a.table, False, [range_filter(a, col_a)]))
    r.plan.exists.append(Exists(col_a.table, True, [range_filter(b, col_b)]))
    for k, lk in enumerate(r.links):
        if lk.best.kind == "table" and lk.best.table == ref.table:
            r.used.add(k)
    r.dated = []


def _several_periods(r: ReadState, pending: list[tuple[DateSpec, Column]]) -> bool:
    """ "revenue by category in 2023 and 2024": both periods, each its own row."""
    specs = [s for s, _ in pending if s.period is not None]
    if len(specs) < 2 or len(specs) != len(pending) or len({s.named_period.grain for s in specs}) != 1:
        return False
    if any(b.start - a.end > 2 for a, b in pairwise(specs)):
        return False
    column = pending[0][1]
    ref = ColRef(column.table, column.name)
    r.plan.filters.append(Filter("anyrange", ref, values=tuple((s.named_period.lo, s.named_period.hi) for s in specs)))
    grain = specs[0].named_period.grain
    if grain in ("year", "quarter", "month", "day") and not any(d.kind == "grain" for d in r.plan.dims):
        r.plan.dims.append(Dim("grain", column.table, column.name, grain))
    return True


def _series_window(pending: list[tuple[DateSpec, Column]], series: str) -> list[tuple[DateSpec, Column]]:
    """The periods that bound a series: a single period of the series' own grain beside a longer one
    ("each month of 2024 ... (January against December 2023)") names a compared period, not the window."""
    longer = [
        (s, c)
        for s, c in pending
        if s.period is None or _GRAIN_ORDER.get(s.period.grain, 9) > _GRAIN_ORDER.get(series, 9)
    ]
    if not longer:
        return pending
    return [(s, c) for s, c in pending if (s, c) in longer or s.period is None]
