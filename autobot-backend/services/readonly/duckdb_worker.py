"""The DuckDB worker process: where every DuckDB statement of the service runs, under an OS memory cap.

DuckDB cannot bound a statement's memory itself: its ``memory_limit`` covers the buffer manager (sorts,
hash tables, materialised results) but not the strings a vector of rows holds, and it computes 2,048
rows at a time, so ``SELECT repeat('x', 100000000) FROM range(30)`` builds 3 GB before the first row
can be measured; its interrupt is only seen between vectors. So DuckDB runs here, in a process of its
own whose data segment the kernel caps (``RLIMIT_DATA``): past the cap an allocation fails, DuckDB
raises ``OutOfMemoryException`` and stays usable; and a statement that does not stop at its deadline
is ended by its parent killing this process (:mod:`services.readonly.duckdb_process`).

The protocol is pickled tuples over two pipes: ``("ready",)`` once started, then one reply per request::

    ("open", key, path, settings, read_only)       -> ("ok",) | ("error", kind, message)
    ("run", key, sql, timeout_s, row_cap, max_bytes) -> ("rows", columns, rows, elapsed_ms) | ("error", kind, message)
    ("close", key)                                 -> ("ok",)

Each statement runs in a session of its own (a cursor of the database's connection, closed after it), so
no statement leaves anything a later one sees: DuckDB keeps ``TEMP`` objects, variables, prepared
statements and ``search_path`` per session, and the database's settings are locked. End of input (the
parent closed the pipe, or died) ends the process, and so does a reply the parent is no longer there to read
(a broken pipe after the parent was killed), without a word. Ctrl-C is ignored here: the
terminal sends it to the whole process group, and it is the parent's to act on. Imports: the standard
library, ``duckdb`` and :mod:`services.readonly.budget` only, so the process starts in about 0.3 s.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any, cast

from services.readonly.budget import Overflow, fetch_bounded, memory_message

__all__ = ["main"]


def _set_memory_cap(limit_bytes: int) -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_DATA, (limit_bytes, limit_bytes))
    except (ImportError, AttributeError, ValueError, OSError):  # a platform without it (Windows, some macOS)
        pass  # DuckDB's own memory_limit is then the only bound


def _literal(value: object) -> str:
    """A setting's value as DuckDB SQL."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


class _Worker:
    def __init__(self, memory_cap: int) -> None:
        self.memory_cap = memory_cap
        self.databases: dict[str, Any] = {}

    def handle(self, request: tuple[Any, ...]) -> tuple[Any, ...]:
        op = request[0]
        if op == "open":
            return self.open(*request[1:])
        if op == "run":
            return self.run(*request[1:])
        if op == "close":
            conn = self.databases.pop(request[1], None)
            if conn is not None:
                conn.close()
            return ("ok",)
        return ("error", "config", f"the DuckDB worker does not know the request {op!r}")

    def open(self, key: str, path: str, settings: dict[str, object], read_only: dict[str, object]) -> tuple[Any, ...]:
        import duckdb

        if key in self.databases:
            return ("ok",)
        try:
            # Resource settings at open: DuckDB refuses temp_directory once external access is off.
            conn = duckdb.connect(path, read_only=True, config=cast(Any, dict(settings)))
            # Then the read-only settings, in order (lock_configuration last): no statement can undo any.
            for name, value in read_only.items():
                conn.execute(f"SET {name} = {_literal(value)}")
        except duckdb.Error as exc:
            return ("error", "connect", _message(exc))
        self.databases[key] = conn
        return ("ok",)

    def run(self, key: str, sql: str, timeout_s: float, row_cap: int, max_bytes: int) -> tuple[Any, ...]:
        import duckdb

        database = self.databases.get(key)
        if database is None:
            return ("error", "connect", "the database is not open in the DuckDB worker")
        conn = database.cursor()  # a session of its own, closed after the statement: it leaves nothing behind
        fired: list[bool] = []

        def interrupt() -> None:
            fired.append(True)
            conn.interrupt()

        alarm = threading.Timer(timeout_s, interrupt)
        alarm.daemon = True
        started = time.monotonic()
        alarm.start()
        try:
            cursor = conn.execute(sql)  # runs until its first rows are ready; the rest streams
            columns = tuple(d[0] for d in cursor.description) if cursor.description else ()
            rows = fetch_bounded(cursor.fetchmany, row_cap, max_bytes) if columns else []
        except Overflow as exc:
            return ("error", "row_cap", exc.message)
        except (duckdb.OutOfMemoryException, MemoryError):
            return ("error", "row_cap", memory_message("the DuckDB worker's memory cap", self.memory_cap))
        except duckdb.Error as exc:
            if fired or isinstance(exc, duckdb.InterruptException):
                return ("error", "timeout", "")
            return ("error", "database", _message(exc))
        finally:
            alarm.cancel()
            _close(conn)
        return ("rows", columns, rows, (time.monotonic() - started) * 1000.0)


def _close(session: Any) -> None:
    """End a statement's session: what it made for itself (a ``TEMP`` view, table, sequence or macro that
    would shadow a real table or ``upper()``, a variable, a prepared statement, ``search_path``, an open
    transaction) goes with it; the database's read-only settings are global and stay locked."""
    with contextlib.suppress(Exception):  # a session the statement's failure already closed
        session.close()


def _message(exc: BaseException) -> str:
    return " ".join((str(exc).strip() or type(exc).__name__).split())


def _send(outbox: Connection, reply: tuple[Any, ...], memory_cap: int) -> bool:
    """Send ``reply`` (or why it cannot be sent); False when the parent is gone and the pipe broken."""
    try:
        try:
            outbox.send(reply)
        except MemoryError:
            outbox.send(("error", "row_cap", memory_message("the DuckDB worker's memory cap", memory_cap)))
        except (BrokenPipeError, ConnectionError):
            raise
        except Exception as exc:  # a value pickle cannot carry
            outbox.send(("error", "database", f"the result cannot be returned: {type(exc).__name__}: {exc}"))
    except (BrokenPipeError, ConnectionError, EOFError, OSError):
        return False
    return True


def main(argv: list[str]) -> None:
    """``argv``: the fd to read requests from, the fd to write replies to, the memory cap in bytes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    inbox = Connection(int(argv[0]), writable=False)
    outbox = Connection(int(argv[1]), readable=False)
    memory_cap = int(argv[2])
    _set_memory_cap(memory_cap)
    try:
        import duckdb  # noqa: F401  # loaded now, so the first statement's deadline is not spent on it
    except ImportError:
        outbox.send(("error", "config", "DuckDB is not installed: pip install duckdb duckdb-engine"))
        return
    outbox.send(("ready",))
    worker = _Worker(memory_cap)
    while True:
        try:
            request = inbox.recv()
        except (EOFError, OSError):
            break
        try:
            reply = worker.handle(request)
        except MemoryError:
            reply = ("error", "row_cap", memory_message("the DuckDB worker's memory cap", memory_cap))
        except Exception as exc:  # a bug here: reported, and the process goes on serving
            reply = ("error", "database", f"the DuckDB worker failed: {type(exc).__name__}: {_message(exc)}")
        if not _send(outbox, reply, memory_cap):
            break  # the parent is gone (killed, even with SIGKILL): nobody to answer, nothing to print
        del reply  # a result is not kept while the worker waits for the next request


if __name__ == "__main__":  # pragma: no cover - started by services.readonly.duckdb_process
    main(sys.argv[1:])
