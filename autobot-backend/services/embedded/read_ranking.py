"""Reading rankings: superlatives over groups ("which three products sold most"), the measure ranked by,
the limit, and the entity a wh-word names (rank and sort verbs are :mod:`.sort_words`)."""

from __future__ import annotations

from services.embedded.dims import add_dim, same_group
from services.embedded.joins import distance, is_ancestor, primary_date
from services.embedded.lexicon import NUMBER_WORDS, whole_number
from services.embedded.plan import ColRef, Measure, Rank
from services.embedded.read_state import ReadState
from services.embedded.sort_words import by_measure, rank_verb, sort_by
from services.embedded.wh_words import wh_dim


def ranking(r: ReadState) -> None:
    """A rank or sort verb, or else the first superlative: what is ranked (a grouping, a wh-word's rows,
    "the 3 cities with the most customers"), by which measure, and how many rows are kept."""
    sups = r.cues.superlatives
    if rank_verb(r):
        return
    if not sups:
        sort_by(r)
        return
    sup = sups[0]
    wh = wh_dim(r)
    wh_grain = any(r.lows[start] in ("which", "what") for _u, start, _e in r.cues.grains)
    after = r.link_after(sup.end, gap=2)
    if after is not None and r.links[after].best.kind == "value":
        qualified = r.link_after(r.links[after].end, gap=0)
        if qualified is not None and r.links[qualified].best.kind == "table":
            after = qualified  # "the most <status> <rows>": the rows, of that status
    dim_k, event_k = None, None
    owner = _with_the_most(r, sup)
    if owner is not None and wh is None and (after is not None or r.plan.measures):
        # "the 3 cities with the most customers": the cities, ranked by how many customers (or by
        # the measure already read: "the two shops with the largest takings")
        dim_k = owner
        if after is not None and after not in r.used and r.links[after].best.kind == "table":
            event_k = after
        after = None
    head = r.link_after(r.links[after].end, gap=0) if after is not None else None
    if (
        after is not None
        and r.links[after].best.kind == "metric"
        and head is not None
        and head not in r.used
        and r.links[head].best.kind == "table"
    ):
        # "the biggest spending customer": the rows, ranked by the metric that qualifies them
        metric = r.links[after].best.metric_name
        r.used.add(after)
        if not any(m.metric == metric for m in r.plan.measures):
            r.plan.measures.append(Measure("metric", r.index.metrics[metric].base_table, metric=metric))
        r.plan.measures = [m for m in r.plan.measures if m.metric == metric] + [
            m for m in r.plan.measures if m.metric != metric
        ]
        dim_k, after = head, None
    explicit = sup.explicit_limit or r.lows[sup.start] in ("top", "bottom")
    extreme = any(a.func in ("max", "min") and sup.start <= a.start < sup.end for a in r.cues.aggs)
    if r.plan.dims and r.plan.measures and extreme and not explicit and wh is None and not wh_grain and dim_k is None:
        return  # "the highest price in each category": a maximum per group, already read
    if after is not None and after not in r.used and not explicit and wh is None and r.plan.dims and not wh_grain:
        c = r.concept(after)
        if c.kind == "column" and (r.col(c).measurable or r.col(c).kind in ("date", "year")):
            # "the earliest order date for each customer": the extreme within each group
            r.used.add(after)
            r.plan.measures.append(Measure("max" if sup.desc else "min", c.table_name, c.column_name))
            return
    if after is not None and after not in r.used:
        c = r.concept(after)
        if c.kind == "column" and r.col(c).measurable and wh is None and not wh_grain:
            # "the 3 highest paid employees": ranked by the column, listing what follows it
            nxt = r.link_after(r.links[after].end, gap=1)
            if nxt is not None and nxt not in r.used and r.links[nxt].best.kind == "table":
                r.used.add(after)
                if r.links[nxt].best.table == c.table:
                    add_dim(r, nxt)
                    r.plan.rank = Rank(
                        sup.desc, sup.limit or _singular_limit(r, nxt), column=ColRef(c.table_name, c.column_name)
                    )
                    return
                r.plan.measures.append(Measure("sum", c.table_name, c.column_name))
                dim_k = nxt
        if c.kind == "table" and wh is None and not wh_grain:
            nxt = r.link_after(r.links[after].end, gap=1)
            if nxt is not None and nxt not in r.used and r.links[nxt].best.kind == "table":
                event_k, dim_k = after, nxt
            else:
                dim_k = after
        elif c.kind == "table":
            event_k = after
        elif c.kind == "column" and not r.col(c).measurable and r.col(c).kind in ("text", "bool") and wh is None:
            dim_k = after
    if dim_k is None and wh is None and not explicit and not r.plan.dims:
        # "the highest list price": a scalar maximum, not a ranking
        if not r.plan.measures and after is not None:
            c = r.concept(after)
            if c.kind in ("column",) and (r.col(c).measurable or r.col(c).kind in ("date", "year")):
                r.used.add(after)
                r.plan.measures.append(Measure("max" if sup.desc else "min", c.table_name, c.column_name))
            elif c.kind == "metric":
                pass
        return
    if dim_k is None and wh is not None:
        dim_k = wh
    groups = len(r.plan.dims)
    partition = 0
    if dim_k is not None and dim_k not in r.used:
        add_dim(r, dim_k)
        # "for each category, which product ...": rank within the groups named before
        partition = groups if len(r.plan.dims) > groups else 0
        if partition and any(same_group(r, r.plan.dims[-1], d) for d in r.plan.dims[:groups]):
            new = r.plan.dims.pop()  # "which three products ... each product's revenue": one grouping
            r.plan.dims = [new if same_group(r, new, d) else d for d in r.plan.dims]
            partition = 0
    elif dim_k is None and not r.plan.dims:
        return
    if event_k is not None and not r.plan.measures:
        r.used.add(event_k)
        r.plan.measures.append(Measure("count", r.links[event_k].best.table_name, rows=True))
    by = by_measure(r)
    if by is not None and not r.plan.measures:
        r.plan.measures.append(by)
    if not r.plan.measures:
        after_sup = r.link_after(sup.end, gap=2)
        if after_sup is not None and after_sup not in r.used:
            c = r.concept(after_sup)
            if c.kind == "metric":
                r.used.add(after_sup)
                r.plan.measures.append(Measure("metric", r.index.metrics[c.metric_name].base_table, metric=c.metric))
            elif c.kind == "table":
                r.used.add(after_sup)
                r.plan.measures.append(Measure("count", c.table_name))
            elif c.kind == "column" and r.col(c).measurable:
                r.used.add(after_sup)
                r.plan.measures.append(Measure("sum", c.table_name, c.column_name))
            elif c.kind == "value" and c.table and r.link_after(r.links[after_sup].end, gap=0) is None:
                r.plan.measures.append(Measure("count", c.table))  # "the most returns": returned rows
    if not r.plan.measures:
        verb = r.link_before(sup.start, gap=1)
        if verb is not None and verb not in r.used and r.links[verb].via == "synonym":
            c = r.concept(verb)
            if c.kind == "metric":  # "which buyer spent the most": the money the verb names
                r.used.add(verb)
                r.plan.measures.append(
                    Measure("metric", r.index.metrics[c.metric_name].base_table, metric=c.metric_name)
                )
            elif c.kind == "column" and r.col(c).measurable:
                r.used.add(verb)
                r.plan.measures.append(Measure("sum", c.table_name, c.column_name))
    explicit_limits = [s.limit for s in sups if s.limit is not None]
    if wh_grain and r.cues.grain_limit and not explicit_limits:
        explicit_limits = [r.cues.grain_limit]  # "which two weeks were busiest"
    limit: int | None
    if explicit_limits:
        limit = explicit_limits[0]  # "which countries ... most revenue? Show the top 3"
    elif wh_dim(r) is not None and r.wh_limit is not None:
        limit = r.wh_limit
    else:
        limit = _singular_limit(r, dim_k)
    rank = Rank(sup.desc, limit, partition=partition, offset=sup.offset)
    if not r.plan.measures and sup.hint == "units":
        units = _units_column(r)
        if units is not None:
            r.plan.measures.append(Measure("sum", units.table, units.name))  # "best-selling": units sold
    if not r.plan.measures:
        column = _hinted_column(r, sup.hint)
        if column is not None:
            rank.column = column
        else:
            default = _default_rank_measure(r)
            if default is not None:
                r.plan.measures.append(default)
    r.plan.rank = rank


