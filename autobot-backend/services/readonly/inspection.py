"""A database's schema and sample values, read under the read-only executor's limits.

A database from outside (``--db-dir``, ``--db-url``, the service's ``db_url``) is inspected for the
generator's prompt, and inspection evaluates its data: ``count(DISTINCT col)`` and ``SELECT DISTINCT col
... ORDER BY col`` over every text column, whose values a generated column can make arbitrarily slow or
large. So every statement of an inspection goes through the executor's machinery: the catalog through
:meth:`~services.readonly.executor.ReadOnlyExecutor.inspection_connection` (each statement under the
time limit), the samples and row counts through :meth:`~services.readonly.executor.ReadOnlyExecutor.execute`
like any candidate SQL (the time limit, the row cap, the byte budget, SQLite's value and memory caps,
DuckDB's worker). All the sampling of one database has :data:`SAMPLING_S` at most. A sample that fails
leaves that column's values out, says why in the schema (``[values not sampled: ...]``) and in the
log, and the inspection goes on; a catalog statement that fails fails the inspection.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from services.schema_context import DuckDBCatalog, SampleSkipped, SchemaContext, read_schema, sqlite_table_sql

__all__ = ["SAMPLING_S", "inspect_read_only", "unique_keys"]

log = logging.getLogger(__name__)

SAMPLING_S = 30.0
"""All the value sampling of one database's inspection, in seconds; each query also has the statement limit."""


class _Sampler:
    """Runs sampling queries through the executor, within what is left of the sampling budget."""

    def __init__(self, executor: ReadOnlyExecutor, budget_s: float, where: str) -> None:
        self.executor = executor
        self.budget_s = budget_s
        self.deadline = time.monotonic() + budget_s
        self.where = where
        self.spent = False

    def __call__(self, stmt: sa.Select[Any]) -> Sequence[Sequence[Any]]:
        left = self.deadline - time.monotonic()
        if left <= 0:
            reason = f"the {self.budget_s:g} s for sampling this database's values were spent"
            if not self.spent:
                self.spent = True
                log.warning("schema inspection of %r: %s; the columns left are not sampled", self.where, reason)
            raise SampleSkipped(reason)
        sql = str(stmt.compile(dialect=self.executor.engine.dialect, compile_kwargs={"literal_binds": True}))
        try:
            return self.executor.execute(sql, timeout_s=min(self.executor.timeout_s, left)).rows
        except ExecutionError as exc:
            reason = _REASONS.get(exc.kind, "the database failed the sampling query")
            # %r: the message may hold the database's own names, which are untrusted text.
            log.warning("schema inspection of %r: %r left out, %s: %r", self.where, sql, reason, exc.message)
            raise SampleSkipped(reason) from None


_REASONS = {
    "timeout": "sampling them ran past the time limit",
    "row_cap": "they are too large to sample",
}


def inspect_read_only(
    executor: ReadOnlyExecutor, *, sample_values: bool = True, sampling_s: float = SAMPLING_S
) -> SchemaContext:
    """The schema of ``executor``'s database (with sample values unless ``sample_values`` is false).

    Raises:
        ExecutionError: the catalog could not be read (``timeout``, ``connect``, ``database``...).
    """
    sample = _Sampler(executor, sampling_s, executor.shown_url) if sample_values else None
    if executor.dialect == "duckdb":
        catalog = DuckDBCatalog(lambda sql: executor.execute(sql).rows)
        return read_schema(executor.dialect, catalog, sample)
    with executor.inspection_connection() as conn:
        return read_schema(executor.dialect, sa.inspect(conn), sample, ddl=lambda table: sqlite_table_sql(conn, table))


UniqueKeys = dict[str, tuple[tuple[str, ...], ...]]
"""Table -> its column sets declared UNIQUE (constraints and unique indexes), the primary key left out."""


def unique_keys(executor: ReadOnlyExecutor) -> UniqueKeys:
    """Every table's UNIQUE column sets, read from the catalog under the executor's limits: what tells, beside
    the primary key, that a column set names one row (a diagnosis's functional dependencies, a suspect
    reference's ungrouped column).

    Raises:
        ExecutionError: the catalog could not be read.
    """
    if executor.dialect == "duckdb":
        rows = executor.execute(
            "SELECT table_name, constraint_column_names FROM duckdb_constraints() WHERE constraint_type = 'UNIQUE' "
            "AND database_name = current_database() AND schema_name = current_schema() ORDER BY 1, constraint_index"
        ).rows
        found: dict[str, set[tuple[str, ...]]] = {}
        for table, columns in rows:
            found.setdefault(str(table), set()).add(tuple(str(c) for c in columns))
        return {t: tuple(sorted(v)) for t, v in sorted(found.items())}
    out: UniqueKeys = {}
    with executor.inspection_connection() as conn:
        catalog = sa.inspect(conn)
        for table in catalog.get_table_names():
            pk = tuple(catalog.get_pk_constraint(table).get("constrained_columns") or ())
            sets = {tuple(u["column_names"]) for u in catalog.get_unique_constraints(table)}
            # An index on an expression has a None among its column names: it names no column set.
            indexes = [i["column_names"] for i in catalog.get_indexes(table) if i.get("unique")]
            sets |= {tuple(str(c) for c in cols) for cols in indexes if None not in cols}
            keep = sorted(cols for cols in sets if cols and set(cols) != set(pk))
            if keep:
                out[table] = tuple(keep)
    return out
