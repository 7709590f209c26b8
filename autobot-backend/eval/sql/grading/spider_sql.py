"""A query read into the structure Spider's evaluator compares (``process_sql.py``'s ``sql`` dict), from
sqlglot's tree instead of Spider's tokenizer, with its default rules applied: values dropped, DISTINCT
dropped, every column named ``table.column`` (aliases resolved) and mapped to its foreign-key set.

The structure, as Spider's:

* a column unit is ``(aggregate, column, distinct)``; a value unit ``(operator, column unit, column unit)``
  (one arithmetic operator at most; anything Spider's grammar has no place for, a function call or a
  CASE, is one column named by its normalised SQL text, where Spider's parser would fail);
* a condition unit is ``(not, operator, value unit, value 1, value 2)``, the values None unless a
  subquery (values are ignored: a literal, and also a column on the right of a comparison, as the
  official script drops every value that is not a subquery); a condition is the units with the ``and``
  / ``or`` between them, flattened left to right as Spider's parser reads them (parentheses dropped);
* a query has its SELECT items ``(aggregate, value unit)``, its FROM tables (names, or a subquery read
  whole), its ON, WHERE and HAVING conditions, GROUP BY column units, ORDER BY ``(direction, value
  units)`` with one direction (the last one written, ``asc`` by default), whether it has a LIMIT, and the
  INTERSECT / UNION / EXCEPT that follows it (a chain nests to the right, and an ORDER BY or LIMIT after
  the last SELECT belongs to it, as in Spider's parser).

Columns: a qualified column's alias is resolved to its table; an unqualified one belongs to the first
table of the FROM clause that has it (Spider's ``default_tables``), by the schema when one is given, else
to the only table when there is one; a SELECT alias used in ORDER BY, GROUP BY or HAVING is replaced by
what it names (Spider's parser cannot read column aliases). A column of a FROM table in a foreign-key set
is replaced by the set's first member (Spider's ``kmap``), so ``T2.owner_id`` and the ``T1.id`` it refers
to are one column. Unlike the official script, these rules and the dropping of values and DISTINCT apply
at every level (subqueries too); it applies the foreign keys and DISTINCT only at the top and in set
operations, and keeps the values of a subquery in FROM. Read with ``script`` (``--exact-match official``),
the foreign keys and DISTINCT are the script's, and an OR after a column value is swallowed as its parser
swallows it; values of a FROM subquery are dropped in both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import sqlglot
from sqlglot import exp

from eval.sql.grading.spider_schema import SpiderSchema

ColUnit = tuple[str, str, bool]
ValUnit = tuple[str, ColUnit, ColUnit | None]
CondUnit = tuple[bool, str, ValUnit | None, "SpiderQuery | None", "SpiderQuery | None"]
Condition = tuple[CondUnit | str, ...]

_AGGREGATES: dict[type[exp.Expression], str] = {
    exp.Max: "max",
    exp.Min: "min",
    exp.Count: "count",
    exp.Sum: "sum",
    exp.Avg: "avg",
}
_UNIT_OPS: dict[type[exp.Expression], str] = {exp.Sub: "-", exp.Add: "+", exp.Mul: "*", exp.Div: "/"}
_WHERE_OPS: dict[type[exp.Expression], str] = {
    exp.EQ: "=",
    exp.GT: ">",
    exp.LT: "<",
    exp.GTE: ">=",
    exp.LTE: "<=",
    exp.NEQ: "!=",
    exp.In: "in",
    exp.Like: "like",
    exp.ILike: "like",
    exp.Is: "is",
}
NO_AGG = "none"


@dataclass(frozen=True)
class SpiderQuery:
    """One query as Spider's evaluator compares it (see the module docstring)."""

    select: tuple[tuple[str, ValUnit], ...]
    tables: tuple[str | SpiderQuery, ...]
    join: Condition
    where: Condition
    group: tuple[ColUnit, ...]
    having: Condition
    order: tuple[str, tuple[ValUnit, ...]] | None
    limit: bool
    intersect: SpiderQuery | None = None
    union: SpiderQuery | None = None
    except_: SpiderQuery | None = None
    distinct: bool = False
    """SELECT DISTINCT; only ever True in a subquery read by the script's rules (``script``), which drop it
    at the top and keep it below."""


class NotReadable(ValueError):
    """A query sqlglot cannot read, or one that is not a SELECT."""


