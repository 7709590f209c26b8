"""Terms the schema's comments define, said in the question: "what percentage were *delayed*" tests
what the comment says a delayed flight is (:mod:`.terms`), not whether a column is set."""

from __future__ import annotations

from services.embedded.plan import ColRef, Filter
from services.embedded.read_state import ReadState

_INVERSE = {">": "<=", ">=": "<", "<": ">=", "<=": ">", "=": "<>"}


def terms(r: ReadState) -> None:
    """The first defined term the question says becomes the filters its definition gives (inverted
    after a negation), kept in ``term_filters`` for a share to use."""
    r.term_filters = []
    for i, low in enumerate(r.lows):
        conditions = r.index.terms.get(low)
        if not conditions:
            continue
        negated = r.negated_before(i, window=3)
        if negated and len(conditions) != 1:
            continue
        for k, lk in enumerate(r.links):
            if lk.start <= i < lk.end and lk.score < 1.0:
                r.used.add(k)
        for kind, table, column, *rest in conditions:
            if kind == "cmp":
                op, number = rest
                f = Filter("cmp", ColRef(table, column), op=_INVERSE[op] if negated else op, number=number)
            else:
                f = Filter("eq", ColRef(table, column), values=(rest[0],))
            r.term_filters.append(f)
        r.plan.filters.extend(r.term_filters)
        return
