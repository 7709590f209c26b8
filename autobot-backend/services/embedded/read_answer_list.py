"""Reading the answer's columns as the question lists them ("Return month, channel and rank"), and the
counts a list asks for as columns of its rows, not as a count of them."""

from __future__ import annotations

from services.embedded.answer_spec import read_spec
from services.embedded.read_state import LIST_VERBS, WH, ReadState


def answer_list(r: ReadState) -> None:
    """The list of answer columns, if the question gives one (its values name columns, not rows); a
    "how many" in such a list, or after "List the X who ..., with", is a column of the answer."""
    r.spec = read_spec(r.tokens, r.links, r.index)
    if r.spec is not None and len(r.spec.items) >= 2:
        for k, lk in enumerate(r.links):
            if r.spec.start <= lk.start < r.spec.end and lk.best.kind == "value":
                r.used.add(k)  # "Return month, channel and rank": the list names columns, not values
        asked = [a for a in r.cues.aggs if a.start < r.spec.start]
        if any(w in WH for w in r.lows[: r.spec.start]) and any(
            r.spec.start <= a.start < r.spec.end for a in r.cues.aggs
        ):
            # "Which X did ...? Show names and how many": the list's "how many" is a column of the
            # answer the question proper asks for, not a count of the answer's rows
            r.cues.aggs = asked + [a for a in r.cues.aggs if a.start >= r.spec.end]
    if r.lows and r.lows[0] in LIST_VERBS:
        # "List the X who ..., with the number of Y each ...": a column of the list, not a count of it
        r.cues.aggs = [
            a
            for a in r.cues.aggs
            if not (
                a.start >= 2
                and "with" in r.lows[max(0, a.start - 3) : a.start]
                and "," in r.lows[max(0, a.start - 4) : a.start]
                and any(h.op for h in r.cues.thresholds)
            )
        ]
