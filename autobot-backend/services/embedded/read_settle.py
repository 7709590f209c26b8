"""Settling the plan: defaults that depend on the whole reading (what is counted when nothing is named,
windows, LEFT JOINs, shares of a total, the rows listed), then the checks that make a plan answerable."""

from __future__ import annotations

import dataclasses

from services.embedded.dims import add_dim
from services.embedded.joins import is_ancestor
from services.embedded.plan import Dim, Measure, Rank, Window
from services.embedded.projection import listed_columns
from services.embedded.read_state import LIST_VERBS, WH, ReadState, Unclear
from services.embedded.shown import asks_for_measure, measures_shown, names_key
from services.embedded.side_by_side import measure_mentions
from services.embedded.wh_words import wh_dim

_SPLIT = frozenset("split breakdown versus vs vs. compare compared comparing between each respectively".split())
_DURATIONS = frozenset({"time", "duration", "delay", "wait", "waiting", "lag", "turnaround"})


def settle(r: ReadState) -> None:
    """The plan's defaults and checks; ``unclear`` says why the plan cannot be answered, if it cannot."""
    r.unclear = _settle(r)


def _settle(r: ReadState) -> Unclear | None:
    """Defaults that depend on the whole reading (what is counted when nothing is named, windows,
    LEFT JOINs, shares of a total), then the checks that make a plan answerable."""
    p = r.plan
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
    labels = {(d.table, r.index.tables[d.table].label) for d in p.dims if d.kind == "entity"}
    p.dims = [
        d
        for n, d in enumerate(p.dims)
        if d not in p.dims[:n] and not (d.kind == "column" and (d.table, d.column) in labels)
    ]  # "each plan ... the plan's name"
    if p.measures and not p.dims and any(w in _SPLIT for w in r.lows):
        several = next((f for f in p.filters if f.kind == "eq" and len(f.values) > 1), None)
        if several is not None:
            p.dims.append(Dim("column", several.col.table, several.col.column))  # "split between A and B"
    if r.cues.running:
        p.window = Window("running")
    elif r.cues.moving:
        p.window = Window("moving", r.cues.moving[0], r.cues.moving[1])
    entity = next((d.table for d in p.dims if d.kind == "entity"), None) or next(
        (d.table for d in p.dims if d.kind == "column"), None
    )
    if r.cues.include_zero and entity and p.measures and p.measures[0].table != entity:
        p.keep_empty = True
    if r.cues.include_zero and p.measures and p.measures[0].per and p.measures[0].per != p.measures[0].table:
        p.keep_empty = True  # "X per Y, zero for those with none"
    for m in p.measures:
        if m.per == "?":
            m.per = _default_per(r, m)
    if not p.measures and p.compare is not None and p.subject:
        p.measures.append(Measure("count", p.subject))  # "the change in orders": their number
    if not p.measures and not p.rank and p.dims:
        table = next(
            (lk.best.table for k, lk in enumerate(r.links) if lk.best.kind == "table" and k not in r.used), None
        )
        if table is None and r.spec is not None and r.spec.measures:
            # "completed X per Y — Y name, count": the rows named, though a filter read them
            entities = {d.table for d in p.dims if d.kind == "entity"}
            table = next(
                (lk.best.table for lk in r.links if lk.best.kind == "table" and lk.best.table not in entities), None
            )
        keyed = next(
            (
                t
                for t, c in sorted(p.via_keys)
                if any(d.kind == "entity" and d.table == r.index.column(t, c).references for d in p.dims)
            ),
            None,
        )
        table = table or keyed or p.subject or p.dims[0].table  # "flights per destination airport"
        if table and not any(d.kind == "entity" and d.table == table for d in p.dims):
            p.measures.append(Measure("count", table))
    p.show_rank = _asks_rank(r) and bool(p.dims) and bool(p.measures)
    if p.show_rank and p.rank is None:
        p.rank = Rank(not _ascending_words(r), None)
    compared = _compared_groups(r)
    if compared is not None:
        add_dim(r, compared)  # "how do the channels compare on revenue": one row per channel
    listed = _listed_entity(r)
    if listed is not None:
        p.dims.append(Dim("entity", listed))  # "list buyers who ..., and what each paid"
    grains = [d for d in p.dims if d.kind == "grain"]
    if (
        len(p.measures) == 1
        and len(grains) == 1
        and not p.rank
        and not p.compare
        and not p.window
        and p.measures[0].func in ("sum", "metric", "count")
        and not p.measures[0].per
        and any(a.func == "avg" and r.link_after(a.end, gap=3) is None for a in r.cues.aggs)
    ):
        # "each month's X, then their mean": the average of the period totals
        p.measures[0] = dataclasses.replace(p.measures[0], per_grain=grains[0].unit)
        p.dims = [d for d in p.dims if d is not grains[0]]
    if p.window is not None and p.measures:
        p.window.show_value = measure_mentions(r, p.measures[0]) >= 2 or _value_beside_window(r)
    if r.cues.percent and p.dims and not p.measures:
        k = next(
            (
                k
                for k, lk in enumerate(r.links)
                if k not in r.used and lk.best.kind == "column" and lk.score >= 0.6 and r.col(lk.best).measurable
            ),
            None,
        )
        if k is not None:
            r.used.add(k)  # "each product's share of units sold": of the units
            p.measures.append(Measure("sum", r.links[k].best.table_name, r.links[k].best.column_name))
            p.projection = []
    if r.cues.percent and p.dims and p.measures and not p.measures[0].share:
        p.measures[0].share_of_total = True  # "each category's share of revenue"
    if not p.measures and not p.rank:
        if p.having and p.subject:
            wh = wh_dim(r)
            if wh is not None and not p.dims and r.concept(wh).kind in ("table", "column"):
                add_dim(r, wh)  # "which categories generated more than ...": the groups that qualify
            if asks_for_measure(r, p.having[0].measure, 0) and p.having[0].measure.func != "min":
                # "... along with how many": the qualifying groups and the measure they qualify on
                if not p.dims:
                    p.dims = [Dim("entity", p.subject, show_key=names_key(r, p.subject))]
                p.measures = [p.having[0].measure]
            return None
        counted = _counted_table(r) or _bare_count(r)
        if counted is not None:
            p.measures.append(Measure("count", counted))  # "how many joined in 2022": the rows that did
            p.hide_measures = not measures_shown(r)
            return None
        if all(lk.best.kind == "value" for lk in r.links) and not _asks_for_rows(r):
            return Unclear("it names values but not what to count, add up or list about them")
        for agg in r.cues.aggs:
            k = r.link_after(agg.end, gap=1)
            if (
                agg.func == "sum"
                and r.lows[agg.start] == "how"
                and k is not None
                and r.links[k].best.kind == "column"
                and not r.col(r.links[k].best).measurable
            ):
                word = " ".join(t.text for t in r.tokens[r.links[k].start : r.links[k].end])
                return Unclear(f"it asks how much {word!r}, but nothing in the schema measures that amount")
        projection = listed_columns(r)
        if projection is None:
            return Unclear("it does not say what to count, add up or list")
        if r.lows[0] in ("which", "what") and not (p.filters or p.having or p.exists or p.dims or p.joins):
            return Unclear("it asks which rows but says nothing about which ones")
        p.projection = projection
        p.dims = [d for d in p.dims if not (d.kind == "entity" and d.table == projection[0].table)]
        shown = [c for c in projection if r.index.column(c.table, c.column).measurable]
        if r.cues.sort in ("asc", "desc") and p.rank is None and shown:
            p.rank = Rank(r.cues.sort == "desc", None, shown[0])  # "with their rate, highest first"
    if p.compare is not None and not p.measures:
        return Unclear("it asks for a change but not in what measure")
    if _untimed_duration(r):
        return Unclear("it asks for a length of time, but no pair of dates in the schema measures it")
    p.hide_measures = not measures_shown(r)
    return None


