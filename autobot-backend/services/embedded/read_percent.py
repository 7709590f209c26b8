"""Reading shares: "what percentage of orders were returned", "the share of customers who never
ordered": the condition the share is of, as a measure's ``share``."""

from __future__ import annotations

from services.embedded.joins import default_date, is_ancestor
from services.embedded.plan import ColRef, Filter, Measure
from services.embedded.read_state import ReadState


def percent(r: ReadState) -> None:
    """When a share is asked for: the conditions it is the share of (a defined term's, a related row's,
    a second period's, or the last condition read), moved from the filters into the first measure."""
    p = r.plan
    if not r.cues.percent:
        return
    conds = [f for f in p.filters if f.kind in ("eq", "ne", "null", "notnull", "bool", "colcmp")]
    related = [h for h in p.having if h.measure.func == "count" and (h.op, h.number) in ((">=", 1), (">", 0))]
    if (related or not conds) and p.subject and not p.dims:
        # "the share of X who did Y in May": rows with such a related row, out of all;
        # "the share of completed X with a Y": the completed ones are the whole
        child = next((t for t in sorted(p.joins) if is_ancestor(r.index, p.subject, t)), None)
        table = related[0].measure.table if related else child
        if table is not None and table != p.subject:
            p.having = [h for h in p.having if h not in related]
            p.joins.discard(table)
            moved = [f for f in p.filters if f.col.table == table]
            p.filters = [f for f in p.filters if f not in moved]
            conds = [Filter("exists", ColRef(table, ""), values=(table, *moved))]
            p.filters.append(conds[0])
    ranges = [f for f in p.filters if f.kind == "range"]
    if not conds and p.measures and not p.dims and len(ranges) == 2 and ranges[0].col != ranges[1].col:
        # "the share of 2023 sales made by clients who joined in 2022": the period
        # of the measured rows is the whole, the other date the share's condition
        main = default_date(r.index, p.measures[0].table)
        other = [f for f in ranges if main is None or (f.col.table, f.col.column) != (main.table, main.name)]
        if len(other) == 1:
            conds = other
    if not conds and not r.term_filters and len(p.exists) == 1 and not p.exists[0].also and p.subject:
        # "what share of customers have never ordered": the rows with (or without) a related row
        e = p.exists.pop()
        conds = [Filter("exists", ColRef(e.table, ""), values=(e.table, *e.filters), op="not" if e.negate else None)]
        p.filters.append(conds[0])
    if not conds and not r.term_filters:
        return
    share = [f for f in p.filters if any(f is t for t in r.term_filters)] or [conds[-1]]
    p.filters = [f for f in p.filters if not any(f is t for t in share)]
    if not p.measures:
        table = p.subject or share[0].col.table
        p.measures.append(Measure("count", table))
    p.measures[0].share = share
