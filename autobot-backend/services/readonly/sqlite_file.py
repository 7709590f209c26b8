"""A SQLite file opened so that nothing can write it, grow it, or leave files beside it.

Each connection is opened through a ``file:...?mode=ro`` URI (a missing file is never created) and
hardened before it is used: ``PRAGMA query_only``, no attached databases (``SQLITE_LIMIT_ATTACHED =
0``, which also stops ``VACUUM INTO``), no extension loading, a cap on the size of any one string or
blob (``SQLITE_LIMIT_LENGTH``: ``zeroblob(400000000)`` fails inside SQLite instead of coming back as
400 MB), temporary tables and sorts kept in memory (``PRAGMA temp_store = MEMORY``) under a cap on
all the memory SQLite may use in this process (``PRAGMA hard_heap_limit``, :data:`SQLITE_HEAP_LIMIT`):
a ``DISTINCT`` or sort over large values fails with "out of memory" within seconds, instead of growing
without end in memory or in temporary files), and an authorizer that allows reads only.

A database in WAL mode needs ``-wal`` and ``-shm`` files, and a read-only open creates them when they
are missing. When a WAL database has neither (no writer has it open: everything is in the main file),
each connection opens it ``immutable=1`` instead, which reads the file alone and creates nothing;
connections are then not pooled, so each statement decides afresh and a writer that starts later is
read through its ``-wal`` from the next statement on. When either file exists, a writer is live and
its files are used as they are.
"""

from __future__ import annotations

import heapq
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.pool import NullPool

from services.readonly.guard import SIDE_EFFECT_FUNCTIONS, SQLITE_READ_PRAGMAS, SQLITE_READ_PRAGMAS_WITH_ARGUMENT
from services.readonly.sqlite_memory import memory_uri

__all__ = [
    "SQLITE_HEAP_LIMIT",
    "TOO_BIG",
    "deadline_handler",
    "interrupt_at",
    "is_wal",
    "policy_denials",
    "sqlite_engine",
    "sqlite_memory_engine",
]

TOO_BIG = "string or blob too big"
"""SQLite's message when a value passes ``SQLITE_LIMIT_LENGTH``."""
SQLITE_HEAP_LIMIT = 512 << 20
"""The most memory SQLite may hold in this process, all connections together (512 MiB): page caches of a
few MB each, and the temporary b-trees of sorts and ``DISTINCT``. The limit is SQLite's, and process-wide:
the first read-only connection sets it, and it can only be lowered afterwards."""

_WAL_HEADER_VERSION = 2  # bytes 18 and 19 of the header: 1 rollback journal, 2 WAL


def is_wal(path: Path) -> bool:
    """Whether the file's header says WAL mode (read from the bytes, without opening it as a database)."""
    try:
        with path.open("rb") as fh:
            header = fh.read(20)
    except OSError:
        return False
    return (
        len(header) == 20 and header[:16] == b"SQLite format 3\x00" and header[18] == header[19] == _WAL_HEADER_VERSION
    )


def _uri(path: Path) -> str:
    immutable = is_wal(path) and not any(Path(f"{path}{s}").exists() for s in ("-wal", "-shm"))
    return path.as_uri() + ("?mode=ro&immutable=1" if immutable else "?mode=ro")


def sqlite_engine(path: Path, *, busy_s: float, max_value_bytes: int) -> sa.Engine:
    """An engine whose every connection is read-only and hardened; ``path`` must exist (checked by the caller)."""
    path = path.resolve()

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(_uri(path), uri=True, timeout=busy_s, check_same_thread=False)
        _harden(conn, max_value_bytes)
        return conn

    url = sa.URL.create("sqlite", database=str(path))
    if is_wal(path):
        return sa.create_engine(url, creator=connect, poolclass=NullPool)
    return sa.create_engine(url, creator=connect)


def sqlite_memory_engine(name: str, *, busy_s: float, max_value_bytes: int) -> sa.Engine:
    """An engine over the published in-memory database ``name`` (:mod:`services.readonly.sqlite_memory`), each
    connection opened ``mode=ro`` and hardened as a file's; pooled, so one connection serves statement after
    statement while the writer replaces the contents between them (SQLite sees the change at the next read)."""

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(memory_uri(name, read_only=True), uri=True, timeout=busy_s, check_same_thread=False)
        _harden(conn, max_value_bytes)
        return conn

    return sa.create_engine(sa.URL.create("sqlite", database=name), creator=connect)


def _harden(conn: sqlite3.Connection, max_value_bytes: int) -> None:
    conn.execute("PRAGMA query_only = ON")  # before the authorizer, which forbids setting pragmas
    if hasattr(conn, "enable_load_extension"):
        conn.enable_load_extension(False)
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max(1, min(max_value_bytes, 1_000_000_000)))
    conn.execute("PRAGMA temp_store = MEMORY")  # no temporary file: the heap limit bounds it
    conn.execute(f"PRAGMA hard_heap_limit = {SQLITE_HEAP_LIMIT}")  # lowers the limit only, never raises it
    if hasattr(conn, "setconfig"):  # Python 3.12+
        conn.setconfig(sqlite3.SQLITE_DBCONFIG_DEFENSIVE, True)  # type: ignore[attr-defined,unused-ignore]
        conn.setconfig(sqlite3.SQLITE_DBCONFIG_TRUSTED_SCHEMA, False)  # type: ignore[attr-defined,unused-ignore]
    conn.set_authorizer(_authorizer)


