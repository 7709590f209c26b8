"""Reading metrics: the metrics the question names (unless they only rank, qualify a grouping or set a
threshold), money at another price (discounts, the catalogue value), and a bare numeric column grouped
by something ("hours worked by department")."""

from __future__ import annotations

from services.embedded.lexicon import stem
from services.embedded.plan import ColRef, Measure
from services.embedded.read_state import SORT_WORDS, ReadState

_DISCOUNT_STEMS = frozenset({stem("discount"), stem("discounts"), stem("markdown"), stem("markdowns")})


def metrics(r: ReadState) -> None:
    """The metrics the question names, except one that only qualifies a grouping, is ranked by or is
    compared with a number; then money at another price; with no measure yet, a numeric column grouped
    by something."""
    for k, lk in enumerate(r.links):
        if k in r.used or lk.best.kind != "metric":
            continue
        if any(m.metric == lk.best.metric for m in r.plan.measures):
            r.used.add(k)
            continue
        if _is_by_target(r, lk.start) or _after_superlative(r, lk.start) or _thresholded(r, lk) or _modifier(r, k):
            continue
        metric = r.index.metrics[lk.best.metric_name]
        r.plan.measures.append(Measure("metric", metric.base_table, metric=lk.best.metric))
        r.used.add(k)
    _money(r)
    if not r.plan.measures:
        _bare_measure(r)


def _money(r: ReadState) -> None:
    """Money at another price: discounts (catalogue price less price charged, per unit sold) and the
    metric read at the catalogue price instead of the charged one."""
    if not r.index.price_pairs:
        return
    name, frm, to = r.index.price_pairs[0]
    metric = r.index.metrics[name]
    discount = [k for k, lk in enumerate(r.links) if lk.via == "synonym" and stem(r.lows[lk.start]) in _DISCOUNT_STEMS]
    named = [
        k
        for k, lk in enumerate(r.links)
        if k not in r.used and any(c.kind == "column" and (c.table, c.column) == to for c in lk.concepts[:2])
    ]
    at_price = [
        k
        for k in named
        if r.links[k].start > 0
        and r.lows[r.links[k].start - 1] in ("at", "using", "with", "by")
        or r.links[k].end < len(r.lows)
        and r.lows[r.links[k].end] in ("value", "values", "worth")
    ]
    if discount and not named:
        return  # a discount the question does not define against the catalogue price: no such column
    if not discount and not (
        at_price and (any(m.metric == name for m in r.plan.measures) or any(w in ("value", "worth") for w in r.lows))
    ):
        return
    m = Measure("metric", metric.base_table, metric=name, swap=(ColRef(*frm), ColRef(*to)), discount=bool(discount))
    r.used |= set(discount) | set(at_price) | set(named if discount else ())
    keep = [x for x in r.plan.measures if not (x.metric == name or (x.table, x.column) in (frm, to))]
    r.plan.measures = [m] + keep


def _bare_measure(r: ReadState) -> None:
    """ "Hours worked by department": a numeric column grouped by something is its total."""
    for k, lk in enumerate(r.links):
        if k in r.used or lk.best.kind != "column" or lk.score < 0.6:
            continue
        c = r.concept(k, ("column",))
        assert c is not None  # the link's best meaning is of this kind
        if not r.col(c).measurable:
            continue
        rest = r.lows[lk.end : lk.end + 4]
        if any(w in ("by", "per", "each", "for") for w in rest[:3]) and r.cues.grains + [
            w for w in rest if w in ("by", "per", "each")
        ]:
            r.used.add(k)
            r.plan.measures.append(Measure("sum", c.table_name, c.column_name))
            return


def _modifier(r: ReadState, k: int) -> bool:
    """ "per sales channel": a metric word that only qualifies the grouping after it."""
    lk = r.links[k]
    nxt = r.link_after(lk.end, gap=0)
    return (
        lk.start > 0
        and r.lows[lk.start - 1] in ("per", "by", "each", "every", "across")
        and nxt is not None
        and r.links[nxt].best.kind in ("column", "table")
    )


def _thresholded(r: ReadState, lk) -> bool:
    """ "spent more than 8000": the metric is a condition on the rows, not the answer."""
    return any(0 <= th.start - lk.end <= 1 or 0 <= lk.start - th.end <= 1 for th in r.cues.thresholds)


def _is_by_target(r: ReadState, start: int) -> bool:
    return start > 0 and r.lows[start - 1] in {"by"} | SORT_WORDS


def _after_superlative(r: ReadState, start: int) -> bool:
    return any(s.end <= start <= s.end + 1 for s in r.cues.superlatives)
