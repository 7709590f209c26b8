"""Reading groupings: "by country", "per month", "each course level" (rankings are :mod:`.read_ranking`)."""

from __future__ import annotations

from services.embedded.joins import distance
from services.embedded.lexicon import DATE_STEMS
from services.embedded.plan import Dim, Measure
from services.embedded.read_state import SORT_WORDS
from services.embedded.measure_links import intensive

_PARTICIPLES = frozenset({"written", "made", "sold", "bought", "paid", "done", "seen", "given", "taken", "held",
                          "run", "won", "lent", "brought", "sent", "kept"})


_PARTICLES = frozenset({"back", "out", "up", "off", "in", "down", "over", "away"})
_SHOW_VERBS = frozenset({"show", "list", "give", "display", "return", "get"})


class GroupsMixin:
    """Reads groupings (columns, entities, time grains) and rankings (top-N, superlatives, sort orders)."""

    def _groupings(self) -> None:
        defining = self._definitions()
        for i, w in enumerate(self.lows):
            if i in self.cues.skip or w not in ("by", "per", "each", "every", "across") or i in defining:
                continue
            nxt = self.lows[i + 1] if i + 1 < len(self.lows) else ""
            if w == "per" and i > 1 and self.lows[i - 2] in ("one", "a", "an", "each", "single"):
                continue  # "one fee per enrollment": how the rows are counted, not a grouping
            prev = self.link_before(i, gap=1)
            if w == "per" and nxt in ("unit", "item", "piece", "head") and prev is not None \
                    and self.links[prev].best.kind == "column" and self.col(self.links[prev].best).measurable:
                continue  # "price per unit": a rate, not a grouping
            if (w == "across" and nxt in ("all", "both", "the", "every", "each")) or (
                    w == "by" and nxt in ("a", "an", "any", "some", "one", "someone", "anyone")):
                continue  # "across all orders": overall; "a visit by a patient": who, not a grouping
            verb = i - 2 if i > 1 and self.lows[i - 1] in _PARTICLES else i - 1  # "sent back by"
            if w == "by" and verb >= 0 and (self.lows[verb] in _PARTICIPLES or self.lows[verb].endswith("ed")) \
                    and self.lows[verb] not in SORT_WORDS and self._agent(i + 1):
                continue  # "books written by authors from Japan": who did it, not a grouping
            k = self.link_after(i + 1, gap=2)
            if w in ("each", "every") and k is not None and self.links[k].start == i + 1 \
                    and self.links[k].best.kind == "column" and self.col(self.links[k].best).kind == "date" \
                    and not (self.lows[i + 1].endswith("s") or self.tokens[i + 1].stem in DATE_STEMS):
                continue  # "the tickets each bought": each of them did it, a verb and no grouping
            if k is not None and k in self.used and self.links[k].best.kind == "metric":
                modified = self.link_after(self.links[k].end, gap=0)
                if modified is not None and modified not in self.used \
                        and self.links[modified].best.kind in ("column", "table"):
                    k = modified  # "each sales channel" after the revenue was read: the channel
            if k is not None and k not in self.used and self.links[k].best.kind == "column" and (
                    self.links[k].score < 0.8 or self.lows[self.links[k].end - 1].endswith("ed")) \
                    and not self.tokens[self.links[k].end - 1].text.lower().replace("\u2019", "'").endswith("'s"):
                head = self.link_after(self.links[k].end, gap=0)
                if head is not None and head not in self.used and self.links[head].best.kind in ("column", "table") \
                        and (self.links[head].score > self.links[k].score or self.lows[self.links[k].end - 1].endswith("ed")):
                    k = head  # "each graded term": a weak or participle modifier, then the noun grouped by
            if k is None or k in self.used:
                continue
            c = self.concept(k)
            modified = self.link_after(self.links[k].end, gap=0)
            if c.kind == "metric" and modified is not None and modified not in self.used \
                    and self.concept(modified).kind in ("column", "table"):
                # "per sales channel": 'sales' only qualifies the grouping that follows
                self.used.add(k)
                k, c = modified, self.concept(modified)
            if c.kind == "metric" or (c.kind == "column" and self.col(c).measurable and w == "by"):
                continue  # "top 5 products by revenue": the ranking's measure, read in _ranking
            word = self.tokens[self.links[k].end - 1]
            if w == "by" and c.kind == "table" and word.low != word.stem and word.low.endswith("s") \
                    and any(v in ("rank", "sort", "order", "arrange") for v in self.lows[:i]) \
                    and self.link_before(i, gap=1) is not None:
                continue  # "rank the ports by sailings": how many each has, read in _ranking
            if w == "per" and c.kind == "table" and self._two_level(c.table, k):
                continue
            if w in ("each", "every") and self._own_attribute(k):
                continue
            while k is not None:
                k = self._add_dim(k)
                if k is None:
                    break
                lk = self.links[k]
                if lk.end < len(self.lows) and self.lows[lk.end] in ("and", ",", "&"):
                    k = self.link_after(lk.end + 1, gap=1 if self.lows[lk.end] != "," else 0)
                    if k is not None and (k in self.used or self.links[k].best.kind not in ("table", "column")):
                        k = None
                else:
                    k = None
        for unit, start, _end in self.cues.grains:
            if start in self.grains_taken:
                continue
            self.plan.dims.append(Dim("grain", "", None, unit))

    def _own_attribute(self, k: int) -> bool:
        """"Show each port's country": every row with its own value, a list, not a grouping by the value."""
        lk, c = self.links[k], self.concept(k)
        if self.lows[0] not in _SHOW_VERBS or self.cues.aggs or self.cues.percent or c.kind != "table" \
                or not self.tokens[lk.end - 1].text.lower().replace("\u2019", "'").endswith("'s"):
            return False
        nxt = self.link_after(lk.end, gap=0)
        return nxt is not None and self.concept(nxt).kind == "column" and self.concept(nxt).table == c.table

    def _definitions(self) -> set[int]:
        """Tokens of a clause that defines a term ("..., taking each X as Y minus
        ..."): what it says of "each" row is the definition, not a grouping of the answer."""
        out: set[int] = set()
        for i, w in enumerate(self.lows):
            if w in _DEFINING and (i == 0 or self.lows[i - 1] in (",", ".", ";", ":", "(", "\u2014", "-")):
                end = next((j for j in range(i + 1, len(self.lows)) if self.lows[j] in (".", ";", "?", ")")),
                           len(self.lows))
                if "as" in self.lows[i:end] or any(w in _ARITHMETIC for w in self.lows[i:end]):
                    out |= set(range(i, end))  # "..., counting for each line A minus B": a formula
        return out

    def _same_group(self, a: Dim, b: Dim) -> bool:
        """Two groupings that form the same groups: equal, or an entity and its own label column."""
        if a == b:
            return True
        key = lambda d: (d.table, self.index.tables[d.table].label) if d.kind == "entity" else (d.table, d.column)  # noqa
        return a.kind != "grain" and b.kind != "grain" and key(a) == key(b)

    def _agent(self, pos: int) -> bool:
        """After "<participle> by": an agent is qualified ("by customers in Canada", "by a member",
        "by business customers"); a grouping is a bare noun ("hours worked by department")."""
        if pos < len(self.lows) and self.lows[pos] in ("a", "an", "some", "someone", "somebody", "another", "other"):
            return True
        k = self.link_after(pos, gap=1)
        if k is None:
            return True
        word = self.tokens[self.links[k].end - 1]
        if self.lows[pos] in ("the", "their", "its") and not (word.low != word.stem and word.low.endswith("s")):
            return True  # "returned by the customer": the one who did it, not one row per customer
        if self.links[k].best.kind == "value":
            return True
        end = self.links[k].end
        return any(lk.best.kind == "value" and end <= lk.start <= end + 2 for lk in self.links)

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
                if distance(self.index, m.table, table) > 0 and not intensive(self, m):
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
            if nxt is not None and nxt not in self.used and self.links[nxt].score >= 0.5:
                cc = self.concept(nxt, ("column",))
                if cc is not None and cc.table == c.table and (not self.col(cc).measurable or self.col(cc).kind == "int"):
                    # "each course level": the head noun is the column, whole numbers grouped as categories
                    self.used |= {k, nxt}
                    self.plan.dims.append(Dim("column", cc.table, cc.column))
                    return nxt
                if cc is not None and distance(self.index, c.table, cc.table) == 1 and not self.col(cc).measurable \
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
            if column.kind == "date" and all(t.stem in DATE_STEMS for t in self.tokens[lk.start:lk.end]):
                self.plan.dims.append(Dim("grain", "", None, "day"))  # "each date": the measured rows' day
                return k
            if column.kind == "key" and column.references and column.references != c.table:
                # "by destination airport": the rows the key points at, joined by that key
                self.plan.dims.append(Dim("entity", column.references))
                self.plan.via_keys.add((c.table, c.column))
                nxt = self.link_after(lk.end, gap=0)
                if nxt is not None and self.links[nxt].best.kind == "table" \
                        and self.links[nxt].best.table == column.references:
                    self.used.add(nxt)
                    return nxt
                return k
            if column.kind == "date":
                nxt = self.lows[lk.end] if lk.end < len(self.lows) else ""
                unit = {"day": "day", "week": "week", "month": "month", "quarter": "quarter", "year": "year"}.get(
                    nxt.rstrip("s"), "day")
                self.plan.dims.append(Dim("grain", c.table, c.column, unit))
            else:
                self.plan.dims.append(Dim("column", c.table, c.column))
            return k
        return None

    # ------------------------------------------------------------------ ranking



_ARITHMETIC = frozenset({"minus", "plus", "times", "divided", "multiplied", "less"})
_DEFINING = frozenset({"taking", "counting", "treating", "defining", "count", "treat", "take", "define", "consider",
                       "considering", "meaning", "where"})