def parse(sql: str, dialect: str) -> exp.Query:
    """``sql`` as sqlglot reads it; :class:`NotReadable` when it cannot read it as one query."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "parse error"
        raise NotReadable(f"sqlglot cannot read it ({first})") from None
    except RecursionError:
        raise NotReadable("sqlglot cannot read it (nested too deeply)") from None
    if not isinstance(tree, exp.Query):
        raise NotReadable(f"not a query ({type(tree).__name__})")
    return tree


def read_query(
    sql: str | exp.Query,
    dialect: str,
    schema: SpiderSchema | None = None,
    script: bool = False,
    ctes: Mapping[str, exp.Expression] | None = None,
) -> SpiderQuery:
    """``sql`` (text, or a tree :func:`parse` gave) in Spider's structure; :class:`NotReadable` when sqlglot
    cannot read it as one query.

    ``script``: as the official script has it (``--exact-match official``): the foreign keys mapped and DISTINCT
    dropped only at the top and in its set operations' parts, not in a subquery; and an OR after a comparison
    with a column on its right is swallowed with that column (Spider's parser reads such a value up to the
    next AND, comma, parenthesis or keyword).
    """
    tree = parse(sql, dialect) if isinstance(sql, str) else sql
    ctes = with_queries(tree) if ctes is None else ctes
    return _Reader(schema or SpiderSchema(), ctes, script).query(cast(exp.Expression, tree))


def with_queries(tree: exp.Query) -> dict[str, exp.Expression]:
    """The tree's WITH queries by name (``ctes`` of :func:`read_query`, to find them once for two readings)."""
    return {cte.alias.lower(): cte.this for cte in tree.find_all(exp.CTE) if cte.alias}


