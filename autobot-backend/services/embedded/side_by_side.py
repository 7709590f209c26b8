"""Named periods set side by side: "revenue in 2023 and revenue in 2024", "loans in 2023 versus 2024",
"for each channel, its sales in each of two years", with or without the change; and a series shown
beside the period it is compared with ("... and the quarter before")."""

from __future__ import annotations

import re

from services.embedded.date_columns import range_filter
from services.embedded.dates import DateSpec
from services.embedded.index import Column
from services.embedded.plan import ColRef, Compare, Measure
from services.embedded.read_state import ReadState

_SIDE_BY_SIDE = frozenset({"versus", "vs", "vs.", "alongside"})
_CHANGE_NOUNS = frozenset({"change", "changes", "difference", "growth", "increase", "decrease", "delta", "gap"})
_PCT = frozenset({"percent", "percentage", "%", "pct", "rate"})
_PERIODS_IN_YEAR = {"quarter": 4, "month": 12, "week": 52, "day": 365}


def previous_values(r: ReadState, pending: list[tuple[DateSpec, Column]]) -> bool:
    """A series that shows, beside each period's value, the value of the period it is compared
    with: "... and the <measure> of the <unit> before", "... and <measure> in the same <unit> of <year>"."""
    grains = [d for d in r.plan.dims if d.kind == "grain"]
    if len(grains) != 1 or not r.plan.measures or any(w in _CHANGE_NOUNS for w in r.lows):
        return False
    m = r.plan.measures[0]
    if m.per or m.per_grain or m.share or measure_mentions(r, m) < 2:
        return False
    unit = grains[0].grain_unit
    text = " ".join(r.lows)
    years = [(s, c) for s, c in pending if s.period is not None and s.period.grain == "year"]
    column: Column | None
    if f"same {unit}" in text and len(years) == 2:
        later, column = max(years, key=lambda sc: sc[0].named_period.lo)
        offset = _PERIODS_IN_YEAR.get(unit)
        window = [range_filter(later, column)]
    elif re.search(rf"\b(?:{unit}\s+before|(?:previous|prior|preceding)\s+{unit})\b", text):
        named = [
            (s, c)
            for s, c in pending
            if not (
                s.relative
                and r.lows[s.start : s.end][-2:-1]
                and any(w in ("previous", "prior", "preceding") for w in r.lows[s.start : s.end])
            )
        ]
        column = (named or pending)[0][1] if pending else None
        offset, window = 1, [range_filter(s, c) for s, c in named]  # "the previous month's": the compared one
    else:
        return False
    if offset is None or column is None:
        return False
    r.plan.compare = Compare(
        unit, False, with_measure=True, date=ColRef(column.table, column.name), grain=unit, offset=offset, previous=True
    )
    r.plan.dims = [d for d in r.plan.dims if d.kind != "grain"]
    r.plan.filters.extend(window)
    return True


def period_columns(r: ReadState, pending: list[tuple[DateSpec, Column]]) -> bool:
    if r.cues.same_unit and any(d.kind == "grain" for d in r.plan.dims):
        return False  # "each quarter ... versus the same quarter of 2023": a year-on-year series
    named = [(s, c) for s, c in pending if s.period is not None or s.recurring is not None]
    if len(_ordered(named)) < 2 or len(named) != len(pending) or not r.plan.measures or r.cues.compare_unit:
        return False
    m = r.plan.measures[0]
    if m.per or m.per_grain or m.share or r.plan.rank is not None:
        return False
    if len({c.name for _s, c in named}) != 1:
        return False
    text = " ".join(r.lows)
    side = any(w in _SIDE_BY_SIDE for w in r.lows) or "next to" in text or "side by side" in text
    if not side and measure_mentions(r, m) < 2:
        return False
    specs = _ordered(named)
    grains = {s.period.grain if s.period else s.recurring[0] for s, _c in specs}
    if len(grains) != 1:
        return False
    change = any(w in _CHANGE_NOUNS for w in r.lows)
    pct = change and any(w in _PCT for w in r.lows)
    column = specs[0][1]
    r.plan.compare = Compare(
        "period",
        pct,
        columns=[range_filter(s, c) for s, c in specs],
        change=change,
        date=ColRef(column.table, column.name),
    )
    r.plan.dims = [d for d in r.plan.dims if d.kind != "grain"]
    return True


def measure_mentions(r: ReadState, m: Measure) -> int:
    """How often the question names the measure ("revenue in 2023 and revenue in 2024": twice)."""
    n = 0
    for lk in r.links:
        c = lk.best
        if (
            (m.metric and any(x.kind == "metric" and x.metric == m.metric for x in lk.concepts[:2]))
            or (m.column and c.kind == "column" and (c.table, c.column) == (m.table, m.column))
            or (m.func == "count" and not m.column and c.kind == "table" and c.table == m.table)
        ):
            n += 1
    return n


def _ordered(named):
    """Each period once, in the order of its last mention (a closing "give A, then B" sets the order)."""
    last: dict[object, tuple[int, object]] = {}
    for spec, column in named:
        key = spec.period and (spec.period.lo, spec.period.hi) or spec.recurring
        last[key] = (spec.start, (spec, column))
    return [v for _pos, v in sorted(last.values(), key=lambda x: x[0])]
