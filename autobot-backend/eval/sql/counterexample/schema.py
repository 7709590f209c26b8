"""A database's declared structure as the search needs it: tables, columns and their kinds, keys, UNIQUE sets,
foreign keys, read through SQLAlchemy's inspector (DuckDB: its own catalog functions, which duckdb-engine's
emulated PostgreSQL catalog cannot stand in for; :class:`services.schema_context.DuckDBCatalog`).

The foreign-key graph is what every edit follows: a row deleted takes what refers to it, a row cloned takes its
dependents along. A foreign key that names a table or column the database lacks (some Spider databases declare
them) is left out: nothing can hold it. ``CHECK`` constraints are not read: the engine itself refuses a
neighbour that breaks one, when it is written.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import cached_property

import sqlalchemy as sa

from eval.sql.model.kinds import type_kind
from services.schema_context import DuckDBCatalog

KINDS = ("int", "real", "decimal", "text", "date", "datetime", "bool", "other")
"""What a column holds, as far as an edit cares: how to step a value by one unit, how to read a literal."""


@dataclass(frozen=True)
class Column:
    name: str
    kind: str
    nullable: bool


@dataclass(frozen=True)
class ForeignKey:
    child: str
    columns: tuple[int, ...]
    """Positions in the child's columns."""
    parent: str
    parent_columns: tuple[int, ...]
    """Positions in the parent's columns, in the same order."""

    @property
    def self_reference(self) -> bool:
        return self.child == self.parent


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    key: tuple[int, ...]
    """The primary key's column positions; empty without one."""
    unique: tuple[tuple[int, ...], ...]
    """Every UNIQUE column set (the primary key's not repeated)."""

    def index(self, column: str) -> int | None:
        """A column's position by name (exact, else case-insensitive), or None."""
        for i, c in enumerate(self.columns):
            if c.name == column:
                return i
        lowered = [i for i, c in enumerate(self.columns) if c.name.lower() == column.lower()]
        return lowered[0] if len(lowered) == 1 else None


@dataclass(frozen=True)
class Schema:
    tables: dict[str, Table]
    """In an order where a table comes after every table it refers to (self-references aside)."""
    foreign_keys: tuple[ForeignKey, ...]

    @cached_property
    def _children(self) -> dict[str, tuple[ForeignKey, ...]]:
        return {t: tuple(fk for fk in self.foreign_keys if fk.parent == t) for t in self.tables}

    @cached_property
    def _parents(self) -> dict[str, tuple[ForeignKey, ...]]:
        return {t: tuple(fk for fk in self.foreign_keys if fk.child == t) for t in self.tables}

    def children(self, table: str) -> tuple[ForeignKey, ...]:
        """The foreign keys that refer to ``table`` (its self-references included)."""
        return self._children.get(table, ())

    def parents(self, table: str) -> tuple[ForeignKey, ...]:
        """The foreign keys of ``table`` (its self-references included)."""
        return self._parents.get(table, ())

    @cached_property
    def roots(self) -> tuple[str, ...]:
        """Tables that refer to no other table: keeping a subset of their rows keeps a database whole."""
        return tuple(t for t in self.tables if all(fk.self_reference for fk in self.parents(t)))

    def table(self, name: str) -> Table | None:
        """A table by name (exact, else case-insensitive)."""
        if name in self.tables:
            return self.tables[name]
        found = [t for n, t in self.tables.items() if n.lower() == name.lower()]
        return found[0] if len(found) == 1 else None


def kind_of(column_type: sa.types.TypeEngine[object]) -> str:
    """A column's kind from its reflected type (SQLite's declared names included)."""
    kind = type_kind(column_type)
    if kind is not None:
        return kind
    name = str(getattr(column_type, "__visit_name__", "")).lower()
    return {"integer": "int", "real": "real", "text": "text"}.get(name, "other")


_DUCKDB_KINDS = (
    ("INT", "int"),
    ("DOUBLE", "real"),
    ("FLOAT", "real"),
    ("REAL", "real"),
    ("DECIMAL", "decimal"),
    ("NUMERIC", "decimal"),
    ("TIMESTAMP", "datetime"),
    ("DATE", "date"),
    ("BOOL", "bool"),
    ("VARCHAR", "text"),
    ("TEXT", "text"),
)


def duckdb_kind(type_name: str) -> str:
    """A column's kind from DuckDB's type name (``BIGINT``, ``DECIMAL(10,2)``, ``TIMESTAMP``)."""
    upper = type_name.upper()
    return next((kind for prefix, kind in _DUCKDB_KINDS if prefix in upper), "other")


