"""Reading filters: thresholds, values, flags, NULL tests, and the tables rows relate to (the dates
are :mod:`.read_dates`)."""

from __future__ import annotations

import re

from services.embedded.index import Column, Concept
from services.embedded.joins import distance, is_ancestor, primary_date
from services.embedded.lexicon import (DATE_STEMS, DURATION_UNITS, EXCLUDE_WORDS, GENERAL_WORDS, NEGATION_CONTRACTIONS,
                                      NEGATIONS, parse_number, stem)
from services.embedded.linking import Link
from services.embedded.plan import ColRef, Exists, Filter, Having, Measure

_STATE_POSITIVE = frozenset({"active", "available", "current", "live", "valid", "ongoing", "open", "enabled"})
_NEGATIVE_STATES = ("discontinu", "delet", "archiv", "inactiv", "disabl", "retir", "expir", "block", "suspend",
                    "clos", "cancel", "remov", "hidden", "obsolet")
_INCOMPLETE = frozenset({"outstanding", "pending", "unreturned", "unfulfilled", "unresolved", "unshipped", "awaiting",
                         "waiting"})


_PERIOD_UNITS = {"days": "day", "weeks": "week", "months": "month", "quarters": "quarter", "years": "year"}
_HAPPENED = frozenset({"operated", "operating", "flew", "flown", "departed", "actually", "ran", "held",
                       "attended"})
"""Verbs that say a row's event took place, so rows flagged cancelled are not counted ("flights that operated")."""
_COLUMN_OPS = {"after": ">", "later": ">", "before": "<", "earlier": "<", "above": ">", "below": "<", "over": ">",
               "under": "<", "exceeds": ">", "exceeding": ">", "exceeded": ">", "more": ">", "greater": ">",
               "higher": ">", "less": "<", "lower": "<"}


