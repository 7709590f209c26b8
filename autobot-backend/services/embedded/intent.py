"""Reading a linked question into a :class:`Plan`: which link is the measure, which the grouping,
which a filter, what is ranked, compared or counted.

The reading is positional and conservative: a cue word governs the link that follows it
("by" + a column is a grouping, "how many" + a table is a count), and a link no cue claims
becomes a filter (a value, a flag, a NULL test) or, failing that, context for the joins.
When the pieces do not add up to a query, :class:`Unclear` says which piece is missing.
"""

from __future__ import annotations

import dataclasses

from services.embedded.answer_spec import apply_spec, read_spec
from services.embedded.cues import Cues
from services.embedded.index import SchemaIndex
from services.embedded.joins import default_date
from services.embedded.lexicon import Token
from services.embedded.linking import Linked
from services.embedded.joins import is_ancestor
from services.embedded.plan import ColRef, Dim, Filter, Measure, Plan, Rank, Window

from services.embedded.read_state import WH, ReadState, Unclear
from services.embedded.read_metrics import metrics
from services.embedded.read_aggregates import aggregates
from services.embedded.read_groupings import groupings
from services.embedded.dims import add_dim
from services.embedded.wh_words import wh_dim
from services.embedded.read_ranking import ranking
from services.embedded.read_values import values
from services.embedded.read_thresholds import thresholds
from services.embedded.read_tables import tables
from services.embedded.read_subject import subject
from services.embedded.read_id_refs import id_refs
from services.embedded.read_flags import flags
from services.embedded.read_column_comparisons import column_comparisons
from services.embedded.side_by_side import measure_mentions
from services.embedded.read_dates import dates
from services.embedded.read_compare import compare
from services.embedded.read_terms import terms
from services.embedded.read_roles import roles
from services.embedded.read_labels import labels


_SPLIT = frozenset({"split", "breakdown", "versus", "vs", "vs.", "compare", "compared", "comparing", "between",
                    "each", "respectively"})
_WH_ASK = frozenset({"which", "what", "who", "whose"})
_ALSO = frozenset({"and", "with", "plus", "along", "alongside", "including", "together", ",", "also"})
_MEASURE_ASKED = frozenset({"total", "totals", "sum", "count", "counts", "number", "numbers", "amount", "amounts",
                            "average", "much", "many", "spent", "spend", "value", "values", "figure", "figures",
                            "change", "growth", "increase", "difference", "percentage", "share", "size"})
