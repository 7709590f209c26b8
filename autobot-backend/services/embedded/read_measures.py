"""Reading measures: what the question counts, adds up, averages or takes the extreme of."""

from __future__ import annotations

import dataclasses

from services.embedded.index import Concept
from services.embedded.joins import is_ancestor, primary_date
from services.embedded.lexicon import stem
from services.embedded.plan import ColRef, Measure

from services.embedded.read_state import SORT_WORDS

_VALUE_NOUNS = frozenset({"value", "amount", "size", "spend", "spending", "total", "revenue", "worth"})

_VALUE_HEADS = frozenset({"value", "worth"})
_MONEY_VERBS = frozenset(stem(w) for w in ("pay", "paid", "spend", "spent", "earn", "earned", "bring", "brought",
                                             "generate", "generated", "cost", "charge", "charged", "bill", "billed"))
_DISCOUNT_STEMS = frozenset({stem("discount"), stem("discounts"), stem("markdown"), stem("markdowns")})
_AUXILIARIES = frozenset({"had", "have", "has", "did", "do", "does", "were", "was", "are", "is", "will", "can",
                          "could", "would", "went", "got", "actually", "still", "ever", "also"})


_INTENSIVE = frozenset("""length lengths duration durations distance distances size sizes age ages weight height width
depth rating ratings score scores grade grades temperature speed""".split())


