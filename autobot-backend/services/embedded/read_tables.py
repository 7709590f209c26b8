"""Reading the tables the rows relate to: each table named and not yet read is joined, or, after a
negation, is a related row that must not exist ("employees who never logged any hours", "never borrowed
a fantasy book")."""

from __future__ import annotations

from services.embedded.joins import distance, is_ancestor
from services.embedded.linking import Link
from services.embedded.plan import Exists, Filter
from services.embedded.read_state import ReadState


def tables(r: ReadState) -> None:
    """Each table named and not yet read: joined, or inside the NOT EXISTS a negation before it opens."""
    p = r.plan
    for k, lk in enumerate(r.links):
        if (
            k not in r.used
            and lk.best.kind == "column"
            and p.subject
            and lk.best.table != p.subject
            and r.negated_before(lk.start, window=5)
            and is_ancestor(r.index, p.subject, lk.best.table_name)
        ):
            # "employees who never logged any hours": no related row at all
            r.used.add(k)
            p.exists.append(
                Exists(lk.best.table_name, True, [f for f in p.filters if f.col.table == lk.best.table_name])
            )
            p.filters = [f for f in p.filters if f.col.table != lk.best.table]
            r.exists_at = lk.end
            continue
        if k in r.used or lk.best.kind != "table":
            continue
        table = lk.best.table_name
        r.used.add(k)
        if table == p.subject:
            continue
        open_exists = p.exists[-1] if p.exists and _same_clause(r, r.exists_at, lk.start) else None
        if open_exists is not None and table == open_exists.table:
            continue  # "never opened a ticket": the ticket is what never happened
        if open_exists is not None and table not in open_exists.also:
            # "never borrowed a fantasy book": the book is part of what never happened
            open_exists.also.append(table)
            moved = [f for f in p.filters if f.col.table == table]
            p.filters = [f for f in p.filters if f not in moved]
            open_exists.filters.extend(moved)
        elif r.negated_before(lk.start, window=5) and p.subject and distance(r.index, p.subject, table) > 0:
            moved = [f for f in p.filters if f.col.table == table or _date_near(r, f, lk)]
            p.filters = [f for f in p.filters if f not in moved]
            p.exists.append(Exists(table, True, moved))
            r.exists_at = lk.end
        else:
            p.joins.add(table)


def _same_clause(r: ReadState, a: int, b: int) -> bool:
    if a < 0 or b < a:
        return False
    return not any(r.lows[i] in (",", ";", ".", "and", "but", "or", "who", "which", "that", "?") for i in range(a, b))


def _date_near(r: ReadState, f: Filter, lk: Link) -> bool:
    return f.kind in ("range", "relative") and f.col.table == lk.best.table
