"""Reading flags and missing values: a true/false column named ("cancelled flights"), a column tested
for NULL ("customers with no phone", "loans still outstanding"), "no refills" of a count kept in a
column, and states of rows ("current products", "flights that operated")."""

from __future__ import annotations

from services.embedded.index import Column
from services.embedded.lexicon import stem
from services.embedded.linking import Link
from services.embedded.plan import ColRef, Filter
from services.embedded.read_state import ReadState
from services.embedded.read_values import included
from services.embedded.vocabulary import DATE_STEMS, NEGATION_CONTRACTIONS, NEGATIONS

_STATE_POSITIVE = frozenset({"active", "available", "current", "live", "valid", "ongoing", "open", "enabled"})
_NEGATIVE_STATES = (
    "discontinu",
    "delet",
    "archiv",
    "inactiv",
    "disabl",
    "retir",
    "expir",
    "block",
    "suspend",
    "clos",
    "cancel",
    "remov",
    "hidden",
    "obsolet",
)
_INCOMPLETE = frozenset("outstanding pending unreturned unfulfilled unresolved unshipped awaiting waiting".split())
_HAPPENED = frozenset("operated operating flew flown departed actually ran held attended".split())
"""Verbs that say a row's event took place, so rows flagged cancelled are not counted ("flights that operated")."""


def flags(r: ReadState) -> None:
    """Each column named and not yet read: a flag is true (false when negated), a nullable column is set
    (or missing); then the states of rows the question asks for ("still outstanding", "current")."""
    for k, lk in enumerate(r.links):
        if k in r.used or lk.best.kind != "column":
            continue
        c = r.concept(k, ("column",))
        assert c is not None  # the link's best meaning is of this kind
        prev = r.links[k - 1] if k > 0 else None
        if (
            prev is not None
            and prev.end == lk.start
            and (prev.best.table_name, prev.best.column_name) == (c.table_name, c.column_name)
        ):
            r.used.add(k)  # "satisfaction rating": one column named by two words
            continue
        column = r.col(c)
        neg = (
            lk.negated
            or r.negated_before(lk.start)
            or _yet_after(r, lk.end)
            or _unknown(r, lk)
            or (column.kind == "date" and any(w in _INCOMPLETE for w in r.lows))
        )  # "awaiting shipment"
        if column.kind == "bool" and c.strength >= 0.5 and included(r, lk):
            r.used.add(k)  # "cancelled ones included": no filter on the flag
            continue
        if column.kind == "bool" and c.strength >= 0.5:
            r.used.add(k)
            r.plan.filters.append(Filter("bool", ColRef(c.table_name, c.column_name), values=(not neg,)))
        elif column.kind == "date" and all(t.stem in DATE_STEMS for t in r.tokens[lk.start : lk.end]):
            continue  # "the date": a column heading, not "has a date"
        elif (
            column.kind == "int"
            and not column.nullable
            and c.strength >= 0.5
            and lk.start > 0
            and r.lows[lk.start - 1] in ("no", "zero")
            and r.tokens[lk.end - 1].low.endswith("s")
        ):
            r.used.add(k)  # "allow no refills": a count kept in a column, tested for none
            r.plan.filters.append(Filter("cmp", ColRef(c.table_name, c.column_name), op="=", number=0))
        elif column.nullable and c.strength >= 0.5 and not _is_projection(r, k):
            r.used.add(k)
            words = {t.stem for t in r.tokens[lk.start : lk.end]}
            means_null = bool(words & column.null_means) and not words & column.set_means
            r.plan.filters.append(
                Filter("null" if neg != means_null else "notnull", ColRef(c.table_name, c.column_name))
            )
    if any(w in _INCOMPLETE for w in r.lows) and not any(
        f.kind in ("null", "notnull") and r.index.column(f.col.table, f.col.column).kind == "date"
        for f in r.plan.filters
    ):
        col = _completion_column(r)
        if col is not None:
            # "loans still outstanding": the date that completes them is not there yet
            r.plan.filters.append(Filter("null", ColRef(col.table, col.name)))
    for i, w in enumerate(r.lows):
        selling = w == "still" and any(stem(x) == "sell" for x in r.lows[i + 1 : i + 4])
        if selling:
            for k, lk in enumerate(r.links):
                if i < lk.start <= i + 3 and stem(r.lows[lk.start]) == "sell":
                    r.used.add(k)  # "products we still sell": not a join to the sales
        happened = (
            w in _HAPPENED or w == "left" and any(lk.start == i + 1 and lk.best.kind == "value" for lk in r.links)
        )
        if w in _STATE_POSITIVE and _state_of_rows(r, i) or selling or happened:
            col = _negative_state_column(r)
            if col is not None:
                r.plan.filters.append(Filter("bool", ColRef(col.table, col.name), values=(False,)))


def _unknown(r: ReadState, lk: Link) -> bool:
    """ "whose <column> we don't know", "we do not know their <column>": the value is missing."""
    near = list(range(max(0, lk.start - 4), lk.start)) + list(range(lk.end, min(len(r.lows), lk.end + 5)))
    for j in near:
        if r.lows[j] in ("know", "known") and any(
            w in NEGATIONS or w in NEGATION_CONTRACTIONS or w.endswith("n't") for w in r.lows[max(0, j - 2) : j]
        ):
            return True
    return False


def _state_of_rows(r: ReadState, i: int) -> bool:
    """ "current products", "customers that are active": the state qualifies rows, not a price or date
    ("the current list price")."""
    k = r.link_after(i + 1, gap=1)
    if k is not None and r.links[k].best.kind == "table":
        return True
    before = r.lows[max(0, i - 2) : i]
    return any(w in ("are", "is", "still", "currently", "remain", "remains", "were", "was") for w in before)


def _completion_column(r: ReadState) -> Column | None:
    for table in r.mentioned:
        nullable = [c for c in r.index.tables[table].dates() if c.nullable]
        if len(nullable) == 1 and not any(f.col == ColRef(table, nullable[0].name) for f in r.plan.filters):
            return nullable[0]
    return None


def _yet_after(r: ReadState, end: int) -> bool:
    return end < len(r.lows) and r.lows[end] in ("yet",)


def _is_projection(r: ReadState, k: int) -> bool:
    lk = r.links[k]
    before = r.lows[max(0, lk.start - 3) : lk.start]
    return any(w in ("show", "list", "give", "display") for w in before) and not r.negated_before(lk.start)


def _negative_state_column(r: ReadState) -> Column | None:
    for table in r.mentioned:
        for col in r.index.tables[table].columns.values():
            if (
                col.kind == "bool"
                and any(col.name.lower().startswith(p) for p in _NEGATIVE_STATES)
                and not any(f.col == ColRef(col.table, col.name) for f in r.plan.filters)
            ):
                return col
    return None
