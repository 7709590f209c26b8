"""The measure a link names under an aggregate word: a metric, a column's total or average, a count
of a table's rows, the money a table's rows are worth, or the price a line was charged."""

from __future__ import annotations

import dataclasses

from services.embedded.index import Concept
from services.embedded.joins import is_ancestor
from services.embedded.lexicon import stem
from services.embedded.plan import Measure
from services.embedded.read_state import ReadState

MONEY_VERBS = frozenset(
    stem(w)
    for w in (
        "pay",
        "paid",
        "spend",
        "spent",
        "earn",
        "earned",
        "bring",
        "brought",
        "generate",
        "generated",
        "cost",
        "charge",
        "charged",
        "bill",
        "billed",
    )
)
_VALUE_NOUNS = frozenset({"value", "amount", "size", "spend", "spending", "total", "revenue", "worth"})
_INTENSIVE = frozenset(
    """length lengths duration durations distance distances size sizes age ages weight height width
depth rating ratings score scores grade grades temperature speed""".split()
)


def measure_for(r: ReadState, func: str, k: int) -> Measure | None:
    lk = r.links[k]
    head = r.link_after(lk.end, gap=0)
    if (
        lk.best.kind == "column"
        and lk.score < 0.8
        and head is not None
        and head not in r.used
        and (
            r.links[head].best.kind == "table"
            or r.links[head].best.kind == "column"
            and r.links[head].score > lk.score
            and lk.score < 0.5
        )
    ):
        k, lk = head, r.links[head]  # "the customer accounts", "departure delay": the noun after a modifier
    c = r.concept(k)
    if c is None:
        return None
    r.used.add(k)
    if c.kind == "metric" and func == "count":
        table = next((x for x in lk.concepts if x.kind == "table"), None)
        if table is not None:
            return Measure("count", table.table_name, distinct=r.cues.distinct)  # "how many sales"
    if c.kind == "metric":
        metric = r.index.metrics[c.metric_name]
        if func == "avg":
            return Measure("metric", metric.base_table, metric=c.metric, per="?")
        return Measure("metric", metric.base_table, metric=c.metric)
    if c.kind == "table" and lk.via == "synonym" and func in ("avg", "sum", "max", "min"):
        priced = _charged_price(r, lk)
        if priced is not None:  # "the average selling price": the price charged, not the list price
            return _column_measure(r, func, priced)
    if c.kind == "table":
        nxt = r.link_after(lk.end, gap=0)
        if nxt is not None and r.links[nxt].best.kind == "column":
            cc = r.concept(nxt, ("column",))
            if cc is not None and cc.table == c.table and r.col(cc).measurable and cc.strength >= 0.5:
                r.used.add(nxt)
                return _column_measure(r, func, cc)
            if (
                func == "count"
                and cc is not None
                and cc.strength >= 0.6
                and r.links[nxt].score >= 0.6
                and not (r.col(cc).kind == "date" and not r.lows[r.links[nxt].end - 1].endswith("s"))
            ):
                # "course registrations" counts registrations; "buyers bought ...": a verb naming a date
                # the noun heads the phrase: "course registrations" counts registrations,
                # "product categories" the categories
                if cc.table_name != c.table_name and is_ancestor(r.index, c.table_name, cc.table_name):
                    r.used.add(nxt)
                    r.plan.joins.add(c.table_name)
                    return Measure("count", cc.table_name, distinct=r.cues.distinct)
                if cc.table == c.table and r.col(cc).kind == "text":
                    r.used.add(nxt)
                    return Measure("count", cc.table_name, cc.column_name, distinct=True)
        if func == "avg" and lk.end < len(r.tokens) and r.lows[lk.end] in _VALUE_NOUNS:
            # "average order value / size (in units)": a total per order, averaged
            unit = r.link_after(lk.end + 1, gap=2)
            if unit is not None and unit not in r.used and r.links[unit].best.kind == "column":
                cu = r.concept(unit, ("column",))
                if cu is not None and r.col(cu).measurable:
                    r.used.add(unit)
                    return Measure("sum", cu.table_name, cu.column_name, per=c.table_name)
            if r.index.metrics:
                metric = next(iter(r.index.metrics.values()))
                return Measure("metric", metric.base_table, metric=metric.name.lower(), per=c.table)
        if func == "sum" and any(stem(w) in MONEY_VERBS for w in r.lows[lk.end : lk.end + 3]):
            money = value_measure(r, c.table)  # "how much did X pay": money, not a count
            if money is not None:
                r.plan.joins.add(c.table_name)
                return dataclasses.replace(money, raw=False) if money.metric else money
        if func in ("count", "sum"):
            return Measure("count", c.table_name, distinct=r.cues.distinct)
        r.used.discard(k)
        return None
    if c.kind == "value":
        r.used.discard(k)
        if func in ("count", "sum"):
            nxt = r.link_after(lk.end, gap=1)
            if nxt is not None and r.links[nxt].best.kind == "table":
                r.used.add(nxt)
                return Measure("count", r.links[nxt].best.table_name, distinct=r.cues.distinct)
            return Measure("count", c.table_name)
        return None
    column = r.col(c)
    if column.measurable or column.kind == "year":
        return _column_measure(r, func, c)
    if func == "count" and column.kind == "text":
        return Measure("count", c.table_name, c.column_name, distinct=True)
    if func in ("max", "min") and column.kind == "date":
        return Measure(func, c.table_name, c.column_name)
    r.used.discard(k)
    if func == "count":
        return Measure("count", c.table_name)
    return None


