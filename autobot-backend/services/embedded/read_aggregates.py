"""Reading aggregates: what the question counts, adds up, averages or takes the extreme of, each
aggregate word with the link it governs ("how many orders", "average monthly revenue", "the total
amount customers paid"), durations and first or last dates included."""

from __future__ import annotations

from services.embedded.durations import duration, when_asked
from services.embedded.joins import is_ancestor, primary_date
from services.embedded.lexicon import stem
from services.embedded.measure_links import MONEY_VERBS, measure_for, money_asked, value_measure
from services.embedded.plan import Measure
from services.embedded.read_state import ReadState

_VALUE_HEADS = frozenset({"value", "worth"})
_AUXILIARIES = frozenset(
    """had have has did do does were was are is will can could would went got actually still
ever also""".split()
)


def aggregates(r: ReadState) -> None:
    """Each aggregate word with the link it governs: "how many orders", "average monthly revenue" (each
    month's total, then averaged), "the total amount customers paid"; a duration, a first or last date, or
    "the value of" X read first."""
    if duration(r) or when_asked(r):
        return
    if _value_of(r):
        return
    aggs = list(r.cues.aggs)
    n = 0
    carried = None
    while n < len(aggs):
        agg = aggs[n]
        start, per_grain = agg.end, None
        if carried is not None and agg.func == "count" and agg.start <= carried[2] + 2:
            per_grain = carried[0]  # "lowest monthly X count": each month's count, then the lowest
        if agg.func in ("avg", "max", "min"):
            # "average monthly X", "highest daily X": each period's total, then averaged
            g = next((g for g in r.cues.grains if g[1] == agg.end), None)
            if g is not None:
                per_grain, start = g[0], g[2]
                r.grains_taken.add(g[1])
        k = r.link_after(start, gap=3)
        if (
            k is None
            and agg.func == "sum"
            and r.lows[agg.start] == "how"
            and any(stem(w) in MONEY_VERBS for w in r.lows[start : start + 3])
            and not any(
                lk.best.kind == "metric" or lk.best.kind == "column" and r.col(lk.best).measurable for lk in r.links
            )
        ):
            money = money_asked(r)  # "how much was charged for books": the money
            if money is not None:
                r.plan.measures.append(money)
                n += 1
                continue
        if k is None and agg.func == "sum" and start < len(r.lows) and r.lows[start] in ("amount", "sum"):
            k = r.link_after(start + 1, gap=2)  # "the total amount customers paid": their money
            if start + 1 < len(r.lows) and stem(r.lows[start + 1]) in MONEY_VERBS:
                money = money_asked(r)  # "the total amount paid by ...": the money itself
                if money is not None:
                    r.plan.measures.append(money)
                    n += 1
                    continue
        if (
            agg.func == "count"
            and r.lows[agg.start] == "how"
            and start < len(r.lows)
            and (
                r.lows[start] in _AUXILIARIES
                or r.lows[start].endswith("ed")
                and not any(lk.start == start for lk in r.links)
            )
        ):
            # "Of the X who left, how many had ...": the rows named before
            ante = [j for j, lk in enumerate(r.links[:]) if lk.end <= agg.start and lk.best.kind == "table"]
            if ante:
                k = ante[-1]
        if (
            k is None
            and agg.func == "count"
            and r.lows[agg.start] in ("count", "tally")
            and all(w in ("please", "just", "kindly", "now", "so") for w in r.lows[: agg.start])
        ):
            # "Count, but don't alter, the X": the imperative's object, wherever it is
            k = next(
                (
                    j
                    for j, lk in enumerate(r.links)
                    if lk.start > agg.end and lk.best.kind == "table" and j not in r.used
                ),
                None,
            )
        before = r.link_before(agg.start, gap=0)
        if (
            agg.func == "count"
            and before is not None
            and before not in r.used
            and r.links[before].best.kind == "table"
            and r.lows[agg.start] in ("count", "counts", "volume", "volumes")
        ):
            k = before  # "order counts": the count of the noun before it
        nested = n + 1 < len(aggs) and aggs[n + 1].start <= max(agg.end, start) + 1 and agg.func == "avg"
        if nested and per_grain is not None:
            carried = (per_grain, "avg", aggs[n + 1].end)  # "average monthly count of X"
        if nested and k is not None and r.links[k].best.kind == "column" and r.col(r.concept(k)).measurable:
            # "average number of pages": 'number of' names the column's values, not a count
            del aggs[n + 1]
            nested = False
        n += 1
        if k is None and not nested and agg.func in ("count", "sum") and _implicit(r, agg):
            continue
        if k is None or k in r.used or nested:
            continue  # nested: "average number of X per Y": the inner count reads X, 'per' reads Y
        m = measure_for(r, agg.func, k)
        if m is None:
            if per_grain is not None and agg.func in ("max", "min", "avg"):
                carried = (per_grain, agg.func, r.links[k].end)
            continue
        prev = aggs[n - 2] if n >= 2 else None
        averaged = agg.func == "avg" or (prev is not None and prev.func == "avg" and prev.end + 1 >= agg.start)
        if averaged and per_grain is None:
            # "average revenue per month", "average number of orders per day"
            g = next((g for g in r.cues.grains if g[1] == r.links[k].end and r.lows[g[1]] == "per"), None)
            if g is not None:
                per_grain = g[0]
                r.grains_taken.add(g[1])
        if per_grain is not None:
            inner = "sum" if m.func in ("avg", "max", "min") else m.func
            outer = carried[1] if carried is not None and agg.func == "count" else agg.func
            m = Measure(
                inner,
                m.table,
                m.column,
                m.metric,
                m.distinct,
                per_grain=per_grain,
                outer=outer if outer in ("max", "min") else "avg",
            )
            carried = None
        elif (
            prev is not None
            and prev.func == "avg"
            and prev.end + 1 >= agg.start
            and m.func == "count"
            and not m.per_grain
        ):
            m = Measure("count", m.table, m.column, distinct=m.distinct, per="?")
        if r.cues.on_average and agg.func in ("count", "sum"):
            m = _averaged(r, m, k)
        r.plan.measures.append(m)


