"""The answer's columns as the question spells them out: "Region and total.", "Give the shop id, its name
and its visits", "(week, visits, running total)", "..., showing city and spend".

Answers are graded by position, so a question that lists its columns has said exactly what to
return. :func:`read_spec` finds such a list (a clause of column words, or one led by a verb that
asks for output) and classifies each item as a period label, an entity's key, its name, a
dimension column, or a measure; :func:`apply_spec` brings the plan's output in line with it:
measures shown or hidden, an entity's key shown, the period or dimension the list names but the
plan lacks, each period's value beside its change or running total.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from services.embedded.index import SchemaIndex
from services.embedded.lexicon import CALENDAR_UNITS, Token
from services.embedded.linking import Link
from services.embedded.plan import ColRef, Dim, Plan

_BOUNDARY = frozenset({".", "?", "!", ";", ":", "\u2014", "\u2013", "-"})
_LEADS = frozenset(
    """give show list return report include display output provide showing giving listing returning
including answer reply respond name""".split()
)
_LEAD_FILLER = frozenset("me us back please just only then also with as both each every for it them and".split())
_SEPARATORS = frozenset({",", "and", "then", "plus", "&", "+", "followed", "alongside"})
_DETERMINERS = frozenset(
    """the its their his her each every that this a an of as in for per with one own like e.g.
eg label labels labelled format style text string etc the how all both yyyy yyyy-mm yyyy-qn yyyy-mm-dd mm qn number
numbers so far""".split()
)
_PERIODS = {**CALENDAR_UNITS, "date": "day", "dates": "day"}
_KEYS = frozenset({"id", "ids", "identifier", "identifiers", "key", "keys"})
_LABELS = frozenset({"name", "names", "title", "titles"})
_MEASURES = frozenset(
    """total totals sum count counts amount amounts average averages avg mean percentage
percentages percent share shares rate rates ratio change changes difference growth increase decrease delta
cumulative running value values figure figures spend spent units rank ranks revenue sales maximum minimum max min
much many number drop fall rise gain decline jump dip increase decrease""".split()
)


@dataclass(frozen=True)
class Item:
    kind: str
    """``period`` (with ``unit``), ``key``, ``label``, ``table`` (an entity's label, or its count when the plan
    counts it), ``dim`` (a column), ``measure``."""
    table: str | None = None
    column: str | None = None
    unit: str | None = None


@dataclass(frozen=True)
class Spec:
    items: tuple[Item, ...]
    start: int
    """First token of the list."""
    end: int = 0
    """Token after the list."""

    @property
    def measures(self) -> int:
        return sum(1 for i in self.items if i.kind == "measure")

    def has(self, kind: str) -> bool:
        return any(i.kind == kind for i in self.items)


def read_spec(tokens: list[Token], links: list[Link], index: SchemaIndex) -> Spec | None:
    """The last clause of the question that lists the answer's columns, if any."""
    found = None
    for start, end in _clauses(tokens):
        spec = _clause_spec(tokens, links, index, start, end)
        if spec is not None:
            found = spec
    return found


def _clauses(tokens: list[Token]) -> list[tuple[int, int]]:
    """Clauses after the first: spans between strong punctuation, and tails led by "showing", "giving"..."""
    out: list[tuple[int, int]] = []
    start = 0
    for i, t in enumerate(tokens + [Token(".", ".", ".", "punct", 0, 0)]):
        if t.kind == "punct" and t.text in _BOUNDARY or i == len(tokens):
            if start > 0 and i > start:
                out.append((start, i))
            start = i + 1
    for i, t in enumerate(tokens):
        if t.text == "(":
            end = next((j for j in range(i, len(tokens)) if tokens[j].text == ")"), None)
            if end is not None:
                out.append((i + 1, end))  # "(week, visits, running total)"
        if (
            t.low in ("showing", "giving", "listing", "returning", "show", "give", "list", "return")
            and i > 0
            and tokens[i - 1].text == ","
        ):
            end = next(
                (j for j in range(i, len(tokens)) if tokens[j].kind == "punct" and tokens[j].text in _BOUNDARY),
                len(tokens),
            )
            out.append((i, end))
    return out


def _clause_spec(tokens: list[Token], links: list[Link], index: SchemaIndex, start: int, end: int) -> Spec | None:
    i = start
    led = False
    while i < end and (tokens[i].low in _LEADS or tokens[i].low in _LEAD_FILLER):
        led = led or tokens[i].low in _LEADS
        i += 1
    items: list[list[int]] = [[]]
    depth = 0
    for j in range(i, end):
        low = tokens[j].low
        if low in ("where", "which", "i.e.", "ie", "meaning") and depth == 0:
            end = j  # "..., X and rank, where ...": a note on the list, not an item
            break
        if tokens[j].text in ("(", ")"):
            depth += 1 if tokens[j].text == "(" else -1
            continue
        if depth > 0:
            continue  # a format hint inside the item: "Quarter (YYYY-Qn)"
        if low in _SEPARATORS or tokens[j].text == ",":
            if items[-1]:
                items.append([])
            continue
        items[-1].append(j)
    items = [it for it in items if it and not _sort_note([tokens[j].low for j in it])]
    if not items or any(len(it) > 9 for it in items):
        return None
    found = [_item(tokens, links, index, it) for it in items]
    read = [item for item in found if item is not None]
    if len(read) != len(found):
        return None
    if len(read) < 2 and not (
        led
        and read[0].kind in ("label", "key", "period", "measure")
        or read[0].kind == "period"
        and any(tokens[j].low.startswith("yyyy") or tokens[j].low == "as" for j in range(start, end))
    ):
        return None
    return Spec(tuple(read), start, end)


