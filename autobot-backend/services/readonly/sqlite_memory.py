"""A SQLite database held in this process's memory, read through the read-only executor like a file.

Some databases are made by the process that reads them, many times over: the counterexample search writes
thousands of neighbours of a graded database, each read by a few statements and then replaced. Writing each
as a file and opening a new executor on it cost more than the statements. Here a writer publishes a named
database of SQLite's ``memdb`` VFS (``file:/name?vfs=memdb``, shared by every connection of the process that
names it), replaces its contents as often as it likes (SQLite's backup, edits), and the executor reads it
through a connection opened ``mode=ro`` and hardened exactly as a file's is
(:func:`~services.readonly.sqlite_file.sqlite_engine`: ``query_only``, the authorizer, the limits, the
progress handler and the deadline of every statement).

Its URL is ``sqlite:////name?vfs=memdb``. Only a name this process published opens: a URL a user typed that
names anything else is refused as missing, as a missing file is (an unknown memdb name would open empty).
"""

from __future__ import annotations

import sqlite3
import threading

import sqlalchemy as sa

__all__ = ["MEMDB", "is_memory_url", "memory_uri", "publish", "published", "withdraw"]

MEMDB = "memdb"
_published: set[str] = set()
_lock = threading.Lock()


def memory_uri(name: str, *, read_only: bool) -> str:
    """The ``file:`` URI of the published database ``name`` (which starts with ``/``)."""
    return f"file:{name}?vfs={MEMDB}" + ("&mode=ro" if read_only else "")


def publish(name: str) -> tuple[sqlite3.Connection, str]:
    """Create the database ``name`` (a ``/``-rooted name, unique in the process), open for writing; the writing
    connection (which keeps the database alive: close it with :func:`withdraw`) and the URL that reads it."""
    if not name.startswith("/") or "?" in name or "#" in name:
        raise ValueError(f"a memdb name starts with / and holds no ? or #: {name!r}")
    conn = sqlite3.connect(memory_uri(name, read_only=False), uri=True, check_same_thread=False)
    with _lock:
        _published.add(name)
    return conn, sa.URL.create("sqlite", database=name, query={"vfs": MEMDB}).render_as_string()


def withdraw(name: str, conn: sqlite3.Connection) -> None:
    """The database ``name`` no longer readable; ``conn`` (its writer) closed."""
    with _lock:
        _published.discard(name)
    conn.close()


def published(name: str) -> bool:
    with _lock:
        return name in _published


def is_memory_url(parsed: sa.URL) -> bool:
    """Whether ``parsed`` names a memdb database (``sqlite:////name?vfs=memdb``), published or not."""
    return parsed.get_backend_name() == "sqlite" and dict(parsed.query) == {"vfs": MEMDB}
