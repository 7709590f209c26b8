"""Reading values: a value the question names restricts the rows to it ("web orders"), or excludes it
("not refunded", "excluding returns"); "cancelled ones included" keeps every row."""

from __future__ import annotations

from services.embedded.linking import Link
from services.embedded.plan import ColRef, Exists, Filter
from services.embedded.read_state import ReadState
from services.embedded.vocabulary import EXCLUDE_WORDS


def values(r: ReadState) -> None:
    """Each value named and not yet read: rows with it (several of one column: any of them), or without
    it when excluded; "both A and B": one related row of each."""
    by_col: dict[tuple[str, str, bool], Filter] = {}
    for k, lk in enumerate(r.links):
        if k in r.used or lk.best.kind != "value" or lk.best.table is None:
            continue
        r.used.add(k)
        c = r.concept(k, ("value",))
        assert c is not None  # the link's best meaning is of this kind
        ref = ColRef(c.table_name, c.column_name)
        for near in (r.link_after(lk.end, gap=0), r.link_before(lk.start, gap=1)):
            if near is not None and any(
                x.kind == "column" and (x.table_name, x.column_name) == (c.table_name, c.column_name)
                for x in r.links[near].concepts
            ):
                r.used.add(near)  # "the mystery genre": the column only says where the value is
        if included(r, lk):
            continue  # "cancelled ones included", "including returns": no filter on that value
        if lk.start > 0 and r.lows[lk.start - 1] in ("this", "our", "my") and r.link_after(lk.end, gap=0) is None:
            continue  # "the admin for this store": the business itself, not the store channel
        neg = _excluded(r, lk.start) or _excluded_after(r, lk.end)
        key = (c.table_name, c.column_name, neg)
        if key in by_col:
            if _both(r, lk.start) and c.table_name != r.plan.subject:
                # "customers with both web and store orders": one related row of each kind
                both = by_col.pop(key)
                r.plan.filters.remove(both)
                for value in both.values + (c.value,):
                    r.plan.exists.append(Exists(c.table_name, False, [Filter("eq", ref, values=(value,))]))
                continue
            by_col[key].values += (c.value,)
            continue
        f = Filter("ne" if neg else "eq", ref, values=(c.value,))
        by_col[key] = f
        r.plan.filters.append(f)


def _both(r: ReadState, start: int) -> bool:
    window = r.lows[max(0, start - 8) : start]
    return "both" in window and any(w in ("and", "&") for w in window[-3:])  # "both via A and via B"


def included(r: ReadState, lk: Link) -> bool:
    """ "cancelled ones included", "including cancelled ones", "even the cancelled": all rows, that value too."""
    after = r.lows[lk.end : lk.end + 3]
    before = r.lows[max(0, lk.start - 2) : lk.start]
    return (
        any(w in ("included", "too", "inclusive") for w in after[:3])
        and not any(w in ("only", "just", "excluded", "not") for w in after)
        or any(w in ("including", "incl", "even") for w in before)
    )


def _excluded_after(r: ReadState, end: int) -> bool:
    """ "X excluded", "Y left out"."""
    after = r.lows[end : end + 3]
    return any(w in ("excluded", "aside") for w in after) or "left out" in " ".join(after)


def _excluded(r: ReadState, start: int) -> bool:
    window = r.lows[max(0, start - 3) : start]
    if any(w in EXCLUDE_WORDS or w.startswith("non") for w in window):
        return True
    return bool(window) and (window[-1] in ("not", "never") or window[-1].endswith("n't"))  # "weren't refunded"
