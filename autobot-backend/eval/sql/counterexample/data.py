"""The graded database's rows in memory, and a neighbour of them being edited.

A base is read once per database (per process) with the driver's own values, so a row written back is
the row read. Every row has an id that edits name it by: its position in the base, or a fresh id for a
row an edit added. A :class:`Working` copy shares the base's tables until an edit writes one, and keeps
which rows it changed, added and removed: the constraints are checked on those rows, and only they are
written to the neighbour's database.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import compress, pairwise
from operator import itemgetter, ne
from typing import Any

import sqlalchemy as sa

from eval.sql.counterexample.schema import Schema, read_schema
from eval.sql.counterexample.values import as_date, comparable

Values = tuple[Any, ...]
Key = Any
"""A row's values in some columns: the value itself for one column, a tuple of them for several."""
MAX_ROWS = 200_000
"""The most rows a database may hold for the search to copy it (all tables together)."""
FIRST_NEW_ID = 1 << 40
"""Ids of rows an edit adds start here, far from any base position."""


class TooBig(Exception):
    """The database holds more rows than the search copies."""


@dataclass(frozen=True)
class Base:
    """The graded database as read: its schema, and each table's rows by id (their base position)."""

    url: str
    schema: Schema
    rows: dict[str, dict[int, Values]]
    locators: dict[str, dict[int, Any]]
    """Each base row's engine row id (SQLite's and DuckDB's ``rowid``), for deleting it; empty where none."""
    pg_schema: str | None = None
    """On PostgreSQL, the schema the tables live in."""
    _indexes: dict[tuple[str, tuple[int, ...]], dict[Key, list[int]]] = field(default_factory=dict, compare=False)
    _by_value: dict[tuple[str, int], dict[Any, list[int]]] = field(default_factory=dict, compare=False)
    _orders: dict[tuple[str, tuple[int, int]], list[int] | None] = field(default_factory=dict, compare=False)
    _tops: dict[tuple[str, int, tuple[int, ...]], dict[tuple[Any, ...], int]] = field(
        default_factory=dict, compare=False
    )

    @property
    def size(self) -> int:
        return sum(len(r) for r in self.rows.values())

    def index(self, table: str, columns: tuple[int, ...]) -> dict[Key, list[int]]:
        """The base rows of ``table`` by their values in ``columns`` (made once)."""
        found = self._indexes.get((table, columns))
        if found is None:
            get = key_of(columns)
            found = {}
            for row, values in self.rows[table].items():
                found.setdefault(get(values), []).append(row)
            self._indexes[(table, columns)] = found
        return found

    def by_value(self, table: str, column: int) -> dict[Any, list[int]]:
        """The base rows of ``table`` by their value in ``column``, a date-like value by its day (made once)."""
        found = self._by_value.get((table, column))
        if found is None:
            found = self._by_value[(table, column)] = {}
            for r, v in self.rows[table].items():
                x = v[column]
                day = as_date(x)
                found.setdefault(day if day is not None else x, []).append(r)
        return found

    def ordered(self, table: str, key: int, by: int) -> list[int] | None:
        """The base rows of ``table`` in the order of ``by`` then ``key``, when their keys rise along it (the base
        keeps the rule :class:`~eval.sql.fixtures.rules.Ordered` states); else None. Made once."""
        cache_key = (table, (key, by))
        if cache_key not in self._orders:
            rows = self.rows[table]
            try:
                order = sorted(
                    rows, key=lambda r: (rows[r][by] is None, comparable(rows[r][by], rows[r][by]), rows[r][key])
                )
                keys = [rows[r][key] for r in order]
                self._orders[cache_key] = order if all(a < b for a, b in pairwise(keys)) else None
            except TypeError:
                self._orders[cache_key] = None
        return self._orders[cache_key]

    def tops(self, table: str, column: int, within: tuple[int, ...]) -> dict[tuple[Any, ...], int]:
        """The largest integer of ``column`` among the base rows sharing each value of ``within`` (made once)."""
        found = self._tops.get((table, column, within))
        if found is None:
            found = self._tops[(table, column, within)] = {}
            for v in self.rows[table].values():
                x, g = v[column], tuple(v[c] for c in within)
                if isinstance(x, int) and not isinstance(x, bool) and (g not in found or x > found[g]):
                    found[g] = x
        return found


