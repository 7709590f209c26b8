"""Reading rankings: superlatives over groups ("which three products sold most"), rank and sort verbs
("rank the categories by revenue"), the measure ranked by, the limit, and the entity a wh-word or an
opening "Among X" names."""

from __future__ import annotations

from services.embedded.joins import distance, is_ancestor, primary_date
from services.embedded.lexicon import NUMBER_WORDS, parse_number
from services.embedded.plan import ColRef, Dim, Measure, Rank
from services.embedded.read_state import SORT_WORDS, WH
from services.embedded.dims import add_dim, same_group


_UNITS = {"days": "day", "weeks": "week", "months": "month", "quarters": "quarter", "years": "year"}


class RankingMixin:
    """Reads rankings and sorts over the groupings :class:`~.read_groups.GroupsMixin` found."""

    def _ranking(self) -> None:
        sups = self.cues.superlatives
        if self._rank_verb():
            return
        if not sups:
            self._sort_by()
            return
        sup = sups[0]
        wh = self._wh_dim()
        wh_grain = any(self.lows[start] in ("which", "what") for _u, start, _e in self.cues.grains)
        after = self.link_after(sup.end, gap=2)
        if after is not None and self.links[after].best.kind == "value":
            qualified = self.link_after(self.links[after].end, gap=0)
            if qualified is not None and self.links[qualified].best.kind == "table":
                after = qualified  # "the most <status> <rows>": the rows, of that status
        dim_k, event_k = None, None
        owner = self._with_the_most(sup)
        if owner is not None and wh is None and (after is not None or self.plan.measures):
            # "the 3 cities with the most customers": the cities, ranked by how many customers (or by
            # the measure already read: "the two shops with the largest takings")
            dim_k = owner
            if after is not None and after not in self.used and self.links[after].best.kind == "table":
                event_k = after
            after = None
        head = self.link_after(self.links[after].end, gap=0) if after is not None else None
        if after is not None and self.links[after].best.kind == "metric" and head is not None \
                and head not in self.used and self.links[head].best.kind == "table":
            # "the biggest spending customer": the rows, ranked by the metric that qualifies them
            metric = self.links[after].best.metric
            self.used.add(after)
            if not any(m.metric == metric for m in self.plan.measures):
                self.plan.measures.append(Measure("metric", self.index.metrics[metric].base_table, metric=metric))
            self.plan.measures = [m for m in self.plan.measures if m.metric == metric] + [
                m for m in self.plan.measures if m.metric != metric]
            dim_k, after = head, None
        explicit = sup.explicit_limit or self.lows[sup.start] in ("top", "bottom")
        extreme = any(a.func in ("max", "min") and sup.start <= a.start < sup.end for a in self.cues.aggs)
        if self.plan.dims and self.plan.measures and extreme and not explicit and wh is None and not wh_grain \
                and dim_k is None:
            return  # "the highest price in each category": a maximum per group, already read
        if after is not None and after not in self.used and not explicit and wh is None and self.plan.dims \
                and not wh_grain:
            c = self.concept(after)
            if c.kind == "column" and (self.col(c).measurable or self.col(c).kind in ("date", "year")):
                # "the earliest order date for each customer": the extreme within each group
                self.used.add(after)
                self.plan.measures.append(Measure("max" if sup.desc else "min", c.table, c.column))
                return
        if after is not None and after not in self.used:
            c = self.concept(after)
            if c.kind == "column" and self.col(c).measurable and wh is None and not wh_grain:
                # "the 3 highest paid employees": ranked by the column, listing what follows it
                nxt = self.link_after(self.links[after].end, gap=1)
                if nxt is not None and nxt not in self.used and self.links[nxt].best.kind == "table":
                    self.used.add(after)
                    if self.links[nxt].best.table == c.table:
                        add_dim(self, nxt)
                        self.plan.rank = Rank(sup.desc, sup.limit or self._singular_limit(nxt),
                                              column=ColRef(c.table, c.column))
                        return
                    self.plan.measures.append(Measure("sum", c.table, c.column))
                    dim_k = nxt
            if c.kind == "table" and wh is None and not wh_grain:
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
        groups = len(self.plan.dims)
        partition = 0
        if dim_k is not None and dim_k not in self.used:
            add_dim(self, dim_k)
            # "for each category, which product ...": rank within the groups named before
            partition = groups if len(self.plan.dims) > groups else 0
            if partition and any(same_group(self, self.plan.dims[-1], d) for d in self.plan.dims[:groups]):
                new = self.plan.dims.pop()  # "which three products ... each product's revenue": one grouping
                self.plan.dims = [new if same_group(self, new, d) else d for d in self.plan.dims]
                partition = 0
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
                    self.plan.measures.append(Measure("metric", self.index.metrics[c.metric].base_table,
                                                      metric=c.metric))
                elif c.kind == "table":
                    self.used.add(after_sup)
                    self.plan.measures.append(Measure("count", c.table))
                elif c.kind == "column" and self.col(c).measurable:
                    self.used.add(after_sup)
                    self.plan.measures.append(Measure("sum", c.table, c.column))
                elif c.kind == "value" and c.table and self.link_after(self.links[after_sup].end, gap=0) is None:
                    self.plan.measures.append(Measure("count", c.table))  # "the most returns": returned rows
        if not self.plan.measures:
            verb = self.link_before(sup.start, gap=1)
            if verb is not None and verb not in self.used and self.links[verb].via == "synonym":
                c = self.concept(verb)
                if c.kind == "metric":  # "which buyer spent the most": the money the verb names
                    self.used.add(verb)
                    self.plan.measures.append(Measure("metric", self.index.metrics[c.metric].base_table, metric=c.metric))
                elif c.kind == "column" and self.col(c).measurable:
                    self.used.add(verb)
                    self.plan.measures.append(Measure("sum", c.table, c.column))
        explicit_limits = [s.limit for s in sups if s.limit is not None]
        if wh_grain and self.cues.grain_limit and not explicit_limits:
            explicit_limits = [self.cues.grain_limit]  # "which two weeks were busiest"
        if explicit_limits:
            limit = explicit_limits[0]  # "which countries ... most revenue? Show the top 3"
        elif self._wh_dim() is not None and self.wh_limit is not None:
            limit = self.wh_limit
        else:
            limit = self._singular_limit(dim_k)
        rank = Rank(sup.desc, limit, partition=partition, offset=sup.offset)
        if not self.plan.measures and sup.hint == "units":
            units = self._units_column()
            if units is not None:
                self.plan.measures.append(Measure("sum", units.table, units.name))  # "best-selling": units sold
        if not self.plan.measures:
            column = self._hinted_column(sup.hint)
            if column is not None:
                rank.column = column
            else:
                default = self._default_rank_measure()
                if default is not None:
                    self.plan.measures.append(default)
        self.plan.rank = rank

    def _with_the_most(self, sup) -> int | None:
        """The noun a "with the most/fewest ..." phrase ranks: "cities with the most customers"."""
        j = sup.start - 1
        if j >= 0 and self.lows[j] == "the":
            j -= 1
        if j < 0 or self.lows[j] not in ("with", "having", "has"):
            return None
        k = self.link_before(j, gap=0)
        if k is None or k in self.used or self.links[k].best.kind not in ("table", "column"):
            return None
        c = self.concept(k)
        return k if c.kind == "table" or not self.col(c).measurable else None

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
        if self.index.metrics:
            metric = next(iter(self.index.metrics.values()))
            if distance(self.index, metric.base_table, dims[0].table) >= 0:
                return Measure("metric", metric.base_table, metric=metric.name.lower())
        children = [e.other for e in self.index.edges.get(dims[0].table, ()) if is_ancestor(self.index, dims[0].table, e.other)]
        return Measure("count", children[0], rows=True) if children else None

    def _singular_limit(self, k: int | None) -> int | None:
        if k is None:
            return 1
        j = self.links[k].start - 1
        while j >= 0 and any(lk.end - 1 == j for lk in self.links) is False and self.lows[j] in ("different",):
            j -= 1
        if j >= 0 and (self.tokens[j].kind == "number" and self.tokens[j].low.isdigit() or self.lows[j] in NUMBER_WORDS
                       and self.lows[j] not in ("a", "one", "single")):
            return int(parse_number(self.tokens[j]))  # "the two clerks who sold most"
        tok = self.tokens[self.links[k].end - 1]
        return None if tok.low != tok.stem and tok.low.endswith("s") else 1

    def _count_word(self, j: int) -> bool:
        """A count before a noun ("the three doctors"), not before a superlative ("the 3 most ...")."""
        if j + 1 >= len(self.tokens) or any(s.start <= j + 1 and j < s.end for s in self.cues.superlatives):
            return False
        return self.tokens[j].kind == "number" and self.tokens[j].low.isdigit() or self.lows[j] in NUMBER_WORDS \
            and self.lows[j] not in ("a", "one", "single")

    def _wh_dim(self) -> int | None:
        for i, w in enumerate(self.lows):
            if w in WH and i > 0 and w in ("who", "which", "that") and any(lk.end == i for lk in self.links):
                continue  # "buyers who bought ...": a relative pronoun after its noun, not a question word
            if w in WH:
                j = i + 1
                if j < len(self.tokens) and (self.tokens[j].kind == "number" and self.tokens[j].low.isdigit()
                                        or self.lows[j] in NUMBER_WORDS and self.lows[j] not in ("a", "one", "single")):
                    self.wh_limit = int(parse_number(self.tokens[j]))  # "which 5 patients ...", "which five"
                    j += 1
                while j < len(self.lows) and (self.lows[j] in ("is", "are", "was", "were", "the", "all")
                                              or self._count_word(j)):
                    if self._count_word(j):
                        self.wh_limit = int(parse_number(self.tokens[j]))  # "who were the two ..."
                    j += 1  # "what are the cities ..."
                k = self.link_after(j, gap=1)
                if k is not None and self.links[k].best.kind in ("table", "column") and self.links[k].score >= 0.5:
                    c = self.concept(k)
                    if c.kind == "column" and self.col(c).measurable:
                        return None
                    return k
                if self.wh_limit is not None and (k is None or self.links[k].best.kind == "metric"):
                    return self._among()  # "Among X ..., which three ...": the X
                return None
        return None

    def _among(self) -> int | None:
        """The rows an opening "Among X" / "Of (all) the X" names, which a later "which three" means."""
        i = 0
        if self.lows[:2] == ["out", "of"]:
            i = 1
        if not self.lows or self.lows[i] not in ("among", "amongst", "of"):
            return None
        k = self.link_after(i + 1, gap=2)
        if k is None or self.links[k].best.kind not in ("table", "column"):
            return None
        c = self.concept(k)
        return k if c.kind == "table" or not self.col(c).measurable else None

    def _rank_verb(self) -> bool:
        """"Rank the categories by revenue", "sort products by price": an ordered list, no cut-off."""
        verbs = [i for i, w in enumerate(self.lows) if w in ("rank", "sort", "order", "arrange", "list")
                 and (i < 3 or self.lows[i - 1] in (",", ";", ".", ":"))]
        if not verbs or "by" not in self.lows[verbs[0]:]:
            return False
        i = verbs[0]
        by = self.lows.index("by", i)
        if self.lows[i] == "list":
            key = self.link_after(by + 1, gap=2)
            c = self.concept(key) if key is not None else None
            if c is None or not (c.kind == "metric" or c.kind == "column" and self.col(c).measurable):
                return False  # "list revenue by quarter": a breakdown, not a ranking
        unit = next((_UNITS.get(w) for w in self.lows[i + 1:by] if w in _UNITS), None)
        first = self.link_after(i + 1, gap=2)
        measure = self._by_measure() if unit is not None and (first is None or self.links[first].start > by) \
            else None
        if measure is not None:
            # "rank the months by <measure>": the periods, ordered by it
            self.plan.dims.append(Dim("grain", "", None, unit))
            self.grains_taken |= {g[1] for g in self.cues.grains}
            self.plan.measures.append(measure)
            self.plan.rank = Rank(not _ascending(self.lows), None)
            return True
        j = i + 1
        while j < by and (self.tokens[j].kind == "number" or self.lows[j] in NUMBER_WORDS or self.lows[j] in ("the", "all")):
            j += 1  # "rank the five countries"
        target = self.link_after(j, gap=2)
        if target is None or target >= len(self.links) or self.links[target].start >= by:
            return False
        asc = _ascending(self.lows)
        key = self.link_after(by + 1, gap=2)
        entity = self.concept(target)
        if key is not None and key not in self.used and entity.kind == "table":
            c = self.concept(key)
            if c.kind == "column" and c.table == entity.table and not self.plan.measures:
                # "products sorted by price": the rows themselves, in order of their own column
                self.used |= {target, key}
                self.plan.subject = entity.table
                self.plan.dims.append(Dim("entity", entity.table))
                self.plan.rank = Rank(not asc, None, ColRef(c.table, c.column))
                return True
        measure = self._by_measure() or (self.plan.measures[0] if self.plan.measures else None)
        if measure is not None:
            if target not in self.used:
                add_dim(self, target)
            if not self.plan.measures:
                self.plan.measures.append(measure)
            self.plan.rank = Rank(not asc, None)
            return True
        return False

    def _by_measure(self) -> Measure | None:
        for i, w in enumerate(self.lows):
            if w == "by" or w in SORT_WORDS:
                k = self.link_after(i + 1, gap=2)
                if k is None or k in self.used:
                    continue
                c = self.concept(k)
                if c.kind == "metric":
                    self.used.add(k)
                    return Measure("metric", self.index.metrics[c.metric].base_table, metric=c.metric)
                if c.kind == "column" and self.col(c).measurable:
                    self.used.add(k)
                    return Measure("sum", c.table, c.column)
                word = self.tokens[self.links[k].end - 1]
                if c.kind == "table" and w == "by" and word.low != word.stem and word.low.endswith("s"):
                    self.used.add(k)
                    return Measure("count", c.table)  # "rank the ports by sailings": how many each has
        return None

    def _units_column(self):
        """The column that counts units sold: named or described as a quantity of units."""
        entity = next((d.table for d in self.plan.dims if d.kind == "entity"), None)
        for col in self.index.columns():
            words = set(col.stems) | col.comment_stems
            if col.measurable and words & {"quantity", "qty", "unit"} and not words & {"pric", "price", "cost"}:
                if entity is None or distance(self.index, entity, col.table) >= 0:
                    return col
        return None

    def _hinted_column(self, hint: str | None) -> ColRef | None:
        dim = self.plan.dims[0] if self.plan.dims else None
        table = dim.table if dim is not None and dim.kind == "entity" else None
        candidates = [c for c in self.index.tables[table].columns.values()] if table else []
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
            date = primary_date(self.index, table)
            return ColRef(table, date.name) if date else None
        return None

    def _sort_by(self) -> None:
        if self.cues.sort in ("asc", "desc") and self.plan.measures and self.plan.rank is None:
            self.plan.rank = Rank(self.cues.sort == "desc", None)  # "revenue by category, highest first"
            return
        for i, w in enumerate(self.lows):
            if w in SORT_WORDS and i + 1 < len(self.lows) and self.lows[i + 1] == "by":
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


def _ascending(lows: list[str]) -> bool:
    """"from lowest to highest", "ascending", "cheapest first": an ascending order."""
    text = " ".join(lows)
    if any(p in text for p in ("lowest to highest", "smallest to largest", "least to most", "ascending", "low to high",
                               "oldest to newest", "earliest to latest", "cheapest first", "lowest first")):
        return True
    if any(p in text for p in ("highest to lowest", "largest to smallest", "most to least", "descending",
                               "high to low", "newest to oldest", "latest to earliest")):
        return False
    return any(w in ("asc", "lowest", "smallest", "cheapest", "least", "fewest", "quietest", "slowest", "lightest",
                     "shortest", "poorest", "weakest") for w in lows)
