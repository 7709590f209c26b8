"""One query in a form two spellings of the same query share, so that only real differences remain.

Parsed with sqlglot in the engine's dialect (the run's one parse, copied), then:

* on SQLite, a double-quoted name that resolves to no column of the database is the string it spells
  (SQLite's rule: ``name = "Angola"`` is ``name = 'Angola'``);
* identifiers lower-cased;
* every table alias replaced by its table's name (``o.total`` and ``orders.total`` are one column), also in a
  correlated subquery, except where one table is read twice in one SELECT (a self-join keeps its aliases) or
  an outer alias names a table the subquery reads too;
* every column qualified by its table's name: in a one-source SELECT by that source (``orders.total``,
  ``o.total`` and ``total`` are one column, whether ``o`` is a table, a CTE or a derived table), in a
  SELECT reading several tables, with the database's catalog, by the one table that has it;
* projection aliases dropped (not in a derived table or a CTE, whose outer query reads them), and ORDER BY
  keys that name an alias (or a position) replaced by the aliased expression;
* ``COUNT(col)`` on a column that cannot be NULL (the catalog's NOT NULL, not on the outer side of a join)
  written ``COUNT(*)``;
* comparisons written one way: a literal on the right, the sides of ``=`` and ``<>`` in text order, and on
  whole numbers (an integer column, a COUNT) ``>= k`` as ``> k-1`` and ``<= k`` as ``< k+1``.

The result is still a query the database runs (the repairs of :mod:`._repair` run edited copies of it).
A query sqlglot cannot parse gives None: its diagnosis then rests on the result evidence alone.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from sqlglot import exp
from sqlglot.errors import SqlglotError

from eval.sql.diagnosis._catalog import Catalog
from services.readonly.parsed import double_quoted_strings, statement_tree


def canonical(sql: str | None, dialect: str, catalog: Catalog | None = None) -> exp.Expr | None:
    """``sql`` parsed and normalised, or None when it cannot be parsed (or is not one query)."""
    if not sql:
        return None
    try:
        tree = statement_tree(sql, dialect).copy()  # the run's one parse of it (the guard's), copied: it is changed
    except (SqlglotError, ValueError, RecursionError):
        return None
    if not isinstance(tree, exp.Query):
        return None
    if dialect == "sqlite" and catalog is not None:
        double_quoted_strings(tree, catalog.columns())
    for ident in tree.find_all(exp.Identifier):
        ident.set("this", ident.name.lower())
        ident.set("quoted", False)
    _resolve(tree, catalog)
    for select in list(tree.find_all(exp.Select)):
        _drop_projection_aliases(select)
        if catalog is not None:
            _count_star(select, catalog)
    for node in list(tree.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
        _orient(node, catalog)
    return tree


TEXTS_KEPT = 8192
"""Nodes whose SQL a process keeps written (:func:`text`)."""
FLIPPED: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.GT: exp.LT,
    exp.LT: exp.GT,
    exp.GTE: exp.LTE,
    exp.LTE: exp.GTE,
    exp.EQ: exp.EQ,
    exp.NEQ: exp.NEQ,
}
CONSTANT = (exp.Literal, exp.Boolean, exp.Null)


def _orient(node: exp.Expr, catalog: Catalog | None) -> None:
    """One way to write a comparison: a literal on the right (``5 < x`` is ``x > 5``), the two sides of
    ``=`` and ``<>`` in text order (``a.id = b.a_id`` is ``b.a_id = a.id``), and on whole numbers a strict
    bound (``x >= 3`` is ``x > 2``)."""
    left, right = node.this, node.expression
    if left is None or right is None:
        return
    literal_left = isinstance(left, CONSTANT) and not isinstance(right, CONSTANT)
    symmetric = (
        isinstance(node, (exp.EQ, exp.NEQ))
        and not isinstance(left, CONSTANT)
        and not isinstance(right, CONSTANT)
        and left.sql() > right.sql()
    )
    if literal_left or symmetric:
        flipped = FLIPPED[type(node)](this=right.copy(), expression=left.copy())
        node.replace(flipped)
        node, left, right = flipped, flipped.this, flipped.expression
    if isinstance(node, (exp.GTE, exp.LTE)) and _whole(right) is not None and _integer(left, catalog):
        k = _whole(right) or 0
        strict = exp.GT if isinstance(node, exp.GTE) else exp.LT
        bound = exp.Literal.number(k - 1 if isinstance(node, exp.GTE) else k + 1)
        node.replace(strict(this=left.copy(), expression=bound))


def _whole(node: exp.Expr) -> int | None:
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        inner = _whole(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Literal) and node.is_int:
        return int(node.this)
    return None


def _integer(node: exp.Expr, catalog: Catalog | None) -> bool:
    """``node``'s values are whole numbers: a COUNT, or a column the catalog declares an integer."""
    if isinstance(node, exp.Count):
        return True
    if not isinstance(node, exp.Column) or catalog is None:
        return False
    table = node.table or _only_source(node)
    return table is not None and bool(table) and catalog.is_integer(table, node.name)


