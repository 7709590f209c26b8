"""How the neighbours of a graded database are written: in memory (SQLite), as a file (DuckDB), as a schema of
its own (PostgreSQL), or not at all (a database the run may only read)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa

from eval.sql.counterexample.memory_writer import MemoryWriter
from eval.sql.counterexample.writing import FileWriter, PostgresWriter, Writer


def writer_for(
    url: str, owner_url: str | None = None, reader: tuple[str, str] | None = None
) -> Callable[[Path], Writer] | str:
    """How neighbours of the database at ``url`` are written (a factory given the process's folder), or why they
    cannot be: a SQLite or DuckDB file is copied; a PostgreSQL database needs a role that may create schemas in it
    (``owner_url``: the run's fixtures' owner), which a database of the user's own (``--db-url``) does not give."""
    backend = sa.engine.make_url(url).get_backend_name()
    if backend == "sqlite":
        return MemoryWriter
    if backend == "duckdb":
        return FileWriter
    if backend == "postgresql" and owner_url is not None:
        return lambda _folder: PostgresWriter(owner_url, reader)
    return (
        f"the search writes its neighbours beside the graded database, and on {backend} it may only read "
        "(search the fixtures, or a SQLite or DuckDB copy of the database)"
    )
