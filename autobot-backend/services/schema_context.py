"""What a SQL generator is told about a database, read from the live database itself.

The context is built by SQLAlchemy inspection (tables, columns, types, keys, comments) plus a
sample of the values in text columns, so a generator can link "Canada" to ``customers.country``
without any knowledge baked into its code.

SQLite has no ``COMMENT ON``. Column comments are kept in the DDL instead, as a block comment
after each column definition (see :func:`_sqlite_column_with_comment`); SQLite stores the
original ``CREATE TABLE`` text verbatim in ``sqlite_master``, and :func:`sqlite_column_comments`
reads them back with sqlglot's tokenizer, so commas or quotes inside a comment cannot confuse it.

DuckDB is read from its own catalog functions (``duckdb_tables()``, ``duckdb_columns()``,
``duckdb_constraints()``, :class:`DuckDBCatalog`): duckdb-engine reflects through an emulated
``pg_catalog`` that lacks what SQLAlchemy 2.1's PostgreSQL inspector asks for (``pg_collation``,
``regclass``), so its columns, keys and comments cannot be reflected the usual way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.schema import CreateColumn
from sqlglot.dialects import SQLite
from sqlglot.tokens import TokenType  # type: ignore[attr-defined]  # sqlglot 30 re-exports it from tokenizer_core

from services.dialects import sqlglot_name

# Text columns with at most this many distinct values are listed in full; others get examples.
ENUM_LIMIT = 50
EXAMPLES = 5
_TABLE_CONSTRAINTS = frozenset({TokenType.PRIMARY_KEY, TokenType.FOREIGN_KEY, TokenType.UNIQUE, TokenType.CONSTRAINT})


@compiles(CreateColumn, "sqlite")
def _sqlite_column_with_comment(element: CreateColumn, compiler: Any, **kw: Any) -> str | None:
    text: str | None = compiler.visit_create_column(element, **kw)
    comment = getattr(element.element, "comment", None)
    if text is not None and comment:
        text += " /* " + " ".join(comment.replace("*/", "* /").split()) + " */"
    return text


def sqlite_column_comments(create_sql: str) -> dict[str, str]:
    """Column name -> comment, from a ``CREATE TABLE`` statement as SQLite stored it.

    Example:
        >>> sqlite_column_comments("CREATE TABLE t (a INT /* first, of two */, b TEXT)")
        {'a': 'first, of two'}
    """
    return dict(_column_comments(create_sql))


@lru_cache(maxsize=1024)
def _column_comments(create_sql: str) -> tuple[tuple[str, str], ...]:
    """Cached per statement: every rotation of a fixture stores the same ``CREATE TABLE`` text."""
    tokens = SQLite().tokenize(create_sql)
    comments: dict[str, list[str]] = {}
    depth, current = 0, None
    start_of_item = False
    for tok in tokens:
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
            if depth == 1:
                start_of_item = True
                continue
        elif tok.token_type == TokenType.R_PAREN:
            depth -= 1
        elif tok.token_type == TokenType.COMMA and depth == 1:
            if current is not None and tok.comments:
                comments[current].extend(c.strip() for c in tok.comments)
            start_of_item, current = True, None
            continue
        if depth < 1:
            continue
        if start_of_item:
            start_of_item = False
            # Table constraints (PRIMARY KEY, FOREIGN KEY, UNIQUE, CHECK, CONSTRAINT) are not columns.
            if tok.token_type in _TABLE_CONSTRAINTS or (
                tok.token_type == TokenType.VAR and tok.text.upper() == "CHECK"
            ):
                current = None
            else:
                current = tok.text.strip('"`[]')
                comments.setdefault(current, [])
        if current is not None and tok.comments:
            comments[current].extend(c.strip() for c in tok.comments)
    return tuple((name, " ".join(parts)) for name, parts in comments.items() if parts)


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    type: str
    """The engine's type name as SQLAlchemy reports it (``INTEGER``, ``NUMERIC(10, 2)``, ``DATE``)."""
    nullable: bool
    primary_key: bool
    comment: str = ""
    values: tuple[str, ...] = ()
    """Text columns: every distinct value when there are few (``complete``), else a few examples."""
    values_complete: bool = False
    distinct_count: int | None = None
    values_skipped: str = ""
    """Why the values were not sampled (too slow, too large), when they were not; empty otherwise."""


@dataclass(frozen=True)
class ForeignKey:
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]


@dataclass(frozen=True)
class TableInfo:
    name: str
    columns: tuple[ColumnInfo, ...]
    foreign_keys: tuple[ForeignKey, ...] = ()
    comment: str = ""
    row_count: int | None = None

    def column(self, name: str) -> ColumnInfo | None:
        return next((c for c in self.columns if c.name == name), None)


