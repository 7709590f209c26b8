"""Reading measures: what the question counts, adds up, averages or takes the extreme of."""

from __future__ import annotations

from services.embedded.index import Concept
from services.embedded.plan import Measure

from services.embedded.reader import VALUE_NOUNS, SORT_WORDS


class MeasuresMixin:
    def _aggregates(self) -> None:
        aggs = list(self.cues.aggs)
        n = 0
        while n < len(aggs):
            agg = aggs[n]
            k = self.link_after(agg.end, gap=3)
            nested = n + 1 < len(aggs) and aggs[n + 1].start <= agg.end + 1 and agg.func == "avg"
            if nested and k is not None and self.links[k].best.kind == "column" \
                    and self.col(self.concept(k)).measurable:
                # "average number of pages": 'number of' names the column's values, not a count
                del aggs[n + 1]
                nested = False
            n += 1
            if k is None or k in self.used or nested:
                continue  # nested: "average number of X per Y": the inner count reads X, 'per' reads Y
            m = self._measure_for(agg.func, k)
            if m is None:
                continue
            prev = aggs[n - 2] if n >= 2 else None
            if prev is not None and prev.func == "avg" and prev.end + 1 >= agg.start and m.func == "count":
                m = Measure("count", m.table, m.column, distinct=m.distinct, per="?")
            self.plan.measures.append(m)

    def _measure_for(self, func: str, k: int) -> Measure | None:
        lk = self.links[k]
        c = self.concept(k)
        if c is None:
            return None
        self.used.add(k)
        if c.kind == "metric":
            metric = self.ix.metrics[c.metric]
            if func == "avg":
                return Measure("metric", metric.base_table, metric=c.metric, per="?")
            return Measure("metric", metric.base_table, metric=c.metric)
        if c.kind == "table":
            nxt = self.link_after(lk.end, gap=0)
            if nxt is not None and self.links[nxt].best.kind == "column":
                cc = self.concept(nxt, ("column",))
                if cc is not None and cc.table == c.table and self.col(cc).measurable and cc.strength >= 0.6:
                    self.used.add(nxt)
                    return self._column_measure(func, cc)
            if func == "avg" and self.ix.metrics and lk.end < len(self.t) and self.lows[lk.end] in VALUE_NOUNS:
                metric = next(iter(self.ix.metrics.values()))
                return Measure("metric", metric.base_table, metric=metric.name.lower(), per=c.table)
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
            if self._is_by_target(lk.start) or self._after_superlative(lk.start):
                continue
            metric = self.ix.metrics[lk.best.metric]
            self.plan.measures.append(Measure("metric", metric.base_table, metric=lk.best.metric))
            self.used.add(k)

    def _is_by_target(self, start: int) -> bool:
        return start > 0 and self.lows[start - 1] in {"by"} | SORT_WORDS

    def _after_superlative(self, start: int) -> bool:
        return any(s.end <= start <= s.end + 1 for s in self.cues.superlatives)
