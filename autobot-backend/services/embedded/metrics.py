"""Business metrics declared in column comments: ``[metric: <name> = <aggregate> WHERE <condition>]``.

A schema names its business terms once, where the data is documented; the generator reads
them from there and nowhere else. The aggregate and the condition are parsed with sqlglot, and
unqualified columns are resolved against the schema (the commented column's own table first,
then the one table that has a column of that name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

from services.embedded.lexicon import stems_of
from services.schema_context import SchemaContext

_METRIC_RE = re.compile(r"\[\s*metric\s*:\s*(?P<name>[^=\]]+?)\s*=\s*(?P<body>[^\]]+)\]", re.I)


@dataclass(frozen=True)
class Metric:
    name: str
    stems: tuple[str, ...]
    aggregate: exp.Expression
    """The aggregate over qualified columns, e.g. ``SUM(order_items.quantity * order_items.unit_price)``."""
    condition: exp.Expression | None
    """Rows that count toward the metric (``orders.status = 'completed'``), or ``None``."""
    tables: tuple[str, ...]
    """Every table the metric reads, the aggregate's table first."""

    @property
    def base_table(self) -> str:
        return self.tables[0]

    @property
    def function(self) -> str:
        """``SUM``, ``COUNT``, ``AVG``... of the outermost aggregate."""
        agg = self.aggregate.find(exp.AggFunc)
        return agg.key.upper() if agg is not None else "SUM"

    @property
    def argument(self) -> exp.Expression | None:
        """What the outermost aggregate adds up (for conditional and per-entity variants)."""
        agg = self.aggregate.find(exp.AggFunc)
        return agg.this if agg is not None else None


def parse_metrics(schema: SchemaContext) -> tuple[Metric, ...]:
    """Every well-formed metric declared in the schema's comments; malformed ones are skipped.

    Example:
        >>> from services.schema_context import ColumnInfo, TableInfo
        >>> col = ColumnInfo("amount", "NUMERIC", False, False, comment="[metric: sales = SUM(amount)]")
        >>> [m.aggregate.sql() for m in parse_metrics(SchemaContext("sqlite", (TableInfo("t", (col,)),)))]
        ['SUM(t.amount)']
    """
    found: dict[str, Metric] = {}
    for table in schema.tables:
        comments = [(table.comment, table.name)] + [(c.comment, table.name) for c in table.columns]
        for text, home in comments:
            for m in _METRIC_RE.finditer(text or ""):
                metric = _parse_one(m.group("name").strip(), m.group("body").strip(), home, schema)
                if metric is not None and metric.name.lower() not in found:
                    found[metric.name.lower()] = metric
    return tuple(found.values())


def _parse_one(name: str, body: str, home: str, schema: SchemaContext) -> Metric | None:
    try:
        tree = sqlglot.parse_one(f"SELECT {body}", read=schema.dialect or "sqlite")
    except (ParseError, ValueError):
        return None
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1:
        return None
    aggregate = tree.expressions[0]
    if isinstance(aggregate, exp.Alias):
        aggregate = aggregate.this
    where = tree.args.get("where")
    condition = where.this if where is not None else None
    tables: list[str] = []
    for node in [aggregate] + ([condition] if condition is not None else []):
        for col in node.find_all(exp.Column):
            table = _resolve(col, home, schema)
            if table is None:
                return None
            col.set("table", exp.to_identifier(table))
            if node is aggregate and table not in tables:
                tables.insert(0, table) if not tables else tables.append(table)
            elif table not in tables:
                tables.append(table)
    if not tables or aggregate.find(exp.AggFunc) is None:
        return None
    return Metric(name, stems_of(name), aggregate, condition, tuple(tables))


def _resolve(col: exp.Column, home: str, schema: SchemaContext) -> str | None:
    if col.table:
        info = schema.table(col.table)
        return col.table if info is not None and info.column(col.name) is not None else None
    own = schema.table(home)
    if own is not None and own.column(col.name) is not None:
        return home
    owners = [t.name for t in schema.tables if t.column(col.name) is not None]
    return owners[0] if len(owners) == 1 else None