def value_measure(r: ReadState, table: str | None) -> Measure | None:
    """What "value" adds up for ``table``'s rows: the money a metric sums, without the metric's
    condition, or else the table's one money column."""
    if table is None:
        return None
    for name, metric in r.index.metrics.items():
        if metric.function == "SUM" and (table in metric.tables or is_ancestor(r.index, table, metric.base_table)):
            return Measure("metric", metric.base_table, metric=name, raw=True)
    money = [c for c in r.index.tables[table].columns.values() if c.kind == "number"]
    return Measure("sum", table, money[0].name) if len(money) == 1 else None


def money_asked(r: ReadState) -> Measure | None:
    """The money a question asks for when it names no measure: the summed metric, else revenue's column."""
    for name, metric in r.index.metrics.items():
        if metric.function == "SUM":
            return Measure("metric", metric.base_table, metric=name)
    for c in r.index.phrases.get((stem("revenue"),), []):
        if c.kind == "column":
            return Measure("sum", c.table_name, c.column_name)
    return None


def _charged_price(r: ReadState, lk) -> Concept | None:
    """The price column after a verb of selling ("selling price", "sale price"): the one a line was
    charged, when the schema keeps it beside a catalogue price of the same name."""
    nxt = r.link_after(lk.end, gap=0)
    if nxt is None or nxt in r.used or r.links[nxt].best.kind != "column":
        return None
    charged = {frm for _name, frm, _to in r.index.price_pairs}
    for c in r.links[nxt].concepts:
        if c.kind == "column" and ((c.table, c.column) in charged or not charged and r.col(c).measurable):
            r.used.add(nxt)
            return c
    return None


def _column_measure(r: ReadState, func: str, c: Concept) -> Measure:
    if func == "count":
        func = "sum"
    return Measure(func, c.table_name, c.column_name)


def intensive(r: ReadState, m: Measure) -> bool:
    """A quantity each row has whole (a length, an age, a rating), which adding up across rows does
    not mean: averaged over the rows of a group, never summed per group first."""
    if not m.column:
        return False
    words = set(r.index.column(m.table, m.column).name.lower().split("_"))
    for lk in r.links:
        if (lk.best.table, lk.best.column) == (m.table, m.column):
            words |= {t.low for t in r.tokens[lk.start : lk.end]}
    return bool(words & _INTENSIVE)
