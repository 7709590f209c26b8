"""Groups the question names with labels of its own: "call the two groups 'members' and 'guests'",
"those outside the programme under the label 'none'". Two labels split the rows on a flag or on
whether a column is set; one label names the NULL group of a grouping that would otherwise drop it.
"""

from __future__ import annotations

import dataclasses

from services.embedded.plan import Dim
from services.embedded.read_state import ReadState

_LABEL_WORDS = frozenset("label labels labelled labeled labelling labeling called named marked tagged titled".split())
_NEGATIVE_PREFIXES = ("not ", "no ", "non", "un", "without", "never")


def labels(r: ReadState) -> None:
    """Two quoted labels split the rows in two groups (on a flag, or on whether a column is set); one
    names the group of rows without a value."""
    quoted = _label_links(r)
    if not quoted:
        return
    texts = [r.tokens[r.links[k].start].text.strip("'\"") for k in quoted]
    p = r.plan
    flags = [f for f in p.filters if f.kind in ("bool", "null", "notnull")]
    if len(texts) == 2:
        ref = flags[0].col if flags else _split_column(r)
        if ref is None:
            return
        column = r.index.column(ref.table, ref.column)
        if column.kind != "bool" and not column.nullable:
            return
        negative = [t for t in texts if t.lower().startswith(_NEGATIVE_PREFIXES)]
        on, off = (texts[1], texts[0]) if negative == [texts[0]] else (texts[0], texts[1])
        _drop_conditions(r, ref, texts)
        p.dims = [d for d in p.dims if (d.table, d.column) != (ref.table, ref.column)]
        p.dims.insert(0, Dim("column", ref.table, ref.column, labels=(on, off)))
    elif len(texts) == 1:
        dim = next((d for d in p.dims if d.kind == "column" and r.index.column(d.table, d.column_name).nullable), None)
        if dim is None:
            return
        _drop_conditions(r, dim, texts)
        p.dims = [dataclasses.replace(d, null_label=texts[0]) if d is dim else d for d in p.dims]
    r.used |= set(quoted)


def _label_links(r: ReadState) -> list[int]:
    """Quoted words after a word that labels ("labelled 'A' and 'B'", "under the label 'none'")."""
    out = []
    for k, lk in enumerate(r.links):
        if r.tokens[lk.start].kind != "quoted":
            continue
        before = r.lows[max(0, lk.start - 6) : lk.start]
        if any(w in _LABEL_WORDS for w in before):
            out.append(k)
    return out


def _split_column(r: ReadState):
    """The flag or optional column the question names, when no filter read it."""
    for lk in r.links:
        c = lk.best
        if c.kind == "column" and (r.col(c).kind == "bool" or r.col(c).nullable and r.col(c).references):
            return dataclasses.replace(c)
    return None


def _drop_conditions(r: ReadState, ref, texts: list[str]) -> None:
    lowered = {t.lower() for t in texts}
    r.plan.filters = [
        f
        for f in r.plan.filters
        if not (
            (f.col.table, f.col.column) == (ref.table, ref.column)
            and f.kind in ("bool", "null", "notnull")
            or f.kind in ("eq", "ne")
            and {str(v).lower() for v in f.values} & lowered
        )
    ]