def _with_the_most(r: ReadState, sup) -> int | None:
    """The noun a "with the most/fewest ..." phrase ranks: "cities with the most customers"."""
    j = sup.start - 1
    if j >= 0 and r.lows[j] == "the":
        j -= 1
    if j < 0 or r.lows[j] not in ("with", "having", "has"):
        return None
    k = r.link_before(j, gap=0)
    if k is None or k in r.used or r.links[k].best.kind not in ("table", "column"):
        return None
    c = r.concept(k)
    return k if c.kind == "table" or not r.col(c).measurable else None


def _default_rank_measure(r: ReadState) -> Measure | None:
    """Ranking with no measure named ("which drug is prescribed least often"): count the rows."""
    dims = r.plan.dims
    if not dims:
        return None
    for k, lk in enumerate(r.links):
        if k not in r.used and lk.best.kind == "table" and lk.best.table != dims[0].table:
            r.used.add(k)
            return Measure("count", lk.best.table_name, rows=True)
    if dims[0].kind == "column":
        return Measure("count", dims[0].table, rows=True)
    if r.index.metrics:
        metric = next(iter(r.index.metrics.values()))
        if distance(r.index, metric.base_table, dims[0].table) >= 0:
            return Measure("metric", metric.base_table, metric=metric.name.lower())
    children = [e.other for e in r.index.edges.get(dims[0].table, ()) if is_ancestor(r.index, dims[0].table, e.other)]
    return Measure("count", children[0], rows=True) if children else None


