"""Durations a question asks for: the days between two dates of one row ("days between ordering and
shipping", "the time it takes to ship an order", "average loan duration"), and the first or last date
of the rows ("When was the first order placed?")."""

from __future__ import annotations

from services.embedded.index import Column
from services.embedded.joins import primary_date
from services.embedded.plan import Measure
from services.embedded.read_state import ReadState


def when_asked(r: ReadState) -> bool:
    """ "When was the first order placed?": the earliest (or latest) date of those rows."""
    if not r.lows or r.lows[0] != "when":
        return False
    early = any(w in ("first", "earliest", "oldest") for w in r.lows)
    late = any(w in ("last", "latest", "newest", "recent", "most-recent") for w in r.lows)
    if not (early or late):
        return False
    for k in range(len(r.links)):
        date = _date_of(r, k)
        if date is not None:
            r.used.add(k)
            r.plan.measures.append(Measure("min" if early else "max", date.table, date.name))
            return True
    return False


def duration(r: ReadState) -> bool:
    """ "days between ordering and shipping": the difference of two date columns of one table."""
    for i, w in enumerate(r.lows):
        if w not in ("between", "from"):
            continue
        a = r.link_after(i + 1, gap=1)
        if a is None or r.links[a].end >= len(r.lows) or r.lows[r.links[a].end] not in ("and", "to"):
            continue
        b = r.link_after(r.links[a].end + 1, gap=1)
        first, second = _date_of(r, a), _date_of(r, b) if b is not None else None
        if b is None or first is None or second is None or first.table != second.table or first.name == second.name:
            continue
        if not any(x in r.lows[:i] for x in ("days", "day", "time", "long", "duration", "weeks", "gap")):
            continue
        func = next((g.func for g in r.cues.aggs if g.start < i and g.func in ("avg", "max", "min", "sum")), "avg")
        r.used |= {a, b}
        r.plan.measures.append(Measure(func, second.table, second.name, since=first.name))
        return True
    return _time_to(r)


def _time_to(r: ReadState) -> bool:
    """ "days it takes to ship an order": from the row's own date to the date named after 'to'."""
    if not any(w in ("days", "time", "long", "weeks", "duration") for w in r.lows):
        return False
    for k, lk in enumerate(r.links):
        if lk.start == 0 or r.lows[lk.start - 1] not in ("to", "until", "till", "before"):
            continue
        end = next((c for c in lk.concepts if c.kind == "column" and r.col(c).kind == "date"), None)
        if end is None:
            continue
        start = primary_date(r.index, end.table_name)
        if start is None or start.name == end.column:
            continue
        func = next((g.func for g in r.cues.aggs if g.func in ("avg", "max", "min", "sum")), "avg")
        r.used.add(k)
        r.plan.measures.append(Measure(func, end.table_name, end.column_name, since=start.name))
        return True
    return _row_duration(r)


def _row_duration(r: ReadState) -> bool:
    """ "average loan duration": from a table's own date to the one date that closes its rows."""
    for i, w in enumerate(r.lows):
        if w not in ("duration", "length", "lifetime", "turnaround", "time", "times"):
            continue
        k = r.link_before(i, gap=0)
        if k is not None and w in ("time", "times"):
            # "shipping time": from the row's own date to the date the word names
            end = next((c for c in r.links[k].concepts if c.kind == "column" and r.col(c).kind == "date"), None)
            start = primary_date(r.index, end.table_name) if end is not None else None
            if end is None or start is None or start.name == end.column:
                continue
            func = next((g.func for g in r.cues.aggs if g.func in ("avg", "max", "min", "sum")), "avg")
            r.used.add(k)
            r.plan.measures.append(Measure(func, end.table_name, end.column_name, since=start.name))
            return True
        if k is None or r.links[k].best.kind != "table":
            continue
        table = r.links[k].best.table_name
        start = primary_date(r.index, table)
        named = [
            c
            for lk in r.links
            for c in lk.concepts[:2]
            if c.kind == "column"
            and c.table == table
            and r.col(c).kind == "date"
            and start is not None
            and c.column != start.name
        ]
        ends = [r.col(c) for c in named] or [c for c in r.index.tables[table].dates() if c.nullable]
        if start is None or len(ends) < 1:
            continue
        func = next((g.func for g in r.cues.aggs if g.func in ("avg", "max", "min", "sum")), "avg")
        r.used.add(k)
        r.plan.measures.append(Measure(func, table, ends[0].name, since=start.name))
        return True
    return False


def _date_of(r: ReadState, k: int) -> Column | None:
    lk = r.links[k]
    for c in lk.concepts:
        if c.kind == "column" and r.col(c).kind == "date":
            return r.col(c)
    if lk.best.kind == "table":
        return primary_date(r.index, lk.best.table_name)
    return None
