"""Rank and sort verbs: "rank the categories by revenue", "sort products by price", "revenue by
category, highest first", and the measure a "by" names for them."""

from __future__ import annotations

from services.embedded.dims import add_dim
from services.embedded.lexicon import NUMBER_WORDS
from services.embedded.plan import ColRef, Dim, Measure, Rank
from services.embedded.read_state import SORT_WORDS, ReadState

_UNITS = {"days": "day", "weeks": "week", "months": "month", "quarters": "quarter", "years": "year"}


def rank_verb(r: ReadState) -> bool:
    """ "Rank the categories by revenue", "sort products by price": an ordered list, no cut-off."""
    verbs = [
        i
        for i, w in enumerate(r.lows)
        if w in ("rank", "sort", "order", "arrange", "list") and (i < 3 or r.lows[i - 1] in (",", ";", ".", ":"))
    ]
    if not verbs or "by" not in r.lows[verbs[0] :]:
        return False
    i = verbs[0]
    by = r.lows.index("by", i)
    if r.lows[i] == "list":
        key = r.link_after(by + 1, gap=2)
        c = r.concept(key) if key is not None else None
        if c is None or not (c.kind == "metric" or c.kind == "column" and r.col(c).measurable):
            return False  # "list revenue by quarter": a breakdown, not a ranking
    unit = next((_UNITS.get(w) for w in r.lows[i + 1 : by] if w in _UNITS), None)
    first = r.link_after(i + 1, gap=2)
    measure = by_measure(r) if unit is not None and (first is None or r.links[first].start > by) else None
    if measure is not None:
        # "rank the months by <measure>": the periods, ordered by it
        r.plan.dims.append(Dim("grain", "", None, unit))
        r.grains_taken |= {g[1] for g in r.cues.grains}
        r.plan.measures.append(measure)
        r.plan.rank = Rank(not _ascending(r.lows), None)
        return True
    j = i + 1
    while j < by and (r.tokens[j].kind == "number" or r.lows[j] in NUMBER_WORDS or r.lows[j] in ("the", "all")):
        j += 1  # "rank the five countries"
    target = r.link_after(j, gap=2)
    if target is None or target >= len(r.links) or r.links[target].start >= by:
        return False
    asc = _ascending(r.lows)
    key = r.link_after(by + 1, gap=2)
    entity = r.concept(target)
    if key is not None and key not in r.used and entity.kind == "table":
        c = r.concept(key)
        if c.kind == "column" and c.table == entity.table and not r.plan.measures:
            # "products sorted by price": the rows themselves, in order of their own column
            r.used |= {target, key}
            r.plan.subject = entity.table
            r.plan.dims.append(Dim("entity", entity.table_name))
            r.plan.rank = Rank(not asc, None, ColRef(c.table_name, c.column_name))
            return True
    measure = by_measure(r) or (r.plan.measures[0] if r.plan.measures else None)
    if measure is not None:
        if target not in r.used:
            add_dim(r, target)
        if not r.plan.measures:
            r.plan.measures.append(measure)
        r.plan.rank = Rank(not asc, None)
        return True
    return False


def by_measure(r: ReadState) -> Measure | None:
    for i, w in enumerate(r.lows):
        if w == "by" or w in SORT_WORDS:
            k = r.link_after(i + 1, gap=2)
            if k is None or k in r.used:
                continue
            c = r.concept(k)
            if c.kind == "metric":
                r.used.add(k)
                return Measure("metric", r.index.metrics[c.metric_name].base_table, metric=c.metric_name)
            if c.kind == "column" and r.col(c).measurable:
                r.used.add(k)
                return Measure("sum", c.table_name, c.column_name)
            word = r.tokens[r.links[k].end - 1]
            if c.kind == "table" and w == "by" and word.low != word.stem and word.low.endswith("s"):
                r.used.add(k)
                return Measure("count", c.table_name)  # "rank the ports by sailings": how many each has
    return None


def sort_by(r: ReadState) -> None:
    if r.cues.sort in ("asc", "desc") and r.plan.measures and r.plan.rank is None:
        r.plan.rank = Rank(r.cues.sort == "desc", None)  # "revenue by category, highest first"
        return
    for i, w in enumerate(r.lows):
        if w in SORT_WORDS and i + 1 < len(r.lows) and r.lows[i + 1] == "by":
            k = r.link_after(i + 2, gap=1)
            if k is None:
                continue
            c = r.concept(k)
            desc = any(x in r.lows for x in ("descending", "desc", "highest", "largest", "most"))
            if c.kind == "column" and not r.plan.measures:
                r.used.add(k)
                r.plan.rank = Rank(desc, None, ColRef(c.table_name, c.column_name))
            elif c.kind == "metric" or (c.kind == "column" and r.col(c).measurable):
                r.plan.rank = Rank(desc, None)
            return


def _ascending(lows: list[str]) -> bool:
    """ "from lowest to highest", "ascending", "cheapest first": an ascending order."""
    text = " ".join(lows)
    if any(
        p in text
        for p in (
            "lowest to highest",
            "smallest to largest",
            "least to most",
            "ascending",
            "low to high",
            "oldest to newest",
            "earliest to latest",
            "cheapest first",
            "lowest first",
        )
    ):
        return True
    if any(
        p in text
        for p in (
            "highest to lowest",
            "largest to smallest",
            "most to least",
            "descending",
            "high to low",
            "newest to oldest",
            "latest to earliest",
        )
    ):
        return False
    return any(
        w
        in (
            "asc",
            "lowest",
            "smallest",
            "cheapest",
            "least",
            "fewest",
            "quietest",
            "slowest",
            "lightest",
            "shortest",
            "poorest",
            "weakest",
        )
        for w in lows
    )