class FiltersMixin:
    """Reads conditions on rows and groups, dates, and how the question's tables relate (joins, EXISTS)."""

    # ------------------------------------------------------------------ filters

    def _column_comparisons(self) -> None:
        """"returned after their due date", "sold below list price": one column against another."""
        self._same_day()
        n = len(self.lows)
        for i, w in enumerate(self.lows):
            if w not in _COLUMN_OPS or i in self.cues.skip:
                continue
            j = i + 2 if i + 1 < n and self.lows[i + 1] == "than" else i + 1
            right = self.link_after(j, gap=2)
            if right is not None and self.links[right].best.kind == "table":
                owned = self.link_after(self.links[right].end, gap=1)  # "under the item's catalogue price"
                if owned is not None and any(c.kind == "column" and c.table == self.links[right].best.table
                                             for c in self.links[owned].concepts):
                    self.used.add(right)
                    right = owned
            if right is None or right in self.used:
                continue
            if self.links[right].best.kind == "table":
                continue  # "over the X it ran": over which rows, not a comparison
            rc = next((c for c in self.links[right].concepts if c.kind == "column"
                       and (self.col(c).kind == "date" or self.col(c).measurable)), None)
            if rc is None:
                continue
            kind = "date" if self.col(rc).kind == "date" else "number"
            left = self.link_before(i, gap=1)
            lc = None
            if left is not None and left not in self.used:
                lc = next((c for c in self.links[left].concepts if c.kind == "column" and c != rc and (
                    self.col(c).kind == "date" if kind == "date" else self.col(c).measurable)), None)
            if lc is None:
                # "lines charged under the list price": the lines' own price, against the list price
                same = [t for t in self.mentioned if t != rc.table and rc.column in self.index.tables[t].columns]
                lc = Concept("column", same[0], rc.column) if same else None
            if lc is None or (lc.table, lc.column) == (rc.table, rc.column):
                continue
            self.used |= {right} | ({left} if left is not None and lc.table == self.links[left].best.table else set())
            self.plan.filters.append(Filter("colcmp", ColRef(lc.table, lc.column), values=(ColRef(rc.table, rc.column),),
                                            op=_COLUMN_OPS[w]))

    def _same_day(self) -> None:
        """"X on the same day as Y", "on the very day": two dates equal."""
        text = " ".join(self.lows)
        if not re.search(r"\b(?:same|very)\s+day\b|\bon\s+the\s+day\s+(?:they|it|that|when)\b", text):
            return
        dated = [(k, c) for k, lk in enumerate(self.links) if k not in self.used
                 for c in lk.concepts[:2] if c.kind == "column" and self.col(c).kind == "date" and c.strength >= 0.5]
        if not dated:
            return
        k, first = dated[0]
        other = next(((j, c) for j, c in dated[1:] if c.table == first.table and c.column != first.column), None)
        second = ColRef(first.table, other[1].column) if other else None
        if second is None:
            start = primary_date(self.index, first.table)
            if start is None or start.name == first.column:
                return
            second = ColRef(first.table, start.name)
        self.used |= {k} | ({other[0]} if other else set())
        self.plan.filters.append(Filter("colcmp", ColRef(first.table, first.column), values=(second,), op="="))

    def _hyphen_values(self) -> None:
        """"a 400-level course", "3-credit courses": the number is the value of the column named after it."""
        for k, lk in enumerate(self.links):
            i = lk.start
            if k in self.used or i < 2 or self.tokens[i - 1].text != "-" or self.tokens[i - 2].kind != "number" \
                    or lk.best.kind != "column" or not self.tokens[i - 2].low.replace(".", "", 1).isdigit():
                continue
            column = self.col(lk.best)
            if column.measurable or column.kind == "year":
                self.used.add(k)
                self.plan.filters.append(Filter("cmp", ColRef(column.table, column.name), op="=",
                                                number=parse_number(self.tokens[i - 2])))

    def _thresholds(self) -> None:
        self._hyphen_values()
        for th in self.cues.thresholds:
            if self._distinct_periods(th):
                continue
            unit, factor = self._unit_column(th)
            if unit is not None and th.number is not None:
                # "longer than 1,500 km": the column kept in that unit ("two hours" of a minutes column: 120)
                self.plan.filters.append(Filter("cmp", ColRef(unit.table, unit.name), op=th.op,
                                                number=th.number * factor))
                continue
            times = self._times_counted(th)
            if times is not None:
                # "members who checked in more than 30 times": how many of the rows the verb names
                self.plan.having.append(Having(Measure("count", times), th.op, th.number))
                continue
            k = self.link_after(th.end, gap=1)
            counted = self._counted_after(th.end)
            if counted is not None:
                k = counted  # "at least 12 paid (shipped) orders": the rows, not the grade
            if k is None and th.end < len(self.lows) and self.lows[th.end] in ("others", "other"):
                # "customers who referred two or more others": more of the rows named before
                k = next((j for j in range(len(self.links) - 1, -1, -1) if self.links[j].end <= th.start
                          and self.links[j].best.kind == "table"), None)
                if k is not None:
                    self.plan.having.append(Having(Measure("count", self.links[k].best.table), th.op, th.number))
                    continue
            before = self.link_before(th.start, gap=2)
            if th.number is None and th.end - th.start > 1 and before is not None and before not in self.used:
                k = before  # "spent more than the average customer": the measure comes before
            if k is None or k in self.used or self.links[k].best.kind == "value":
                k = before
            money = self._money_words(th)
            if money is not None and (k is None or self.links[k].best.kind == "table"):
                # "orders over 1000 in value", "customers worth more than 5000": the money measure
                self.plan.having.append(Having(money, th.op, th.number))
                continue
            if k is None:
                continue
            c = self.concept(k)
            if c.kind == "metric":
                metric = self.index.metrics[c.metric]
                self.used.add(k)
                self.plan.having.append(Having(Measure("metric", metric.base_table, metric=c.metric), th.op,
                                               th.number))
            elif c.kind == "table":
                self.used.add(k)
                distinct = self.links[k].start > 0 and self.lows[self.links[k].start - 1] in ("different", "distinct",
                                                                                              "unique", "separate")
                self.plan.having.append(Having(Measure("count", c.table, distinct=distinct), th.op, th.number))
            elif c.kind == "column" and (self.col(c).measurable or self.col(c).kind == "year"):
                if k not in self.used:
                    self.used.add(k)
                elif not any(m.column == c.column and m.table == c.table for m in self.plan.measures):
                    continue
                self.plan.filters.append(Filter("cmp", ColRef(c.table, c.column), op=th.op, number=th.number))
            elif c.kind == "column" and self.col(c).kind in ("text", "bool") and self.links[k].start >= th.end \
                    and self.links[k].best.kind == "column":
                # "bought in over two regions": how many different values the rows have
                self.used.add(k)
                self.plan.having.append(Having(Measure("count", c.table, c.column, distinct=True), th.op,
                                               th.number))
            elif c.kind == "column" and self.links[k].start > th.end:
                # "more than 15 orders" where 'orders' linked through a column alternative
                tables = [x.table for x in self.links[k].concepts if x.kind == "table"]
                if tables:
                    self.used.add(k)
                    self.plan.having.append(Having(Measure("count", tables[0]), th.op, th.number))

    def _distinct_periods(self, th) -> bool:
        """"X in N or more distinct months": how many periods the related rows fall in."""
        j = th.end + (th.end < len(self.lows) and self.lows[th.end] in ("different", "distinct", "separate"))
        unit = _PERIOD_UNITS.get(self.lows[j]) if j < len(self.lows) else None
        before = self.link_before(th.start, gap=3)
        if unit is None or before is None or self.links[before].best.kind != "table":
            return False
        date = primary_date(self.index, self.links[before].best.table)
        if date is None:
            return False
        self.plan.having.append(Having(Measure("count", date.table, date.name, distinct=True, per_grain=unit),
                                       th.op, th.number))
        return True

    def _money_words(self, th) -> Measure | None:
        after = self.lows[th.end:th.end + 3]
        before = self.lows[max(0, th.start - 1):th.start]
        if not (after[:2] == ["in", "value"] or after[:3] == ["in", "total", "value"] or "worth" in before
                or "valued" in before):
            return None
        if not self.index.metrics:
            return None
        metric = next(iter(self.index.metrics.values()))
        return Measure("metric", metric.base_table, metric=metric.name.lower())


    def _times_counted(self, th) -> str | None:
        """The table whose rows "N times" counts: the one the words just before the threshold name
        (a flag, a value or a table of rows under the entity asked about)."""
        if th.number is None or th.end >= len(self.lows) or self.lows[th.end] not in ("times", "time"):
            return None
        owner = next((lk.best.table for lk in self.links if lk.end <= th.start and lk.best.kind == "table"), None)
        for k in range(len(self.links) - 1, -1, -1):
            lk = self.links[k]
            if lk.end > th.start or th.start - lk.end > 3:
                continue
            table = lk.best.table
            if table and table != owner and (owner is None or is_ancestor(self.index, owner, table)):
                return table
        return None

    def _counted_after(self, start: int) -> int | None:
        """A table named within a few words after a threshold's number, past participles and values
        that qualify it ("12 paid (shipped) orders"), whose count the threshold is about."""
        for k, lk in enumerate(self.links):
            if lk.start < start or lk.start > start + 4:
                continue
            if lk.best.kind == "table":
                between = range(start, lk.start)
                ok = all(self.lows[j] in ("(", ")", ",", "and", "or") or self.lows[j].endswith("ed")
                         or any(o.start <= j < o.end and o.best.kind == "value" for o in self.links) for j in between)
                return k if ok and lk.start > start else None
        return None


    def _unit_column(self, th) -> tuple[Column | None, float]:
        """The one measurable column whose name or comment gives the unit written after a number, and
        what the number is multiplied by to be in the column's unit (units of time convert)."""
        if th.end >= len(self.tokens) or self.tokens[th.end].kind != "word" or self.lows[th.end] in GENERAL_WORDS \
                and self.tokens[th.end].stem not in DURATION_UNITS:
            return None, 1.0
        if any(lk.start <= th.end < lk.end and (lk.best.kind == "table" or lk.score >= 0.8) for lk in self.links):
            return None, 1.0  # "more than 10 orders": a count of rows, not a unit
        unit = self.tokens[th.end].stem
        named = {t for lk in self.links for t in lk.tables()}
        for units in ((unit,), tuple(DURATION_UNITS) if unit in DURATION_UNITS else ()):
            found = [c for c in self.index.columns() if c.measurable and any(u in c.stems for u in units)]
            found = found or [c for c in self.index.columns() if c.measurable and any(u in c.comment_words for u in units)]
            near = [c for c in found if c.table in named] or found
            if len(near) == 1:
                kept = next((u for u in units if u in near[0].stems or u in near[0].comment_words), unit)
                return near[0], DURATION_UNITS[unit] / DURATION_UNITS[kept] if unit in DURATION_UNITS else 1.0
        return None, 1.0


    def _values(self) -> None:
        by_col: dict[tuple[str, str], Filter] = {}
        for k, lk in enumerate(self.links):
            if k in self.used or lk.best.kind != "value" or lk.best.table is None:
                continue
            self.used.add(k)
            c = self.concept(k, ("value",))
            ref = ColRef(c.table, c.column)
            for near in (self.link_after(lk.end, gap=0), self.link_before(lk.start, gap=1)):
                if near is not None and any(x.kind == "column" and (x.table, x.column) == (c.table, c.column)
                                            for x in self.links[near].concepts):
                    self.used.add(near)  # "the mystery genre": the column only says where the value is
            if self._included(lk):
                continue  # "cancelled ones included", "including returns": no filter on that value
            if lk.start > 0 and self.lows[lk.start - 1] in ("this", "our", "my") \
                    and self.link_after(lk.end, gap=0) is None:
                continue  # "the admin for this store": the business itself, not the store channel
            neg = self._excluded(lk.start) or self._excluded_after(lk.end)
            key = (c.table, c.column, neg)
            if key in by_col:
                if self._both(lk.start) and c.table != self.plan.subject:
                    # "customers with both web and store orders": one related row of each kind
                    both = by_col.pop(key)
                    self.plan.filters.remove(both)
                    for value in both.values + (c.value,):
                        self.plan.exists.append(Exists(c.table, False, [Filter("eq", ref, values=(value,))]))
                    continue
                by_col[key].values += (c.value,)
                continue
            f = Filter("ne" if neg else "eq", ref, values=(c.value,))
            by_col[key] = f
            self.plan.filters.append(f)

    def _both(self, start: int) -> bool:
        window = self.lows[max(0, start - 8):start]
        return "both" in window and any(w in ("and", "&") for w in window[-3:])  # "both via A and via B"

    def _included(self, lk) -> bool:
        """"cancelled ones included", "including cancelled ones", "even the cancelled": all rows, that value too."""
        after = self.lows[lk.end:lk.end + 3]
        before = self.lows[max(0, lk.start - 2):lk.start]
        return any(w in ("included", "too", "inclusive") for w in after[:3]) and not any(
            w in ("only", "just", "excluded", "not") for w in after) or any(w in ("including", "incl", "even")
                                                                            for w in before)

    def _excluded_after(self, end: int) -> bool:
        """"X excluded", "Y left out"."""
        after = self.lows[end:end + 3]
        return any(w in ("excluded", "aside") for w in after) or "left out" in " ".join(after)

    def _excluded(self, start: int) -> bool:
        window = self.lows[max(0, start - 3):start]
        if any(w in EXCLUDE_WORDS or w.startswith("non") for w in window):
            return True
        return bool(window) and (window[-1] in ("not", "never") or window[-1].endswith("n't"))  # "weren't refunded"

    def _flags(self) -> None:
        for k, lk in enumerate(self.links):
            if k in self.used or lk.best.kind != "column":
                continue
            c = self.concept(k, ("column",))
            prev = self.links[k - 1] if k > 0 else None
            if prev is not None and prev.end == lk.start and (prev.best.table, prev.best.column) == (c.table, c.column):
                self.used.add(k)  # "satisfaction rating": one column named by two words
                continue
            column = self.col(c)
            neg = lk.negated or self.negated_before(lk.start) or self._yet_after(lk.end) or self._unknown(lk) or (
                column.kind == "date" and any(w in _INCOMPLETE for w in self.lows))  # "awaiting shipment"
            if column.kind == "bool" and c.strength >= 0.5 and self._included(lk):
                self.used.add(k)  # "cancelled ones included": no filter on the flag
                continue
            if column.kind == "bool" and c.strength >= 0.5:
                self.used.add(k)
                self.plan.filters.append(Filter("bool", ColRef(c.table, c.column), values=(not neg,)))
            elif column.kind == "date" and all(t.stem in DATE_STEMS for t in self.tokens[lk.start:lk.end]):
                continue  # "the date": a column heading, not "has a date"
            elif column.kind == "int" and not column.nullable and c.strength >= 0.5 and lk.start > 0 \
                    and self.lows[lk.start - 1] in ("no", "zero") and self.tokens[lk.end - 1].low.endswith("s"):
                self.used.add(k)  # "allow no refills": a count kept in a column, tested for none
                self.plan.filters.append(Filter("cmp", ColRef(c.table, c.column), op="=", number=0))
            elif column.nullable and c.strength >= 0.5 and not self._is_projection(k):
                self.used.add(k)
                words = {t.stem for t in self.tokens[lk.start:lk.end]}
                means_null = bool(words & column.null_means) and not words & column.set_means
                self.plan.filters.append(Filter("null" if neg != means_null else "notnull", ColRef(c.table, c.column)))
        if any(w in _INCOMPLETE for w in self.lows) and not any(
                f.kind in ("null", "notnull") and self.index.column(f.col.table, f.col.column).kind == "date"
                for f in self.plan.filters):
            col = self._completion_column()
            if col is not None:
                # "loans still outstanding": the date that completes them is not there yet
                self.plan.filters.append(Filter("null", ColRef(col.table, col.name)))
        for i, w in enumerate(self.lows):
            selling = w == "still" and any(stem(x) == "sell" for x in self.lows[i + 1:i + 4])
            if selling:
                for k, lk in enumerate(self.links):
                    if i < lk.start <= i + 3 and stem(self.lows[lk.start]) == "sell":
                        self.used.add(k)  # "products we still sell": not a join to the sales
            happened = w in _HAPPENED or w == "left" and any(lk.start == i + 1 and lk.best.kind == "value"
                                                              for lk in self.links)
            if w in _STATE_POSITIVE and self._state_of_rows(i) or selling or happened:
                col = self._negative_state_column()
                if col is not None:
                    self.plan.filters.append(Filter("bool", ColRef(col.table, col.name), values=(False,)))

    def _unknown(self, lk) -> bool:
        """"whose <column> we don't know", "we do not know their <column>": the value is missing."""
        near = list(range(max(0, lk.start - 4), lk.start)) + list(range(lk.end, min(len(self.lows), lk.end + 5)))
        for j in near:
            if self.lows[j] in ("know", "known") and any(
                    w in NEGATIONS or w in NEGATION_CONTRACTIONS or w.endswith("n't") for w in self.lows[max(0, j - 2):j]):
                return True
        return False

    def _state_of_rows(self, i: int) -> bool:
        """"current products", "customers that are active": the state qualifies rows, not a price or date
        ("the current list price")."""
        k = self.link_after(i + 1, gap=1)
        if k is not None and self.links[k].best.kind == "table":
            return True
        before = self.lows[max(0, i - 2):i]
        return any(w in ("are", "is", "still", "currently", "remain", "remains", "were", "was") for w in before)

    def _completion_column(self) -> Column | None:
        for table in self.mentioned:
            nullable = [c for c in self.index.tables[table].dates() if c.nullable]
            if len(nullable) == 1 and not any(f.col == ColRef(table, nullable[0].name) for f in self.plan.filters):
                return nullable[0]
        return None

    def _yet_after(self, end: int) -> bool:
        return end < len(self.lows) and self.lows[end] in ("yet",)

    def _is_projection(self, k: int) -> bool:
        lk = self.links[k]
        before = self.lows[max(0, lk.start - 3):lk.start]
        return any(w in ("show", "list", "give", "display") for w in before) and not self.negated_before(lk.start)

    def _negative_state_column(self) -> Column | None:
        for table in self.mentioned:
            for col in self.index.tables[table].columns.values():
                if col.kind == "bool" and any(col.name.lower().startswith(p) for p in _NEGATIVE_STATES):
                    if not any(f.col == ColRef(col.table, col.name) for f in self.plan.filters):
                        return col
        return None

    def _id_refs(self) -> None:
        for k, lk in enumerate(self.links):
            if lk.best.kind != "table" or lk.end >= len(self.tokens):
                continue
            at = lk.end
            while at + 1 < len(self.tokens) and self.lows[at] in ("number", "no", "no.", "#", "id", "nr", "num"):
                at += 1  # "customer number 42", "order #17", "member id 8"
            tok = self.tokens[at]
            if tok.kind == "number" and tok.low.isdigit() and at not in self.cues.skip:
                pk = self.index.tables[lk.best.table].primary_key
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
            if (k not in self.used and lk.best.kind == "column" and p.subject and lk.best.table != p.subject
                    and self.negated_before(lk.start, window=5) and is_ancestor(self.index, p.subject, lk.best.table)):
                # "employees who never logged any hours": no related row at all
                self.used.add(k)
                p.exists.append(Exists(lk.best.table, True, [f for f in p.filters if f.col.table == lk.best.table]))
                p.filters = [f for f in p.filters if f.col.table != lk.best.table]
                self.exists_at = lk.end
                continue
            if k in self.used or lk.best.kind != "table":
                continue
            table = lk.best.table
            self.used.add(k)
            if table == p.subject:
                continue
            open_exists = p.exists[-1] if p.exists and self._same_clause(self.exists_at, lk.start) else None
            if open_exists is not None and table == open_exists.table:
                continue  # "never opened a ticket": the ticket is what never happened
            if open_exists is not None and table not in open_exists.also:
                # "never borrowed a fantasy book": the book is part of what never happened
                open_exists.also.append(table)
                moved = [f for f in p.filters if f.col.table == table]
                p.filters = [f for f in p.filters if f not in moved]
                open_exists.filters.extend(moved)
            elif self.negated_before(lk.start, window=5) and p.subject and distance(self.index, p.subject, table) > 0:
                moved = [f for f in p.filters if f.col.table == table or self._date_near(f, lk)]
                p.filters = [f for f in p.filters if f not in moved]
                p.exists.append(Exists(table, True, moved))
                self.exists_at = lk.end
            else:
                p.joins.add(table)

    def _same_clause(self, a: int, b: int) -> bool:
        if a < 0 or b < a:
            return False
        return not any(self.lows[i] in (",", ";", ".", "and", "but", "or", "who", "which", "that", "?")
                       for i in range(a, b))

    def _date_near(self, f: Filter, lk: Link) -> bool:
        return f.kind in ("range", "relative") and f.col.table == lk.best.table
