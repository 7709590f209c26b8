"""What the diagnosis knows of a database's schema: each table's columns and types, its keys and its NOT NULL
columns. It is what makes a difference provably harmless on this schema (a GROUP BY key the others determine,
``COUNT(*)`` against ``COUNT(col)`` on a column that cannot be NULL, ``> 2`` against ``>= 3`` on whole numbers),
and what resolves an unqualified column to its table.

Names are kept lower-cased, as the canonical form spells them. A catalog is a value (hashable): the
diagnosis keeps what it compared per (reference, candidate, catalog).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any


@dataclass(frozen=True)
class Table:
    columns: tuple[tuple[str, str], ...]
    """(column, its declared type upper-cased, may be empty), in the table's order."""
    keys: tuple[frozenset[str], ...] = ()
    """Column sets that name one row: the primary key, then each UNIQUE set."""
    not_null: frozenset[str] = frozenset()
    """Columns that cannot hold NULL: declared NOT NULL, or a primary key's (SQL's rule; on SQLite only an
    ``INTEGER PRIMARY KEY``, since SQLite lets any other primary key column hold NULL)."""

    @cached_property
    def types(self) -> dict[str, str]:
        return dict(self.columns)


@dataclass(frozen=True)
class Catalog:
    tables: tuple[tuple[str, Table], ...] = field(default_factory=tuple)

    @cached_property
    def _by_name(self) -> dict[str, Table]:
        return dict(self.tables)

    def table(self, name: str) -> Table | None:
        return self._by_name.get(name.lower())

    def columns(self) -> list[str]:
        """Every column name of every table."""
        return [c for _, t in self.tables for c, _ in t.columns]

    def owners(self, column: str, among: Iterable[str]) -> list[str]:
        """The tables of ``among`` that have ``column``."""
        return [t for t in among if (info := self.table(t)) is not None and column.lower() in info.types]

    def is_integer(self, table: str, column: str) -> bool:
        """SQLite's INTEGER affinity: a declared type containing INT."""
        info = self.table(table)
        kind = info.types.get(column.lower(), "") if info else ""
        return "INT" in kind and "POINT" not in kind and "INTERVAL" not in kind

    def not_null(self, table: str, column: str) -> bool:
        info = self.table(table)
        return info is not None and column.lower() in info.not_null

    def keys(self, table: str) -> tuple[frozenset[str], ...]:
        info = self.table(table)
        return info.keys if info else ()


def catalog_of(
    structure: Sequence[Any], unique: Mapping[str, Sequence[Sequence[str]]] | None = None, *, dialect: str = "sqlite"
) -> Catalog:
    """The catalog of a database, from its structure (:meth:`services.readonly.execute.ReadOnlySQL.structure`:
    ``[table, comment, [[column, type, nullable, primary_key, comment], ...], foreign_keys]``) and its UNIQUE
    column sets (:meth:`~services.readonly.execute.ReadOnlySQL.unique_keys`)."""
    tables: list[tuple[str, Table]] = []
    lowered = {str(k).lower(): v for k, v in (unique or {}).items()}
    for entry in structure:
        name, columns = str(entry[0]).lower(), entry[2]
        types = tuple((str(c[0]).lower(), str(c[1] or "").upper()) for c in columns)
        pk = frozenset(str(c[0]).lower() for c in columns if c[3])
        keys = ([pk] if pk else []) + [frozenset(str(c).lower() for c in u) for u in lowered.get(name, ())]
        not_null = {str(c[0]).lower() for c in columns if not c[2]}
        if dialect != "sqlite" or (len(pk) == 1 and dict(types)[next(iter(pk))] == "INTEGER"):
            not_null |= pk
        tables.append((name, Table(types, tuple(keys), frozenset(not_null))))
    return Catalog(tuple(sorted(tables)))