@dataclass(frozen=True)
class SchemaContext:
    dialect: str
    """sqlglot dialect name of the engine (``sqlite``, ``postgres``, ``mysql``, ...)."""
    tables: tuple[TableInfo, ...] = field(default_factory=tuple)

    def table(self, name: str) -> TableInfo | None:
        return next((t for t in self.tables if t.name == name), None)

    def structure(self) -> list[Any]:
        """Tables, columns (name, type, nullability, key, comment) and foreign keys: the schema without its
        data (no sampled values or counts), in a JSON-ready form whose hash says whether the schema changed."""
        return [
            [
                t.name,
                t.comment,
                [[c.name, c.type, c.nullable, c.primary_key, c.comment] for c in t.columns],
                [[list(fk.columns), fk.ref_table, list(fk.ref_columns)] for fk in t.foreign_keys],
            ]
            for t in self.tables
        ]

    def describe(self) -> str:
        """A compact, deterministic text rendering for prompts."""
        lines: list[str] = []
        for t in self.tables:
            lines.append(f"TABLE {t.name}" + (f"  -- {t.comment}" if t.comment else ""))
            for c in t.columns:
                flags = " PRIMARY KEY" if c.primary_key else ("" if c.nullable else " NOT NULL")
                note = f"  -- {c.comment}" if c.comment else ""
                if c.values:
                    shown = ", ".join(repr(v) for v in c.values)
                    note += f" [values: {shown}]" if c.values_complete else f" [e.g. {shown}]"
                elif c.values_skipped:
                    note += f" [values not sampled: {c.values_skipped}]"
                lines.append(f"  {c.name} {c.type}{flags}{note}")
            for fk in t.foreign_keys:
                lines.append(
                    f"  FOREIGN KEY ({', '.join(fk.columns)}) REFERENCES {fk.ref_table} ({', '.join(fk.ref_columns)})"
                )
        return "\n".join(lines)


def sqlglot_dialect(engine: Engine | Connection) -> str:
    return sqlglot_name(engine.dialect.name)


def _is_text(coltype: sa.types.TypeEngine[Any] | str) -> bool:
    if isinstance(coltype, str):  # a type name read from a catalog (DuckDB)
        return coltype.upper().startswith(("VARCHAR", "TEXT", "STRING", "CHAR", "BPCHAR"))
    try:
        return issubclass(coltype.python_type, str)
    except NotImplementedError:
        return isinstance(coltype, sa.String)