def _implicit(r: ReadState, agg) -> bool:
    """ "how many days were X out": a duration; "how much was it": the one amount
    the question names elsewhere."""
    func = "avg" if r.cues.on_average or any(a.func == "avg" for a in r.cues.aggs) else agg.func
    nxt = r.lows[agg.end] if agg.end < len(r.lows) else ""
    if agg.func == "count" and nxt in ("days", "weeks"):
        for k, lk in enumerate(r.links):
            if k in r.used:
                continue
            end = next((c for c in lk.concepts[:2] if c.kind == "column" and r.col(c).kind == "date"), None)
            start = primary_date(r.index, end.table_name) if end is not None else None
            if end is not None and start is not None and start.name != end.column:
                r.used.add(k)
                r.plan.measures.append(
                    Measure(func if func != "count" else "avg", end.table_name, end.column_name, since=start.name)
                )
                return True
        return False
    if agg.func == "sum" and (nxt in ("was", "is", "were", "are", "did", "do", "does") or not nxt):
        for k, lk in enumerate(r.links):
            c = r.concept(k)
            if c is not None and c.kind == "column" and r.col(c).measurable and lk.score >= 0.6:
                r.used.add(k)
                r.plan.measures.append(Measure(func, c.table_name, c.column_name))
                return True
    return False


def _averaged(r: ReadState, m: Measure, k: int) -> Measure:
    """ "On average, how many X per Y?": the count per Y, averaged; "how many
    pages are the books, on average": the column's average."""
    if m.func == "count" and not m.column:
        per = [j for j in range(k + 1, len(r.links)) if r.links[j].start > 0 and r.lows[r.links[j].start - 1] == "per"]
        for j in per + list(range(k + 1, len(r.links))):
            other = r.links[j].best
            if (
                j not in r.used
                and other.kind == "table"
                and other.table != m.table
                and is_ancestor(r.index, other.table_name, m.table)
            ):
                r.used.add(j)
                return Measure("count", m.table, distinct=m.distinct, per=other.table)
        return m
    if m.func in ("sum", "metric") and not m.per and not m.per_grain:
        if m.func == "metric":
            return Measure("metric", m.table, metric=m.metric, per="?")
        for j, lk in enumerate(r.links):
            # "units per basket, on average": the units of each basket, averaged
            if (
                j not in r.used
                and lk.best.kind == "table"
                and lk.best.table != m.table
                and is_ancestor(r.index, lk.best.table_name, m.table)
                and _one_of(r, lk.start)
            ):
                r.used.add(j)
                return Measure("sum", m.table, m.column, per=lk.best.table)
        return Measure("avg", m.table, m.column, since=m.since)
    return m


def _one_of(r: ReadState, start: int) -> bool:
    """ "a completed order", "each customer", "per order": one entity, what is averaged over."""
    j = start - 1
    while j >= 0 and any(lk.start <= j < lk.end and lk.best.kind == "value" for lk in r.links):
        j -= 1
    return j >= 0 and r.lows[j] in ("a", "an", "each", "per", "every", "one", "single")


def _value_of(r: ReadState) -> bool:
    """ "the value of returned X", "the value of voided Y": money
    added up over the rows named, whatever their status (a metric's sum without its condition)."""
    if any(a.func in ("avg", "count") for a in r.cues.aggs):
        return False
    for i, w in enumerate(r.lows[:-1]):
        if w not in _VALUE_HEADS or r.lows[i + 1] != "of" or i in r.cues.skip:
            continue
        j = i + 2
        k = None
        while j < len(r.lows):
            k = r.link_after(j, gap=3)
            if k is None or r.links[k].best.kind != "value":
                break
            j = r.links[k].end  # "the value of returned orders": the rows after their status
        table = None
        if k is not None and k not in r.used and r.links[k].best.kind == "table":
            table = r.links[k].best.table_name
        m = value_measure(r, table or next((lk.best.table for lk in r.links if lk.best.kind == "table"), None))
        if m is None:
            return False
        if table is not None and k is not None:  # (a table is only taken from a link)
            r.used.add(k)
            r.plan.joins.add(table)
        r.plan.measures.append(m)
        return True
    return False
