"""The tables and columns a query names that its database's schema does not have: such a query never gets EM 1,
in either mode (Spider's parser cannot read it; sqlglot reads it, and without this check a column that does
not exist could match the reference's by its name alone).

A column resolves when its table (an alias, or the table's own name) in its SELECT or an enclosing one (a
correlated subquery) has it; a bare column when a table of its SELECT or an enclosing one has it, or it
names one of its SELECT's output aliases. Columns of a subquery in FROM or of a WITH query are not known
here, so a column of one is taken as it is written. SQLite's own readings are kept: ``rowid`` (``oid``,
``_rowid_``) is a column of every table, and a double-quoted name that is no column is a string there.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from eval.sql.grading.spider_schema import SpiderSchema

_SQLITE_ROWID = frozenset({"rowid", "oid", "_rowid_"})


def unknown_names(tree: exp.Expression, schema: SpiderSchema | None, dialect: str) -> list[str]:
    """What ``tree`` names that ``schema`` does not have (``table t``, ``column t.c`` or ``column c``), in
    order and once each; empty when nothing is unknown or no schema was read (nothing can be told then)."""
    if schema is None or not schema.columns:
        return []
    nodes = list(tree.walk())
    ctes = {n.alias.lower() for n in nodes if isinstance(n, exp.CTE) and n.alias}
    found: list[str] = []
    for table in (n for n in nodes if isinstance(n, exp.Table)):
        name = table.name.lower()
        if name and name not in schema.columns and name not in ctes:
            found.append(f"table {table.name}")
    for column in (n for n in nodes if isinstance(n, exp.Column)):
        if not isinstance(column.this, exp.Star) and not _resolves(column, schema, ctes, dialect):
            found.append(f"column {column.sql(dialect=dialect)}")
    return list(dict.fromkeys(found))


def _selects(node: exp.Expression) -> Iterator[exp.Select]:
    """The SELECTs around ``node``, innermost first."""
    select = node.find_ancestor(exp.Select)
    while select is not None:
        yield select
        select = select.find_ancestor(exp.Select)


def _sources(select: exp.Select) -> dict[str, exp.Expression]:
    """A SELECT's FROM and JOIN sources by the name a column uses for them (alias, else the table's name)."""
    out: dict[str, exp.Expression] = {}
    froms = [select.args.get("from_") or select.args.get("from"), *(select.args.get("joins") or [])]
    for i, source in enumerate(froms):
        this = source.this if source is not None else None
        while isinstance(this, exp.Paren):
            this = this.this
        if isinstance(this, exp.Table):
            out[(this.alias or this.name).lower()] = this
        elif this is not None:  # a subquery: by its alias, else by a name no column can use
            out[this.alias.lower() if this.alias else f" {i}"] = this
    return out


def _resolves(column: exp.Column, schema: SpiderSchema, ctes: set[str], dialect: str) -> bool:
    name = column.name.lower()
    if dialect == "sqlite" and name in _SQLITE_ROWID:
        return True
    qualifier = column.table.lower()
    innermost = True
    for select in _selects(column):
        sources = _sources(select)
        if qualifier:
            if qualifier in sources:
                return _has(sources[qualifier], name, schema, ctes)
        else:
            if any(_has(source, name, schema, ctes) for source in sources.values()):
                return True
            aliases = {e.alias.lower() for e in select.expressions if isinstance(e, exp.Alias) and e.alias}
            if innermost and name in aliases:
                return True
        innermost = False
    if not any(True for _ in _selects(column)):
        return True  # outside any SELECT (an ORDER BY after a set operation names its output columns)
    return not qualifier and dialect == "sqlite" and bool(column.this.args.get("quoted"))


def _has(source: exp.Expression, name: str, schema: SpiderSchema, ctes: set[str]) -> bool:
    """Whether a source has a column ``name``: a table of the schema by its columns; anything else (a subquery,
    a WITH query, a table the schema lacks, reported as such) is taken to have it."""
    if not isinstance(source, exp.Table):
        return True
    table = source.name.lower()
    if table in ctes or table not in schema.columns:
        return True
    return name in schema.columns[table]