def key_of(columns: tuple[int, ...]) -> Callable[[Values], Key]:
    """A row's key in ``columns`` (see :data:`Key`)."""
    return itemgetter(*columns) if columns else (lambda _values: ())


def has_null(key: Key, columns: tuple[int, ...]) -> bool:
    return key is None if len(columns) == 1 else None in key


def without_null(keys: Iterable[Key], columns: tuple[int, ...]) -> set[Key]:
    """The keys that hold no NULL, as a set: :func:`has_null` over many keys, in C where a key is one value."""
    if len(columns) == 1:
        found = set(keys)
        found.discard(None)
        return found
    return {k for k in keys if None not in k}


def read_base(url: str) -> Base:
    """Read every table of the database at ``url`` (raises :class:`TooBig` past :data:`MAX_ROWS`)."""
    engine, pg_schema = reading_engine(url)
    try:
        schema = read_schema(engine, pg_schema)
        rows: dict[str, dict[int, Values]] = {}
        locators: dict[str, dict[int, Any]] = {}
        total = 0
        quote = engine.dialect.identifier_preparer.quote
        with engine.connect() as conn:
            for name in schema.tables:
                where = f"{quote(pg_schema)}.{quote(name)}" if pg_schema else quote(name)
                count = int(conn.exec_driver_sql(f"SELECT COUNT(*) FROM {where}").scalar_one())
                total += count
                if total > MAX_ROWS:
                    raise TooBig(f"the database holds more than {MAX_ROWS:,} rows")
                located = engine.dialect.name in ("sqlite", "duckdb")
                try:
                    got = conn.exec_driver_sql(f"SELECT {'rowid, ' if located else ''}* FROM {where}").fetchall()
                except sa.exc.DBAPIError:  # a table without rowid (SQLite's WITHOUT ROWID)
                    located = False
                    got = conn.exec_driver_sql(f"SELECT * FROM {where}").fetchall()
                if located:
                    rows[name] = {i: tuple(r[1:]) for i, r in enumerate(got)}
                    locators[name] = {i: r[0] for i, r in enumerate(got)}
                else:
                    rows[name] = {i: tuple(r) for i, r in enumerate(got)}
                    locators[name] = {}
    finally:
        engine.dispose()
    return Base(url, schema, rows, locators, pg_schema)


def reading_engine(url: str) -> tuple[sa.Engine, str | None]:
    """An engine that reads ``url`` without writing it, and its PostgreSQL schema (from ``search_path``)."""
    parsed = sa.engine.make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        path = parsed.database or ""
        return sa.create_engine(f"sqlite:///file:{path}?mode=ro&uri=true"), None
    if backend == "duckdb":
        return sa.create_engine(parsed, connect_args={"read_only": True}), None
    options = str(parsed.query.get("options") or "")
    schema = options.split("search_path=", 1)[1].split()[0] if "search_path=" in options else None
    return sa.create_engine(parsed), schema


