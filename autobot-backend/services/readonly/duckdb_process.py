"""DuckDB statements run in a worker process (:mod:`services.readonly.duckdb_worker`), bounded from outside.

One worker serves every DuckDB database the process has open, one statement at a time, so all
DuckDB work of a run is under one memory cap, whatever the number of databases: the kernel caps
the worker's data segment at :data:`WORKER_MEMORY_BYTES`, and each database is opened with
:data:`DUCKDB_SETTINGS` (DuckDB's own memory limit and one thread; no temporary directory, so a
statement that would spill fails instead of writing files beside the database). A statement has
its deadline inside the worker (DuckDB's interrupt); if the worker has not answered
:data:`GRACE_S` after it (DuckDB sees an interrupt only between vectors of 2,048 rows), the worker
is killed, the statement is a timeout, and the next statement starts a new worker. The worker
starts with the first DuckDB database opened and stops when the last one is closed.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

__all__ = [
    "DUCKDB_MEMORY_LIMIT",
    "DUCKDB_SETTINGS",
    "GRACE_S",
    "WORKER_MEMORY_BYTES",
    "DuckDBFile",
    "WorkerError",
    "worker_pid",
]

WORKER_MEMORY_BYTES = 1 << 30
"""The worker process's data segment (``RLIMIT_DATA``, 1 GiB): every DuckDB statement of the process fits in it."""
DUCKDB_MEMORY_LIMIT = 512 << 20
"""DuckDB's ``memory_limit`` of each database (512 MiB): sorts, hash tables and buffered results."""
DUCKDB_SETTINGS: dict[str, object] = {
    "memory_limit": f"{DUCKDB_MEMORY_LIMIT >> 20}MiB",
    "threads": 1,  # one core per statement; statements of the process run one at a time anyway
    "async_threads": 1,
    "temp_directory": "",  # nothing spills to disk: no files beside the database, and no disk to fill
}
"""DuckDB settings of every database the worker opens, before its read-only settings."""
GRACE_S = 1.0
"""How long past a statement's deadline the worker may take to answer before it is killed."""
_START_S = 30.0  # a worker that has not started in this long is not going to
_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the services package
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); from services.readonly.duckdb_worker import main; main(sys.argv[2:])"
)


class WorkerError(Exception):
    """A request the worker did not complete; ``kind`` is one of the executor's error kinds."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class _Worker:
    """The one worker process, started on demand and replaced when it had to be killed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.outbox: Connection | None = None
        self.inbox: Connection | None = None
        self.opened: set[str] = set()

    def request(self, message: tuple[Any, ...], wait_s: float) -> tuple[Any, ...]:
        """Send one request and wait up to ``wait_s`` for its reply (the caller holds :attr:`lock`)."""
        self._start()
        assert self.outbox is not None and self.inbox is not None
        try:
            self.outbox.send(message)
            if not self.inbox.poll(wait_s):
                self.stop(kill=True)
                raise WorkerError("timeout", "")
            reply: tuple[Any, ...] = self.inbox.recv()
        except WorkerError:
            raise
        except (EOFError, OSError):
            code = self.stop(kill=True)
            raise WorkerError(
                "database",
                f"the DuckDB worker process ended while running the statement (exit status {code}); "
                "it may have needed more memory than the operating system would give it",
            ) from None
        except BaseException:  # Ctrl-C while waiting: the worker's state is unknown, so it goes
            self.stop(kill=True)
            raise
        if reply[0] == "error":
            raise WorkerError(reply[1], reply[2])
        return reply

    def _start(self) -> None:
        if self.process is not None:
            return
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-c", _BOOT, str(_ROOT), str(to_child_r), str(from_child_w)]
                + [str(WORKER_MEMORY_BYTES)],
                pass_fds=(to_child_r, from_child_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
            )
        except OSError as exc:
            for fd in (to_child_r, to_child_w, from_child_r, from_child_w):
                os.close(fd)
            raise WorkerError("config", f"the DuckDB worker process could not be started: {exc}") from None
        finally:
            if self.process is not None:
                os.close(to_child_r)
                os.close(from_child_w)
        self.outbox = Connection(to_child_w, readable=False)
        self.inbox = Connection(from_child_r, writable=False)
        self.opened = set()
        try:
            ready = self.inbox.recv() if self.inbox.poll(_START_S) else ("error", "config", "it did not start")
        except (EOFError, OSError):
            ready = ("error", "config", "it ended as it started")
        except BaseException:
            self.stop(kill=True)
            raise
        if ready[0] != "ready":
            self.stop(kill=True)
            raise WorkerError("config", f"The DuckDB worker process could not be started: {ready[2]}")

    def stop(self, *, kill: bool) -> int | None:
        """End the worker (closing its input ends it; ``kill`` does not wait for that); its exit status."""
        process, self.process = self.process, None
        for conn in (self.outbox, self.inbox):
            if conn is not None:
                conn.close()
        self.outbox = self.inbox = None
        self.opened = set()
        if process is None:
            return None
        if kill:
            process.kill()
        try:
            return process.wait(timeout=_START_S)
        except subprocess.TimeoutExpired:
            process.kill()
            return process.wait()


_WORKER = _Worker()
_USERS_LOCK = threading.Lock()


def worker_pid() -> int | None:
    """The worker process's id while it runs (for tests and diagnostics)."""
    process = _WORKER.process
    return process.pid if process is not None else None


class DuckDBFile:
    """One DuckDB database file, opened read-only in the worker; :meth:`run` runs a statement on it.

    Raises:
        WorkerError: ``connect`` when the file cannot be opened as a DuckDB database.
    """

    def __init__(self, path: Path, read_only: dict[str, object], *, open_timeout_s: float) -> None:
        self.key = f"{id(self)}:{path}"
        self.path = str(path)
        self.read_only = dict(read_only)
        self.open_timeout_s = open_timeout_s
        with _USERS_LOCK:
            _WORKER.users += 1
        self.closed = False
        try:
            with _WORKER.lock:
                self._ensure_open()
        except BaseException:
            self.close()
            raise

    def _ensure_open(self) -> None:
        if self.key not in _WORKER.opened or _WORKER.process is None:
            message = ("open", self.key, self.path, DUCKDB_SETTINGS, self.read_only)
            _WORKER.request(message, self.open_timeout_s + GRACE_S)
            _WORKER.opened.add(self.key)

    def run(
        self, sql: str, *, timeout_s: float, row_cap: int, max_bytes: int
    ) -> tuple[tuple[str, ...], list[tuple[Any, ...]], float]:
        """Columns, rows and elapsed milliseconds, or :class:`WorkerError`; the deadline holds (kill past it)."""
        with _WORKER.lock:
            self._ensure_open()
            _, columns, rows, elapsed_ms = _WORKER.request(
                ("run", self.key, sql, timeout_s, row_cap, max_bytes), timeout_s + GRACE_S
            )
        return columns, rows, elapsed_ms

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        with _WORKER.lock:
            if self.key in _WORKER.opened and _WORKER.process is not None:
                with contextlib.suppress(WorkerError):
                    _WORKER.request(("close", self.key), _START_S)
                _WORKER.opened.discard(self.key)
            with _USERS_LOCK:
                _WORKER.users -= 1
                last = _WORKER.users == 0
            if last:
                _WORKER.stop(kill=False)
