"""A neighbour written as a database of the graded database's engine, for the read-only executor to read.

Only what the neighbour changed is written: a SQLite file is copied from the graded file and edited (rows
deleted by their engine row id, changed rows written again, new rows added parents first); a DuckDB file is
made afresh from the graded file's tables less what changed, then the changed rows (:func:`_write_duckdb`);
PostgreSQL gets a schema of its own, a copy of the graded schema's tables (``LIKE ... INCLUDING ALL``: keys,
NOT NULL, CHECK; the foreign keys are held by :mod:`~eval.sql.counterexample.constraints`) edited the same way,
readable by the role the answers run as. The engine enforces the constraints it holds, ``CHECK`` included, as it
writes: a neighbour it refuses is :class:`Refused`.
"""

from __future__ import annotations

import itertools
import json
import secrets
import shutil
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import sqlalchemy as sa

from eval.sql.counterexample.data import FIRST_NEW_ID, Values, Working, key_of
from eval.sql.counterexample.schema import Table


class Refused(Exception):
    """The engine refused to write the neighbour (a CHECK constraint, a type it will not take)."""


class Writer(Protocol):
    reuses_url: bool
    """Whether every neighbour is written at one URL, its contents replaced: the reader's executor is kept."""

    def write(self, w: Working) -> str:
        """The neighbour's URL (raises :class:`Refused`)."""
        ...

    def discard(self, url: str) -> None:
        """Take the neighbour's database down."""
        ...


@dataclass(frozen=True)
class Change:
    """One table's part of a neighbour: base rows to delete, base rows to rewrite in place, rows to add."""

    table: str
    delete: list[int]
    """Base row ids."""
    update: list[tuple[int, Values]]
    """Base rows whose key is unchanged, with their values now."""
    insert: list[Values]


def changes(w: Working) -> list[Change]:
    """What the neighbour changed, table by table, parents first."""
    out = []
    for name, table in w.schema.tables.items():
        delete = sorted(w.removed.get(name, ()))
        update, insert = [], []
        base, key = w.base.rows[name], key_of(table.key) if table.key else None
        for row, values in w.changed(name):
            if row >= FIRST_NEW_ID:
                insert.append(values)
                continue
            before = base[row]
            if values == before:
                continue
            if key is not None and key(values) == key(before):
                update.append((row, values))
            else:
                delete.append(row)
                insert.append(values)
        if delete or update or insert:
            out.append(Change(name, delete, update, _referenced_first(w, table, insert)))
    return out


def _referenced_first(w: Working, table: Table, rows: list[Values]) -> list[Values]:
    """Rows of a table that refers to itself, each after the row it names (a referrer before its referrals)."""
    own = [fk for fk in w.schema.parents(table.name) if fk.self_reference]
    if not own or len(rows) < 2:
        return rows
    fk = own[0]
    pending, done, out = list(rows), set(), []
    keys = {tuple(r[c] for c in fk.parent_columns) for r in rows}
    while pending:
        ready = [r for r in pending if (k := tuple(r[c] for c in fk.columns)) not in keys or k in done or None in k]
        if not ready:
            ready = pending[:1]
        for r in ready:
            out.append(r)
            done.add(tuple(r[c] for c in fk.parent_columns))
        pending = [r for r in pending if not any(r is x for x in ready)]
    return out


def _columns(table: Table, quote: Any) -> str:
    return ", ".join(quote(c.name) for c in table.columns)


