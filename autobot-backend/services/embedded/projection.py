"""The columns listed when a question asks for rows, not a number: the columns it names (an entity by
its name first), the values a "which" asks for, or else the rows' label."""

from __future__ import annotations

from services.embedded.plan import ColRef
from services.embedded.read_state import ReadState
from services.embedded.wh_words import wh_dim


def listed_columns(r: ReadState) -> list[ColRef] | None:
    p = r.plan
    wh = wh_dim(r)
    if (
        wh is not None
        and wh not in r.used
        and r.concept(wh).kind == "column"
        and r.col(r.concept(wh)).kind == "text"
        and r.lows[0] in ("which", "what")
    ):
        c = r.concept(wh)
        r.used.add(wh)
        return [ColRef(c.table_name, c.column_name)]  # "which drugs were prescribed ...": the values
    cols: list[ColRef] = []
    for k, lk in enumerate(r.links):
        if k in r.used or lk.best.kind != "column" or lk.score < 0.5:
            continue
        cc = r.concept(k, ("column",))
        assert cc is not None  # the link's best meaning is of this kind
        if ColRef(cc.table_name, cc.column_name) not in cols:
            cols.append(ColRef(cc.table_name, cc.column_name))
        r.used.add(k)
    if cols:
        return _with_label(r, cols)
    entity = p.subject
    dims = [d for d in p.dims if d.kind == "entity"]
    if dims:
        entity = dims[0].table
        p.dims = []
    if entity is None:
        return None
    table = r.index.tables[entity]
    label = table.label or (table.primary_key[0] if table.primary_key else None)
    return [ColRef(entity, label)] if label else None


def _with_label(r: ReadState, cols: list[ColRef]) -> list[ColRef]:
    """ "List trainers and their hourly rate", "each member's plan": the rows by their name, then what
    is asked of them (an entity by its name, its attribute beside it)."""
    first = next(
        (lk for lk in r.links if lk.best.kind == "column" and ColRef(lk.best.table_name, lk.best.column_name) in cols),
        None,
    )
    owner = next(
        (
            lk
            for lk in r.links
            if lk.best.kind == "table"
            and first is not None
            and lk.end <= first.start
            and lk.best.table == cols[0].table
        ),
        None,
    )
    if owner is None or first is None:  # (an owner is only found before a first column)
        return cols
    between = r.lows[owner.end : first.start]
    possessive = r.tokens[owner.end - 1].text.lower().replace("\u2019", "'").endswith("'s")
    label = r.index.tables[owner.best.table_name].label
    if (
        label
        and ColRef(owner.best.table_name, label) not in cols
        and (possessive or any(w in ("their", "its", "his", "her", "with", "and") for w in between))
    ):
        return [ColRef(owner.best.table_name, label)] + cols
    return cols
