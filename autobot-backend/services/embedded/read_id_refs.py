"""Reading references to one row by its number: "customer number 42", "order #17", "member id 8"."""

from __future__ import annotations

from services.embedded.plan import ColRef, Filter
from services.embedded.read_state import ReadState


def id_refs(r: ReadState) -> None:
    """A table followed by a number ("order #17") is the row with that key."""
    for k, lk in enumerate(r.links):
        if lk.best.kind != "table" or lk.end >= len(r.tokens):
            continue
        at = lk.end
        while at + 1 < len(r.tokens) and r.lows[at] in ("number", "no", "no.", "#", "id", "nr", "num"):
            at += 1  # "customer number 42", "order #17", "member id 8"
        tok = r.tokens[at]
        if tok.kind == "number" and tok.low.isdigit() and at not in r.cues.skip:
            pk = r.index.tables[lk.best.table_name].primary_key
            if len(pk) == 1:
                r.plan.filters.append(Filter("eq", ColRef(lk.best.table_name, pk[0]), values=(int(tok.low),)))
                r.used.add(k)
