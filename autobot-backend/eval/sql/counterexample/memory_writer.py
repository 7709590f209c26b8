"""SQLite neighbours written in memory, one database per process, its contents replaced for each neighbour.

Writing each neighbour as a file (a copy of the graded file, edited on disk) and opening a new read-only executor
on it cost more than judging it. Here the graded file is read into memory once per process (SQLite's backup, into
a database of the ``memdb`` VFS), and each neighbour is that copy's pages backed up into the process's one
neighbour database (:mod:`services.readonly.sqlite_memory`), then edited as a file's copy is
(:func:`~eval.sql.counterexample.writing.edit_sqlite`, the graded copy attached read-only, so a table that loses
most of its rows is refilled with the rows it keeps instead of deleted row by row). The neighbour is the file's
copy page for page where unedited, with the same row ids and values where edited, so its statements read the
same rows. The read-only executor reads it through a connection opened ``mode=ro`` and hardened as a file's
(the authorizer, ``query_only``, the limits, the deadline); it stays open across neighbours, SQLite seeing the
new contents at the next statement.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from pathlib import Path

import sqlalchemy as sa

from eval.sql.counterexample.data import Working
from eval.sql.counterexample.writing import Refused, edit_sqlite
from services.readonly.sqlite_memory import memory_uri, publish, withdraw

MAX_ATTACHED = 8
"""Graded databases attached to the neighbour's connection at once (SQLite allows 10 by default)."""


class MemoryWriter:
    """The process's neighbours of SQLite databases, written at one URL at a time (``workdir`` is not used: nothing
    is written to disk). SQLite backs up one in-memory database into another only when both have the same page
    size (and text encoding): a graded database that differs gets a neighbour database of its own, at a new URL,
    the old one withdrawn (the search then lets its executor go)."""

    reuses_url = True

    def __init__(self, workdir: Path) -> None:
        self._tag = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._made = 0
        self._sources: dict[str, tuple[sqlite3.Connection, str, bool]] = {}
        """Graded URL -> its copy in memory, its name, whether refilling a table from it is safe (no trigger)."""
        self._name, self._conn, self._url = self._publish()
        self._attached: dict[str, str | None] = {}
        """Graded URL -> the schema its copy is attached as to the neighbour database, or None where it cannot be."""

    def _publish(self) -> tuple[str, sqlite3.Connection, str]:
        self._made += 1
        name = f"/eval-neighbour-{self._tag}-{self._made}"
        conn, url = publish(name)
        conn.execute("PRAGMA journal_mode = MEMORY")
        return name, conn, url

    def _renew(self) -> None:
        """A new neighbour database (the old one withdrawn), with no graded copy attached yet."""
        withdraw(self._name, self._conn)
        self._name, self._conn, self._url = self._publish()
        self._attached = {}

    def _source(self, url: str) -> tuple[sqlite3.Connection, str, bool]:
        found = self._sources.get(url)
        if found is not None:
            return found
        name = f"/eval-graded-{self._tag}-{len(self._sources)}"
        copy = sqlite3.connect(memory_uri(name, read_only=False), uri=True, check_same_thread=False)
        path = Path(sa.engine.make_url(url).database or "").resolve()
        reading = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
        try:
            reading.backup(copy)
        finally:
            reading.close()
        # A trigger would fire on a refill's inserts, where deleting row by row fires only its delete triggers.
        triggers = copy.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'").fetchone()[0]
        found = self._sources[url] = (copy, name, not triggers)
        return found

    def _attach(self, url: str, name: str, refillable: bool) -> str | None:
        if url not in self._attached:
            alias = f"graded{len(self._attached)}"
            self._attached[url] = None
            if refillable and len(self._attached) <= MAX_ATTACHED:
                try:  # refused for another text encoding: the neighbour is then edited row by row
                    self._conn.execute(f"ATTACH DATABASE ? AS {alias}", (memory_uri(name, read_only=True),))
                    self._attached[url] = alias
                except sqlite3.Error:
                    pass
        return self._attached[url]

    def write(self, w: Working) -> str:
        copy, name, refillable = self._source(w.base.url)
        try:
            copy.backup(self._conn)
        except sqlite3.Error:  # another page size or encoding than the neighbour database's: a new one
            self._renew()
            try:
                copy.backup(self._conn)
            except sqlite3.Error as exc:
                raise Refused(f"SQLite could not copy the graded database: {exc}") from None
        edit_sqlite(self._conn, w, self._attach(w.base.url, name, refillable))
        return self._url

    def discard(self, url: str) -> None:
        """Nothing: the next neighbour replaces this one."""

    def close(self) -> None:
        withdraw(self._name, self._conn)
        for copy, _, _ in self._sources.values():
            copy.close()
        self._sources.clear()
