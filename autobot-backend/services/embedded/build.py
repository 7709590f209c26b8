"""Rendering a :class:`Plan` as one read-only SQL statement, built as sqlglot expressions.

The output columns are the groupings first (an entity by its label), then the measures, in the
order the question named them. Tables are joined along the shortest foreign-key tree from the
measured table; entities that must keep a row with no related rows are the root of LEFT JOINs.
"""

from __future__ import annotations

from sqlglot import exp

from services.embedded.conditions import condition, exists_condition
from services.embedded.index import SchemaIndex
from services.embedded.joins import default_date, is_ancestor, join_tree, plan_tables
from services.embedded.periods import compare_select, window_select
from services.embedded.plan import ColRef, Dim, Exists, Filter, Measure, Plan
from services.embedded.shapes import count_of_groups, only_dims, top_per_group, two_level, with_rank
from services.embedded.sqlparts import (
    BuildError,
    col,
    conjoin,
    dim_alias,
    lit,
    measure_alias,
    period_label,
    reads,
    swap_column,
    table,
)

_REFERRER = "referrer"


class Builder:
    """Renders one plan; the query shapes (:mod:`.shapes`, :mod:`.periods`) use it through
    :class:`~.sqlparts.Renderer`."""

    def __init__(self, plan: Plan, index: SchemaIndex):
        self.p = plan
        self.ix = index
        self.dialect = index.dialect

    def of(self, plan: Plan) -> Builder:
        """A builder of another plan over the same schema (a subquery's, a period's)."""
        return Builder(plan, self.ix)

    # ------------------------------------------------------------------ entry

    def build(self) -> exp.Expr:
        tree = self._build()
        if self.p.show_rank and isinstance(tree, exp.Select) and self.p.dims and self.p.measures:
            return with_rank(self, tree)
        if self.p.hide_measures and isinstance(tree, exp.Select) and self.p.dims:
            tree = only_dims(tree, len(self.p.dims))
        return tree

    def _build(self) -> exp.Expr:
        p = self.p
        if p.compare is not None:
            return compare_select(self, p.compare)
        if p.window is not None and p.measures:
            return window_select(self, p.window)
        m = p.measures[0] if p.measures else None
        if m is not None and (m.per or m.per_grain):
            return two_level(self, m)
        if m is not None and p.having and not p.dims and m.func == "count" and m.table == p.subject:
            return count_of_groups(self)
        return self.select()

    # ------------------------------------------------------------------ pieces

    def root(self) -> str:
        p = self.p
        if p.keep_empty:
            entity = next((d.table for d in p.dims if d.kind == "entity"), None) or next(
                (d.table for d in p.dims if d.kind == "column"), None
            )  # "every category, with none too"
            if entity:
                return entity
        if p.measures:
            return p.measures[0].table
        if p.rank is not None and p.rank.column is not None:
            return p.rank.column.table
        if p.subject:
            return p.subject
        if p.projection:
            return p.projection[0].table
        raise BuildError("nothing to select from")

    def source(self, select: exp.Select, filters: list[Filter] | None = None) -> tuple[exp.Select, list]:
        """FROM and JOINs for every table the plan reads; returns the select and the join edges."""
        root = self.root()
        edges = join_tree(self.ix, root, plan_tables(self.p, self.ix, filters), frozenset(self.p.via_keys))
        if edges is None:
            raise BuildError("the tables it needs are not connected by foreign keys")
        select = select.from_(table(root))
        left = self.p.keep_empty and root != (self.p.measures[0].table if self.p.measures else root)
        for e in edges:
            on = conjoin(
                [
                    exp.EQ(this=col(ColRef(e.table, a)), expression=col(ColRef(e.other, b)))
                    for a, b in zip(e.columns, e.other_columns)
                ]
            )
            if left:
                extra = [
                    self.filter(f)
                    for f in (filters if filters is not None else self.p.filters)
                    if f.col.table == e.other
                ]
                extra += [c for c in self.metric_conditions() if reads(c, e.other)]
                on = conjoin([on, *extra])
            select = select.join(table(e.other), on=on, join_type="left" if left else None)
        for d in self.p.dims:
            if self._self_reference(d) and d.labels is None and d.null_label is None:
                # "customers who referred others": each referring row, joined back by its own key
                pk = self.ix.tables[d.table].primary_key[0]
                on = exp.EQ(this=exp.column(pk, table=_REFERRER), expression=col(ColRef(d.table, d.column_name)))
                select = select.join(exp.alias_(table(d.table), _REFERRER, table=True), on=on)
        self.edges = edges
        return select, edges

    def has_child(self, t: str) -> bool:
        """Whether a joined table points at ``t`` (so ``t``'s rows repeat in the join)."""
        return any(e.table == t and self._is_parent_side(e) for e in getattr(self, "edges", ())) or any(
            e.other == t and not self._is_parent_side(e) for e in getattr(self, "edges", ())
        )

    def _is_parent_side(self, e) -> bool:
        cols = self.ix.tables[e.other].columns
        return all(cols[c].references == e.table for c in e.other_columns if c in cols)

    def metric_conditions(self) -> list[exp.Expr]:
        """Metric conditions that apply to the whole query (not inlined in a measure)."""
        out: list[exp.Expr] = []
        seen: set[str] = set()
        for m in self.p.measures + [h.measure for h in self.p.having]:
            if m.metric and m.metric not in seen and not m.share and not m.raw and not self._inline(m):
                seen.add(m.metric)
                cond = self.metric_condition(m.metric)
                if cond is not None:
                    out.append(cond)
        return out

    def metric_condition(self, name: str) -> exp.Expr | None:
        """The metric's condition, unless the question filters the same column itself
        ("revenue from returned orders" asks for the returned ones)."""
        cond = self.ix.metrics[name].condition
        if cond is None:
            return None
        filtered = {(f.col.table, f.col.column) for f in self.p.filters if f.kind in ("eq", "ne")}
        if any((c.table, c.name) in filtered for c in cond.find_all(exp.Column)):
            return None
        return cond.copy()

    def _inline(self, m: Measure) -> bool:
        """With several measures, a metric's condition goes inside its own aggregate."""
        return m.metric is not None and len(self.p.measures) > 1 and m in self.p.measures

    def where(self, filters: list[Filter] | None = None) -> exp.Expr | None:
        p = self.p
        filters = p.filters if filters is None else filters
        conds = []
        left_tables = set()
        if p.keep_empty:
            left_tables = {e.other for e in getattr(self, "edges", ())}
        for f in filters:
            if f.col.table not in left_tables or f.kind == "exists":
                conds.append(self.filter(f))
        conds += [c for c in self.metric_conditions() if not any(reads(c, t) for t in left_tables)]
        conds += [self.exists(e) for e in p.exists]
        return conjoin(conds)

    def filter(self, f: Filter) -> exp.Expr:
        return condition(f, self.ix, self.p.subject)

    def exists(self, e: Exists) -> exp.Expr:
        return exists_condition(e, self.ix, self.p.subject)

    def measure(self, m: Measure) -> exp.Expr:
        if m.share:
            return self._share(m, m.share)
        if m.func == "metric":
            metric = self.ix.metrics[m.metric_name]
            cond = None if m.raw else self.metric_condition(m.metric_name)
            argument: exp.Expr | None = metric.argument
            if m.swap is not None and argument is not None:
                swapped = swap_column(argument, *m.swap)
                argument = exp.Sub(this=swapped, expression=argument.copy()) if m.discount else swapped
            if self._inline(m) and cond is not None and argument is not None:
                argument = exp.Case(ifs=[exp.If(this=cond, true=argument.copy())], default=lit(0))
            agg = metric.aggregate.copy()
            if argument is not metric.argument:
                outermost = agg.find(exp.AggFunc)
                assert outermost is not None  # a metric's aggregate is an aggregate function
                outermost.set("this", argument)
            return agg
        if m.func == "count":
            return self._count(m)
        c: exp.Expr = col(ColRef(m.table, m.column_name))
        if m.since:
            c = exp.DateDiff(this=c, expression=col(ColRef(m.table, m.since)), unit=exp.var("DAY"))
        if m.distinct and m.func == "sum":
            c = exp.Distinct(expressions=[c])
        return {"sum": exp.Sum, "avg": exp.Avg, "min": exp.Min, "max": exp.Max}[m.func](this=c)

    def _count(self, m: Measure) -> exp.Expr:
        pk = self.ix.tables[m.table].primary_key
        if m.column:
            target: exp.Expr = col(ColRef(m.table, m.column))
            if m.per_grain:
                target = period_label(target, m.per_grain)  # how many different months the rows fall in
            return exp.Count(this=exp.Distinct(expressions=[target]) if m.distinct else target)
        if self.p.keep_empty and m.table != self.root():
            key = col(ColRef(m.table, pk[0] if pk else next(iter(self.ix.tables[m.table].columns))))
            return exp.Count(this=exp.Distinct(expressions=[key]) if len(pk) == 1 else key)
        if len(pk) == 1 and (m.distinct or (not m.rows and self.has_child(m.table))):
            return exp.Count(this=exp.Distinct(expressions=[col(ColRef(m.table, pk[0]))]))
        return exp.Count(this=exp.Star())

    def _share(self, m: Measure, share: list[Filter]) -> exp.Expr:
        cond = conjoin([self.filter(f) for f in share])
        whole: exp.Expr
        if m.func == "metric":
            metric = self.ix.metrics[m.metric_name]
            argument = metric.argument
            assert argument is not None  # a share of a metric is a share of what it adds up
            arg = argument.copy()
            mcond = None if m.raw else self.metric_condition(m.metric_name)
            part_cond = conjoin([cond, mcond]) if mcond is not None else cond
            part = exp.Sum(this=exp.Case(ifs=[exp.If(this=part_cond, true=arg.copy())], default=lit(0)))
            whole_arg = exp.Case(ifs=[exp.If(this=mcond, true=arg.copy())], default=lit(0)) if mcond else arg
            whole = exp.Sum(this=whole_arg)
        else:
            part = exp.Sum(this=exp.Case(ifs=[exp.If(this=cond, true=lit(1))], default=lit(0)))
            whole = exp.Count(this=exp.Star())
        return exp.Div(this=exp.Mul(this=exp.Literal.number("100.0"), expression=part), expression=whole)

    def dim_outputs(self, d: Dim) -> tuple[exp.Expr, list[exp.Expr]]:
        """(the column shown, the expressions grouped by) for one grouping."""
        if d.kind == "entity":
            t = self.ix.tables[d.table]
            shown = col(ColRef(d.table, t.label or t.primary_key[0]))
            keys: list[exp.Expr] = [*(col(ColRef(d.table, k)) for k in t.primary_key), shown.copy()]
            return shown, keys
        if d.kind == "grain":
            ref = ColRef(d.table, d.column_name)
            column = self.ix.column(d.table, d.column_name)
            e = period_label(col(ref), d.grain_unit, column.kind == "year")
            return e, [e.copy()]
        if self._self_reference(d) and d.labels is None and d.null_label is None:
            t = self.ix.tables[d.table]
            shown = exp.column(t.label or t.primary_key[0], table=_REFERRER)
            return shown, [exp.column(t.primary_key[0], table=_REFERRER), shown.copy()]
        e = col(ColRef(d.table, d.column_name))
        if d.labels is not None:
            column = self.ix.column(d.table, d.column_name)
            cond = (
                exp.EQ(this=e, expression=exp.true())
                if column.kind == "bool"
                else exp.Not(this=exp.Is(this=e, expression=exp.Null()))
            )
            e = exp.Case(
                ifs=[exp.If(this=cond, true=exp.Literal.string(d.labels[0]))], default=exp.Literal.string(d.labels[1])
            )
        elif d.null_label is not None:
            e = exp.Coalesce(this=e, expressions=[exp.Literal.string(d.null_label)])
        return e, [e.copy()]

    def _self_reference(self, d: Dim) -> bool:
        """A grouping by a column that points at its own table's rows ("referred_by"): the rows pointed at."""
        if d.kind != "column" or not d.column:
            return False
        column = self.ix.column(d.table, d.column)
        return column.references == d.table and len(self.ix.tables[d.table].primary_key) == 1

    def dim_projections(self, d: Dim, n: int) -> tuple[list[exp.Expr], list[exp.Expr]]:
        """The output columns of one grouping (an entity's key too, when asked) and its GROUP BY keys."""
        shown, keys = self.dim_outputs(d)
        out: list[exp.Expr] = [exp.alias_(shown, dim_alias(d, n))]
        t = self.ix.tables.get(d.table)
        if d.kind == "entity" and d.show_key and t is not None and len(t.primary_key) == 1 and t.label:
            out.insert(0, exp.alias_(col(ColRef(d.table, t.primary_key[0])), f"{d.table}_key"))
        return out, keys

    def grain_ref(self, d: Dim) -> ColRef | None:
        if d.table:
            return ColRef(d.table, d.column_name)
        date = default_date(self.ix, self.root())
        return ColRef(date.table, date.name) if date else None

    # ------------------------------------------------------------------ shapes

    def select(self, filters: list[Filter] | None = None) -> exp.Select:
        p = self.p
        for d in p.dims:
            if d.kind == "grain" and not d.table:
                ref = self.grain_ref(d)
                if ref is None:
                    raise BuildError("no date column to place rows in periods")
                d.table, d.column = ref.table, ref.column
        projections: list[exp.Expr] = []
        group: list[exp.Expr] = []
        for n, d in enumerate(p.dims):
            shown, keys = self.dim_projections(d, n)
            projections.extend(shown)
            group.extend(keys)
        select = exp.select(*projections) if projections else exp.Select()
        select, _edges = self.source(select, filters)
        for n, m in enumerate(p.measures):
            value = self.measure(m)
            if p.keep_empty and (m.func in ("sum", "metric") and not m.share):
                value = exp.Coalesce(this=value, expressions=[lit(0)])  # "with 0 for those with none"
            if m.share_of_total:
                total = exp.Window(this=exp.Sum(this=value.copy()), over="OVER")
                value = exp.Div(this=exp.Mul(this=exp.Literal.number("100.0"), expression=value), expression=total)
            select = select.select(exp.alias_(value, measure_alias(m, n)), append=True)
        if not p.measures and not p.projection and p.rank is not None and p.rank.column is not None:
            entity = self._entity_for_rank()
            label = self.ix.tables[entity].label if entity else None
            if entity and label and not p.dims and ColRef(entity, label) != p.rank.column:
                select = select.select(col(ColRef(entity, label)), append=True)
            if not (p.hide_measures and (label and not p.dims or p.dims)):
                select = select.select(col(p.rank.column), append=True)  # "the cheapest product": its name alone
        if not p.measures and p.projection:
            select = select.select(*[col(c) for c in p.projection], append=True)
            entity = p.projection[0].table
            pk = self.ix.tables[entity].primary_key
            labels = {ColRef(entity, self.ix.tables[entity].label or "")} | {ColRef(entity, k) for k in pk}
            if not any(c in labels for c in p.projection):
                group = [col(c) for c in p.projection]  # "which drugs ...": each value once
            elif (p.having or self._fans_out(entity)) and pk:
                group = [*(col(ColRef(entity, k)) for k in pk), *(col(c) for c in p.projection)]
        if not p.measures and not p.projection and p.having and p.subject and not p.dims:
            t = self.ix.tables[p.subject]
            label_column = col(ColRef(p.subject, t.label or t.primary_key[0]))
            select = select.select(label_column, append=True)
            group = [*(col(ColRef(p.subject, k)) for k in t.primary_key), label_column.copy()]
        where = self.where(filters)
        if where is not None:
            select = select.where(where)
        if group and (p.measures or p.having or p.projection):
            select = select.group_by(*group)
        if p.having:
            select = select.having(conjoin([self._having(h) for h in p.having]))
        return self.order(select)

    def _fans_out(self, entity: str) -> bool:
        return self.has_child(entity)

    def _entity_for_rank(self) -> str | None:
        p = self.p
        ent = next((d.table for d in p.dims if d.kind == "entity"), None)
        return ent or (p.rank.column.table if p.rank and p.rank.column else p.subject)

    def _having(self, h) -> exp.Expr:
        m = h.measure
        if h.op == "range":
            agg = (exp.Min if m.func == "min" else exp.Max)(this=col(ColRef(m.table, m.column_name)))
            conds: list[exp.Expr] = []
            if h.within.lo is not None:
                conds.append(exp.GTE(this=agg.copy(), expression=lit(h.within.lo)))
            if h.within.hi is not None:
                conds.append(exp.LT(this=agg.copy(), expression=lit(h.within.hi)))
            return conjoin(conds) or exp.true()
        if m.func == "count" and not m.column:
            pk = self.ix.tables[m.table].primary_key
            # "customers with more than 10 orders": their orders; "members who borrowed more than 12
            # books": their loans (a book is counted once per loan, not once overall)
            own = self.p.subject is None or is_ancestor(self.ix, self.p.subject, m.table) or m.distinct
            e: exp.Expr = (
                exp.Count(this=exp.Distinct(expressions=[col(ColRef(m.table, pk[0]))]))
                if len(pk) == 1 and own
                else exp.Count(this=exp.Star())
            )
        else:
            e = self.measure(m)
        ops = {">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE, "=": exp.EQ}
        if h.number is None:
            return ops[h.op](this=e, expression=self._group_average(h.measure))
        return ops[h.op](this=e, expression=lit(h.number))

    def _group_average(self, m: Measure) -> exp.Expr:
        """The measure's average over the groups ("customers who spent more than the average customer")."""
        p = self.p
        entity = p.subject or m.table
        inner = Builder(
            Plan(
                subject=entity,
                measures=[m],
                dims=[Dim("entity", entity)],
                filters=p.filters,
                exists=p.exists,
                joins=set(p.joins),
            ),
            self.ix,
        ).select()
        inner.set("order", None)
        value = inner.expressions[-1].alias_or_name
        return exp.select(exp.Avg(this=exp.column(value))).from_(inner.subquery("per_group")).subquery()

    def order(self, select: exp.Select) -> exp.Select:
        p = self.p
        if p.rank is not None and p.rank.partition and p.measures:
            return top_per_group(self, select, p.rank)
        if p.rank is not None:
            if p.rank.column is not None and not p.measures:
                key = col(p.rank.column)
            elif p.measures:
                key = exp.column(measure_alias(p.measures[0], 0))
            else:
                return select
            select = select.order_by(exp.Ordered(this=key, desc=p.rank.desc, nulls_first=not p.rank.desc))
            if p.rank.limit:
                select = select.limit(p.rank.limit)
            if p.rank.offset:
                select = select.offset(p.rank.offset)
            return select
        grains = [n for n, d in enumerate(p.dims) if d.kind == "grain"]
        if grains:
            keys = [exp.Ordered(this=exp.column(dim_alias(p.dims[n], n)), nulls_first=True) for n in grains]
            select = select.order_by(*keys)
        return select