def _singular_limit(r: ReadState, k: int | None) -> int | None:
    if k is None:
        return 1
    j = r.links[k].start - 1
    while j >= 0 and any(lk.end - 1 == j for lk in r.links) is False and r.lows[j] in ("different",):
        j -= 1
    if j >= 0 and (
        r.tokens[j].kind == "number"
        and r.tokens[j].low.isdigit()
        or r.lows[j] in NUMBER_WORDS
        and r.lows[j] not in ("a", "one", "single")
    ):
        return whole_number(r.tokens[j])  # "the two clerks who sold most"
    tok = r.tokens[r.links[k].end - 1]
    return None if tok.low != tok.stem and tok.low.endswith("s") else 1


def _units_column(r: ReadState):
    """The column that counts units sold: named or described as a quantity of units."""
    entity = next((d.table for d in r.plan.dims if d.kind == "entity"), None)
    for col in r.index.columns():
        words = set(col.stems) | col.comment_stems
        if (
            col.measurable
            and words & {"quantity", "qty", "unit"}
            and not words & {"pric", "price", "cost"}
            and (entity is None or distance(r.index, entity, col.table) >= 0)
        ):
            return col
    return None


def _hinted_column(r: ReadState, hint: str | None) -> ColRef | None:
    dim = r.plan.dims[0] if r.plan.dims else None
    table = dim.table if dim is not None and dim.kind == "entity" else None
    candidates = [c for c in r.index.tables[table].columns.values()] if table else []
    for k in range(len(r.links)):
        c = r.concept(k)
        if (
            k not in r.used
            and c.kind == "column"
            and (r.col(c).measurable or r.col(c).kind == "date")
            and (table is None or c.table == table)
        ):
            r.used.add(k)
            return ColRef(c.table_name, c.column_name)
    if hint is None or not candidates or table is None:  # (no table, no candidates)
        return None
    targets = {
        "price": ("pric", "cost", "amount"),
        "length": ("pag", "length", "duration"),
        "date": ("date",),
        "birth": ("birth",),
    }.get(hint, (hint,))
    for col in candidates:
        if (col.measurable or col.kind in ("date", "year")) and any(
            s.startswith(tg) for s in col.stems for tg in targets
        ):
            return ColRef(col.table, col.name)
    if hint == "date":
        date = primary_date(r.index, table)
        return ColRef(table, date.name) if date else None
    return None
