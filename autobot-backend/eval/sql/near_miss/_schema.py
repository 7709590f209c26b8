"""What the study knows of the fixtures' schema: money columns, keys, NULLs, and the status vocabulary.

Read from the schema itself (:mod:`eval.sql.fixtures.schema`), never typed again: a mutation or an
equivalence rule that relies on a key or a NOT NULL column relies on the constraint the fixtures
are built with.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlglot import exp

from eval.sql.fixtures.schema import STATUSES, TABLES, Money

__all__ = ["FACTS", "STATUSES", "SchemaFacts", "base_table"]


@dataclass(frozen=True)
class SchemaFacts:
    columns: dict[str, frozenset[str]]
    """Table -> its column names."""
    keys: dict[str, str]
    """Table -> its primary key, where it is one column."""
    nullable: frozenset[tuple[str, str]]
    """(table, column) pairs that may hold NULL."""
    money: frozenset[str]
    """Names of the money columns (any table)."""

    def table_of(self, column: exp.Column, select: exp.Select) -> str | None:
        """The base table ``column`` of ``select`` reads, when its FROM and joins make that certain."""
        tables = _tables(select)
        if column.table:
            return tables.get(column.table)
        owners = {t for t in tables.values() if t is not None and column.name in self.columns.get(t, ())}
        if len(owners) == 1 and None not in tables.values():
            return owners.pop()
        return None


def _facts(tables: tuple[sa.Table, ...]) -> SchemaFacts:
    keys = {}
    for t in tables:
        pk = list(t.primary_key.columns)
        if len(pk) == 1:
            keys[t.name] = pk[0].name
    return SchemaFacts(
        columns={t.name: frozenset(c.name for c in t.columns) for t in tables},
        keys=keys,
        nullable=frozenset((t.name, c.name) for t in tables for c in t.columns if c.nullable),
        money=frozenset(c.name for t in tables for c in t.columns if isinstance(c.type, Money)),
    )


FACTS = _facts(TABLES)


def _tables(select: exp.Select) -> dict[str, str | None]:
    """Alias (or name) -> base table of each FROM and JOIN source of ``select``; None for a CTE or subquery."""
    ctes = {c.alias_or_name for c in select.find_all(exp.CTE)}
    root = select.root()
    ctes |= {c.alias_or_name for c in root.find_all(exp.CTE)}
    sources = []
    from_ = select.args.get("from_")
    if isinstance(from_, exp.From):
        sources.append(from_.this)
    sources += [j.this for j in select.args.get("joins") or []]
    out: dict[str, str | None] = {}
    for source in sources:
        if isinstance(source, exp.Table) and source.name not in ctes and source.name in FACTS_TABLES:
            out[source.alias_or_name] = source.name
        else:
            out[source.alias_or_name] = None
    return out


def base_table(select: exp.Select) -> tuple[str, str] | None:
    """(alias, table) of the first FROM source when it is a base table of the schema."""
    from_ = select.args.get("from_")
    source = from_.this if isinstance(from_, exp.From) else None
    tables = _tables(select)
    if isinstance(source, exp.Table) and tables.get(source.alias_or_name):
        return source.alias_or_name, source.name
    return None


FACTS_TABLES = frozenset(t.name for t in TABLES)
