"""Reading the subject: the table whose rows the question is about (what is counted, the entity grouped
by, or the first table named)."""

from __future__ import annotations

from services.embedded.read_state import ReadState


def subject(r: ReadState) -> None:
    """The table counted, else the entity grouped by, else the first table (or any link's table) named."""
    p = r.plan
    entity_dims = [d for d in p.dims if d.kind == "entity"]
    if p.measures and p.measures[0].func == "count":
        p.subject = p.measures[0].table
    elif entity_dims:
        p.subject = entity_dims[0].table
    else:
        for lk in r.links:
            if lk.best.kind == "table":
                p.subject = lk.best.table
                break
        if p.subject is None and r.links:
            p.subject = next((lk.best.table for lk in r.links if lk.best.table), None)
