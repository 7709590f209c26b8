"""Which date column a question's periods are read from: a date named beside the period, the rows
named before it (or their event parent), a date named in full, the series' own, or the date of the
rows that tie the question's tables together; and the period filters themselves."""

from __future__ import annotations

from services.embedded.dates import DateSpec
from services.embedded.index import Column, Concept
from services.embedded.joins import default_date, is_ancestor, join_tree, primary_date
from services.embedded.plan import ColRef, Filter

_UNIT_WORDS = frozenset({"day", "week", "month", "quarter", "year"})


class DatesMixin:
    """Reads the date phrases: which column each period is of (resolved once the measure is known)."""

    def _dates(self) -> None:
        self.pending = []
        self.date_hints = {}
        def key(spec: DateSpec) -> tuple:
            return spec.lo, spec.hi, spec.relative, spec.recurring
        for n, spec in enumerate(self.cues.dates):
            if any(key(later) == key(spec) and self._named_date_at(later.start) in (None, self._named_date_at(spec.start))
                   for later in self.cues.dates[n + 1:]):
                continue  # "in the 1990s, i.e. 1990 to 1999": one period said twice, kept where last said
            self.table_hint = None
            column = self._date_column_before(spec.start)
            after = self.link_after(spec.end, gap=0)
            if column is None and after is not None and self.links[after].best.kind == "table":
                column = primary_date(self.index, self.links[after].best.table)  # "March 2024 flights": their date
            self.pending.append((spec, column))
            if self.table_hint:
                self.date_hints[len(self.pending) - 1] = self.table_hint
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
        fallback = self._fact_date(main) if main else None
        pending = []
        own = self._periods_own()
        for n, (s, c) in enumerate(self.pending):
            hint = self.date_hints.get(n)
            if c is None and own:
                c = own[0]
            # "customers who placed an order in May": the order's date, since orders hang off customers;
            # "appointments of cardiology doctors in May": the appointment's, not the doctor's hiring date
            if c is None and hint and main and (hint == main or is_ancestor(self.index, main, hint)
                                                or self._event_parent(main, hint)):
                c = primary_date(self.index, hint)
            pending.append((s, c))
        self.pending = pending
        grained = [self.col(Concept("column", d.table, d.column)) for d in self.plan.dims
                   if d.kind == "grain" and d.table and d.column]  # "each flight date": the series' own date
        known = [c for _s, c in self.pending if c is not None] or self._named_dates() or own or grained
        measured = {n for n, (s, c) in enumerate(self.pending) if c is None and self._before_measure(s.end)}
        resolved = [(s, c or (fallback if n in measured and fallback is not None else known[0] if known else fallback))
                    for n, (s, c) in enumerate(self.pending)]  # "2024 revenue": the measured rows' own date
        for d in self.plan.dims:
            if d.kind == "grain" and not d.table:
                column = known[0] if known else fallback
                if column is not None:
                    d.table, d.column = column.table, column.name
        self.pending = [(s, c) for s, c in resolved if c is not None]

    def _periods_own(self) -> list[Column]:
        """"that month's flights", "each quarter's bookings": the periods are those rows' own dates."""
        for i, tok in enumerate(self.tokens[:-1]):
            if tok.low in _UNIT_WORDS and tok.text.lower().replace("\u2019", "'").endswith("'s"):
                k = self.link_after(i + 1, gap=0)
                if k is not None and self.links[k].best.kind == "table":
                    own = primary_date(self.index, self.links[k].best.table)
                    return [own] if own is not None else []
        return []

    def _named_dates(self) -> list[Column]:
        """A date column the question names in full anywhere ("..., based on the flight date"): what its
        periods are read from when no date is named beside them."""
        out = []
        for k, lk in enumerate(self.links):
            c = lk.best
            if k not in self.used and c.kind == "column" and c.strength >= 1.0 and lk.end - lk.start >= 2 \
                    and self.col(c).kind == "date":
                self.used.add(k)
                out.append(self.col(c))
        return out

    def _event_parent(self, main: str, hint: str) -> bool:
        """"bookings for flights in March": the period is the flights', when the table named before it is
        a parent of the measured rows that is itself an event (it points at other tables, and has its
        own date); an entity's date ("orders from customers in 2024": a signup) never dates them."""
        table = self.index.tables[hint]
        points_out = any(c.references not in (None, hint) for c in table.columns.values())
        return points_out and is_ancestor(self.index, hint, main) and primary_date(self.index, hint) is not None

    def _fact_date(self, main: str) -> Column | None:
        """The date of the rows that tie the question's tables together: "patients each doctor saw in
        2024" is dated by the appointments between them, not by the patients' birth dates."""
        tables = [main] + [d.table for d in self.plan.dims if d.table] + [
            c.table for lk in self.links for c in lk.concepts[:1] if c.table]
        tree = join_tree(self.index, main, list(dict.fromkeys(tables))) or []
        members = [main] + [e.other for e in tree]

        def refs(t: str) -> int:
            return sum(1 for c in self.index.tables[t].columns.values() if c.references in members and c.references != t)
        best = max(members, key=lambda t: (refs(t), t == main))
        if refs(best) > refs(main):
            # the rows that tie the tables together are dated by their own date, or their parent's
            # (an order line by its order), never by the subject's (a customer's signup)
            own = primary_date(self.index, best) or default_date(self.index, best)
            if own is not None and own.table != main:
                return own
        return default_date(self.index, main)

    def _date_ref(self, table: str | None) -> ColRef | None:
        column = default_date(self.index, table) if table else None
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
        if spec.recurring is not None:
            return Filter("recurring", ref, values=spec.recurring)
        return Filter("range", ref, lo=spec.lo, hi=spec.hi)

    def _before_measure(self, end: int) -> bool:
        """A period said right before a metric ("2024 revenue"): it dates the measured rows."""
        k = self.link_after(end, gap=0)
        return k is not None and self.links[k].best.kind == "metric"

    def _named_date_at(self, start: int) -> tuple[str, str] | None:
        """The date column named right before a period, without claiming it ("joined in 2022")."""
        k = self.link_before(start, gap=2)
        if k is None:
            return None
        c = next((c for c in self.links[k].concepts if c.kind == "column" and self.col(c).kind in ("date", "year")
                  and c.strength >= 0.5), None)
        return (c.table, c.column) if c is not None else None

    def _date_column_before(self, start: int) -> Column | None:
        k = self.link_before(start, gap=2)
        if k is None:
            return None
        lk = self.links[k]
        if lk.best.kind == "table":
            self.table_hint = lk.best.table
            return None
        for c in lk.concepts:
            if c.kind == "column" and self.col(c).kind in ("date", "year") and c.strength >= 0.5:
                self.used.add(k)
                return self.col(c)
        if lk.best.kind == "column" and self.col(lk.best).kind in ("date", "year") and lk.score >= 0.5:
            self.used.add(k)
            return self.col(lk.best)
        return None
