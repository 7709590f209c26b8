"""Reading date phrases: each period with the date column named right before it, if any (the column is
resolved by :func:`~.date_columns.resolve_dates` once the measure is known), and the date a grain cue
groups by."""

from __future__ import annotations

from services.embedded.dates import DateSpec
from services.embedded.index import Column
from services.embedded.joins import primary_date
from services.embedded.read_state import ReadState


def dates(r: ReadState) -> None:
    """Each period said, left in ``pending`` with the date column named right before it, if any (a period
    said twice is kept where it was said last); and the date column a grain cue names, for its grouping."""
    r.pending = []
    r.date_hints = {}

    def key(spec: DateSpec) -> tuple:
        return spec.lo, spec.hi, spec.relative, spec.recurring

    for n, spec in enumerate(r.cues.dates):
        if any(
            key(later) == key(spec) and _named_date_at(r, later.start) in (None, _named_date_at(r, spec.start))
            for later in r.cues.dates[n + 1 :]
        ):
            continue  # "in the 1990s, i.e. 1990 to 1999": one period said twice, kept where last said
        r.table_hint = None
        column = _date_column_before(r, spec.start)
        after = r.link_after(spec.end, gap=0)
        if column is None and after is not None and r.links[after].best.kind == "table":
            column = primary_date(r.index, r.links[after].best.table_name)  # "March 2024 flights": their date
        r.pending.append((spec, column))
        if r.table_hint:
            r.date_hints[len(r.pending) - 1] = r.table_hint
    for _unit, start, _end in r.cues.grains:
        column = _date_column_before(r, start)
        for d in r.plan.dims:
            if d.kind == "grain" and not d.table:
                if column is not None:
                    d.table, d.column = column.table, column.name
                break


def _date_column_before(r: ReadState, start: int) -> Column | None:
    k = r.link_before(start, gap=2)
    if k is None:
        return None
    lk = r.links[k]
    if lk.best.kind == "table":
        r.table_hint = lk.best.table
        return None
    for c in lk.concepts:
        if c.kind == "column" and r.col(c).kind in ("date", "year") and c.strength >= 0.5:
            r.used.add(k)
            return r.col(c)
    if lk.best.kind == "column" and r.col(lk.best).kind in ("date", "year") and lk.score >= 0.5:
        r.used.add(k)
        return r.col(lk.best)
    return None


def _named_date_at(r: ReadState, start: int) -> tuple[str, str] | None:
    """The date column named right before a period, without claiming it ("joined in 2022")."""
    k = r.link_before(start, gap=2)
    if k is None:
        return None
    c = next(
        (
            c
            for c in r.links[k].concepts
            if c.kind == "column" and r.col(c).kind in ("date", "year") and c.strength >= 0.5
        ),
        None,
    )
    return (c.table_name, c.column_name) if c is not None else None
