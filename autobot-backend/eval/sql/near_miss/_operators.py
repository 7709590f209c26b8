"""Mistakes in joins, aggregates, DISTINCT, ordering, LIMIT, money, status values and GROUP BY.

Where a rule of SQL or of the schema's keys makes a mutant return the reference's rows on every
database, the operator says so (``equivalent``); the study still runs it, and a rule the study
contradicts is an error it reports.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from eval.sql.near_miss._mutant import DIALECT, Context, Found, Kind, apply, bare, becomes, short, site
from eval.sql.near_miss._schema import FACTS, STATUSES, base_table


def inner_for_left(tree: exp.Expr, context: Context) -> Iterator[Found]:
    for join in list(tree.find_all(exp.Join)):
        if (join.args.get("side") or "").upper() == "LEFT":

            def inner(n: exp.Expr) -> exp.Expr:
                n.set("side", None)
                n.set("kind", None)
                return n

            sql, after = apply(tree, join, inner)
            yield Found(Kind.INNER_FOR_LEFT, site(join, after), sql)


def count_swap(tree: exp.Expr, context: Context) -> Iterator[Found]:
    for count in list(tree.find_all(exp.Count)):
        arg = count.this
        select = count.find_ancestor(exp.Select)
        variants: list[tuple[exp.Expr, str | None]] = []
        if isinstance(arg, exp.Star):
            source = base_table(select) if select is not None else None
            if source is not None and source[1] in FACTS.keys:
                alias, table = source
                joined = select_joins(select)
                key = exp.column(FACTS.keys[table], table=alias if joined else None)
                why: str | None = None
                if not joined:
                    key_name = FACTS.keys[table]
                    why = f"over {table} alone, COUNT(DISTINCT {key_name}) counts its rows: a key is unique, never NULL"
                variants.append((exp.Count(this=exp.Distinct(expressions=[key])), why))
        elif isinstance(arg, exp.Distinct):
            inner = arg.expressions[0] if len(arg.expressions) == 1 else None
            if inner is not None:
                unique = _unique_not_null(inner, select)
                why = f"{unique} is unique: DISTINCT removes nothing" if unique else None
                variants.append((exp.Count(this=inner.copy()), why))
                variants.append((exp.Count(this=exp.Star()), None))
        else:
            not_null = _not_null(arg, select)
            why = f"{not_null} is NOT NULL and no outer join makes it NULL" if not_null else None
            variants.append((exp.Count(this=exp.Star()), why))
            variants.append((exp.Count(this=exp.Distinct(expressions=[arg.copy()])), None))
        for replacement, why in variants:
            sql, after = apply(tree, count, becomes(replacement))
            yield Found(Kind.COUNT_SWAP, site(count, after), sql, equivalent=why or None)


def select_joins(select: exp.Select | None) -> bool:
    return bool(select is not None and select.args.get("joins"))


def _not_null(arg: exp.Expr, select: exp.Select | None) -> str | None:
    """``table.column`` when ``arg`` is a NOT NULL column of a base table and ``select`` has no outer join."""
    if not isinstance(arg, exp.Column) or select is None:
        return None
    if any((j.args.get("side") or "") for j in select.args.get("joins") or []):
        return None
    table = FACTS.table_of(arg, select)
    if table is None or (table, arg.name) in FACTS.nullable:
        return None
    return f"{table}.{arg.name}"


def _unique_not_null(arg: exp.Expr, select: exp.Select | None) -> str | None:
    """``table.key`` when ``arg`` is the key of the only table ``select`` reads."""
    if not isinstance(arg, exp.Column) or select is None or select_joins(select):
        return None
    table = FACTS.table_of(arg, select)
    if table is None or FACTS.keys.get(table) != arg.name:
        return None
    return f"{table}.{arg.name}"


def sum_for_avg(tree: exp.Expr, context: Context) -> Iterator[Found]:
    for avg in list(tree.find_all(exp.Avg)):
        sql, after = apply(tree, avg, becomes(exp.Sum(this=avg.this.copy())))
        yield Found(Kind.SUM_FOR_AVG, site(avg, after), sql)


def distinct(tree: exp.Expr, context: Context) -> Iterator[Found]:
    for select in list(tree.find_all(exp.Select)):
        adding = not select.args.get("distinct")

        def toggle(n: exp.Expr, adding: bool = adding) -> exp.Expr:
            n.set("distinct", exp.Distinct() if adding else None)
            return n

        sql, _ = apply(tree, select, toggle)
        shown = select.copy()
        shown.set("with_", None)  # the outermost query is named by its own SELECT, not its CTEs
        head = short(shown.sql(dialect=DIALECT), 80)
        name = f"{head} -> SELECT DISTINCT ..." if adding else f"{head} -> SELECT ... (DISTINCT removed)"
        yield Found(Kind.DISTINCT, name, sql, equivalent=_distinct_is_moot(select) if adding else None)


def _distinct_is_moot(select: exp.Select) -> str | None:
    """Why adding DISTINCT to ``select`` changes no result, or None."""
    parent = select.parent
    if isinstance(parent, exp.SetOperation) and parent.args.get("distinct"):
        return f"an operand of {parent.key.upper()} (without ALL), which removes duplicates itself"
    if isinstance(parent, exp.Subquery) and isinstance(parent.parent, exp.In):
        return "the subquery of IN, which asks only whether a value is among its rows"
    if isinstance(parent, exp.In):
        return "the subquery of IN, which asks only whether a value is among its rows"
    limit = select.args.get("limit")
    if (
        isinstance(limit, exp.Limit)
        and isinstance(limit.expression, exp.Literal)
        and limit.expression.this == "1"
        and not select.args.get("offset")
        and _orders_by_returned(select)
    ):
        # Not without ORDER BY (which row is arbitrary), nor ordered by a column it does not return:
        # DISTINCT then orders each kept row by any one of its duplicates' keys, and the first row can change.
        return "LIMIT 1 returns one row at most, the first by an order on returned columns"
    group = select.args.get("group")
    if group is None and _own_aggregate(select):
        return "an aggregate without GROUP BY returns one row"
    if not select.args.get("from") and not select.args.get("from_"):
        return "a SELECT without FROM returns one row"
    if group is not None:
        projected = {bare(p).sql(dialect=DIALECT) for p in select.expressions} | {
            p.alias for p in select.expressions if isinstance(p, exp.Alias)
        }
        if all(g.sql(dialect=DIALECT) in projected for g in group.expressions):
            return "every GROUP BY expression is returned, so its rows are already distinct"
    return None


def _orders_by_returned(select: exp.Select) -> bool:
    """``select`` has an ORDER BY, and every key is a returned column (by position, alias or expression)."""
    order = select.args.get("order")
    if not order:
        return False
    returned = {bare(p).sql(dialect=DIALECT) for p in select.expressions}
    aliases = {p.alias for p in select.expressions if isinstance(p, exp.Alias)}
    for o in order.expressions:
        key = o.this
        if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.this) <= len(select.expressions):
            continue
        if key.sql(dialect=DIALECT) in returned:
            continue
        # a function of returned values alone (ABS(change) where change is returned) orders duplicates alike
        columns = list(key.find_all(exp.Column))
        if not columns or key.find(exp.AggFunc, exp.Window, exp.Subquery):
            return False
        for col in columns:
            if not ((not col.table and col.name in aliases) or col.sql(dialect=DIALECT) in returned):
                return False
    return True


def _own_aggregate(select: exp.Select) -> bool:
    """``select`` aggregates its own rows: an aggregate of its scope, not in a window or a nested query
    (``SELECT (SELECT MAX(x) FROM t) FROM orders`` returns a row per order)."""
    for part in [*select.expressions, select.args.get("having")]:
        for agg in part.find_all(exp.AggFunc) if part is not None else ():
            if agg.find_ancestor(exp.Select) is select and agg.find_ancestor(exp.Window) is None:
                return True
    return False


def asc_for_desc(tree: exp.Expr, context: Context) -> Iterator[Found]:
    for node in list(tree.find_all(exp.Ordered)):
        if not node.args.get("desc"):
            continue
        owner = node.parent.parent if isinstance(node.parent, exp.Order) else None
        why = None
        if owner is tree and not context.ordered and not tree.args.get("limit"):
            why = "the outermost ORDER BY of an unordered question with no LIMIT: the rows are compared as a multiset"
        sql, after = apply(tree, node, becomes(exp.Ordered(this=node.this.copy(), desc=False, nulls_first=True)))
        yield Found(Kind.ASC_FOR_DESC, site(node, after), sql, equivalent=why)


def limit_off_by_one(tree: exp.Expr, context: Context) -> Iterator[Found]:
    for limit in list(tree.find_all(exp.Limit)):
        value = limit.expression
        if not (isinstance(value, exp.Literal) and value.is_int):
            continue
        n = int(value.this)
        for m in (n + 1, n - 1):
            if m >= 1:
                sql, after = apply(tree, limit, becomes(exp.Limit(expression=exp.Literal.number(m))))
                yield Found(Kind.LIMIT_OFF_BY_ONE, site(limit, after), sql)


def money_rounded(tree: exp.Expr, context: Context) -> Iterator[Found]:
    if not isinstance(tree, exp.Select):
        return
    money = _money_names(tree)
    for projection in list(tree.expressions):
        inner = bare(projection)
        if not _is_money(inner, money):
            continue

        def rounded(n: exp.Expr) -> exp.Expr:
            body = exp.Round(this=bare(n).copy())
            return exp.alias_(body, n.alias) if isinstance(n, exp.Alias) else body

        sql, after = apply(tree, projection, rounded)
        yield Found(Kind.MONEY_ROUNDED, site(projection, after), sql)


def _money_names(tree: exp.Expr) -> set[str]:
    """Money columns, and every alias (of a CTE or subquery) whose expression is money, to a fixpoint."""
    names = set(FACTS.money)
    while True:
        more = {
            p.alias
            for select in tree.find_all(exp.Select)
            for p in select.expressions
            if isinstance(p, exp.Alias) and p.alias not in names and _is_money(p.this, names)
        }
        if not more:
            return names
        names |= more


def _is_money(node: exp.Expr, money: set[str]) -> bool:
    """An expression of money: it reads a money column, is no count, and no division in it is money by money."""
    if isinstance(node, exp.Count) or not any(c.name in money for c in node.find_all(exp.Column)):
        return False
    return not any(
        any(c.name in money for c in d.this.find_all(exp.Column))
        and any(c.name in money for c in d.expression.find_all(exp.Column))
        for d in node.find_all(exp.Div)
    )


def status_swap(tree: exp.Expr, context: Context) -> Iterator[Found]:
    for node in list(tree.find_all(exp.EQ, exp.NEQ, exp.In)):
        column = node.this
        if not (isinstance(column, exp.Column) and column.name == "status"):
            continue
        values = [node.expression] if not isinstance(node, exp.In) else list(node.expressions)
        for literal in values:
            if not (isinstance(literal, exp.Literal) and literal.is_string and literal.this in STATUSES):
                continue
            listed = {v.this for v in values if isinstance(v, exp.Literal)}
            for other in STATUSES:
                if other in listed:  # a value already there: no swap, only a value lost
                    continue
                sql, _ = apply(tree, literal, becomes(exp.Literal.string(other)))
                name = f"{short(node.sql(dialect=DIALECT))}: '{literal.this}' -> '{other}'"
                yield Found(Kind.STATUS_SWAP, name, sql)


def group_by_dropped(tree: exp.Expr, context: Context) -> Iterator[Found]:
    for group in list(tree.find_all(exp.Group)):
        select = group.parent if isinstance(group.parent, exp.Select) else None
        keys = list(group.expressions)
        for i, dropped in enumerate(keys):
            rest = [k.copy() for j, k in enumerate(keys) if j != i]

            def keep(n: exp.Expr, rest: list[exp.Expr] = rest) -> exp.Expr | None:
                return exp.Group(expressions=rest) if rest else None

            sql, _ = apply(tree, group, keep)
            why = _dependent(dropped, keys[:i] + keys[i + 1 :], select)
            name = f"GROUP BY {short(dropped.sql(dialect=DIALECT))} -> (left out)"
            yield Found(Kind.GROUP_BY_DROPPED, name, sql, equivalent=why)


def _dependent(dropped: exp.Expr, rest: list[exp.Expr], select: exp.Select | None) -> str | None:
    """Why ``dropped`` is fixed by the GROUP BY expressions left (its table's key is among them), or None."""
    if not isinstance(dropped, exp.Column) or select is None:
        return None
    table = FACTS.table_of(dropped, select)
    key = FACTS.keys.get(table or "")
    for other in rest:
        if (
            key is not None
            and isinstance(other, exp.Column)
            and other.name == key
            and FACTS.table_of(other, select) == table
            and other.table == dropped.table
        ):
            return f"{table}.{dropped.name} is fixed by {table}.{key}, which stays in GROUP BY"
    return None