def _compared_groups(r: ReadState) -> int | None:
    """ "How do the channels stack up on revenue?", "how did categories perform": the plural subject of a
    'how do' question is what the measure is broken down by."""
    p = r.plan
    if (
        p.dims
        or not p.measures
        or p.compare
        or len(r.lows) < 3
        or r.lows[0] != "how"
        or r.lows[1] not in ("do", "did", "does", "are", "were", "have")
    ):
        return None
    for k, lk in enumerate(r.links):
        if lk.start > 4:
            return None
        word = r.tokens[lk.end - 1]
        plural = word.low != word.stem and word.low.endswith("s")
        if (
            k not in r.used
            and plural
            and (lk.best.kind == "table" or lk.best.kind == "column" and r.col(lk.best).kind == "text")
        ):
            return k
    return None


def _asks_rank(r: ReadState) -> bool:
    """ "... and their rank", "X's rank", "with its ranking": the rank is a column."""
    for i, w in enumerate(r.lows):
        if (
            w in ("rank", "ranks", "ranking", "rankings", "position")
            and i > 0
            and (
                r.lows[i - 1] in ("their", "its", "his", "her", "the", "each", "with", "and", "a")
                or any(lk.end == i for lk in r.links)
            )
            and not (i + 1 < len(r.lows) and r.lows[i + 1] in ("the", "all", "every"))
        ):
            return True
    return False