def _only_source(column: exp.Column) -> str | None:
    select = column.find_ancestor(exp.Select)
    if not isinstance(select, exp.Select):
        return None
    tables = [p.this.name for p in parts(select) if isinstance(p.this, exp.Table)]
    return tables[0] if len(parts(select)) == 1 and tables else None


def parts(select: exp.Select) -> list[exp.Expr]:
    """The SELECT's FROM and JOIN nodes."""
    source = select.args.get("from") or select.args.get("from_")
    return [p for p in [source, *(select.args.get("joins") or [])] if p is not None]


def _sources(select: exp.Select) -> dict[str, str]:
    """Alias (or name) -> table name, for the base tables this SELECT reads directly; a derived table's alias
    maps to itself."""
    out: dict[str, str] = {}
    for part in parts(select):
        table = part.this
        if isinstance(table, exp.Table):
            out[table.alias_or_name] = table.name
        elif table is not None and table.alias_or_name:
            out[table.alias_or_name] = table.alias_or_name
    return out


def _resolve(tree: exp.Expr, catalog: Catalog | None) -> None:
    """Table aliases replaced by table names and columns qualified (or unqualified) as the module says."""
    selects = list(tree.find_all(exp.Select))
    local = {id(s): _sources(s) for s in selects}
    keep: dict[int, set[str]] = {id(s): _repeated(s) for s in selects}
    columns: list[tuple[exp.Column, exp.Select, exp.Select | None]] = []
    for column in list(tree.find_all(exp.Column)):
        own = column.find_ancestor(exp.Select)
        if not isinstance(own, exp.Select) or id(own) not in local:
            continue
        defining = _defining(column.table, own) if column.table else own
        if defining is not None and defining is not own and column.table:
            # A correlated reference: keep the outer alias when the subquery reads that table itself.
            table = local[id(defining)].get(column.table, "")
            if any(table in local[id(s)].values() for s in _between(own, defining)):
                keep[id(defining)].add(column.table)
        columns.append((column, own, defining))
    for column, own, defining in columns:
        _qualify(column, own, defining, local, keep, catalog)
    for select in selects:
        for part in parts(select):
            table = part.this
            if isinstance(table, exp.Table) and table.args.get("alias") and table.alias not in keep[id(select)]:
                table.set("alias", None)


def _repeated(select: exp.Select) -> set[str]:
    """The aliases of a table read twice by ``select`` (a self-join): they stay, each names its own copy."""
    base = [(p.this.alias_or_name, p.this.name) for p in parts(select) if isinstance(p.this, exp.Table)]
    twice = {t for t, n in Counter(t for _, t in base).items() if n > 1}
    return {a for a, t in base if t in twice}


def _defining(alias: str, select: exp.Select) -> exp.Select | None:
    """The nearest SELECT, ``select`` or one it is nested in, that reads a source called ``alias``."""
    node: exp.Expr | None = select
    while node is not None:
        if isinstance(node, exp.Select) and alias in _sources(node):
            return node
        node = node.parent
    return None


def _between(inner: exp.Select, outer: exp.Select) -> list[exp.Select]:
    """``inner`` and the SELECTs between it and ``outer`` (``outer`` left out)."""
    out, node = [], inner
    while node is not None and node is not outer:
        if isinstance(node, exp.Select):
            out.append(node)
        node = node.parent  # type: ignore[assignment]
    return out


def _qualify(
    column: exp.Column,
    own: exp.Select,
    defining: exp.Select | None,
    local: dict[int, dict[str, str]],
    keep: dict[int, set[str]],
    catalog: Catalog | None,
) -> None:
    sources = local[id(own)]
    single = len(parts(own)) == 1
    qualifier = column.table
    aliases = {p.alias for p in own.expressions if isinstance(p, exp.Alias)}
    if not qualifier and column.find_ancestor(exp.Order) is not None and column.name in aliases:
        return  # an ORDER BY key naming an output alias: replaced by its expression later
    if qualifier and defining is not None:
        name = qualifier if qualifier in keep[id(defining)] else local[id(defining)][qualifier]
        column.set("table", exp.to_identifier(name))
    elif not qualifier and single and sources:
        # One source: the column is its (``name``, ``t.name`` and ``alias.name`` are one column), unless the
        # catalog says that table has no such column (then it is an outer query's, in a correlated subquery).
        ((alias, table),) = sources.items()
        info = catalog.table(table) if catalog is not None else None
        if info is None or column.name in info.types:
            column.set("table", exp.to_identifier(alias if alias in keep[id(own)] else table))
    elif not qualifier and not single and catalog is not None:
        tables = [t for a, t in sources.items() if a not in keep[id(own)]]
        owners = catalog.owners(column.name, tables)
        if len(owners) == 1:
            column.set("table", exp.to_identifier(owners[0]))