_READ_ACTIONS = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE})
# SQLite reports the first use of an eponymous virtual table on a connection (a read such as
# ``SELECT * FROM pragma_table_info('t')``) as an UPDATE of the schema table's columns. A real
# UPDATE of the schema table is still refused by SQLite itself (writable_schema is off, and
# setting it is a denied PRAGMA), by query_only and by the read-only open.
_SCHEMA_TABLES = frozenset({"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"})


_decided = threading.local()
"""Per thread (a statement is prepared on the thread that runs it): how many times the authorizer denied."""


def policy_denials() -> int:
    """How many actions the authorizer has denied on this thread. A statement that fails "not authorized"
    while this count stood still was not denied by the policy: an exception inside the authorizer (a Ctrl-C
    arriving there, which ``sqlite3`` swallows, failing the statement as denied) was."""
    return getattr(_decided, "denials", 0)


def _authorizer(action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None) -> int:
    """Allow reads only: everything not positively a read is denied (and counted, :func:`policy_denials`)."""
    if action in _READ_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_UPDATE and (arg1 or "").lower() in _SCHEMA_TABLES:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() not in SIDE_EFFECT_FUNCTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA:
        name = (arg1 or "").lower()
        if name in SQLITE_READ_PRAGMAS_WITH_ARGUMENT or (name in SQLITE_READ_PRAGMAS and arg2 is None):
            return sqlite3.SQLITE_OK
    _decided.denials = policy_denials() + 1
    return sqlite3.SQLITE_DENY


def deadline_handler(deadline: Callable[[], float], fired: list[bool]) -> Callable[[], int]:
    """A progress handler that interrupts the statement past ``deadline()`` and records that it did.

    Python's ``sqlite3`` swallows an exception raised in the handler (a Ctrl-C arriving there), and the
    statement fails as "interrupted": with ``fired`` empty, that is how the executor tells one from the other.
    """

    def handler() -> int:
        if time.monotonic() > deadline():
            fired.append(True)
            return 1  # non-zero interrupts the statement
        return 0

    return handler


def interrupt_at(limit_s: float, fired: list[bool], conn: sqlite3.Connection) -> Alarm:
    """Interrupt the statement at its deadline from another thread.

    SQLite calls the progress handler every so many VM instructions, and one instruction can take
    long (inserting a 40 MB key into a temporary b-tree): ``sqlite3_interrupt`` is also seen between
    the steps of a loop, so a statement stops within one of them after its deadline. One watchdog
    thread per process keeps every statement's deadline (a thread started per statement cost more than
    most statements here); ``cancel()`` the alarm when the statement ends.
    """

    def fire() -> None:
        fired.append(True)
        conn.interrupt()

    return _watchdog().schedule(time.monotonic() + limit_s, fire)


class Alarm:
    """A deadline kept by the watchdog: :meth:`cancel` it when the statement ends in time."""

    def __init__(self, fire: Callable[[], None]) -> None:
        self.fire: Callable[[], None] | None = fire

    def cancel(self) -> None:
        self.fire = None


class _Watchdog:
    """One daemon thread calling each alarm's ``fire`` at its deadline, unless it was cancelled first."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.wake = threading.Condition()
        self.due: list[tuple[float, int, Alarm]] = []
        self.count = 0
        threading.Thread(target=self._loop, name="sqlite-deadlines", daemon=True).start()

    def schedule(self, at: float, fire: Callable[[], None]) -> Alarm:
        alarm = Alarm(fire)
        with self.wake:
            self.count += 1
            heapq.heappush(self.due, (at, self.count, alarm))
            if self.due[0][2] is alarm:
                self.wake.notify()
        return alarm

    def _loop(self) -> None:
        while True:
            with self.wake:
                while self.due and self.due[0][2].fire is None:
                    heapq.heappop(self.due)  # cancelled: the statement ended in time
                if not self.due:
                    self.wake.wait()
                    continue
                at, _, alarm = self.due[0]
                left = at - time.monotonic()
                if left > 0:
                    self.wake.wait(left)
                    continue
                heapq.heappop(self.due)
                fire, alarm.fire = alarm.fire, None
            if fire is not None:
                fire()


_watchdogs: dict[int, _Watchdog] = {}


def _watchdog() -> _Watchdog:
    """This process's watchdog (a forked child starts its own: the parent's thread does not exist there)."""
    found = _watchdogs.get(os.getpid())
    if found is None:
        with _start_lock:
            found = _watchdogs.get(os.getpid())
            if found is None:
                found = _watchdogs[os.getpid()] = _Watchdog()
    return found


_start_lock = threading.Lock()
