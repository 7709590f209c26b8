"""Adding a grouping to the plan: the grouping a link names ("by country", "each course level", "by
destination airport"), and whether two groupings form the same groups."""

from __future__ import annotations

from services.embedded.joins import distance
from services.embedded.plan import Dim
from services.embedded.read_state import ReadState
from services.embedded.vocabulary import DATE_STEMS


def same_group(r: ReadState, a: Dim, b: Dim) -> bool:
    """Two groupings that form the same groups: equal, or an entity and its own label column."""
    if a == b:
        return True

    def key(d: Dim) -> tuple[str, str | None]:
        return (d.table, r.index.tables[d.table].label) if d.kind == "entity" else (d.table, d.column)

    return a.kind != "grain" and b.kind != "grain" and key(a) == key(b)


def add_dim(r: ReadState, k: int) -> int | None:
    """Add the grouping named by link ``k``; returns the last link it consumed."""
    lk = r.links[k]
    c = r.concept(k)
    if c.kind == "table":
        nxt = r.link_after(lk.end, gap=0)
        if nxt is not None and nxt not in r.used and r.links[nxt].score >= 0.5:
            cc = r.concept(nxt, ("column",))
            if cc is not None and cc.table == c.table and (not r.col(cc).measurable or r.col(cc).kind == "int"):
                # "each course level": the head noun is the column, whole numbers grouped as categories
                r.used |= {k, nxt}
                r.plan.dims.append(Dim("column", cc.table_name, cc.column_name))
                return nxt
            if (
                cc is not None
                and distance(r.index, c.table_name, cc.table_name) == 1
                and not r.col(cc).measurable
                and r.col(cc).kind in ("text", "bool")
            ):
                r.used |= {k, nxt}
                r.plan.dims.append(Dim("column", cc.table_name, cc.column_name))
                return nxt
        r.used.add(k)
        r.plan.dims.append(Dim("entity", c.table_name))
        return k
    if c.kind == "column":
        column = r.col(c)
        r.used.add(k)
        if column.kind == "date" and all(t.stem in DATE_STEMS for t in r.tokens[lk.start : lk.end]):
            r.plan.dims.append(Dim("grain", "", None, "day"))  # "each date": the measured rows' day
            return k
        if column.kind == "key" and column.references and column.references != c.table:
            # "by destination airport": the rows the key points at, joined by that key
            r.plan.dims.append(Dim("entity", column.references))
            r.plan.via_keys.add((c.table_name, c.column_name))
            nxt = r.link_after(lk.end, gap=0)
            if nxt is not None and r.links[nxt].best.kind == "table" and r.links[nxt].best.table == column.references:
                r.used.add(nxt)
                return nxt
            return k
        if column.kind == "date":
            word_after = r.lows[lk.end] if lk.end < len(r.lows) else ""
            unit = {"day": "day", "week": "week", "month": "month", "quarter": "quarter", "year": "year"}.get(
                word_after.rstrip("s"), "day"
            )
            r.plan.dims.append(Dim("grain", c.table_name, c.column_name, unit))
        else:
            r.plan.dims.append(Dim("column", c.table_name, c.column_name))
        return k
    return None