class FileWriter:
    """DuckDB (and SQLite where asked): a file per neighbour, in ``workdir``."""

    reuses_url = False

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self._numbers = itertools.count(1)

    def write(self, w: Working) -> str:
        self.workdir.mkdir(parents=True, exist_ok=True)
        backend = sa.engine.make_url(w.base.url).get_backend_name()
        source = Path(sa.engine.make_url(w.base.url).database or "")
        target = self.workdir / f"neighbour-{next(self._numbers)}{source.suffix or '.db'}"
        try:
            if backend == "duckdb":
                _write_duckdb(source, target, w)
            else:
                shutil.copyfile(source, target)
                conn = sqlite3.connect(target)
                try:
                    conn.execute("PRAGMA journal_mode = MEMORY")
                    conn.execute("PRAGMA synchronous = OFF")
                    edit_sqlite(conn, w)
                finally:
                    conn.close()
        except Refused:
            target.unlink(missing_ok=True)
            raise
        return sa.URL.create(backend, database=str(target)).render_as_string(hide_password=False)

    def discard(self, url: str) -> None:
        path = Path(sa.engine.make_url(url).database or "")
        for leftover in (path, Path(f"{path}.wal"), Path(f"{path}-journal")):
            leftover.unlink(missing_ok=True)


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def edit_sqlite(conn: sqlite3.Connection, w: Working, base: str | None = None) -> None:
    """Edit ``conn``'s copy of the graded database into the neighbour; ``base``: the schema name under which the
    graded database is attached to ``conn`` (read-only use), when it is: a table that loses most of its rows is
    then emptied and refilled with the rows it keeps, in one statement each (SQLite deletes row by row, which
    cost more than a few dozen inserts), same row ids, same values, so the same table."""
    try:
        with conn:
            for change in changes(w):
                table = w.schema.tables[change.table]
                located = w.base.locators.get(change.table) or {}
                if not (located.keys() >= {*change.delete, *(r for r, _ in change.update)}):
                    raise Refused(f"{change.table}: a row without a row id cannot be edited")
                name = quote(change.table)
                if base is not None and 2 * len(change.delete) > len(w.base.rows[change.table]):
                    columns = _columns(table, quote)
                    conn.execute(f"DELETE FROM {name}")
                    # The rows kept, fewer than those deleted, named by their row ids (a base row still in the
                    # neighbour and not rewritten under another key), each read from the graded copy by its id.
                    doomed = set(change.delete)
                    kept = json.dumps(
                        [located[r] for r in w.rows(change.table) if r < FIRST_NEW_ID and r not in doomed]
                    )
                    conn.execute(
                        f"INSERT INTO {name} (rowid, {columns}) SELECT rowid, {columns} FROM {base}.{name} "
                        "WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY rowid",
                        (kept,),
                    )
                elif change.delete:  # one statement (row ids are integers)
                    gone = json.dumps(list(map(located.__getitem__, change.delete)))
                    conn.execute(f"DELETE FROM {name} WHERE rowid IN (SELECT value FROM json_each(?))", (gone,))
                sets = ", ".join(f"{quote(c.name)} = ?" for c in table.columns)
                conn.executemany(
                    f"UPDATE {name} SET {sets} WHERE rowid = ?", [(*v, located[r]) for r, v in change.update]
                )
                marks = ", ".join("?" for _ in table.columns)
                conn.executemany(f"INSERT INTO {name} ({_columns(table, quote)}) VALUES ({marks})", change.insert)
    except sqlite3.Error as exc:
        raise Refused(f"SQLite refused the neighbour: {exc}") from None


