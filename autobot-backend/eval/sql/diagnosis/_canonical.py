"""One query in a form two spellings of the same query share, so that only real differences remain.

Parsed with sqlglot in the engine's dialect; qualified with the schema when one is given (sqlglot's
``qualify``); then, schema or not: identifiers lower-cased, every table alias replaced by its
table's name (``o.total`` and ``orders.total`` are one column), a column of a one-source SELECT
unqualified (``orders.total``, ``o.total`` and ``total`` are one column, whether ``o`` is a table, a
CTE or a derived table), projection aliases dropped, ORDER BY keys that name an
alias (or a position) replaced by the aliased expression, and comparisons written one way (a literal
on the right; the sides of ``=`` and ``<>`` in text order). A query sqlglot cannot parse gives None: its diagnosis
then rests on the result evidence alone.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp
from sqlglot.errors import SqlglotError

from services.readonly.parsed import statement_tree

Schema = Mapping[str, Mapping[str, str]]
"""Table -> column -> type, as sqlglot's ``qualify`` takes it."""


def canonical(sql: str | None, dialect: str, schema: Schema | None = None) -> exp.Expr | None:
    """``sql`` parsed and normalised, or None when it cannot be parsed (or is not one query)."""
    if not sql:
        return None
    try:
        tree = statement_tree(sql, dialect).copy()  # the run's one parse of it (the guard's), copied: it is changed
    except (SqlglotError, ValueError, RecursionError):
        return None
    if not isinstance(tree, exp.Query):
        return None
    if schema:
        try:
            from sqlglot.optimizer.qualify import qualify

            tree = qualify(tree, schema=dict(schema), dialect=dialect, validate_qualify_columns=False)
        except (SqlglotError, ValueError, KeyError):
            pass  # qualifying is a help, not a condition: the light normalisation below still holds
    for ident in tree.find_all(exp.Identifier):
        ident.set("this", ident.name.lower())
        ident.set("quoted", False)
    for select in list(tree.find_all(exp.Select)):
        _resolve_aliases(select)
    for node in list(tree.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
        _orient(node)
    return tree


FLIPPED: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.GT: exp.LT,
    exp.LT: exp.GT,
    exp.GTE: exp.LTE,
    exp.LTE: exp.GTE,
    exp.EQ: exp.EQ,
    exp.NEQ: exp.NEQ,
}


def _orient(node: exp.Expr) -> None:
    """One way to write a comparison: a literal on the right (``5 < x`` is ``x > 5``), the two sides of
    ``=`` and ``<>`` in text order (``a.id = b.a_id`` is ``b.a_id = a.id``)."""
    left, right = node.this, node.expression
    if left is None or right is None:
        return
    constant = (exp.Literal, exp.Boolean, exp.Null)
    literal_left = isinstance(left, constant) and not isinstance(right, constant)
    symmetric = (
        isinstance(node, (exp.EQ, exp.NEQ))
        and not isinstance(left, constant)
        and not isinstance(right, constant)
        and left.sql() > right.sql()
    )
    if literal_left or symmetric:
        node.replace(FLIPPED[type(node)](this=right.copy(), expression=left.copy()))


def _sources(select: exp.Select) -> dict[str, str]:
    """Alias (or name) -> table name, for the tables this SELECT reads directly."""
    out: dict[str, str] = {}
    parts = [select.args.get("from") or select.args.get("from_"), *(select.args.get("joins") or [])]
    for part in parts:
        table = part.this if part is not None else None
        if isinstance(table, exp.Table):
            out[table.alias_or_name] = table.name
    return out


def _resolve_aliases(select: exp.Select) -> None:
    sources = _sources(select)
    source = select.args.get("from") or select.args.get("from_")
    single = source is not None and not select.args.get("joins")
    own = {source.this.alias_or_name, *sources} if single and source is not None else set()
    for column in select.find_all(exp.Column):
        if column.find_ancestor(exp.Select) is not select:
            continue
        qualifier = column.table
        if single and qualifier in own:
            column.set("table", None)  # one source: a column needs no qualifier, whatever the source is called
        elif qualifier and qualifier in sources:
            column.set("table", exp.to_identifier(sources[qualifier]))
    for part in [select.args.get("from") or select.args.get("from_"), *(select.args.get("joins") or [])]:
        if part is not None and isinstance(part.this, exp.Table) and part.this.args.get("alias"):
            part.this.set("alias", None)
    aliases = {p.alias: p.this for p in select.expressions if isinstance(p, exp.Alias)}
    order = select.args.get("order")
    if order is not None:
        for ordered in order.expressions:
            key = ordered.this
            if isinstance(key, exp.Column) and not key.table and key.name in aliases:
                ordered.set("this", aliases[key.name].copy())
            elif isinstance(key, exp.Literal) and key.is_int and 0 < int(key.this) <= len(select.expressions):
                ordered.set("this", bare(select.expressions[int(key.this) - 1]).copy())
    select.set("expressions", [bare(p) for p in select.expressions])


def bare(p: exp.Expr) -> exp.Expr:
    """A projection without its alias."""
    return p.this if isinstance(p, exp.Alias) else p


def selects(tree: exp.Expr) -> list[exp.Select]:
    """Every SELECT of the query, the outermost first (breadth first)."""
    return list(tree.find_all(exp.Select))


def text(node: exp.Expr | None, dialect: str) -> str:
    """A node as SQL on one line, for a diagnosis to quote."""
    if node is None:
        return ""
    return " ".join(node.sql(dialect=dialect).split())