def _ascending_words(r: ReadState) -> bool:
    return any(w in ("lowest", "least", "fewest", "smallest", "ascending", "bottom") for w in r.lows)


def _listed_entity(r: ReadState) -> str | None:
    """The rows a list request names, when a measure is asked of each of them: "List the discontinued
    items ..., with each one's units", "list buyers over N ..."."""
    p = r.plan
    if p.dims or not p.measures or p.compare or p.window or p.rank or r.lows[0] not in LIST_VERBS:
        return None
    k = next((j for j, lk in enumerate(r.links) if lk.start <= 4 and lk.best.kind == "table"), None)
    if k is None:
        return None
    table = r.links[k].best.table_name
    m = p.measures[0]
    if (
        table == m.table
        and not m.per
        or not (
            table == m.table
            or is_ancestor(r.index, table, m.table)
            or m.metric
            and table in r.index.metrics[m.metric].tables
        )
    ):
        return None
    rest = r.lows[r.links[k].end :]
    each = any(w in ("each", "apiece", "individually", "per", "their", "its") for w in rest)
    return table if p.having or each else None


def _value_beside_window(r: ReadState) -> bool:
    """ "X plus a cumulative figure", "(week, visits, running total)": each period's own
    value is listed before the running or moving figure."""
    at = next(
        (i for i, w in enumerate(r.lows) if w in ("cumulative", "running", "moving", "rolling", "trailing")), None
    )
    if at is None:
        return False
    before = r.lows[max(0, at - 4) : at]
    listed = any(w in ("and", ",", "plus", "with", "alongside", "then") for w in before)
    named = any(
        lk.end <= at and (lk.best.kind == "metric" or lk.best.kind == "column" and r.col(lk.best).measurable)
        for lk in r.links
    ) or any(a.end <= at for a in r.cues.aggs)
    return listed and named


def _counted_table(r: ReadState) -> str | None:
    """ "how many" with no noun after it: the rows the question is about."""
    if not any(a.func == "count" and r.lows[a.start] == "how" for a in r.cues.aggs) or r.plan.dims:
        return None
    if r.plan.subject:
        return r.plan.subject
    return next((lk.best.table for lk in r.links if lk.best.table and lk.score >= 0.5), None)


def _bare_count(r: ReadState) -> str | None:
    """ "Orders in May?": a bare noun asked about for a period, with no list verb, is a count."""
    if (
        not r.links
        or r.links[0].best.kind != "table"
        or r.links[0].start > 1
        or not r.cues.dates
        or _asks_for_rows(r)
        or r.tokens[-1].text != "?"
        or r.plan.dims
        or r.plan.projection
    ):
        return None
    if r.lows[0] in WH or any(
        lk.best.kind == "column" and lk.score >= 0.5 and r.col(lk.best).kind not in ("date", "bool")
        for lk in r.links[1:]
    ):
        return None
    return r.links[0].best.table


def _untimed_duration(r: ReadState) -> bool:
    """ "the average time customers spend on the site": a duration no two date columns give."""
    if any(m.since for m in r.plan.measures):
        return False
    for agg in r.cues.aggs:
        nxt = r.lows[agg.end : agg.end + 2]
        if (
            agg.func in ("avg", "sum", "max", "min")
            and nxt
            and (
                nxt[0] in _DURATIONS
                or nxt[0] == "amount"
                and nxt[1:] == ["of"]
                and r.lows[agg.end + 2 : agg.end + 3] == ["time"]
            )
        ):
            return not any(lk.start == agg.end and lk.best.kind == "column" for lk in r.links)
    return False


def _asks_for_rows(r: ReadState) -> bool:
    return any(w in ("list", "show", "which", "who", "display", "give", "find") for w in r.lows[:3])


def _default_per(r: ReadState, m: Measure) -> str | None:
    if m.func == "metric":
        metric = r.index.metrics[m.metric_name]
        for table in metric.tables[1:]:
            return table
        return None
    if m.func == "count":
        return None
    return None
