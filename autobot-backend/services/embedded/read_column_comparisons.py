"""Reading comparisons of one column with another: "returned after their due date", "sold below list
price", "shipped on the same day as ordered"."""

from __future__ import annotations

import re

from services.embedded.index import Concept
from services.embedded.joins import primary_date
from services.embedded.plan import ColRef, Filter
from services.embedded.read_state import ReadState

_COLUMN_OPS = {
    "after": ">",
    "later": ">",
    "before": "<",
    "earlier": "<",
    "above": ">",
    "below": "<",
    "over": ">",
    "under": "<",
    "exceeds": ">",
    "exceeding": ">",
    "exceeded": ">",
    "more": ">",
    "greater": ">",
    "higher": ">",
    "less": "<",
    "lower": "<",
}


def column_comparisons(r: ReadState) -> None:
    """ "returned after their due date", "sold below list price": one column against another."""
    _same_day(r)
    n = len(r.lows)
    for i, w in enumerate(r.lows):
        if w not in _COLUMN_OPS or i in r.cues.skip:
            continue
        j = i + 2 if i + 1 < n and r.lows[i + 1] == "than" else i + 1
        right = r.link_after(j, gap=2)
        if right is not None and r.links[right].best.kind == "table":
            owned = r.link_after(r.links[right].end, gap=1)  # "under the item's catalogue price"
            if owned is not None and any(
                c.kind == "column" and c.table == r.links[right].best.table for c in r.links[owned].concepts
            ):
                r.used.add(right)
                right = owned
        if right is None or right in r.used:
            continue
        if r.links[right].best.kind == "table":
            continue  # "over the X it ran": over which rows, not a comparison
        rc = next(
            (
                c
                for c in r.links[right].concepts
                if c.kind == "column" and (r.col(c).kind == "date" or r.col(c).measurable)
            ),
            None,
        )
        if rc is None:
            continue
        kind = "date" if r.col(rc).kind == "date" else "number"
        left = r.link_before(i, gap=1)
        lc = None
        if left is not None and left not in r.used:
            lc = next(
                (
                    c
                    for c in r.links[left].concepts
                    if c.kind == "column"
                    and c != rc
                    and (r.col(c).kind == "date" if kind == "date" else r.col(c).measurable)
                ),
                None,
            )
        if lc is None:
            # "lines charged under the list price": the lines' own price, against the list price
            same = [t for t in r.mentioned if t != rc.table and rc.column in r.index.tables[t].columns]
            lc = Concept("column", same[0], rc.column) if same else None
        if lc is None or (lc.table, lc.column) == (rc.table, rc.column):
            continue
        r.used |= {right} | ({left} if left is not None and lc.table == r.links[left].best.table else set())
        r.plan.filters.append(
            Filter(
                "colcmp",
                ColRef(lc.table_name, lc.column_name),
                values=(ColRef(rc.table_name, rc.column_name),),
                op=_COLUMN_OPS[w],
            )
        )


def _same_day(r: ReadState) -> None:
    """ "X on the same day as Y", "on the very day": two dates equal."""
    text = " ".join(r.lows)
    if not re.search(r"\b(?:same|very)\s+day\b|\bon\s+the\s+day\s+(?:they|it|that|when)\b", text):
        return
    dated = [
        (k, c)
        for k, lk in enumerate(r.links)
        if k not in r.used
        for c in lk.concepts[:2]
        if c.kind == "column" and r.col(c).kind == "date" and c.strength >= 0.5
    ]
    if not dated:
        return
    k, first = dated[0]
    other = next(((j, c) for j, c in dated[1:] if c.table == first.table and c.column != first.column), None)
    second = ColRef(first.table_name, other[1].column_name) if other else None
    if second is None:
        start = primary_date(r.index, first.table_name)
        if start is None or start.name == first.column:
            return
        second = ColRef(first.table_name, start.name)
    r.used |= {k} | ({other[0]} if other else set())
    r.plan.filters.append(Filter("colcmp", ColRef(first.table_name, first.column_name), values=(second,), op="="))