def _drop_projection_aliases(select: exp.Select) -> None:
    """Aliases of the output dropped, ORDER BY keys naming one (or a position) replaced by its expression;
    a derived table's or a CTE's aliases stay: its outer query reads them by name."""
    aliases = {p.alias: p.this for p in select.expressions if isinstance(p, exp.Alias)}
    order = select.args.get("order")
    if order is not None:
        for ordered in order.expressions:
            key = ordered.this
            if isinstance(key, exp.Column) and not key.table and key.name in aliases:
                ordered.set("this", aliases[key.name].copy())
            elif isinstance(key, exp.Literal) and key.is_int and 0 < int(key.this) <= len(select.expressions):
                ordered.set("this", bare(select.expressions[int(key.this) - 1]).copy())
    if not _is_source(select):
        select.set("expressions", [bare(p) for p in select.expressions])


def _is_source(select: exp.Select) -> bool:
    """``select`` is read by name: a derived table in FROM or JOIN, or a CTE's body."""
    node: exp.Expr | None = select.parent
    while isinstance(node, (exp.Subquery, exp.Union, exp.Intersect, exp.Except, exp.Paren)):
        if isinstance(node, exp.Subquery) and isinstance(node.parent, (exp.From, exp.Join)):
            return True
        node = node.parent
    return isinstance(node, exp.CTE)


def equate(tree: exp.Expr, other: exp.Expr) -> None:
    """A column of ``tree`` (the candidate) that an inner join's equality (or a WHERE equality of two columns)
    makes equal to a column ``other`` (the reference) names, and that ``other`` does not name itself, written
    as the one ``other`` names (``b.a_id`` is ``a.id`` after ``JOIN b ON b.a_id = a.id``, when the reference
    says ``a.id``). The reference is the anchor: it is never rewritten."""
    named = {
        c.sql()
        for c in other.find_all(exp.Column)
        if not (
            isinstance(c.parent, exp.EQ)
            and all(isinstance(s, exp.Column) for s in (c.parent.this, c.parent.expression))
        )
    }  # the columns the reference reads, not those it only equates
    for select in list(tree.find_all(exp.Select)):
        _equal_columns(select, named)


def _equal_columns(select: exp.Select, named: set[str]) -> None:
    """Each column that an inner join's ON (or a WHERE conjunct) makes equal to others written as the class's
    chosen member (see :func:`equate`), outside the equalities themselves."""
    equalities = [
        e
        for part in parts(select)
        if isinstance(part, exp.Join) and not part.args.get("side")
        for e in conjuncts(part.args.get("on"))
    ]
    equalities += conjuncts((select.args.get("where") or exp.Where()).this)
    pairs = [
        (e.this, e.expression)
        for e in equalities
        if isinstance(e, exp.EQ) and isinstance(e.this, exp.Column) and isinstance(e.expression, exp.Column)
    ]
    if not pairs:
        return
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = root(a.sql()), root(b.sql())
        if ra != rb:  # each class's root is its chosen member: one the other query names, else the first
            keep, drop = sorted((ra, rb), key=lambda x: (x not in named, x))
            parent[drop] = keep
    defining = {id(c) for a, b in pairs for c in (a, b)}
    for column in list(select.find_all(exp.Column)):
        if id(column) in defining or column.find_ancestor(exp.Select) is not select:
            continue
        name = column.sql()
        if name in parent and root(name) != name and name not in named and root(name) in named:
            column.replace(
                exp.column(*reversed(root(name).split(".", 1))) if "." in root(name) else exp.column(root(name))
            )


def conjuncts(node: exp.Expr | None) -> list[exp.Expr]:
    if node is None:
        return []
    return list(node.flatten()) if isinstance(node, exp.And) else [node]


def _count_star(select: exp.Select, catalog: Catalog) -> None:
    """``COUNT(col)`` as ``COUNT(*)`` where ``col`` cannot be NULL: not NULL in its table, and its table not on
    the outer side of a join (where a missing row is NULLs)."""
    outer = {_read_name(p) for p in parts(select) if isinstance(p, exp.Join) and p.args.get("side")}
    for count in list(select.find_all(exp.Count)):
        arg = count.this
        if not isinstance(arg, exp.Column) or count.find_ancestor(exp.Select) is not select:
            continue
        table = arg.table or _only_source(arg)
        if table and table not in outer and catalog.not_null(table, arg.name):
            count.replace(exp.Count(this=exp.Star()))


def _read_name(part: exp.Expr) -> str:
    t = part.this
    return t.alias_or_name if t is not None else ""


def bare(p: exp.Expr) -> exp.Expr:
    """A projection without its alias."""
    return p.this if isinstance(p, exp.Alias) else p


def selects(tree: exp.Expr) -> list[exp.Select]:
    """Every SELECT of the query, the outermost first (breadth first)."""
    return list(tree.find_all(exp.Select))


def text(node: exp.Expr | None, dialect: str) -> str:
    """A node as SQL on one line, for a diagnosis to quote (and to compare: two nodes alike are one text)."""
    return "" if node is None else _text(node, dialect)


@lru_cache(maxsize=TEXTS_KEPT)
def _text(node: exp.Expr, dialect: str) -> str:
    # Kept by the node's structure (sqlglot hashes and compares trees by what they hold, and keeps the hash):
    # a diagnosis writes the same conjunct, key or clause many times over, and writing SQL copies the tree.
    return " ".join(node.sql(dialect=dialect).split())