class SampleSkipped(Exception):
    """A sampling query that did not complete (too slow, too large, refused): the column's values are left out."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


Sampler = Callable[[sa.Select[Any]], Sequence[Sequence[Any]]]
"""Runs one sampling query and returns its rows, or raises :class:`SampleSkipped`."""


def _sample_values(sample: Sampler, table: sa.Table, column: str) -> tuple[tuple[str, ...], bool, int]:
    col = table.c[column]
    distinct = int(sample(sa.select(sa.func.count(sa.distinct(col))))[0][0])
    limit = ENUM_LIMIT if distinct <= ENUM_LIMIT else EXAMPLES
    rows = sample(sa.select(col).where(col.is_not(None)).distinct().order_by(col).limit(limit))
    return tuple(str(r[0]) for r in rows), distinct <= ENUM_LIMIT, distinct


class DuckDBCatalog:
    """The parts of SQLAlchemy's inspector :func:`read_schema` uses, read from DuckDB's catalog functions.

    Same return shapes as :class:`sqlalchemy.engine.Inspector`, except that a column's ``type`` is
    DuckDB's type name (``VARCHAR``, ``DECIMAL(10,2)``), a string. Tables of the current schema only.
    ``rows`` runs one statement and returns its rows: a connection's, or a read-only executor's (each
    statement under its time limit); names are written into the SQL as quoted literals.
    """

    _WHERE = "database_name = current_database() AND schema_name = current_schema()"

    def __init__(self, rows: Callable[[str], Sequence[Sequence[Any]]]) -> None:
        self._run = rows

    def _rows(self, sql: str) -> list[Any]:
        return list(self._run(sql))

    def get_table_names(self) -> list[str]:
        return [
            r[0]
            for r in self._rows(
                f"SELECT table_name FROM duckdb_tables() WHERE {self._WHERE} AND NOT internal ORDER BY 1"
            )
        ]

    def get_columns(self, table: str) -> list[dict[str, Any]]:
        rows = self._rows(
            "SELECT column_name, data_type, is_nullable, comment FROM duckdb_columns() "
            f"WHERE {self._WHERE} AND NOT internal AND table_name = {_literal(table)} ORDER BY column_index"
        )
        return [{"name": n, "type": t, "nullable": bool(null), "comment": c} for n, t, null, c in rows]

    def _constraints(self, table: str, kind: str) -> list[Any]:
        return self._rows(
            "SELECT constraint_column_names, referenced_table, referenced_column_names FROM duckdb_constraints() "
            f"WHERE {self._WHERE} AND table_name = {_literal(table)} AND constraint_type = {_literal(kind)} "
            "ORDER BY constraint_index"
        )

    def get_pk_constraint(self, table: str) -> dict[str, Any]:
        found = self._constraints(table, "PRIMARY KEY")
        return {"constrained_columns": list(found[0][0]) if found else []}

    def get_foreign_keys(self, table: str) -> list[dict[str, Any]]:
        return [
            {"constrained_columns": list(cols), "referred_table": ref, "referred_columns": list(ref_cols)}
            for cols, ref, ref_cols in self._constraints(table, "FOREIGN KEY")
        ]

    def get_table_comment(self, table: str) -> dict[str, Any]:
        found = self._rows(
            f"SELECT comment FROM duckdb_tables() WHERE {self._WHERE} AND table_name = {_literal(table)}"
        )
        return {"text": found[0][0] if found else None}


def _literal(text: str) -> str:
    """``text`` as a SQL string literal (quotes doubled; DuckDB gives backslashes no meaning)."""
    return "'" + text.replace("'", "''") + "'"


def _sampling_table(name: str, columns: list[dict[str, Any]]) -> sa.Table:
    """A table to count and sample from, built from columns read off a catalog (nothing reflected twice)."""
    return sa.Table(
        name,
        sa.MetaData(),
        *(sa.Column(c["name"], sa.String() if _is_text(c["type"]) else sa.types.NullType()) for c in columns),
    )


def inspect_schema(bind: Engine | Connection, sample_values: bool = True) -> SchemaContext:
    """Build the context from the live database (views and internal tables are left out).

    Nothing here is bounded: this is for databases the caller trusts (tests, fixture builds). A database
    from outside is read through :func:`services.readonly.inspection.inspect_read_only`, where every
    statement has the executor's time limit and budgets.
    """
    owns_conn = isinstance(bind, Engine)
    conn: Connection = bind.connect() if isinstance(bind, Engine) else bind
    try:
        dialect = sqlglot_dialect(bind)
        if dialect == "duckdb":
            catalog: Any = DuckDBCatalog(lambda sql: conn.exec_driver_sql(sql).all())
        else:
            catalog = sa.inspect(conn)
        sample: Sampler | None = (lambda stmt: conn.execute(stmt).all()) if sample_values else None
        return read_schema(dialect, catalog, sample, ddl=lambda table: sqlite_table_sql(conn, table))
    finally:
        if owns_conn:
            conn.close()


def sqlite_table_sql(conn: Connection, table: str) -> str | None:
    """The ``CREATE TABLE`` text SQLite stored for ``table``."""
    sql = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).scalar()
    return None if sql is None else str(sql)


def read_schema(
    dialect: str, catalog: Any, sample: Sampler | None, *, ddl: Callable[[str], str | None] | None = None
) -> SchemaContext:
    """The context, from ``catalog`` (SQLAlchemy's inspector or a :class:`DuckDBCatalog`) and, when ``sample`` is
    given, text columns' values and tables' row counts through it; a sample that raises :class:`SampleSkipped`
    leaves that column's values (or the row count) out, and the column says why. ``ddl`` reads SQLite's
    ``CREATE TABLE`` text, where column comments live."""
    tables: list[TableInfo] = []
    for name in sorted(catalog.get_table_names()):
        if dialect == "sqlite" and name.startswith("sqlite_"):
            continue
        pk = set(catalog.get_pk_constraint(name).get("constrained_columns") or [])
        comments = sqlite_column_comments((ddl and ddl(name)) or "") if dialect == "sqlite" else {}
        columns_read = catalog.get_columns(name)
        table = _sampling_table(name, columns_read) if sample is not None else None
        columns = [_column(col, pk, comments, sample, table) for col in columns_read]
        fks = tuple(
            ForeignKey(tuple(fk["constrained_columns"]), fk["referred_table"], tuple(fk["referred_columns"]))
            for fk in catalog.get_foreign_keys(name)
        )
        try:
            table_comment = (catalog.get_table_comment(name) or {}).get("text") or ""
        except NotImplementedError:
            table_comment = ""
        row_count = None
        if sample is not None and table is not None:
            try:
                row_count = int(sample(sa.select(sa.func.count()).select_from(table))[0][0])
            except SampleSkipped:
                row_count = None
        tables.append(TableInfo(name, tuple(columns), fks, table_comment, row_count))
    return SchemaContext(dialect, tuple(tables))


def _column(
    col: dict[str, Any], pk: set[str], comments: dict[str, str], sample: Sampler | None, table: sa.Table | None
) -> ColumnInfo:
    values: tuple[str, ...] = ()
    complete, distinct, skipped = False, None, ""
    if sample is not None and table is not None and _is_text(col["type"]):
        try:
            values, complete, distinct = _sample_values(sample, table, col["name"])
        except SampleSkipped as exc:
            skipped = exc.reason
    return ColumnInfo(
        name=col["name"],
        type=str(col["type"]),
        nullable=bool(col.get("nullable", True)),
        primary_key=col["name"] in pk,
        comment=col.get("comment") or comments.get(col["name"], ""),
        values=values,
        values_complete=complete,
        distinct_count=distinct,
        values_skipped=skipped,
    )