def _read_duckdb(engine: sa.Engine) -> Schema:
    with engine.connect() as conn:
        catalog = DuckDBCatalog(lambda sql: conn.exec_driver_sql(sql).all())
        unique_rows = conn.exec_driver_sql(
            "SELECT table_name, constraint_column_names FROM duckdb_constraints() WHERE constraint_type = 'UNIQUE' "
            "AND database_name = current_database() AND schema_name = current_schema() ORDER BY 1, constraint_index"
        ).all()
        raw: Raw = {}
        for name in catalog.get_table_names():
            columns = [{**c, "kind": duckdb_kind(str(c["type"]))} for c in catalog.get_columns(name)]
            key = [str(k) for k in catalog.get_pk_constraint(name)["constrained_columns"]]
            unique = [[str(c) for c in cols] for table, cols in unique_rows if table == name]
            raw[name] = (columns, key, unique, catalog.get_foreign_keys(name))
    return _built(raw)


def read_schema(engine: sa.Engine, schema: str | None = None) -> Schema:
    """The declared structure of the database behind ``engine`` (``schema``: a PostgreSQL schema)."""
    if engine.dialect.name == "duckdb":
        return _read_duckdb(engine)
    with warnings.catch_warnings():  # a type SQLAlchemy does not know (Spider's "year") is read as "other"
        warnings.simplefilter("ignore", sa.exc.SAWarning)
        inspector = sa.inspect(engine)
        names = sorted(inspector.get_table_names(schema=schema))
        raw: Raw = {}
        for name in names:
            columns = [dict(c) for c in inspector.get_columns(name, schema=schema)]
            pk = inspector.get_pk_constraint(name, schema=schema).get("constrained_columns") or []
            key = [str(k) for k in pk]
            constraints = inspector.get_unique_constraints(name, schema=schema)
            unique = [[str(c) for c in u["column_names"]] for u in constraints]
            unique += [
                [str(c) for c in i["column_names"]]
                for i in inspector.get_indexes(name, schema=schema)
                if i.get("unique")
            ]
            fks = [dict(fk) for fk in inspector.get_foreign_keys(name, schema=schema)]
            raw[name] = (columns, key, unique, fks)
    return _built(raw)


Raw = dict[str, tuple[list[dict[str, object]], list[str], list[list[str]], list[dict[str, object]]]]


def _built(raw: Raw) -> Schema:
    """The schema from each table's (columns, primary key, UNIQUE sets, foreign keys) as an inspector gives them;
    a column's kind is its ``kind`` when the catalog gave one, else read from its SQLAlchemy type."""
    tables: dict[str, Table] = {}
    for name, (columns, key, unique, _) in raw.items():
        cols = tuple(
            Column(
                str(c["name"]),
                str(c["kind"]) if "kind" in c else kind_of(c["type"]),  # type: ignore[arg-type]
                bool(c.get("nullable", True)) and str(c["name"]) not in key,
            )
            for c in columns
        )
        position = {c.name: i for i, c in enumerate(cols)}
        keys = tuple(position[k] for k in key if k in position)
        sets = {tuple(position[c] for c in u if c in position) for u in unique if u and all(c in position for c in u)}
        tables[name] = Table(name, cols, keys, tuple(sorted(s for s in sets if s and s != keys)))
    foreign: list[ForeignKey] = []
    for name, (_, _, _, fks) in raw.items():
        for fk in fks:
            found = _foreign_key(tables, name, fk)
            if found is not None:
                foreign.append(found)
    return Schema(_parents_first(tables, foreign), tuple(foreign))


def _foreign_key(tables: dict[str, Table], child: str, fk: dict[str, object]) -> ForeignKey | None:
    parent = tables.get(str(fk.get("referred_table")))
    if parent is None:
        parent = next((t for n, t in tables.items() if n.lower() == str(fk.get("referred_table")).lower()), None)
    if parent is None:
        return None
    columns = [tables[child].index(str(c)) for c in fk.get("constrained_columns") or []]  # type: ignore[attr-defined]
    referred = [parent.index(str(c)) for c in fk.get("referred_columns") or []]  # type: ignore[attr-defined]
    if not referred:  # SQLite's REFERENCES t without columns: the parent's key
        referred = list(parent.key)
    if not columns or len(columns) != len(referred) or None in columns or None in referred:
        return None
    return ForeignKey(
        child, tuple(c for c in columns if c is not None), parent.name, tuple(r for r in referred if r is not None)
    )


def _parents_first(tables: dict[str, Table], foreign: list[ForeignKey]) -> dict[str, Table]:
    ordered: list[str] = []
    pending = set(tables)
    while pending:
        ready = sorted(
            t for t in pending if all(fk.parent not in pending or fk.parent == t for fk in foreign if fk.child == t)
        )
        if not ready:  # a cycle between tables: take them in name order
            ready = sorted(pending)[:1]
        ordered += ready
        pending -= set(ready)
    return {t: tables[t] for t in ordered}
