"""What the answer shows beside the rows it names: whether the question asks for the measure too ("...
and how many", "with the amounts"), and an entity's key beside its name ("the member id and name")."""

from __future__ import annotations

from services.embedded.plan import Measure
from services.embedded.read_state import ReadState

_WH_ASK = frozenset({"which", "what", "who", "whose"})
_ALSO = frozenset({"and", "with", "plus", "along", "alongside", "including", "together", ",", "also"})
_MEASURE_ASKED = frozenset(
    """total totals sum count counts number numbers amount amounts average much many spent
spend value values figure figures change growth increase difference percentage share size""".split()
)


def measures_shown(r: ReadState) -> bool:
    """A wh-question over a ranking ("which region had the top sales?") asks for the region; the
    measure only ranks the groups.
    The measure is shown when the question asks for it too ("... and how many", "with the amounts")."""
    p = r.plan
    ranked = p.rank is not None and p.rank.limit and (p.dims and p.measures or p.rank.column and not p.measures)
    ranked_change = p.compare is not None and p.compare.rank is not None
    if not (ranked or ranked_change) or not r.cues.superlatives:
        return True
    sup = r.cues.superlatives[0]
    wh = next(
        (i for i, w in enumerate(r.lows[: sup.start]) if w in _WH_ASK or i == 0 and w in ("name", "identify", "find")),
        None,
    )  # "Name the top X"
    if wh is None:
        return True
    after = sup.end
    k = r.link_after(sup.end, gap=3)
    if k is not None:
        after = max(after, r.links[k].end)
    return asks_for_measure(r, None, after)


def names_key(r: ReadState, table: str) -> bool:
    """ "the member id, name and ...": the entity's key is asked for beside its name."""
    for lk in r.links:
        if (
            lk.best.kind == "table"
            and lk.best.table == table
            and lk.end < len(r.lows)
            and r.lows[lk.end] in ("id", "ids", "identifier", "identifiers")
        ):
            return True
    return False


def asks_for_measure(r: ReadState, m: Measure | None, start: int) -> bool:
    for j in range(start, len(r.lows)):
        if r.lows[j] not in _ALSO and not (r.tokens[j].kind == "punct" and r.tokens[j].text in ".?!;:—-"):
            continue
        for i in range(j + 1, min(len(r.lows), j + 6)):
            if r.lows[i] in _MEASURE_ASKED:
                return True
            lk = next((lk for lk in r.links if lk.start <= i < lk.end), None)
            if lk is not None and (
                lk.best.kind == "metric"
                or lk.best.kind == "column"
                and any(c.kind == "column" and r.col(c).measurable for c in lk.concepts[:1])
            ):
                return True
    return False