_DURATIONS = frozenset({"time", "duration", "delay", "wait", "waiting", "lag", "turnaround"})
_LIST_VERBS = frozenset({"list", "show", "give", "name", "display", "find", "identify", "return", "get"})
class _Reader(ReadState):
    """One question read in a fixed order of steps; each step claims the links it understands."""

    # ------------------------------------------------------------------ reading

    def read(self) -> Plan | Unclear:
        self.spec = read_spec(self.tokens, self.links, self.index)
        if self.spec is not None and len(self.spec.items) >= 2:
            for k, lk in enumerate(self.links):
                if self.spec.start <= lk.start < self.spec.end and lk.best.kind == "value":
                    self.used.add(k)  # "Return month, channel and rank": the list names columns, not values
            asked = [a for a in self.cues.aggs if a.start < self.spec.start]
            if any(w in WH for w in self.lows[:self.spec.start]) and any(
                    self.spec.start <= a.start < self.spec.end for a in self.cues.aggs):
                # "Which X did ...? Show names and how many": the list's "how many" is a column of the
                # answer the question proper asks for, not a count of the answer's rows
                self.cues.aggs = asked + [a for a in self.cues.aggs if a.start >= self.spec.end]
        if self.lows and self.lows[0] in _LIST_VERBS:
            # "List the X who ..., with the number of Y each ...": a column of the list, not a count of it
            self.cues.aggs = [a for a in self.cues.aggs if not (
                a.start >= 2 and "with" in self.lows[max(0, a.start - 3):a.start]
                and "," in self.lows[max(0, a.start - 4):a.start] and any(h.op for h in self.cues.thresholds))]
        aggregates(self)
        metrics(self)
        groupings(self)
        ranking(self)
        column_comparisons(self)
        thresholds(self)
        dates(self)
        terms(self)
        values(self)
        flags(self)
        id_refs(self)
        subject(self)
        compare(self)
        tables(self)
        self._percent()
        roles(self)
        labels(self)
        return self._finish()

    # ------------------------------------------------------------------ comparisons, shares


    def _referrers(self) -> None:
        """"Which X referred N others?": the rows that did the referring are grouped by the
        column that points back at them, not the rows referred."""
        p = self.plan
        entity = next((d for d in p.dims if d.kind == "entity"), None)
        if entity is None or not p.measures:
            return
        for lk in self.links:
            c = lk.best
            if c.kind != "column" or c.table != entity.table or self.col(c).references != entity.table:
                continue
            before = self.lows[max(0, lk.start - 2):lk.start]
            if any(w in ("was", "were", "been", "being", "is", "are", "get", "got") for w in before) or (
                    lk.end < len(self.lows) and self.lows[lk.end] == "by"):
                continue  # "X who were referred": a filter, not who referred
            ref = ColRef(c.table, c.column)
            p.dims = [Dim("column", c.table, c.column) if d is entity else d for d in p.dims]
            p.filters = [f for f in p.filters if not (f.col == ref and f.kind in ("null", "notnull"))]
            return

    def _compared_groups(self) -> int | None:
        """"How do the channels stack up on revenue?", "how did categories perform": the plural subject of a
        'how do' question is what the measure is broken down by."""
        p = self.plan
        if p.dims or not p.measures or p.compare or len(self.lows) < 3 or self.lows[0] != "how" \
                or self.lows[1] not in ("do", "did", "does", "are", "were", "have"):
            return None
        for k, lk in enumerate(self.links):
            if lk.start > 4:
                return None
            word = self.tokens[lk.end - 1]
            plural = word.low != word.stem and word.low.endswith("s")
            if k not in self.used and plural and (lk.best.kind == "table" or lk.best.kind == "column"
                                                  and self.col(lk.best).kind == "text"):
                return k
        return None

    def _asks_rank(self) -> bool:
        """"... and their rank", "X's rank", "with its ranking": the rank is a column."""
        for i, w in enumerate(self.lows):
            if w in ("rank", "ranks", "ranking", "rankings", "position") and i > 0 and (
                    self.lows[i - 1] in ("their", "its", "his", "her", "the", "each", "with", "and", "a")
                    or any(lk.end == i for lk in self.links)) and not (i + 1 < len(self.lows)
                                                                   and self.lows[i + 1] in ("the", "all", "every")):
                return True
        return False

    def _ascending_words(self) -> bool:
        return any(w in ("lowest", "least", "fewest", "smallest", "ascending", "bottom") for w in self.lows)

    def _listed_entity(self) -> str | None:
        """The rows a list request names, when a measure is asked of each of them: "List the discontinued
        items ..., with each one's units", "list buyers over N ..."."""
        p = self.plan
        if p.dims or not p.measures or p.compare or p.window or p.rank or self.lows[0] not in _LIST_VERBS:
            return None
        k = next((j for j, lk in enumerate(self.links) if lk.start <= 4 and lk.best.kind == "table"), None)
        if k is None:
            return None
        table = self.links[k].best.table
        m = p.measures[0]
        if table == m.table and not m.per or not (table == m.table or is_ancestor(self.index, table, m.table)
                                                  or m.metric and table in self.index.metrics[m.metric].tables):
            return None
        rest = self.lows[self.links[k].end:]
        each = any(w in ("each", "apiece", "individually", "per", "their", "its") for w in rest)
        return table if p.having or each else None

    def _value_beside_window(self) -> bool:
        """"X plus a cumulative figure", "(week, visits, running total)": each period's own
        value is listed before the running or moving figure."""
        at = next((i for i, w in enumerate(self.lows) if w in ("cumulative", "running", "moving", "rolling",
                                                                "trailing")), None)
        if at is None:
            return False
        before = self.lows[max(0, at - 4):at]
        listed = any(w in ("and", ",", "plus", "with", "alongside", "then") for w in before)
        named = any(lk.end <= at and (lk.best.kind == "metric" or lk.best.kind == "column" and self.col(lk.best).measurable)
                    for lk in self.links) or any(a.end <= at for a in self.cues.aggs)
        return listed and named


    def _percent(self) -> None:
        p = self.plan
        if not self.cues.percent:
            return
        conds = [f for f in p.filters if f.kind in ("eq", "ne", "null", "notnull", "bool", "colcmp")]
        related = [h for h in p.having if h.measure.func == "count" and (h.op, h.number) in ((">=", 1), (">", 0))]
        if (related or not conds) and p.subject and not p.dims:
            # "the share of X who did Y in May": rows with such a related row, out of all;
            # "the share of completed X with a Y": the completed ones are the whole
            child = next((t for t in sorted(p.joins) if is_ancestor(self.index, p.subject, t)), None)
            table = related[0].measure.table if related else child
            if table is not None and table != p.subject:
                p.having = [h for h in p.having if h not in related]
                p.joins.discard(table)
                moved = [f for f in p.filters if f.col.table == table]
                p.filters = [f for f in p.filters if f not in moved]
                conds = [Filter("exists", ColRef(table, ""), values=(table, *moved))]
                p.filters.append(conds[0])
        ranges = [f for f in p.filters if f.kind == "range"]
        if not conds and p.measures and not p.dims and len(ranges) == 2 and ranges[0].col != ranges[1].col:
            # "the share of 2023 sales made by clients who joined in 2022": the period
            # of the measured rows is the whole, the other date the share's condition
            main = default_date(self.index, p.measures[0].table)
            other = [f for f in ranges if main is None or (f.col.table, f.col.column) != (main.table, main.name)]
            if len(other) == 1:
                conds = other
        if not conds and not self.term_filters and len(p.exists) == 1 and not p.exists[0].also and p.subject:
            # "what share of customers have never ordered": the rows with (or without) a related row
            e = p.exists.pop()
            conds = [Filter("exists", ColRef(e.table, ""), values=(e.table, *e.filters), op="not" if e.negate else None)]
            p.filters.append(conds[0])
        if not conds and not self.term_filters:
            return
        share = [f for f in p.filters if any(f is t for t in self.term_filters)] or [conds[-1]]
        p.filters = [f for f in p.filters if not any(f is t for t in share)]
        if not p.measures:
            table = p.subject or share[0].col.table
            p.measures.append(Measure("count", table))
        p.measures[0].share = share

    def _finish(self) -> Plan | Unclear:
        plan = self._settle()
        if isinstance(plan, Plan):
            self._referrers()
        if isinstance(plan, Plan) and self.spec is not None:
            return apply_spec(plan, self.spec, self.index)
        return plan

    def _settle(self) -> Plan | Unclear:
        """Defaults that depend on the whole reading (what is counted when nothing is named, windows,
        LEFT JOINs, shares of a total), then the checks that make a plan answerable."""
        p = self.plan
        p.measures = [m for n, m in enumerate(p.measures) if m not in p.measures[:n]]  # named twice, shown once
        p.filters = [f for n, f in enumerate(p.filters) if f not in p.filters[:n]]
        dated = {f.col for f in p.filters if f.kind in ("range", "relative", "recurring", "anyrange")}
        tested: set = set()
        kept = []
        for f in p.filters:
            if f.kind in ("null", "notnull"):
                if f.col in dated or f.col in tested:
                    continue  # a date in a range is there; a column is tested for NULL once
                tested.add(f.col)
            kept.append(f)
        p.filters = kept
        labels = {(d.table, self.index.tables[d.table].label) for d in p.dims if d.kind == "entity"}
        p.dims = [d for n, d in enumerate(p.dims) if d not in p.dims[:n]
                  and not (d.kind == "column" and (d.table, d.column) in labels)]  # "each plan ... the plan's name"
        if p.measures and not p.dims and any(w in _SPLIT for w in self.lows):
            several = next((f for f in p.filters if f.kind == "eq" and len(f.values) > 1), None)
            if several is not None:
                p.dims.append(Dim("column", several.col.table, several.col.column))  # "split between A and B"
        if self.cues.running:
            p.window = Window("running")
        elif self.cues.moving:
            p.window = Window("moving", self.cues.moving[0], self.cues.moving[1])
        entity = next((d.table for d in p.dims if d.kind == "entity"), None) or next(
            (d.table for d in p.dims if d.kind == "column"), None)
        if self.cues.include_zero and entity and p.measures and p.measures[0].table != entity:
            p.keep_empty = True
        if self.cues.include_zero and p.measures and p.measures[0].per and p.measures[0].per != p.measures[0].table:
            p.keep_empty = True  # "X per Y, zero for those with none"
        for m in p.measures:
            if m.per == "?":
                m.per = self._default_per(m)
        if not p.measures and p.compare is not None and p.subject:
            p.measures.append(Measure("count", p.subject))  # "the change in orders": their number
        if not p.measures and not p.rank and p.dims:
            table = next((lk.best.table for k, lk in enumerate(self.links)
                          if lk.best.kind == "table" and k not in self.used), None)
            if table is None and self.spec is not None and self.spec.measures:
                # "completed X per Y — Y name, count": the rows named, though a filter read them
                entities = {d.table for d in p.dims if d.kind == "entity"}
                table = next((lk.best.table for lk in self.links if lk.best.kind == "table"
                              and lk.best.table not in entities), None)
            keyed = next((t for t, c in sorted(p.via_keys) if any(
                d.kind == "entity" and d.table == self.index.column(t, c).references for d in p.dims)), None)
            table = table or keyed or p.subject or p.dims[0].table  # "flights per destination airport"
            if table and not any(d.kind == "entity" and d.table == table for d in p.dims):
                p.measures.append(Measure("count", table))
        p.show_rank = self._asks_rank() and bool(p.dims) and bool(p.measures)
        if p.show_rank and p.rank is None:
            p.rank = Rank(not self._ascending_words(), None)
        compared = self._compared_groups()
        if compared is not None:
            add_dim(self, compared)  # "how do the channels compare on revenue": one row per channel
        listed = self._listed_entity()
        if listed is not None:
            p.dims.append(Dim("entity", listed))  # "list buyers who ..., and what each paid"
        grains = [d for d in p.dims if d.kind == "grain"]
        if len(p.measures) == 1 and len(grains) == 1 and not p.rank and not p.compare and not p.window \
                and p.measures[0].func in ("sum", "metric", "count") and not p.measures[0].per \
                and any(a.func == "avg" and self.link_after(a.end, gap=3) is None for a in self.cues.aggs):
            # "each month's X, then their mean": the average of the period totals
            p.measures[0] = dataclasses.replace(p.measures[0], per_grain=grains[0].unit)
            p.dims = [d for d in p.dims if d is not grains[0]]
        if p.window is not None and p.measures:
            p.window.show_value = measure_mentions(self, p.measures[0]) >= 2 or self._value_beside_window()
        if self.cues.percent and p.dims and not p.measures:
            k = next((k for k, lk in enumerate(self.links) if k not in self.used and lk.best.kind == "column"
                      and lk.score >= 0.6 and self.col(lk.best).measurable), None)
            if k is not None:
                self.used.add(k)  # "each product's share of units sold": of the units
                p.measures.append(Measure("sum", self.links[k].best.table, self.links[k].best.column))
                p.projection = []
        if self.cues.percent and p.dims and p.measures and not p.measures[0].share:
            p.measures[0].share_of_total = True  # "each category's share of revenue"
        if not p.measures and not p.rank:
            if p.having and p.subject:
                wh = wh_dim(self)
                if wh is not None and not p.dims and self.concept(wh).kind in ("table", "column"):
                    add_dim(self, wh)  # "which categories generated more than ...": the groups that qualify
                if self._asks_for_measure(p.having[0].measure, 0) and p.having[0].measure.func != "min":
                    # "... along with how many": the qualifying groups and the measure they qualify on
                    if not p.dims:
                        p.dims = [Dim("entity", p.subject, show_key=self._names_key(p.subject))]
                    p.measures = [p.having[0].measure]
                return p
            counted = self._counted_table() or self._bare_count()
            if counted is not None:
                p.measures.append(Measure("count", counted))  # "how many joined in 2022": the rows that did
                p.hide_measures = not self._measures_shown()
                return p
            if all(lk.best.kind == "value" for lk in self.links) and not self._asks_for_rows():
                return Unclear("it names values but not what to count, add up or list about them")
            for agg in self.cues.aggs:
                k = self.link_after(agg.end, gap=1)
                if agg.func == "sum" and self.lows[agg.start] == "how" and k is not None \
                        and self.links[k].best.kind == "column" and not self.col(self.links[k].best).measurable:
                    word = " ".join(t.text for t in self.tokens[self.links[k].start:self.links[k].end])
                    return Unclear(f"it asks how much {word!r}, but nothing in the schema measures that amount")
            projection = self._projection()
            if projection is None:
                return Unclear("it does not say what to count, add up or list")
            if self.lows[0] in ("which", "what") and not (p.filters or p.having or p.exists or p.dims or p.joins):
                return Unclear("it asks which rows but says nothing about which ones")
            p.projection = projection
            p.dims = [d for d in p.dims if not (d.kind == "entity" and d.table == projection[0].table)]
            shown = [c for c in projection if self.index.column(c.table, c.column).measurable]
            if self.cues.sort in ("asc", "desc") and p.rank is None and shown:
                p.rank = Rank(self.cues.sort == "desc", None, shown[0])  # "with their rate, highest first"
        if p.compare is not None and not p.measures:
            return Unclear("it asks for a change but not in what measure")
        if self._untimed_duration():
            return Unclear("it asks for a length of time, but no pair of dates in the schema measures it")
        p.hide_measures = not self._measures_shown()
        return p

    def _counted_table(self) -> str | None:
        """"how many" with no noun after it: the rows the question is about."""
        if not any(a.func == "count" and self.lows[a.start] == "how" for a in self.cues.aggs) or self.plan.dims:
            return None
        if self.plan.subject:
            return self.plan.subject
        return next((lk.best.table for lk in self.links if lk.best.table and lk.score >= 0.5), None)

    def _bare_count(self) -> str | None:
        """"Orders in May?": a bare noun asked about for a period, with no list verb, is a count."""
        if not self.links or self.links[0].best.kind != "table" or self.links[0].start > 1 or not self.cues.dates \
                or self._asks_for_rows() or self.tokens[-1].text != "?" or self.plan.dims or self.plan.projection:
            return None
        if self.lows[0] in WH or any(lk.best.kind == "column" and lk.score >= 0.5
                                     and self.col(lk.best).kind not in ("date", "bool") for lk in self.links[1:]):
            return None
        return self.links[0].best.table

    def _measures_shown(self) -> bool:
        """A wh-question over a ranking ("which region had the top sales?") asks for the region; the
        measure only ranks the groups.
        The measure is shown when the question asks for it too ("... and how many", "with the amounts")."""
        p = self.plan
        ranked = p.rank is not None and p.rank.limit and (p.dims and p.measures or p.rank.column and not p.measures)
        ranked_change = p.compare is not None and p.compare.rank is not None
        if not (ranked or ranked_change) or not self.cues.superlatives:
            return True
        sup = self.cues.superlatives[0]
        wh = next((i for i, w in enumerate(self.lows[:sup.start]) if w in _WH_ASK
                   or i == 0 and w in ("name", "identify", "find")), None)  # "Name the top X"
        if wh is None:
            return True
        after = sup.end
        k = self.link_after(sup.end, gap=3)
        if k is not None:
            after = max(after, self.links[k].end)
        return self._asks_for_measure(None, after)

    def _names_key(self, table: str) -> bool:
        """"the member id, name and ...": the entity's key is asked for beside its name."""
        for k, lk in enumerate(self.links):
            if lk.best.kind == "table" and lk.best.table == table and lk.end < len(self.lows) \
                    and self.lows[lk.end] in ("id", "ids", "identifier", "identifiers"):
                return True
        return False

    def _asks_for_measure(self, m, start: int) -> bool:
        for j in range(start, len(self.lows)):
            if self.lows[j] not in _ALSO and not (self.tokens[j].kind == "punct" and self.tokens[j].text in ".?!;:—-"):
                continue
            for i in range(j + 1, min(len(self.lows), j + 6)):
                if self.lows[i] in _MEASURE_ASKED:
                    return True
                lk = next((lk for lk in self.links if lk.start <= i < lk.end), None)
                if lk is not None and (lk.best.kind == "metric" or lk.best.kind == "column" and any(
                        c.kind == "column" and self.col(c).measurable for c in lk.concepts[:1])):
                    return True
        return False


    def _untimed_duration(self) -> bool:
        """"the average time customers spend on the site": a duration no two date columns give."""
        if any(m.since for m in self.plan.measures):
            return False
        for agg in self.cues.aggs:
            nxt = self.lows[agg.end:agg.end + 2]
            if agg.func in ("avg", "sum", "max", "min") and nxt and (
                    nxt[0] in _DURATIONS or nxt[0] == "amount" and nxt[1:] == ["of"]
                    and self.lows[agg.end + 2:agg.end + 3] == ["time"]):
                return not any(lk.start == agg.end and lk.best.kind == "column" for lk in self.links)
        return False

    def _asks_for_rows(self) -> bool:
        return any(w in ("list", "show", "which", "who", "display", "give", "find") for w in self.lows[:3])

    def _default_per(self, m: Measure) -> str | None:
        if m.func == "metric":
            metric = self.index.metrics[m.metric]
            for table in metric.tables[1:]:
                return table
            return None
        if m.func == "count":
            return None
        return None

    def _projection(self) -> list[ColRef] | None:
        p = self.plan
        wh = wh_dim(self)
        if wh is not None and wh not in self.used and self.concept(wh).kind == "column" \
                and self.col(self.concept(wh)).kind == "text" and self.lows[0] in ("which", "what"):
            c = self.concept(wh)
            self.used.add(wh)
            return [ColRef(c.table, c.column)]  # "which drugs were prescribed ...": the values
        cols: list[ColRef] = []
        for k, lk in enumerate(self.links):
            if k in self.used or lk.best.kind != "column" or lk.score < 0.5:
                continue
            c = self.concept(k, ("column",))
            if ColRef(c.table, c.column) not in cols:
                cols.append(ColRef(c.table, c.column))
            self.used.add(k)
        if cols:
            return self._with_label(cols)
        entity = p.subject
        dims = [d for d in p.dims if d.kind == "entity"]
        if dims:
            entity = dims[0].table
            p.dims = []
        if entity is None:
            return None
        table = self.index.tables[entity]
        label = table.label or (table.primary_key[0] if table.primary_key else None)
        return [ColRef(entity, label)] if label else None


    def _with_label(self, cols: list[ColRef]) -> list[ColRef]:
        """"List trainers and their hourly rate", "each member's plan": the rows by their name, then what
        is asked of them (an entity by its name, its attribute beside it)."""
        first = next((lk for lk in self.links if lk.best.kind == "column" and ColRef(lk.best.table, lk.best.column)
                      in cols), None)
        owner = next((lk for lk in self.links if lk.best.kind == "table" and first is not None
                      and lk.end <= first.start and lk.best.table == cols[0].table), None)
        if owner is None:
            return cols
        between = self.lows[owner.end:first.start]
        possessive = self.tokens[owner.end - 1].text.lower().replace("\u2019", "'").endswith("'s")
        label = self.index.tables[owner.best.table].label
        if label and ColRef(owner.best.table, label) not in cols and (
                possessive or any(w in ("their", "its", "his", "her", "with", "and") for w in between)):
            return [ColRef(owner.best.table, label)] + cols
        return cols


def interpret(tokens: list[Token], linked: Linked, cues: Cues, index: SchemaIndex) -> Plan | Unclear:
    """The plan a question asks for, or why it cannot be read with confidence."""
    return _Reader.start(tokens, linked, cues, index).read()


__all__ = ["Unclear", "interpret", "default_date"]
