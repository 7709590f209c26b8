"""Which date column the question's periods are read from, once the measure is known: a date named
beside the period, the rows named before it (or their event parent), a date named in full, the series'
own, or the date of the rows that tie the question's tables together; and a period as a filter."""

from __future__ import annotations

from services.embedded.dates import DateSpec
from services.embedded.index import Column, Concept
from services.embedded.joins import default_date, is_ancestor, join_tree, primary_date
from services.embedded.plan import ColRef, Filter
from services.embedded.read_state import ReadState

_UNIT_WORDS = frozenset({"day", "week", "month", "quarter", "year"})


def resolve_dates(r: ReadState) -> None:
    """Date phrases with no date column named next to them are about the measured rows; the periods
    with their columns are left in ``dated``."""
    main = main_table(r)
    fallback = _fact_date(r, main) if main else None
    pending = []
    own = _periods_own(r)
    for n, (s, c) in enumerate(r.pending):
        hint = r.date_hints.get(n)
        if c is None and own:
            c = own[0]
        # "customers who placed an order in May": the order's date, since orders hang off customers;
        # "appointments of cardiology doctors in May": the appointment's, not the doctor's hiring date
        if (
            c is None
            and hint
            and main
            and (hint == main or is_ancestor(r.index, main, hint) or _event_parent(r, main, hint))
        ):
            c = primary_date(r.index, hint)
        pending.append((s, c))
    r.pending = pending
    grained = [
        r.col(Concept("column", d.table, d.column)) for d in r.plan.dims if d.kind == "grain" and d.table and d.column
    ]  # "each flight date": the series' own date
    known = [c for _s, c in r.pending if c is not None] or _named_dates(r) or own or grained
    measured = {n for n, (s, c) in enumerate(r.pending) if c is None and _before_measure(r, s.end)}
    resolved = [
        (s, c or (fallback if n in measured and fallback is not None else known[0] if known else fallback))
        for n, (s, c) in enumerate(r.pending)
    ]  # "2024 revenue": the measured rows' own date
    for d in r.plan.dims:
        if d.kind == "grain" and not d.table:
            column = known[0] if known else fallback
            if column is not None:
                d.table, d.column = column.table, column.name
    r.dated = [(s, c) for s, c in resolved if c is not None]


def _periods_own(r: ReadState) -> list[Column]:
    """ "that month's flights", "each quarter's bookings": the periods are those rows' own dates."""
    for i, tok in enumerate(r.tokens[:-1]):
        if tok.low in _UNIT_WORDS and tok.text.lower().replace("\u2019", "'").endswith("'s"):
            k = r.link_after(i + 1, gap=0)
            if k is not None and r.links[k].best.kind == "table":
                own = primary_date(r.index, r.links[k].best.table_name)
                return [own] if own is not None else []
    return []


def _named_dates(r: ReadState) -> list[Column]:
    """A date column the question names in full anywhere ("..., based on the flight date"): what its
    periods are read from when no date is named beside them."""
    out = []
    for k, lk in enumerate(r.links):
        c = lk.best
        if (
            k not in r.used
            and c.kind == "column"
            and c.strength >= 1.0
            and lk.end - lk.start >= 2
            and r.col(c).kind == "date"
        ):
            r.used.add(k)
            out.append(r.col(c))
    return out


def _event_parent(r: ReadState, main: str, hint: str) -> bool:
    """ "bookings for flights in March": the period is the flights', when the table named before it is
    a parent of the measured rows that is itself an event (it points at other tables, and has its
    own date); an entity's date ("orders from customers in 2024": a signup) never dates them."""
    table = r.index.tables[hint]
    points_out = any(c.references not in (None, hint) for c in table.columns.values())
    return points_out and is_ancestor(r.index, hint, main) and primary_date(r.index, hint) is not None


def _fact_date(r: ReadState, main: str) -> Column | None:
    """The date of the rows that tie the question's tables together: "patients each doctor saw in
    2024" is dated by the appointments between them, not by the patients' birth dates."""
    tables = (
        [main]
        + [d.table for d in r.plan.dims if d.table]
        + [c.table for lk in r.links for c in lk.concepts[:1] if c.table]
    )
    tree = join_tree(r.index, main, list(dict.fromkeys(tables))) or []
    members = [main] + [e.other for e in tree]

    def refs(t: str) -> int:
        return sum(1 for c in r.index.tables[t].columns.values() if c.references in members and c.references != t)

    best = max(members, key=lambda t: (refs(t), t == main))
    if refs(best) > refs(main):
        # the rows that tie the tables together are dated by their own date, or their parent's
        # (an order line by its order), never by the subject's (a customer's signup)
        own = primary_date(r.index, best) or default_date(r.index, best)
        if own is not None and own.table != main:
            return own
    return default_date(r.index, main)


def date_ref(r: ReadState, table: str | None) -> ColRef | None:
    column = default_date(r.index, table) if table else None
    return ColRef(column.table, column.name) if column else None


def main_table(r: ReadState) -> str | None:
    p = r.plan
    if p.measures:
        m = p.measures[0]
        return m.table
    if p.rank is not None and p.rank.column is not None:
        return p.rank.column.table
    return p.subject


def range_filter(spec: DateSpec, column: Column) -> Filter:
    ref = ColRef(column.table, column.name)
    if spec.relative is not None:
        return Filter("relative", ref, relative=spec.relative)
    if spec.recurring is not None:
        return Filter("recurring", ref, values=spec.recurring)
    return Filter("range", ref, lo=spec.lo, hi=spec.hi)


def _before_measure(r: ReadState, end: int) -> bool:
    """A period said right before a metric ("2024 revenue"): it dates the measured rows."""
    k = r.link_after(end, gap=0)
    return k is not None and r.links[k].best.kind == "metric"
