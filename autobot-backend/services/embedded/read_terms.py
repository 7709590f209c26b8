"""Terms the schema's comments define, said in the question: "what percentage were *delayed*" tests
what the comment says a delayed flight is (:mod:`.terms`), not whether a column is set."""

from __future__ import annotations

from services.embedded.plan import ColRef, Filter

_INVERSE = {">": "<=", ">=": "<", "<": ">=", "<=": ">", "=": "<>"}


class TermsMixin:
    def _terms(self) -> None:
        self.term_filters = []
        for i, low in enumerate(self.lows):
            conditions = self.index.terms.get(low)
            if not conditions:
                continue
            negated = self.negated_before(i, window=3)
            if negated and len(conditions) != 1:
                continue
            for k, lk in enumerate(self.links):
                if lk.start <= i < lk.end and lk.score < 1.0:
                    self.used.add(k)
            for kind, table, column, *rest in conditions:
                if kind == "cmp":
                    op, number = rest
                    f = Filter("cmp", ColRef(table, column), op=_INVERSE[op] if negated else op, number=number)
                else:
                    f = Filter("eq", ColRef(table, column), values=(rest[0],))
                self.term_filters.append(f)
            self.plan.filters.extend(self.term_filters)
            return
