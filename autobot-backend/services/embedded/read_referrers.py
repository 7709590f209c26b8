"""Reading referrers: the rows of a table that refer to rows of the same table ("members who referred
others"), grouped by the column that points back at them."""

from __future__ import annotations

from services.embedded.plan import ColRef, Dim
from services.embedded.read_state import ReadState


def referrers(r: ReadState) -> None:
    """ "Which X referred N others?": the rows that did the referring are grouped by the
    column that points back at them, not the rows referred."""
    p = r.plan
    entity = next((d for d in p.dims if d.kind == "entity"), None)
    if entity is None or not p.measures:
        return
    for lk in r.links:
        c = lk.best
        if c.kind != "column" or c.table != entity.table or r.col(c).references != entity.table:
            continue
        before = r.lows[max(0, lk.start - 2) : lk.start]
        if any(w in ("was", "were", "been", "being", "is", "are", "get", "got") for w in before) or (
            lk.end < len(r.lows) and r.lows[lk.end] == "by"
        ):
            continue  # "X who were referred": a filter, not who referred
        ref = ColRef(c.table_name, c.column_name)
        p.dims = [Dim("column", c.table, c.column) if d is entity else d for d in p.dims]
        p.filters = [f for f in p.filters if not (f.col == ref and f.kind in ("null", "notnull"))]
        return