def _write_duckdb(source: Path, target: Path, w: Working) -> None:
    """A fresh DuckDB file holding the neighbour: each table made from the graded file's (attached read-only) less
    the rows deleted or rewritten, then those rewritten and added. DuckDB checks a foreign key row by row and an
    UPDATE of a keyed row as a delete and an insert, so editing a copy in place refuses neighbours that keep every
    constraint; the tables here hold the graded file's column types and no constraint, and every declared one was
    checked before writing (:mod:`~eval.sql.counterexample.constraints`), the CHECK constraints of the graded file
    against the rows written here."""
    import duckdb

    try:
        conn = duckdb.connect(str(target))
    except duckdb.Error as exc:
        raise Refused(f"DuckDB could not make the neighbour: {exc}") from None
    by_table = {c.table: c for c in changes(w)}
    try:
        conn.execute(f"ATTACH {_literal(str(source))} AS base (READ_ONLY)")
        checks = conn.execute(
            "SELECT table_name, expression FROM duckdb_constraints() WHERE database_name = 'base' "
            "AND constraint_type = 'CHECK'"
        ).fetchall()
        for name, table in w.schema.tables.items():
            change = by_table.get(name)
            quoted = quote(name)
            if change is None:
                conn.execute(f"CREATE TABLE {quoted} AS SELECT * FROM base.{quoted}")
                continue
            located = w.base.locators.get(name) or {}
            gone = [located[r] for r in change.delete] + [located[r] for r, _ in change.update]
            conn.execute(
                f"CREATE TABLE {quoted} AS SELECT * FROM base.{quoted} WHERE rowid NOT IN (SELECT unnest(?))",
                [gone or [-1]],
            )
            rows = [v for _, v in change.update] + list(change.insert)
            if rows:  # one statement: the rows as a list of structs (executemany is a statement a row)
                fields = [f"c{i}" for i in range(len(table.columns))]
                structs = [dict(zip(fields, values, strict=True)) for values in rows]
                conn.execute(
                    f"INSERT INTO {quoted} ({_columns(table, quote)}) SELECT {', '.join(fields)} "
                    "FROM (SELECT UNNEST(?, recursive := true))",
                    [structs],
                )
        conn.execute("DETACH base")
        for name, expression in checks:
            broken = conn.execute(f"SELECT COUNT(*) FROM {quote(name)} WHERE NOT ({expression})").fetchone()
            if broken and broken[0]:
                raise Refused(f"DuckDB: {name} breaks CHECK {expression}")
        conn.execute("CHECKPOINT")
    except (duckdb.Error, KeyError) as exc:
        raise Refused(f"DuckDB refused the neighbour: {exc}") from None
    finally:
        conn.close()


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class PostgresWriter:
    """PostgreSQL: a schema per neighbour in the graded database, made by ``owner_url``'s role; the neighbour is
    read as ``reader`` (role, URL), or as the owner when there is none."""

    reuses_url = False

    def __init__(self, owner_url: str, reader: tuple[str, str] | None) -> None:
        self.owner_url, self.reader = owner_url, reader
        self._engine = sa.create_engine(owner_url)

    def write(self, w: Working) -> str:
        base = w.base.pg_schema or "public"
        schema = f"eval_nb_{secrets.token_hex(4)}"
        q = self._engine.dialect.identifier_preparer.quote
        try:
            with self._engine.begin() as conn:
                conn.exec_driver_sql(f"CREATE SCHEMA {q(schema)}")
                for name in w.schema.tables:
                    conn.exec_driver_sql(f"CREATE TABLE {q(schema)}.{q(name)} (LIKE {q(base)}.{q(name)} INCLUDING ALL)")
                    conn.exec_driver_sql(f"INSERT INTO {q(schema)}.{q(name)} SELECT * FROM {q(base)}.{q(name)}")
                for change in changes(w):
                    _edit_postgres(conn, schema, w, change, q)
                if self.reader is not None:
                    conn.exec_driver_sql(f"GRANT USAGE ON SCHEMA {q(schema)} TO {self.reader[0]}")
                    conn.exec_driver_sql(f"GRANT SELECT ON ALL TABLES IN SCHEMA {q(schema)} TO {self.reader[0]}")
        except sa.exc.DBAPIError as exc:
            self._drop(schema)
            raise Refused(f"PostgreSQL refused the neighbour: {' '.join(str(exc.orig).split())}") from None
        url = sa.engine.make_url(self.reader[1] if self.reader else self.owner_url)
        return url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)

    def discard(self, url: str) -> None:
        options = str(sa.engine.make_url(url).query.get("options") or "")
        if "search_path=eval_nb_" in options:
            self._drop(options.split("search_path=", 1)[1].split()[0])

    def _drop(self, schema: str) -> None:
        with suppress(sa.exc.SQLAlchemyError), self._engine.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    def close(self) -> None:
        self._engine.dispose()


def _edit_postgres(conn: sa.Connection, schema: str, w: Working, change: Change, q: Any) -> None:
    table = w.schema.tables[change.table]
    where_columns = table.key or tuple(range(len(table.columns)))
    base = w.base.rows[change.table]
    match = " AND ".join(f"{q(table.columns[c].name)} IS NOT DISTINCT FROM %s" for c in where_columns)
    target = f"{q(schema)}.{q(change.table)}"
    gone = [tuple(base[r][c] for c in where_columns) for r in change.delete + [r for r, _ in change.update]]
    if gone:  # executemany: psycopg sends them in one pipeline, where a neighbour may drop thousands of rows
        conn.exec_driver_sql(
            f"DELETE FROM {target} WHERE ctid = (SELECT ctid FROM {target} WHERE {match} LIMIT 1)", gone
        )
    marks = ", ".join("%s" for _ in table.columns)
    rows: Sequence[Values] = [v for _, v in change.update] + change.insert
    if rows:
        conn.exec_driver_sql(f"INSERT INTO {target} ({_columns(table, q)}) VALUES ({marks})", [tuple(v) for v in rows])


def rows_of(w: Working) -> Iterator[tuple[Table, list[Values]]]:
    """Every table of the neighbour with its rows, parents first (for the runnable script)."""
    for name, table in w.schema.tables.items():
        yield table, _referenced_first(w, table, list(w.rows(name).values()))