@dataclass
class Working:
    """A neighbour being made: the base's tables, copied when first written, and what changed."""

    base: Base
    tables: dict[str, dict[int, Values]] = field(default_factory=dict)
    touched: dict[str, set[int]] = field(default_factory=dict)
    """Rows added or changed, per table."""
    removed: dict[str, set[int]] = field(default_factory=dict)
    """Base rows deleted, per table."""
    next_id: int = FIRST_NEW_ID
    _version: int = 0
    """Bumped by every write: what :meth:`having` and :meth:`changed_in` work out about the changed rows is kept
    until the next (a neighbour's rules are checked many times over the same changed rows)."""
    _kept: dict[tuple[str, str, tuple[int, ...]], tuple[int, Any]] = field(default_factory=dict)

    @property
    def schema(self) -> Schema:
        return self.base.schema

    def rows(self, table: str) -> dict[int, Values]:
        """A table's rows now (read-only use: write through :meth:`put` and :meth:`delete`)."""
        return self.tables.get(table, self.base.rows[table])

    def _writable(self, table: str) -> dict[int, Values]:
        if table not in self.tables:
            self.tables[table] = dict(self.base.rows[table])
        return self.tables[table]

    def put(self, table: str, row: int, values: Values) -> None:
        self._version += 1
        self._writable(table)[row] = values
        self.touched.setdefault(table, set()).add(row)

    def put_many(self, table: str, rows: dict[int, Values]) -> None:
        self._version += 1
        self._writable(table).update(rows)
        self.touched.setdefault(table, set()).update(rows)

    def add(self, table: str, values: Values) -> int:
        row = self.next_id
        self.next_id += 1
        self.put(table, row, values)
        return row

    def delete(self, table: str, doomed: Iterable[int]) -> None:
        """Delete rows (ids no longer present are passed over)."""
        rows = self._writable(table)
        gone = [r for r in doomed if rows.pop(r, None) is not None]
        if not gone:
            return
        self._version += 1
        touched = self.touched.get(table)
        if touched:
            touched.difference_update(gone)
        self.removed.setdefault(table, set()).update(r for r in gone if r < FIRST_NEW_ID)

    def worked_out(self, what: str, table: str, make: Callable[[], Any], columns: tuple[int, ...] = ()) -> Any:
        """``make()``, kept until the next write (what is worked out about the changed rows is asked many times)."""
        found = self._kept.get((what, table, columns))
        if found is None or found[0] != self._version:
            found = self._kept[(what, table, columns)] = (self._version, make())
        return found[1]

    def having(self, table: str, columns: tuple[int, ...], keys: Iterable[Key]) -> list[int]:
        """The rows of ``table`` whose values in ``columns`` are one of ``keys``."""
        wanted = set(keys)
        if not wanted:
            return []
        rows, touched = self.rows(table), self.touched.get(table)
        get = self.base.index(table, columns).get
        if not touched:
            return [r for k in wanted for r in get(k, ()) if r in rows]
        found = [r for k in wanted for r in get(k, ()) if r in rows and r not in touched]
        by_key = self.worked_out("by key", table, lambda: self._by_key(table, columns), columns)
        return found + [r for k in wanted for r in by_key.get(k, ())]

    def _by_key(self, table: str, columns: tuple[int, ...]) -> dict[Key, list[int]]:
        """The changed rows of ``table`` by their values in ``columns``."""
        rows, get = self.rows(table), key_of(columns)
        out: dict[Key, list[int]] = {}
        for r in self.touched.get(table, ()):
            values = rows.get(r)
            if values is not None:
                out.setdefault(get(values), []).append(r)
        return out

    def changed(self, table: str) -> list[tuple[int, Values]]:
        """The rows of ``table`` this neighbour added or changed, with their values now, by id (worked out once
        per write; read-only)."""
        found: list[tuple[int, Values]] = self.worked_out("changed", table, lambda: self._changed(table))
        return found

    def _changed(self, table: str) -> list[tuple[int, Values]]:
        rows = self.rows(table)
        return [(row, rows[row]) for row in sorted(self.touched.get(table, ())) if row in rows]

    def changed_in(self, table: str, columns: Iterable[int]) -> Iterator[tuple[int, Values]]:
        """The rows of ``table`` this neighbour added, or changed in one of ``columns``."""
        wanted = set(columns)
        diff: list[tuple[int, Values, frozenset[int] | None]] = self.worked_out(
            "diff", table, lambda: self._diff(table)
        )
        for row, values, changed in diff:
            if changed is None or not changed.isdisjoint(wanted):
                yield row, values

    def _diff(self, table: str) -> list[tuple[int, Values, frozenset[int] | None]]:
        """Each changed row with the columns it changed in (None: a row added)."""
        base = self.base.rows[table]
        out: list[tuple[int, Values, frozenset[int] | None]] = []
        for row, values in self.changed(table):
            before = base.get(row) if row < FIRST_NEW_ID else None
            if before is None:
                out.append((row, values, None))
            elif values != before:
                out.append((row, values, frozenset(compress(range(len(values)), map(ne, values, before)))))
        return out

    @property
    def size(self) -> int:
        return sum(len(self.rows(t)) for t in self.schema.tables)

    def is_base(self) -> bool:
        return not any(self.touched.values()) and not any(self.removed.values())
