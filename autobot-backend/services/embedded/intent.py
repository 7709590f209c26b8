"""Reading a linked question into a :class:`Plan`: which link is the measure, which the grouping,
which a filter, what is ranked, compared or counted.

The reading is positional and conservative: a cue word governs the link that follows it
("by" + a column is a grouping, "how many" + a table is a count), and a link no cue claims
becomes a filter (a value, a flag, a NULL test) or, failing that, context for the joins.
When the pieces do not add up to a query, :class:`Unclear` says which piece is missing.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.embedded.cues import Cues
from services.embedded.dates import DateSpec
from services.embedded.index import Column, Concept, SchemaIndex
from services.embedded.joins import default_date, distance, is_ancestor, primary_date
from services.embedded.lexicon import (
    EXCLUDE_WORDS,
    NEGATION_CONTRACTIONS,
    NEGATIONS,
    Token,
    stem,
)
from services.embedded.linking import Link, Linked
from services.embedded.plan import ColRef, Compare, Dim, Exists, Filter, Having, Measure, Plan, Rank

_PARTICIPLES = frozenset({"written", "made", "sold", "bought", "paid", "done", "seen", "given", "taken", "held",
                          "run", "won", "lent", "brought", "sent", "kept"})
_SORT_WORDS = frozenset({"sort", "sorted", "order", "ordered", "rank", "ranked", "ranking", "arranged"})
_VALUE_NOUNS = frozenset({"value", "amount", "size", "spend", "spending", "total", "revenue", "worth"})
_STATE_POSITIVE = frozenset({"active", "available", "current", "live", "valid", "ongoing", "open", "enabled"})
_NEGATIVE_STATES = ("discontinu", "delet", "archiv", "inactiv", "disabl", "retir", "expir", "block", "suspend",
                    "clos", "cancel", "remov", "hidden", "obsolet")
_WH = frozenset({"which", "what", "who", "whose"})


@dataclass(frozen=True)
class Unclear:
    """The question cannot be read with confidence; ``reason`` says what is missing."""

    reason: str


class _Reader:
    def __init__(self, tokens: list[Token], linked: Linked, cues: Cues, index: SchemaIndex):
        self.t = tokens
        self.lows = [t.low for t in tokens]
        self.links = linked.links
        self.cues = cues
        self.ix = index
        self.used: set[int] = set()
        self.plan = Plan()
        self.mentioned = self._mentioned_tables()

    # ------------------------------------------------------------------ link helpers

    def _mentioned_tables(self) -> list[str]:
        out: list[str] = []
        for lk in self.links:
            for c in lk.concepts[:1]:
                if c.kind == "table" and c.table not in out:
                    out.append(c.table)
                elif c.kind == "metric":
                    for tb in self.ix.metrics[c.metric].tables:
                        if tb not in out:
                            out.append(tb)
        for lk in self.links:
            if lk.best.table and lk.best.table not in out:
                out.append(lk.best.table)
        return out

    def concept(self, k: int, kinds: tuple[str, ...] | None = None) -> Concept | None:
        """The link's meaning that best fits the tables the question mentions."""
        lk = self.links[k]
        options = [c for c in lk.concepts if kinds is None or c.kind in kinds]
        if not options:
            return None
        top = options[0].strength
        near = [c for c in options if c.strength >= top - 0.25]
        if len({(c.table, c.column, c.kind) for c in near}) == 1:
            return near[0]
        anchors = self._anchors(k)
        for c in near:
            if c.table in anchors:
                return c
        # Unanchored: the entity table (fewest foreign keys out) rather than a fact table.
        return min(near, key=lambda c: (-c.strength, self._fks_out(c.table), near.index(c)))

    def _anchors(self, k: int) -> list[str]:
        """Tables that other links name unambiguously."""
        out: list[str] = []
        for j, lk in enumerate(self.links):
            if j == k:
                continue
            top = lk.concepts[0].strength
            tables = {c.table for c in lk.concepts if c.strength >= top - 0.25 and c.table}
            if lk.best.kind == "metric":
                tables = {self.ix.metrics[lk.best.metric].base_table}
            if len(tables) == 1:
                t = next(iter(tables))
                if t not in out:
                    out.append(t)
        return out

    def _fks_out(self, table: str | None) -> int:
        if table is None:
            return 99
        return sum(1 for c in self.ix.tables[table].columns.values() if c.references)

    def link_after(self, pos: int, gap: int = 2) -> int | None:
        for k, lk in enumerate(self.links):
            if lk.start >= pos:
                between = [self.lows[i] for i in range(pos, lk.start)]
                if len(between) <= gap and all(w in _FILLER or w in _FILLER_EXTRA for w in between):
                    return k
                return None
        return None

    def link_before(self, pos: int, gap: int = 2) -> int | None:
        for k in range(len(self.links) - 1, -1, -1):
            lk = self.links[k]
            if lk.end <= pos:
                between = [self.lows[i] for i in range(lk.end, pos)]
                return k if len(between) <= gap else None
        return None

    def negated_before(self, start: int, window: int = 4) -> bool:
        lo = max(0, start - window)
        for i in range(start - 1, lo - 1, -1):
            w = self.lows[i]
            if w in NEGATIONS or w in NEGATION_CONTRACTIONS or w.endswith("n't"):
                return True
            if any(lk.start <= i < lk.end for lk in self.links):
                break
        return False

    def col(self, c: Concept) -> Column:
        return self.ix.column(c.table, c.column)

    # ------------------------------------------------------------------ reading

    def read(self) -> Plan | Unclear:
        self._aggregates()
        self._metrics()
        self._groupings()
        self._ranking()
        self._thresholds()
        self._dates()
        self._values()
        self._flags()
        self._id_refs()
        self._subject()
        self._compare()
        self._tables()
        self._percent()
        return self._finish()

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
            if func == "avg" and self.ix.metrics and lk.end < len(self.t) and self.lows[lk.end] in _VALUE_NOUNS:
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
        return start > 0 and self.lows[start - 1] in {"by"} | _SORT_WORDS

    def _after_superlative(self, start: int) -> bool:
        return any(s.end <= start <= s.end + 1 for s in self.cues.superlatives)

    def _groupings(self) -> None:
        for i, w in enumerate(self.lows):
            if i in self.cues.skip or w not in ("by", "per", "each", "every", "across"):
                continue
            if w == "by" and i > 0 and (self.lows[i - 1] in _PARTICIPLES or self.lows[i - 1].endswith("ed")) \
                    and self.lows[i - 1] not in _SORT_WORDS:
                continue
            k = self.link_after(i + 1, gap=2)
            if k is None or k in self.used:
                continue
            c = self.concept(k)
            if c.kind == "metric" or (c.kind == "column" and self.col(c).measurable and w == "by"):
                continue  # "top 5 products by revenue": the ranking's measure, read in _ranking
            if w == "per" and c.kind == "table" and self._two_level(c.table, k):
                continue
            while k is not None:
                k = self._add_dim(k)
                if k is None:
                    break
                lk = self.links[k]
                if lk.end < len(self.lows) and self.lows[lk.end] in ("and", ",", "&"):
                    k = self.link_after(lk.end + 1, gap=1)
                    if k is not None and (k in self.used or self.links[k].best.kind not in ("table", "column")):
                        k = None
                else:
                    k = None
        for unit, start, _end in self.cues.grains:
            self.plan.dims.append(Dim("grain", "", None, unit))
            self._grain_at = getattr(self, "_grain_at", []) + [start]

    def _two_level(self, table: str, k: int) -> bool:
        """"per <entity>" after an average: per row (no grouping) or per entity (aggregate first)."""
        for n, m in enumerate(self.plan.measures):
            if m.per == "?":
                m.per = table
                self.used.add(k)
                return True
            if m.func == "avg" and m.column:
                if m.table == table:
                    self.used.add(k)
                    return True
                if distance(self.ix, m.table, table) > 0:
                    self.plan.measures[n] = Measure("sum", m.table, m.column, per=table)
                    self.used.add(k)
                    return True
        return False

    def _add_dim(self, k: int) -> int | None:
        """Add the grouping named by link ``k``; returns the last link it consumed."""
        lk = self.links[k]
        c = self.concept(k)
        if c.kind == "table":
            nxt = self.link_after(lk.end, gap=0)
            if nxt is not None and nxt not in self.used:
                cc = self.concept(nxt, ("column",))
                if cc is not None and cc.table == c.table and not self.col(cc).measurable:
                    self.used |= {k, nxt}
                    self.plan.dims.append(Dim("column", cc.table, cc.column))
                    return nxt
                if cc is not None and distance(self.ix, c.table, cc.table) == 1 and not self.col(cc).measurable \
                        and self.col(cc).kind in ("text", "bool"):
                    self.used |= {k, nxt}
                    self.plan.dims.append(Dim("column", cc.table, cc.column))
                    return nxt
            self.used.add(k)
            self.plan.dims.append(Dim("entity", c.table))
            return k
        if c.kind == "column":
            column = self.col(c)
            self.used.add(k)
            if column.kind == "date":
                self.plan.dims.append(Dim("grain", c.table, c.column, "day"))
            else:
                self.plan.dims.append(Dim("column", c.table, c.column))
            return k
        return None

    # ------------------------------------------------------------------ ranking

    def _ranking(self) -> None:
        sups = self.cues.superlatives
        if not sups:
            self._sort_by()
            return
        sup = sups[0]
        wh = self._wh_dim()
        after = self.link_after(sup.end, gap=2)
        dim_k, event_k = None, None
        if after is not None and after not in self.used:
            c = self.concept(after)
            if c.kind == "table" and wh is None:
                nxt = self.link_after(self.links[after].end, gap=1)
                if nxt is not None and nxt not in self.used and self.links[nxt].best.kind == "table":
                    event_k, dim_k = after, nxt
                else:
                    dim_k = after
            elif c.kind == "table":
                event_k = after
            elif c.kind == "column" and not self.col(c).measurable and self.col(c).kind in ("text", "bool") \
                    and wh is None:
                dim_k = after
        explicit = sup.explicit_limit or self.lows[sup.start] in ("top", "bottom")
        if dim_k is None and wh is None and not explicit and not self.plan.dims:
            # "the highest list price": a scalar maximum, not a ranking
            if not self.plan.measures and after is not None:
                c = self.concept(after)
                if c.kind in ("column",) and (self.col(c).measurable or self.col(c).kind in ("date", "year")):
                    self.used.add(after)
                    self.plan.measures.append(Measure("max" if sup.desc else "min", c.table, c.column))
                elif c.kind == "metric":
                    pass
            return
        if dim_k is None and wh is not None:
            dim_k = wh
        if dim_k is not None and dim_k not in self.used:
            self._add_dim(dim_k)
        elif dim_k is None and not self.plan.dims:
            return
        if event_k is not None and not self.plan.measures:
            self.used.add(event_k)
            self.plan.measures.append(Measure("count", self.links[event_k].best.table, rows=True))
        by = self._by_measure()
        if by is not None and not self.plan.measures:
            self.plan.measures.append(by)
        if not self.plan.measures:
            after_sup = self.link_after(sup.end, gap=2)
            if after_sup is not None and after_sup not in self.used:
                c = self.concept(after_sup)
                if c.kind == "metric":
                    self.used.add(after_sup)
                    self.plan.measures.append(Measure("metric", self.ix.metrics[c.metric].base_table,
                                                      metric=c.metric))
                elif c.kind == "table":
                    self.used.add(after_sup)
                    self.plan.measures.append(Measure("count", c.table))
                elif c.kind == "column" and self.col(c).measurable:
                    self.used.add(after_sup)
                    self.plan.measures.append(Measure("sum", c.table, c.column))
        if sup.limit is not None:
            limit = sup.limit
        elif self._wh_dim() is not None and self._wh_limit is not None:
            limit = self._wh_limit
        else:
            limit = self._singular_limit(dim_k)
        rank = Rank(sup.desc, limit)
        if not self.plan.measures:
            column = self._hinted_column(sup.hint)
            if column is not None:
                rank.column = column
            else:
                default = self._default_rank_measure()
                if default is not None:
                    self.plan.measures.append(default)
        self.plan.rank = rank

    def _default_rank_measure(self) -> Measure | None:
        """Ranking with no measure named ("which drug is prescribed least often"): count the rows."""
        dims = self.plan.dims
        if not dims:
            return None
        for k, lk in enumerate(self.links):
            if k not in self.used and lk.best.kind == "table" and lk.best.table != dims[0].table:
                self.used.add(k)
                return Measure("count", lk.best.table, rows=True)
        if dims[0].kind == "column":
            return Measure("count", dims[0].table, rows=True)
        if self.ix.metrics:
            metric = next(iter(self.ix.metrics.values()))
            if distance(self.ix, metric.base_table, dims[0].table) >= 0:
                return Measure("metric", metric.base_table, metric=metric.name.lower())
        children = [e.other for e in self.ix.edges.get(dims[0].table, ()) if is_ancestor(self.ix, dims[0].table, e.other)]
        return Measure("count", children[0], rows=True) if children else None

    def _singular_limit(self, k: int | None) -> int | None:
        if k is None:
            return 1
        tok = self.t[self.links[k].end - 1]
        return None if tok.low != tok.stem and tok.low.endswith("s") else 1

    _wh_limit: int | None = None

    def _wh_dim(self) -> int | None:
        for i, w in enumerate(self.lows):
            if w in _WH:
                j = i + 1
                if j < len(self.t) and self.t[j].kind == "number" and self.t[j].low.isdigit():
                    self._wh_limit = int(self.t[j].low)  # "which 5 patients ..."
                    j += 1
                k = self.link_after(j, gap=1)
                if k is not None and self.links[k].best.kind in ("table", "column"):
                    c = self.concept(k)
                    if c.kind == "column" and self.col(c).measurable:
                        return None
                    return k
                if w == "who":
                    return None
                return None
        return None

    def _by_measure(self) -> Measure | None:
        for i, w in enumerate(self.lows):
            if w == "by" or w in _SORT_WORDS:
                k = self.link_after(i + 1, gap=2)
                if k is None or k in self.used:
                    continue
                c = self.concept(k)
                if c.kind == "metric":
                    self.used.add(k)
                    return Measure("metric", self.ix.metrics[c.metric].base_table, metric=c.metric)
                if c.kind == "column" and self.col(c).measurable:
                    self.used.add(k)
                    return Measure("sum", c.table, c.column)
        return None

    def _hinted_column(self, hint: str | None) -> ColRef | None:
        dim = self.plan.dims[0] if self.plan.dims else None
        table = dim.table if dim is not None and dim.kind == "entity" else None
        candidates = [c for c in self.ix.tables[table].columns.values()] if table else []
        for k, lk in enumerate(self.links):
            c = self.concept(k)
            if k not in self.used and c.kind == "column" and (self.col(c).measurable or self.col(c).kind == "date"):
                if table is None or c.table == table:
                    self.used.add(k)
                    return ColRef(c.table, c.column)
        if hint is None or not candidates:
            return None
        targets = {"price": ("pric", "cost", "amount"), "length": ("pag", "length", "duration"),
                   "date": ("date",), "birth": ("birth",)}.get(hint, (hint,))
        for col in candidates:
            if (col.measurable or col.kind in ("date", "year")) and any(
                    s.startswith(tg) for s in col.stems for tg in targets):
                return ColRef(col.table, col.name)
        if hint == "date":
            date = primary_date(self.ix, table)
            return ColRef(table, date.name) if date else None
        return None

    def _sort_by(self) -> None:
        for i, w in enumerate(self.lows):
            if w in _SORT_WORDS and i + 1 < len(self.lows) and self.lows[i + 1] == "by":
                k = self.link_after(i + 2, gap=1)
                if k is None:
                    continue
                c = self.concept(k)
                desc = any(x in self.lows for x in ("descending", "desc", "highest", "largest", "most"))
                if c.kind == "column" and not self.plan.measures:
                    self.used.add(k)
                    self.plan.rank = Rank(desc, None, ColRef(c.table, c.column))
                elif c.kind == "metric" or (c.kind == "column" and self.col(c).measurable):
                    self.plan.rank = Rank(desc, None)
                return

    # ------------------------------------------------------------------ filters

    def _thresholds(self) -> None:
        for th in self.cues.thresholds:
            k = self.link_after(th.end, gap=1)
            if k is None or k in self.used or self.links[k].best.kind == "value":
                k = self.link_before(th.start, gap=2)
            if k is None:
                continue
            c = self.concept(k)
            if c.kind == "metric":
                metric = self.ix.metrics[c.metric]
                self.used.add(k)
                self.plan.having.append(Having(Measure("metric", metric.base_table, metric=c.metric), th.op,
                                               th.number))
            elif c.kind == "table":
                self.used.add(k)
                self.plan.having.append(Having(Measure("count", c.table), th.op, th.number))
            elif c.kind == "column" and (self.col(c).measurable or self.col(c).kind == "year"):
                if k not in self.used:
                    self.used.add(k)
                elif not any(m.column == c.column and m.table == c.table for m in self.plan.measures):
                    continue
                self.plan.filters.append(Filter("cmp", ColRef(c.table, c.column), op=th.op, number=th.number))
            elif c.kind == "column" and self.links[k].start > th.end:
                # "more than 15 orders" where 'orders' linked through a column alternative
                tables = [x.table for x in self.links[k].concepts if x.kind == "table"]
                if tables:
                    self.used.add(k)
                    self.plan.having.append(Having(Measure("count", tables[0]), th.op, th.number))

    def _dates(self) -> None:
        self._pending: list[tuple[DateSpec, Column | None]] = []
        self._hints: dict[int, str] = {}
        for n, spec in enumerate(self.cues.dates):
            self._table_hint = None
            self._pending.append((spec, self._date_column_before(spec.start)))
            if self._table_hint:
                self._hints[n] = self._table_hint
        for _unit, start, _end in self.cues.grains:
            column = self._date_column_before(start)
            for d in self.plan.dims:
                if d.kind == "grain" and not d.table:
                    if column is not None:
                        d.table, d.column = column.table, column.name
                    break

    def _resolve_dates(self) -> None:
        """Date phrases with no date column named next to them are about the measured rows."""
        main = self._main_table()
        fallback = default_date(self.ix, main) if main else None
        pending = []
        for n, (s, c) in enumerate(self._pending):
            hint = self._hints.get(n)
            # "customers who placed an order in May": the order's date, since orders hang off customers;
            # "appointments of cardiology doctors in May": the appointment's, not the doctor's hiring date
            if c is None and hint and main and (hint == main or is_ancestor(self.ix, main, hint)):
                c = primary_date(self.ix, hint)
            pending.append((s, c))
        self._pending = pending
        known = [c for _s, c in self._pending if c is not None]
        resolved = [(s, c or (known[0] if known else fallback)) for s, c in self._pending]
        for d in self.plan.dims:
            if d.kind == "grain" and not d.table:
                column = known[0] if known else fallback
                if column is not None:
                    d.table, d.column = column.table, column.name
        self._pending = [(s, c) for s, c in resolved if c is not None]

    def _date_ref(self, table: str | None) -> ColRef | None:
        column = default_date(self.ix, table) if table else None
        return ColRef(column.table, column.name) if column else None

    def _main_table(self) -> str | None:
        p = self.plan
        if p.measures:
            m = p.measures[0]
            return m.table
        if p.rank is not None and p.rank.column is not None:
            return p.rank.column.table
        return p.subject

    def _range(self, spec: DateSpec, column: Column) -> Filter:
        ref = ColRef(column.table, column.name)
        if spec.relative is not None:
            return Filter("relative", ref, relative=spec.relative)
        return Filter("range", ref, lo=spec.lo, hi=spec.hi)

    def _date_column_before(self, start: int) -> Column | None:
        k = self.link_before(start, gap=2)
        if k is None:
            return None
        lk = self.links[k]
        for c in lk.concepts:
            if c.kind == "column" and self.col(c).kind in ("date", "year") and c.strength >= 0.5:
                self.used.add(k)
                return self.col(c)
        if lk.best.kind == "table":
            self._table_hint = lk.best.table
            return None
        if lk.best.kind == "column" and self.col(lk.best).kind in ("date", "year"):
            self.used.add(k)
            return self.col(lk.best)
        return None

    def _values(self) -> None:
        by_col: dict[tuple[str, str], Filter] = {}
        for k, lk in enumerate(self.links):
            if k in self.used or lk.best.kind != "value" or lk.best.table is None:
                continue
            self.used.add(k)
            c = self.concept(k, ("value",))
            ref = ColRef(c.table, c.column)
            neg = self._excluded(lk.start)
            key = (c.table, c.column, neg)
            if key in by_col:
                by_col[key].values += (c.value,)
                continue
            f = Filter("ne" if neg else "eq", ref, values=(c.value,))
            by_col[key] = f
            self.plan.filters.append(f)

    def _excluded(self, start: int) -> bool:
        window = self.lows[max(0, start - 3):start]
        if any(w in EXCLUDE_WORDS or w.startswith("non") for w in window):
            return True
        return bool(window) and window[-1] in ("not",)

    def _flags(self) -> None:
        for k, lk in enumerate(self.links):
            if k in self.used or lk.best.kind != "column":
                continue
            c = self.concept(k, ("column",))
            column = self.col(c)
            neg = lk.negated or self.negated_before(lk.start) or self._yet_after(lk.end)
            if column.kind == "bool" and c.strength >= 0.5:
                self.used.add(k)
                self.plan.filters.append(Filter("bool", ColRef(c.table, c.column), values=(not neg,)))
            elif column.nullable and c.strength >= 0.5 and not self._is_projection(k):
                self.used.add(k)
                self.plan.filters.append(Filter("null" if neg else "notnull", ColRef(c.table, c.column)))
        for i, w in enumerate(self.lows):
            if w in _STATE_POSITIVE or (w == "still" and i + 1 < len(self.lows) and stem(self.lows[i + 1]) == "sell"):
                col = self._negative_state_column()
                if col is not None:
                    self.plan.filters.append(Filter("bool", ColRef(col.table, col.name), values=(False,)))

    def _yet_after(self, end: int) -> bool:
        return end < len(self.lows) and self.lows[end] in ("yet",)

    def _is_projection(self, k: int) -> bool:
        lk = self.links[k]
        before = self.lows[max(0, lk.start - 3):lk.start]
        return any(w in ("show", "list", "give", "display") for w in before) and not self.negated_before(lk.start)

    def _negative_state_column(self) -> Column | None:
        for table in self.mentioned:
            for col in self.ix.tables[table].columns.values():
                if col.kind == "bool" and any(col.name.lower().startswith(p) for p in _NEGATIVE_STATES):
                    if not any(f.col == ColRef(col.table, col.name) for f in self.plan.filters):
                        return col
        return None

    def _id_refs(self) -> None:
        for k, lk in enumerate(self.links):
            if lk.best.kind != "table" or lk.end >= len(self.t):
                continue
            tok = self.t[lk.end]
            if tok.kind == "number" and tok.low.isdigit() and lk.end not in self.cues.skip:
                pk = self.ix.tables[lk.best.table].primary_key
                if len(pk) == 1:
                    self.plan.filters.append(Filter("eq", ColRef(lk.best.table, pk[0]), values=(int(tok.low),)))
                    self.used.add(k)

    # ------------------------------------------------------------------ subject and joins

    def _subject(self) -> None:
        p = self.plan
        entity_dims = [d for d in p.dims if d.kind == "entity"]
        if p.measures and p.measures[0].func == "count":
            p.subject = p.measures[0].table
        elif entity_dims:
            p.subject = entity_dims[0].table
        else:
            for k, lk in enumerate(self.links):
                if lk.best.kind == "table":
                    p.subject = lk.best.table
                    break
            if p.subject is None and self.links:
                p.subject = next((lk.best.table for lk in self.links if lk.best.table), None)

    def _tables(self) -> None:
        p = self.plan
        for k, lk in enumerate(self.links):
            if k in self.used or lk.best.kind != "table":
                continue
            table = lk.best.table
            self.used.add(k)
            if table == p.subject:
                continue
            open_exists = p.exists[-1] if p.exists and self._same_clause(self._exists_at, lk.start) else None
            if open_exists is not None and table not in open_exists.also and table != open_exists.table:
                # "never borrowed a fantasy book": the book is part of what never happened
                open_exists.also.append(table)
                moved = [f for f in p.filters if f.col.table == table]
                p.filters = [f for f in p.filters if f not in moved]
                open_exists.filters.extend(moved)
            elif self.negated_before(lk.start, window=5) and p.subject and distance(self.ix, p.subject, table) > 0:
                moved = [f for f in p.filters if f.col.table == table or self._date_near(f, lk)]
                p.filters = [f for f in p.filters if f not in moved]
                p.exists.append(Exists(table, True, moved))
                self._exists_at = lk.end
            else:
                p.joins.add(table)

    _exists_at = -1

    def _same_clause(self, a: int, b: int) -> bool:
        if a < 0 or b < a:
            return False
        return not any(self.lows[i] in (",", ";", ".", "and", "but", "or", "who", "which", "that", "?")
                       for i in range(a, b))

    def _date_near(self, f: Filter, lk: Link) -> bool:
        return f.kind in ("range", "relative") and f.col.table == lk.best.table

    # ------------------------------------------------------------------ comparisons, shares

    def _compare(self) -> None:
        cues = self.cues
        self._resolve_dates()
        pending = self._pending
        if not cues.change or not (cues.compare_unit or len(pending) >= 2 or any(s.parts for s, _ in pending)
                                   or any(d.kind == "grain" for d in self.plan.dims)):
            for spec, column in pending:
                self.plan.filters.append(self._range(spec, column))
            return
        periods = [s for s, _ in pending if s.period is not None]
        parts = [s for s, _ in pending if s.parts]
        if len(periods) == 2 or parts:
            pair = (periods[0].period, periods[1].period) if len(periods) == 2 else parts[0].parts
            if pair[0].lo > pair[1].lo and any(w in ("from", "since") for w in self.lows) is False:
                pair = (pair[1], pair[0])
            date = pending[0][1]
            self.plan.compare = Compare(pair[0].grain, cues.compare_pct, periods=pair,
                                        date=ColRef(date.table, date.name))
            for spec, column in pending:
                if spec.period is None and not spec.parts:
                    self.plan.filters.append(self._range(spec, column))
            return
        unit = cues.compare_unit
        if unit is None:
            grains = [d for d in self.plan.dims if d.kind == "grain"]
            if not grains:
                for spec, column in pending:
                    self.plan.filters.append(self._range(spec, column))
                return
            unit = grains[0].unit
        grains = [d for d in self.plan.dims if d.kind == "grain"]
        main = self._main_table()
        date = (ColRef(grains[0].table, grains[0].column) if grains and grains[0].table
                else self._date_ref(main))
        self.plan.compare = Compare(unit, cues.compare_pct, with_measure=bool(self.cues.grains), date=date)
        self.plan.dims = [d for d in self.plan.dims if d.kind != "grain"]
        for spec, column in pending:
            self.plan.filters.append(self._range(spec, column))

    def _percent(self) -> None:
        p = self.plan
        if not self.cues.percent:
            return
        conds = [f for f in p.filters if f.kind in ("eq", "ne", "null", "notnull", "bool")]
        if not conds:
            return
        share = [conds[-1]]
        p.filters = [f for f in p.filters if f is not conds[-1]]
        if not p.measures:
            table = p.subject or share[0].col.table
            p.measures.append(Measure("count", table))
        p.measures[0].share = share

    def _finish(self) -> Plan | Unclear:
        p = self.plan
        entity = next((d.table for d in p.dims if d.kind == "entity"), None)
        if self.cues.include_zero and entity and p.measures and p.measures[0].table != entity:
            p.keep_empty = True
        for m in p.measures:
            if m.per == "?":
                m.per = self._default_per(m)
        if not p.measures and not p.rank and p.dims:
            table = next((lk.best.table for k, lk in enumerate(self.links)
                          if lk.best.kind == "table" and k not in self.used), None)
            table = table or p.subject or p.dims[0].table
            if table and not any(d.kind == "entity" and d.table == table for d in p.dims):
                p.measures.append(Measure("count", table))
        if not p.measures and not p.rank:
            if p.having and p.subject:
                return p
            projection = self._projection()
            if projection is None:
                return Unclear("it does not say what to count, add up or list")
            p.projection = projection
        elif p.rank is not None and p.rank.column is not None:
            pass
        if p.compare is not None and not p.measures:
            return Unclear("it asks for a change but not in what measure")
        return p

    def _default_per(self, m: Measure) -> str | None:
        if m.func == "metric":
            metric = self.ix.metrics[m.metric]
            for table in metric.tables[1:]:
                return table
            return None
        if m.func == "count":
            return None
        return None

    def _projection(self) -> list[ColRef] | None:
        p = self.plan
        cols: list[ColRef] = []
        for k, lk in enumerate(self.links):
            if k in self.used or lk.best.kind != "column":
                continue
            c = self.concept(k, ("column",))
            cols.append(ColRef(c.table, c.column))
            self.used.add(k)
        if cols:
            return cols
        entity = p.subject
        dims = [d for d in p.dims if d.kind == "entity"]
        if dims:
            entity = dims[0].table
            p.dims = []
        if entity is None:
            return None
        label = self.ix.tables[entity].label
        return [ColRef(entity, label)] if label else None


_FILLER = frozenset({"the", "a", "an", "of", "their", "its", "our", "each", "every", "all", "per", "by", "for",
                     "in", "on", "with", "that", "which", "who", "were", "was", "is", "are", "have", "has", "had",
                     "do", "did", "does", "been", "be", "any", "most", "many", "much", "total", "number",
                     "distinct", "unique", "different", "single", "one", "there"})
_FILLER_EXTRA = frozenset({"list", "unit", "individual", "overall", "items", "active", "available", "current",
                           "new", "existing", "registered", "separate", "inactive", "valid", "ongoing", "open"})


def interpret(tokens: list[Token], linked: Linked, cues: Cues, index: SchemaIndex) -> Plan | Unclear:
    """The plan a question asks for, or why it cannot be read with confidence."""
    return _Reader(tokens, linked, cues, index).read()


__all__ = ["Unclear", "interpret", "default_date"]