class MeasuresMixin:
    """Reads what is computed: counts, totals, averages, extremes, metrics, durations."""

    grains_taken: set[int]

    def _aggregates(self) -> None:
        if self._duration() or self._when():
            return
        if self._value_of():
            return
        aggs = list(self.cues.aggs)
        n = 0
        carried = None
        while n < len(aggs):
            agg = aggs[n]
            start, per_grain = agg.end, None
            if carried is not None and agg.func == "count" and agg.start <= carried[2] + 2:
                per_grain = carried[0]  # "lowest monthly X count": each month's count, then the lowest
            if agg.func in ("avg", "max", "min"):
                # "average monthly X", "highest daily X": each period's total, then averaged
                g = next((g for g in self.cues.grains if g[1] == agg.end), None)
                if g is not None:
                    per_grain, start = g[0], g[2]
                    self.grains_taken.add(g[1])
            k = self.link_after(start, gap=3)
            if k is None and agg.func == "sum" and self.lows[agg.start] == "how" and any(
                    stem(w) in _MONEY_VERBS for w in self.lows[start:start + 3]) and not any(
                    lk.best.kind == "metric" or lk.best.kind == "column" and self.col(lk.best).measurable
                    for lk in self.links):
                money = self._money_asked()  # "how much was charged for books": the money
                if money is not None:
                    self.plan.measures.append(money)
                    n += 1
                    continue
            if k is None and agg.func == "sum" and start < len(self.lows) and self.lows[start] in ("amount", "sum"):
                k = self.link_after(start + 1, gap=2)  # "the total amount customers paid": their money
                if start + 1 < len(self.lows) and stem(self.lows[start + 1]) in _MONEY_VERBS:
                    money = self._money_asked()  # "the total amount paid by ...": the money itself
                    if money is not None:
                        self.plan.measures.append(money)
                        n += 1
                        continue
            if agg.func == "count" and self.lows[agg.start] == "how" and start < len(self.lows) \
                    and (self.lows[start] in _AUXILIARIES or self.lows[start].endswith("ed")
                         and not any(lk.start == start for lk in self.links)):
                # "Of the X who left, how many had ...": the rows named before
                ante = [j for j, lk in enumerate(self.links[:]) if lk.end <= agg.start and lk.best.kind == "table"]
                if ante:
                    k = ante[-1]
            if k is None and agg.func == "count" and self.lows[agg.start] in ("count", "tally") \
                    and all(w in ("please", "just", "kindly", "now", "so") for w in self.lows[:agg.start]):
                # "Count, but don't alter, the X": the imperative's object, wherever it is
                k = next((j for j, lk in enumerate(self.links) if lk.start > agg.end and lk.best.kind == "table"
                          and j not in self.used), None)
            before = self.link_before(agg.start, gap=0)
            if agg.func == "count" and before is not None and before not in self.used \
                    and self.links[before].best.kind == "table" and self.lows[agg.start] in ("count", "counts",
                                                                                            "volume", "volumes"):
                k = before  # "order counts": the count of the noun before it
            nested = n + 1 < len(aggs) and aggs[n + 1].start <= max(agg.end, start) + 1 and agg.func == "avg"
            if nested and per_grain is not None:
                carried = (per_grain, "avg", aggs[n + 1].end)  # "average monthly count of X"
            if nested and k is not None and self.links[k].best.kind == "column" \
                    and self.col(self.concept(k)).measurable:
                # "average number of pages": 'number of' names the column's values, not a count
                del aggs[n + 1]
                nested = False
            n += 1
            if k is None and not nested and agg.func in ("count", "sum") and self._implicit(agg):
                continue
            if k is None or k in self.used or nested:
                continue  # nested: "average number of X per Y": the inner count reads X, 'per' reads Y
            m = self._measure_for(agg.func, k)
            if m is None:
                if per_grain is not None and agg.func in ("max", "min", "avg"):
                    carried = (per_grain, agg.func, self.links[k].end)
                continue
            prev = aggs[n - 2] if n >= 2 else None
            averaged = agg.func == "avg" or (prev is not None and prev.func == "avg" and prev.end + 1 >= agg.start)
            if averaged and per_grain is None:
                # "average revenue per month", "average number of orders per day"
                g = next((g for g in self.cues.grains if g[1] == self.links[k].end and self.lows[g[1]] == "per"),
                         None)
                if g is not None:
                    per_grain = g[0]
                    self.grains_taken.add(g[1])
            if per_grain is not None:
                inner = "sum" if m.func in ("avg", "max", "min") else m.func
                outer = carried[1] if carried is not None and agg.func == "count" else agg.func
                m = Measure(inner, m.table, m.column, m.metric, m.distinct, per_grain=per_grain,
                            outer=outer if outer in ("max", "min") else "avg")
                carried = None
            elif prev is not None and prev.func == "avg" and prev.end + 1 >= agg.start and m.func == "count" \
                    and not m.per_grain:
                m = Measure("count", m.table, m.column, distinct=m.distinct, per="?")
            if self.cues.on_average and agg.func in ("count", "sum"):
                m = self._averaged(m, k)
            self.plan.measures.append(m)

    def _implicit(self, agg) -> bool:
        """"how many days were X out": a duration; "how much was it": the one amount
        the question names elsewhere."""
        func = "avg" if self.cues.on_average or any(a.func == "avg" for a in self.cues.aggs) else agg.func
        nxt = self.lows[agg.end] if agg.end < len(self.lows) else ""
        if agg.func == "count" and nxt in ("days", "weeks"):
            for k, lk in enumerate(self.links):
                if k in self.used:
                    continue
                end = next((c for c in lk.concepts[:2] if c.kind == "column" and self.col(c).kind == "date"), None)
                start = primary_date(self.index, end.table) if end is not None else None
                if start is not None and start.name != end.column:
                    self.used.add(k)
                    self.plan.measures.append(Measure(func if func != "count" else "avg", end.table, end.column,
                                                      since=start.name))
                    return True
            return False
        if agg.func == "sum" and (nxt in ("was", "is", "were", "are", "did", "do", "does") or not nxt):
            for k, lk in enumerate(self.links):
                c = self.concept(k)
                if c is not None and c.kind == "column" and self.col(c).measurable and lk.score >= 0.6:
                    self.used.add(k)
                    self.plan.measures.append(Measure(func, c.table, c.column))
                    return True
        return False

    def _averaged(self, m: Measure, k: int) -> Measure:
        """"On average, how many X per Y?": the count per Y, averaged; "how many
        pages are the books, on average": the column's average."""
        if m.func == "count" and not m.column:
            per = [j for j in range(k + 1, len(self.links)) if self.links[j].start > 0
                   and self.lows[self.links[j].start - 1] == "per"]
            for j in per + list(range(k + 1, len(self.links))):
                other = self.links[j].best
                if j not in self.used and other.kind == "table" and other.table != m.table \
                        and is_ancestor(self.index, other.table, m.table):
                    self.used.add(j)
                    return Measure("count", m.table, distinct=m.distinct, per=other.table)
            return m
        if m.func in ("sum", "metric") and not m.per and not m.per_grain:
            if m.func == "metric":
                return Measure("metric", m.table, metric=m.metric, per="?")
            for j, lk in enumerate(self.links):
                # "units per basket, on average": the units of each basket, averaged
                if j not in self.used and lk.best.kind == "table" and lk.best.table != m.table \
                        and is_ancestor(self.index, lk.best.table, m.table) and self._one_of(lk.start):
                    self.used.add(j)
                    return Measure("sum", m.table, m.column, per=lk.best.table)
            return Measure("avg", m.table, m.column, since=m.since)
        return m

    def _intensive(self, m: Measure) -> bool:
        """A quantity each row has whole (a length, an age, a rating), which adding up across rows does
        not mean: averaged over the rows of a group, never summed per group first."""
        if not m.column:
            return False
        words = set(self.index.column(m.table, m.column).name.lower().split("_"))
        for lk in self.links:
            if (lk.best.table, lk.best.column) == (m.table, m.column):
                words |= {t.low for t in self.tokens[lk.start:lk.end]}
        return bool(words & _INTENSIVE)

    def _one_of(self, start: int) -> bool:
        """"a completed order", "each customer", "per order": one entity, what is averaged over."""
        j = start - 1
        while j >= 0 and any(lk.start <= j < lk.end and lk.best.kind == "value" for lk in self.links):
            j -= 1
        return j >= 0 and self.lows[j] in ("a", "an", "each", "per", "every", "one", "single")

    def _value_of(self) -> bool:
        """"the value of returned X", "the value of voided Y": money
        added up over the rows named, whatever their status (a metric's sum without its condition)."""
        if any(a.func in ("avg", "count") for a in self.cues.aggs):
            return False
        for i, w in enumerate(self.lows[:-1]):
            if w not in _VALUE_HEADS or self.lows[i + 1] != "of" or i in self.cues.skip:
                continue
            j = i + 2
            k = None
            while j < len(self.lows):
                k = self.link_after(j, gap=3)
                if k is None or self.links[k].best.kind != "value":
                    break
                j = self.links[k].end  # "the value of returned orders": the rows after their status
            table = None
            if k is not None and k not in self.used and self.links[k].best.kind == "table":
                table = self.links[k].best.table
            m = self.value_measure(table or next((lk.best.table for lk in self.links if lk.best.kind == "table"), None))
            if m is None:
                return False
            if table is not None:
                self.used.add(k)
                self.plan.joins.add(table)
            self.plan.measures.append(m)
            return True
        return False

    def value_measure(self, table: str | None) -> Measure | None:
        """What "value" adds up for ``table``'s rows: the money a metric sums, without the metric's
        condition, or else the table's one money column."""
        if table is None:
            return None
        for name, metric in self.index.metrics.items():
            if metric.function == "SUM" and (table in metric.tables or is_ancestor(self.index, table, metric.base_table)):
                return Measure("metric", metric.base_table, metric=name, raw=True)
        money = [c for c in self.index.tables[table].columns.values() if c.kind == "number"]
        return Measure("sum", table, money[0].name) if len(money) == 1 else None

    def _when(self) -> bool:
        """"When was the first order placed?": the earliest (or latest) date of those rows."""
        if not self.lows or self.lows[0] != "when":
            return False
        early = any(w in ("first", "earliest", "oldest") for w in self.lows)
        late = any(w in ("last", "latest", "newest", "recent", "most-recent") for w in self.lows)
        if not (early or late):
            return False
        for k, lk in enumerate(self.links):
            date = self._date_of(k)
            if date is not None:
                self.used.add(k)
                self.plan.measures.append(Measure("min" if early else "max", date.table, date.name))
                return True
        return False

    def _duration(self) -> bool:
        """"days between ordering and shipping": the difference of two date columns of one table."""
        for i, w in enumerate(self.lows):
            if w not in ("between", "from"):
                continue
            a = self.link_after(i + 1, gap=1)
            if a is None or self.links[a].end >= len(self.lows) or self.lows[self.links[a].end] not in ("and", "to"):
                continue
            b = self.link_after(self.links[a].end + 1, gap=1)
            first, second = self._date_of(a), self._date_of(b) if b is not None else None
            if first is None or second is None or first.table != second.table or first.name == second.name:
                continue
            if not any(x in self.lows[:i] for x in ("days", "day", "time", "long", "duration", "weeks", "gap")):
                continue
            func = next((g.func for g in self.cues.aggs if g.start < i and g.func in ("avg", "max", "min", "sum")),
                        "avg")
            self.used |= {a, b}
            self.plan.measures.append(Measure(func, second.table, second.name, since=first.name))
            return True
        return self._time_to()

    def _time_to(self) -> bool:
        """"days it takes to ship an order": from the row's own date to the date named after 'to'."""
        if not any(w in ("days", "time", "long", "weeks", "duration") for w in self.lows):
            return False
        for k, lk in enumerate(self.links):
            if lk.start == 0 or self.lows[lk.start - 1] not in ("to", "until", "till", "before"):
                continue
            end = next((c for c in lk.concepts if c.kind == "column" and self.col(c).kind == "date"), None)
            if end is None:
                continue
            start = primary_date(self.index, end.table)
            if start is None or start.name == end.column:
                continue
            func = next((g.func for g in self.cues.aggs if g.func in ("avg", "max", "min", "sum")), "avg")
            self.used.add(k)
            self.plan.measures.append(Measure(func, end.table, end.column, since=start.name))
            return True
        return self._row_duration()

    def _row_duration(self) -> bool:
        """"average loan duration": from a table's own date to the one date that closes its rows."""
        for i, w in enumerate(self.lows):
            if w not in ("duration", "length", "lifetime", "turnaround", "time", "times"):
                continue
            k = self.link_before(i, gap=0)
            if k is not None and w in ("time", "times"):
                # "shipping time": from the row's own date to the date the word names
                end = next((c for c in self.links[k].concepts if c.kind == "column" and self.col(c).kind == "date"),
                           None)
                start = primary_date(self.index, end.table) if end is not None else None
                if end is None or start is None or start.name == end.column:
                    continue
                func = next((g.func for g in self.cues.aggs if g.func in ("avg", "max", "min", "sum")), "avg")
                self.used.add(k)
                self.plan.measures.append(Measure(func, end.table, end.column, since=start.name))
                return True
            if k is None or self.links[k].best.kind != "table":
                continue
            table = self.links[k].best.table
            start = primary_date(self.index, table)
            named = [c for lk in self.links for c in lk.concepts[:2] if c.kind == "column" and c.table == table
                     and self.col(c).kind == "date" and start is not None and c.column != start.name]
            ends = [self.col(c) for c in named] or [c for c in self.index.tables[table].dates() if c.nullable]
            if start is None or len(ends) < 1:
                continue
            func = next((g.func for g in self.cues.aggs if g.func in ("avg", "max", "min", "sum")), "avg")
            self.used.add(k)
            self.plan.measures.append(Measure(func, table, ends[0].name, since=start.name))
            return True
        return False

    def _date_of(self, k: int):
        lk = self.links[k]
        for c in lk.concepts:
            if c.kind == "column" and self.col(c).kind == "date":
                return self.col(c)
        if lk.best.kind == "table":
            return primary_date(self.index, lk.best.table)
        return None

    def _measure_for(self, func: str, k: int) -> Measure | None:
        lk = self.links[k]
        head = self.link_after(lk.end, gap=0)
        if lk.best.kind == "column" and lk.score < 0.8 and head is not None and head not in self.used \
                and (self.links[head].best.kind == "table" or self.links[head].best.kind == "column"
                     and self.links[head].score > lk.score and lk.score < 0.5):
            k, lk = head, self.links[head]  # "the customer accounts", "departure delay": the noun after a modifier
        c = self.concept(k)
        if c is None:
            return None
        self.used.add(k)
        if c.kind == "metric" and func == "count":
            table = next((x for x in lk.concepts if x.kind == "table"), None)
            if table is not None:
                return Measure("count", table.table, distinct=self.cues.distinct)  # "how many sales"
        if c.kind == "metric":
            metric = self.index.metrics[c.metric]
            if func == "avg":
                return Measure("metric", metric.base_table, metric=c.metric, per="?")
            return Measure("metric", metric.base_table, metric=c.metric)
        if c.kind == "table" and lk.via == "synonym" and func in ("avg", "sum", "max", "min"):
            priced = self._charged_price(lk)
            if priced is not None:  # "the average selling price": the price charged, not the list price
                return self._column_measure(func, priced)
        if c.kind == "table":
            nxt = self.link_after(lk.end, gap=0)
            if nxt is not None and self.links[nxt].best.kind == "column":
                cc = self.concept(nxt, ("column",))
                if cc is not None and cc.table == c.table and self.col(cc).measurable and cc.strength >= 0.5:
                    self.used.add(nxt)
                    return self._column_measure(func, cc)
                if func == "count" and cc is not None and cc.strength >= 0.6 and self.links[nxt].score >= 0.6 \
                        and not (self.col(cc).kind == "date" and not self.lows[self.links[nxt].end - 1].endswith("s")):
                    # "course registrations" counts registrations; "buyers bought ...": a verb naming a date
                    # the noun heads the phrase: "course registrations" counts registrations,
                    # "product categories" the categories
                    if cc.table != c.table and is_ancestor(self.index, c.table, cc.table):
                        self.used.add(nxt)
                        self.plan.joins.add(c.table)
                        return Measure("count", cc.table, distinct=self.cues.distinct)
                    if cc.table == c.table and self.col(cc).kind == "text":
                        self.used.add(nxt)
                        return Measure("count", cc.table, cc.column, distinct=True)
            if func == "avg" and lk.end < len(self.tokens) and self.lows[lk.end] in _VALUE_NOUNS:
                # "average order value / size (in units)": a total per order, averaged
                unit = self.link_after(lk.end + 1, gap=2)
                if unit is not None and unit not in self.used and self.links[unit].best.kind == "column":
                    cu = self.concept(unit, ("column",))
                    if cu is not None and self.col(cu).measurable:
                        self.used.add(unit)
                        return Measure("sum", cu.table, cu.column, per=c.table)
                if self.index.metrics:
                    metric = next(iter(self.index.metrics.values()))
                    return Measure("metric", metric.base_table, metric=metric.name.lower(), per=c.table)
            if func == "sum" and any(stem(w) in _MONEY_VERBS for w in self.lows[lk.end:lk.end + 3]):
                money = self.value_measure(c.table)  # "how much did X pay": money, not a count
                if money is not None:
                    self.plan.joins.add(c.table)
                    return dataclasses.replace(money, raw=False) if money.metric else money
            if func in ("count", "sum"):
                return Measure("count", c.table, distinct=self.cues.distinct)
            self.used.discard(k)
            return None
        if c.kind == "value":
            self.used.discard(k)
            if func in ("count", "sum"):
                nxt = self.link_after(lk.end, gap=1)
                if nxt is not None and self.links[nxt].best.kind == "table":
                    self.used.add(nxt)
                    return Measure("count", self.links[nxt].best.table, distinct=self.cues.distinct)
                return Measure("count", c.table)
            return None
        column = self.col(c)
        if column.measurable or column.kind == "year":
            return self._column_measure(func, c)
        if func == "count" and column.kind == "text":
            return Measure("count", c.table, c.column, distinct=True)
        if func in ("max", "min") and column.kind == "date":
            return Measure(func, c.table, c.column)
        self.used.discard(k)
        if func == "count":
            return Measure("count", c.table)
        return None

    def _money_asked(self) -> Measure | None:
        """The money a question asks for when it names no measure: the summed metric, else revenue's column."""
        for name, metric in self.index.metrics.items():
            if metric.function == "SUM":
                return Measure("metric", metric.base_table, metric=name)
        for c in self.index.phrases.get((stem("revenue"),), []):
            if c.kind == "column":
                return Measure("sum", c.table, c.column)
        return None

    def _charged_price(self, lk) -> Concept | None:
        """The price column after a verb of selling ("selling price", "sale price"): the one a line was
        charged, when the schema keeps it beside a catalogue price of the same name."""
        nxt = self.link_after(lk.end, gap=0)
        if nxt is None or nxt in self.used or self.links[nxt].best.kind != "column":
            return None
        charged = {frm for _name, frm, _to in self.index.price_pairs}
        for c in self.links[nxt].concepts:
            if c.kind == "column" and ((c.table, c.column) in charged or not charged and self.col(c).measurable):
                self.used.add(nxt)
                return c
        return None

    def _column_measure(self, func: str, c: Concept) -> Measure:
        if func == "count":
            func = "sum"
        return Measure(func, c.table, c.column)

    def _metrics(self) -> None:
        for k, lk in enumerate(self.links):
            if k in self.used or lk.best.kind != "metric":
                continue
            if any(m.metric == lk.best.metric for m in self.plan.measures):
                self.used.add(k)
                continue
            if self._is_by_target(lk.start) or self._after_superlative(lk.start) or self._thresholded(lk) \
                    or self._modifier(k):
                continue
            metric = self.index.metrics[lk.best.metric]
            self.plan.measures.append(Measure("metric", metric.base_table, metric=lk.best.metric))
            self.used.add(k)
        self._money()
        if not self.plan.measures:
            self._bare_measure()

    def _money(self) -> None:
        """Money at another price: discounts (catalogue price less price charged, per unit sold) and the
        metric read at the catalogue price instead of the charged one."""
        if not self.index.price_pairs:
            return
        name, frm, to = self.index.price_pairs[0]
        metric = self.index.metrics[name]
        discount = [k for k, lk in enumerate(self.links) if lk.via == "synonym" and stem(self.lows[lk.start])
                    in _DISCOUNT_STEMS]
        named = [k for k, lk in enumerate(self.links) if k not in self.used and any(
            c.kind == "column" and (c.table, c.column) == to for c in lk.concepts[:2])]
        at_price = [k for k in named if self.links[k].start > 0 and self.lows[self.links[k].start - 1] in (
            "at", "using", "with", "by") or self.links[k].end < len(self.lows) and self.lows[self.links[k].end] in (
            "value", "values", "worth")]
        if discount and not named:
            return  # a discount the question does not define against the catalogue price: no such column
        if not discount and not (at_price and (any(m.metric == name for m in self.plan.measures)
                                               or any(w in ("value", "worth") for w in self.lows))):
            return
        m = Measure("metric", metric.base_table, metric=name, swap=(ColRef(*frm), ColRef(*to)),
                    discount=bool(discount))
        self.used |= set(discount) | set(at_price) | set(named if discount else ())
        keep = [x for x in self.plan.measures if not (x.metric == name or (x.table, x.column) in (frm, to))]
        self.plan.measures = [m] + keep

    def _bare_measure(self) -> None:
        """"Hours worked by department": a numeric column grouped by something is its total."""
        for k, lk in enumerate(self.links):
            if k in self.used or lk.best.kind != "column" or lk.score < 0.6:
                continue
            c = self.concept(k, ("column",))
            if not self.col(c).measurable:
                continue
            rest = self.lows[lk.end:lk.end + 4]
            if any(w in ("by", "per", "each", "for") for w in rest[:3]) and self.cues.grains + [
                    w for w in rest if w in ("by", "per", "each")]:
                self.used.add(k)
                self.plan.measures.append(Measure("sum", c.table, c.column))
                return

    def _modifier(self, k: int) -> bool:
        """"per sales channel": a metric word that only qualifies the grouping after it."""
        lk = self.links[k]
        nxt = self.link_after(lk.end, gap=0)
        return (lk.start > 0 and self.lows[lk.start - 1] in ("per", "by", "each", "every", "across")
                and nxt is not None and self.links[nxt].best.kind in ("column", "table"))

    def _thresholded(self, lk) -> bool:
        """"spent more than 8000": the metric is a condition on the rows, not the answer."""
        return any(0 <= th.start - lk.end <= 1 or 0 <= lk.start - th.end <= 1 for th in self.cues.thresholds)

    def _is_by_target(self, start: int) -> bool:
        return start > 0 and self.lows[start - 1] in {"by"} | SORT_WORDS

    def _after_superlative(self, start: int) -> bool:
        return any(s.end <= start <= s.end + 1 for s in self.cues.superlatives)