def _unparen(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _chain(node: exp.Expression) -> list[tuple[str | None, exp.Expression]]:
    """A set operation's SELECTs left to right, each with the operation before it."""
    while isinstance(node, exp.Subquery) and not node.alias and isinstance(node.this, exp.SetOperation):
        node = node.this
    if isinstance(node, exp.SetOperation):
        op = {exp.Union: "union", exp.Intersect: "intersect", exp.Except: "except"}[type(node)]
        right = _chain(node.expression)
        return _chain(node.this) + [(op, right[0][1]), *right[1:]]
    return [(None, node)]


class _Reader:
    def __init__(self, schema: SpiderSchema, ctes: Mapping[str, exp.Expression], script: bool = False):
        self.schema = schema
        self.ctes = ctes
        """A WITH's queries by name: a FROM naming one reads it as a subquery (Spider has no WITH)."""
        self.expanding: set[str] = set()
        self.script = script
        self.depth = 0
        """How deep in subqueries the reading is (a set operation's parts are at their query's depth)."""

    @property
    def raw(self) -> bool:
        """The script's rules, below the top: no foreign keys mapped, DISTINCT kept."""
        return self.script and self.depth > 0

    def subquery(self, tree: exp.Expression) -> SpiderQuery:
        self.depth += 1
        try:
            return self.query(tree)
        finally:
            self.depth -= 1

    def _cte(self, name: str) -> SpiderQuery:
        self.expanding.add(name)  # a recursive WITH names itself: read once, then as a table name
        try:
            return self.subquery(self.ctes[name])
        finally:
            self.expanding.discard(name)

    def query(self, tree: exp.Expression) -> SpiderQuery:
        parts = _chain(tree)
        tail_order = tree.args.get("order") if isinstance(tree, exp.SetOperation) else None
        tail_limit = tree.args.get("limit") if isinstance(tree, exp.SetOperation) else None
        nested: SpiderQuery | None = None
        op_after: str | None = None
        for i, (op, select) in reversed(list(enumerate(parts))):
            last = i == len(parts) - 1
            one = self._select(select, tail_order if last else None, tail_limit is not None and last)
            if nested is not None and op_after is not None:
                one = _followed(one, op_after, nested)
            nested, op_after = one, op
        assert nested is not None
        return nested

    # Complexity (radon E or F), kept as one function: it follows Spider's own parser branch by branch, so the two can
    # be read side by side.
    def _select(self, node: exp.Expression, tail_order: exp.Expression | None, tail_limit: bool) -> SpiderQuery:
        while isinstance(node, exp.Subquery):
            node = node.this
        if not isinstance(node, exp.Select):
            return self.query(node) if isinstance(node, exp.SetOperation) else empty_query()
        sources = [node.args.get("from_") or node.args.get("from")] + [j for j in node.args.get("joins") or []]
        aliases: dict[str, str] = {}
        tables: list[str | SpiderQuery] = []
        for source in sources:
            if source is None:
                continue
            this = _unparen(source.this)
            if isinstance(this, exp.Table) and this.name.lower() in self.ctes.keys() - self.expanding:
                tables.append(self._cte(this.name.lower()))
                aliases[(this.alias or this.name).lower()] = (this.alias or this.name).lower()
            elif isinstance(this, exp.Table):
                name = this.name.lower()
                tables.append(name)
                aliases[(this.alias or this.name).lower()] = name
                aliases[name] = name
            elif isinstance(this, (exp.Subquery, exp.Query)):
                tables.append(self.subquery(this.this if isinstance(this, exp.Subquery) else this))
        scope = _Scope(self, [t for t in tables if isinstance(t, str)], aliases, _select_aliases(node))
        joins = [j.args["on"] for j in node.args.get("joins") or [] if j.args.get("on") is not None]
        join: list[CondUnit | str] = []
        for on in joins:
            join += (["and"] if join else []) + list(scope.condition(on))
        order_node = node.args.get("order") or tail_order
        limit = node.args.get("limit") is not None or tail_limit
        group = node.args.get("group")
        return SpiderQuery(
            select=tuple(scope.select_item(e) for e in node.expressions),
            tables=tuple(tables),
            join=tuple(join),
            where=scope.condition(node.args["where"].this) if node.args.get("where") else (),
            group=tuple(scope.col_unit(e) for e in group.expressions) if group else (),
            having=scope.condition(node.args["having"].this) if node.args.get("having") else (),
            order=scope.order(order_node) if order_node is not None and order_node.expressions else None,
            limit=limit,
            distinct=self.raw and node.args.get("distinct") is not None,
        )


def _followed(query: SpiderQuery, op: str, nested: SpiderQuery) -> SpiderQuery:
    if op == "union":
        return dataclasses.replace(query, union=nested)
    if op == "intersect":
        return dataclasses.replace(query, intersect=nested)
    return dataclasses.replace(query, except_=nested)


def empty_query() -> SpiderQuery:
    """The empty query: what Spider's script compares a prediction it cannot parse as."""
    return SpiderQuery((), (), (), (), (), (), None, False)


def _select_aliases(node: exp.Select) -> dict[str, exp.Expression]:
    return {e.alias.lower(): e.this for e in node.expressions if isinstance(e, exp.Alias) and e.alias}


@dataclass
class _Scope:
    """One SELECT's names: its FROM tables in order, table aliases, SELECT aliases."""

    reader: _Reader
    tables: list[str]
    aliases: dict[str, str]
    outputs: dict[str, exp.Expression]

    def column(self, node: exp.Column) -> str:
        name = node.name.lower()
        if node.table:
            table = self.aliases.get(node.table.lower(), node.table.lower())
        else:
            known = self.reader.schema.columns
            table = next((t for t in self.tables if name in known.get(t, ())), "")
            if not table and len(self.tables) == 1:
                table = self.tables[0]
        full = f"{table}.{name}" if table else name
        return self.reader.schema.keys.get(full, full) if table in self.tables and not self.reader.raw else full

    def _alias(self, node: exp.Expression) -> exp.Expression:
        """A SELECT alias in ORDER BY / GROUP BY / HAVING, replaced by what it names."""
        name = node.name.lower() if isinstance(node, exp.Column) and not node.table else None
        if name in self.outputs and not any(name in self.reader.schema.columns.get(t, ()) for t in self.tables):
            return self.outputs[name]
        return node

    def col_unit(self, node: exp.Expression) -> ColUnit:
        node = _unparen(self._alias(_unparen(node)))
        agg = _AGGREGATES.get(type(node))
        kept = self.reader.raw  # DISTINCT dropped, as the script's DISABLE_DISTINCT does (at the top, there)
        if agg is not None:
            inner = node.this
            if isinstance(inner, exp.Distinct):
                return (agg, self._name(inner.expressions[0] if inner.expressions else exp.Star()), kept)
            return (agg, self._name(inner), False)
        if isinstance(node, exp.Distinct) and node.expressions:
            return (NO_AGG, self._name(node.expressions[0]), kept)
        return (NO_AGG, self._name(node), False)

    def _name(self, node: exp.Expression) -> str:
        node = _unparen(node)
        if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
            return "*"
        if isinstance(node, exp.Column):
            return self.column(node)
        resolved = node.copy().transform(
            lambda n: (
                exp.column(self.column(n)) if isinstance(n, exp.Column) and not isinstance(n.this, exp.Star) else n
            )
        )
        return resolved.sql(dialect="sqlite", normalize=True).lower()

    def val_unit(self, node: exp.Expression) -> ValUnit:
        node = _unparen(self._alias(_unparen(node)))
        op = _UNIT_OPS.get(type(node))
        if op is not None:
            return (op, self.col_unit(node.this), self.col_unit(node.expression))
        return (NO_AGG, self.col_unit(node), None)

    def select_item(self, node: exp.Expression) -> tuple[str, ValUnit]:
        node = _unparen(node.this if isinstance(node, exp.Alias) else node)
        agg = _AGGREGATES.get(type(node))
        if agg is not None and not isinstance(_unparen(node.this), exp.Distinct | exp.Star | exp.Column):
            return (agg, self.val_unit(node.this))  # an aggregate over arithmetic: Spider's (agg, val_unit)
        if agg is not None:
            _, name, distinct = self.col_unit(node)
            return (agg, (NO_AGG, (NO_AGG, name, distinct), None))
        return (NO_AGG, self.val_unit(node))

    def condition(self, node: exp.Expression) -> Condition:
        flat = _flat(node)
        if self.reader.script:
            flat = _swallowed(flat)
        return tuple(part if isinstance(part, str) else self.cond_unit(part) for part in flat)

    def cond_unit(self, node: exp.Expression) -> CondUnit:
        negated = False
        while isinstance(node, exp.Not):
            negated, node = not negated, _unparen(node.this)
        negated ^= bool(node.args.get("negate"))
        if isinstance(node, exp.Exists):
            return (negated, "exists", None, self._value(node.this), None)
        if isinstance(node, exp.Between):
            low, high = self._value(node.args.get("low")), self._value(node.args.get("high"))
            return (negated, "between", self.val_unit(node.this), low, high)
        op = _WHERE_OPS.get(type(node))
        if op is None:  # a condition Spider's grammar has no operator for: the whole of it is one unit
            return (negated, "other", self.val_unit(node), None, None)
        right = node.args.get("query") if isinstance(node, exp.In) else node.expression
        return (negated, op, self.val_unit(node.this), self._value(right), None)

    def _value(self, node: exp.Expression | None) -> SpiderQuery | None:
        """Spider keeps a value only when it is a subquery (DISABLE_VALUE); every other value is dropped."""
        node = _unparen(node) if node is not None else None
        if isinstance(node, exp.Subquery):
            return self.reader.subquery(node.this)
        if isinstance(node, exp.Query):
            return self.reader.subquery(node)
        return None

    def order(self, node: exp.Expression) -> tuple[str, tuple[ValUnit, ...]]:
        direction = "asc"
        units = []
        for item in node.expressions:
            if isinstance(item, exp.Ordered):
                if item.args.get("desc") is not None:  # written: ASC or DESC; the last one written is the clause's
                    direction = "desc" if item.args["desc"] else "asc"
                item = item.this
            units.append(self.val_unit(item))
        return direction, tuple(units)


def _flat(node: exp.Expression) -> list[exp.Expression | str]:
    """A condition's units with ``and`` / ``or`` between them, left to right, parentheses dropped."""
    node = _unparen(node)
    if isinstance(node, exp.Connector):
        return [*_flat(node.this), "or" if isinstance(node, exp.Or) else "and", *_flat(node.expression)]
    return [node]


def _swallowed(flat: list[exp.Expression | str]) -> list[exp.Expression | str]:
    """What Spider's parser keeps of a flat condition: after a comparison whose right side is a column, it
    reads that value up to the next AND, so each ``or`` and the unit after it are swallowed with it."""
    out: list[exp.Expression | str] = []
    swallowing = False
    for i, part in enumerate(flat):
        if swallowing and (part == "or" or (i and flat[i - 1] == "or")):
            continue
        swallowing = swallowing and part != "and"
        out.append(part)
        if isinstance(part, exp.Binary) and type(part) in _WHERE_OPS:
            right = _unparen(part.expression)
            swallowing = isinstance(right, exp.Column) and not right.this.args.get("quoted")
    return out