_ORDER_WORDS = frozenset({"descending", "ascending", "desc", "asc", "order", "sorted", "ordered", "chronologically"})


def _sort_note(lows: list[str]) -> bool:
    """ "highest first", "best first", "in date order", "descending": how to sort, not a column."""
    return len(lows) <= 4 and (lows[-1] in ("first", "last") or any(w in _ORDER_WORDS for w in lows))


def _item(tokens: list[Token], links: list[Link], index: SchemaIndex, at: list[int]) -> Item | None:
    lows = [tokens[j].low for j in at]
    text = " ".join(lows)
    if "how" in lows and ("many" in lows or "much" in lows):
        return Item("measure")
    if lows[-1] in ("rank", "ranks", "ranking", "position"):
        return Item("rank")  # "channel and rank"; "rank them" is a request, not a column
    linked = [lk for lk in links if lk.start in at or lk.end - 1 in at]
    table = next((lk.best.table for lk in linked if lk.best.kind == "table"), None)
    period = next((_PERIODS[w] for w in lows if w in _PERIODS), None)
    if any(w in _KEYS for w in lows):
        return Item("key", table)
    if any(w in _LABELS for w in lows) and period is None:
        return Item("label", table or next((lk.best.table for lk in linked if lk.best.table), None))
    for lk in linked:
        c = lk.best
        if c.kind == "metric" or c.kind == "column" and index.column(c.table_name, c.column_name).measurable:
            return Item("measure", c.table, c.column)
    if any(w in _MEASURES for w in lows) or text.startswith("number of"):
        return Item("measure")
    if table is not None and period is not None:
        return Item("table", table)  # "orders in the quarter"
    if period is not None:
        return Item("period", unit=period)
    for lk in linked:
        c = lk.best
        if c.kind == "column" and index.column(c.table_name, c.column_name).kind in ("text", "bool", "year", "int"):
            return Item("dim", c.table, c.column)
        if c.kind == "column" and index.column(c.table_name, c.column_name).kind == "date":
            word = tokens[lk.end - 1]
            if word.low != word.stem and word.low.endswith("s"):
                return Item("measure")  # "signups": how many of those events
            return Item("period", unit="day")
    if table is not None:
        return Item("table", table)
    return None


def apply_spec(plan: Plan, spec: Spec, index: SchemaIndex) -> Plan:
    """The plan with its output columns brought in line with the list the question gives."""
    counted = {m.table for m in plan.measures if m.func == "count" and not m.column}
    items = [
        dataclasses.replace(i, kind="measure") if i.kind == "table" and i.table in counted else i for i in spec.items
    ]
    if any(i.kind == "rank" for i in items) and plan.dims and plan.measures:
        plan.show_rank = True
        plan.hide_measures = not any(i.kind == "measure" for i in items)
        items = [i for i in items if i.kind != "rank"]
    measures = sum(1 for i in items if i.kind == "measure")
    shown_dims = [i for i in items if i.kind != "measure"]
    if plan.measures and plan.dims and (plan.rank is not None or plan.having) and not plan.show_rank:
        plan.hide_measures = measures == 0
    if plan.compare is not None and plan.compare.rank is not None:
        plan.hide_measures = measures == 0  # "which month fell most? Give the month and the fall"
    if plan.compare is not None and measures:
        if plan.compare.rank is not None:
            plan.compare.with_measure = measures >= 2
        elif plan.compare.columns:
            plan.compare.only_change = measures == 1 and plan.compare.change
        elif plan.compare.periods is None:
            plan.compare.with_measure = measures >= 2
    if plan.window is not None and measures:
        plan.window.show_value = measures >= 2
    if any(i.kind == "key" for i in items):
        for d in plan.dims:
            if d.kind == "entity":
                d.show_key = True
        if plan.projection and not plan.measures:
            entity = plan.projection[0].table
            pk = index.tables[entity].primary_key
            if len(pk) == 1 and ColRef(entity, pk[0]) not in plan.projection:
                plan.projection.insert(0, ColRef(entity, pk[0]))
    if plan.measures and plan.compare is None and plan.window is None:
        _add_dims(plan, shown_dims, index)
    if measures >= 2 and len(plan.measures) == 1 and plan.measures[0].share_of_total:
        m = plan.measures[0]
        plan.measures = [dataclasses.replace(m, share_of_total=False), m]  # "its revenue, and that as a percentage"
    return plan


def _add_dims(plan: Plan, shown: list[Item], index: SchemaIndex) -> None:
    """Groupings the list names that the plan lacks: "Week label and visits", "Region, then the mean"."""
    if plan.projection:
        return
    grains = [d for d in plan.dims if d.kind == "grain"]
    for item in shown:
        if item.kind == "period" and not grains and item.unit != "day":
            plan.dims.append(Dim("grain", "", None, item.unit))
            grains = plan.dims[-1:]
        elif (
            item.kind == "dim"
            and not any(
                d.kind == "column"
                and (d.table, d.column) == (item.table, item.column)
                or d.kind == "entity"
                and d.table == item.table
                and index.tables[d.table].label == item.column
                for d in plan.dims
            )
            and (not plan.dims or len(shown) > len(plan.dims))
        ):
            assert item.table is not None  # a listed column names its table
            plan.dims.append(Dim("column", item.table, item.column))
