"""Read-only SQL, the one public way in: the guard, then the read-only executor, with typed outcomes.

:class:`ReadOnlySQL` is what the NL database service runs every statement through, and what
anything else that needs to run SQL read-only uses (the eval's grader and self-check): it keeps
one :class:`~services.readonly.executor.ReadOnlyExecutor` per database URL, checks each statement
with :func:`~services.readonly.guard.validate_readonly_sql` for that database's dialect, runs it, and
returns an :class:`Execution`. It never raises for a statement that cannot run: the outcome
says why, as one :class:`ErrorKind`.

::

    ErrorKind                 what it means (every kind the service can report)
     ├── bad_request          the request itself is unusable (empty question, bad db_url)
     ├── config               a URL, driver or setting that cannot work
     ├── db_unreachable       the database could not be opened or its schema read
     ├── generator_unavailable  the generator could not be asked (endpoint down, timeout)
     ├── generator_error      the generator crashed or returned no Generation: no SQL came back
     ├── refused              the generator declined (status ``refused``, not ``error``)
     ├── guard_blocked        not a single read-only statement: it was not run
     ├── database             the database rejected the SQL (unknown column, type error, ...)
     ├── timeout              the statement ran past the time limit and was stopped
     ├── row_cap              more rows than the cap: a truncated answer is not returned
     └── internal             the service itself failed (a bug): nothing is known about the SQL
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any

from services.readonly.executor import MAX_RESULT_BYTES, ExecutionError, ReadOnlyExecutor
from services.readonly.guard import MAX_SQL_BYTES, too_long, validate_readonly_sql
from services.readonly.inspection import SAMPLING_S, UniqueKeys, inspect_read_only, unique_keys
from services.readonly.limits import ROW_CAP, reference_row_cap
from services.readonly.result_cache import ResultCache
from services.redaction import redact_url
from services.schema_context import SchemaContext

__all__ = ["ErrorKind", "Execution", "ReadOnlySQL", "Row", "redact_url"]

log = logging.getLogger(__name__)

Row = tuple[Any, ...]


class ErrorKind(StrEnum):
    """Why a request produced no rows. The values are the ``error_kind`` strings of responses."""

    BAD_REQUEST = "bad_request"
    """The question (or db_url) given is not usable: empty, not a string, too long."""
    CONFIG = "config"
    """A URL or driver that cannot be used, or a generator configuration error."""
    DB_UNREACHABLE = "db_unreachable"
    """The database could not be opened or its schema read (missing file, server down)."""
    GENERATOR_UNAVAILABLE = "generator_unavailable"
    """The generator could not be asked (endpoint down, timeout, bad reply envelope)."""
    GENERATOR_ERROR = "generator_error"
    """The generator crashed or returned something that is not a Generation: no SQL came back."""
    REFUSED = "refused"
    """The generator declined to answer (the response's status is ``refused``, not ``error``)."""
    GUARD_BLOCKED = "guard_blocked"
    """The SQL is not a single read-only statement; it was not run."""
    DATABASE = "database"
    """The database rejected the SQL (unknown column, type error, ...)."""
    TIMEOUT = "timeout"
    """The statement ran past the time limit and was stopped."""
    ROW_CAP = "row_cap"
    """The statement returned more rows than the cap; a truncated answer is not returned."""
    INTERNAL = "internal"
    """The service itself failed (a bug in it, logged with its traceback): no verdict on the SQL."""


# ExecutionError kinds of the executor, by where they happen.
_OPEN_KINDS = {"config": ErrorKind.CONFIG}
_RUN_KINDS = {
    "timeout": ErrorKind.TIMEOUT,
    "row_cap": ErrorKind.ROW_CAP,
    "database": ErrorKind.DATABASE,
    "config": ErrorKind.CONFIG,
    "connect": ErrorKind.DB_UNREACHABLE,
}


@dataclass(frozen=True)
class Execution:
    """One statement run read-only: its rows, or the kind of failure and why."""

    sql: str
    columns: tuple[str, ...] = ()
    """Column names in order; duplicates kept (``SELECT a.id, b.id`` gives two ``id``)."""
    rows: Sequence[Row] = ()
    """Rows as positional tuples of the driver's Python values."""
    elapsed_ms: float = 0.0
    """Wall time of execution and fetch (0 when it did not run)."""
    error_kind: ErrorKind | None = None
    """``None`` when the statement ran; otherwise why it returned no rows."""
    reason: str | None = None
    """What happened and what to do, when it failed; never holds a URL password."""
    kinds: tuple[frozenset[type], ...] | None = field(default=None, compare=False, repr=False)
    """Each column's types as the fetch read them, or None (a result from elsewhere): the comparison and the lints
    read them instead of every value again."""

    @property
    def ok(self) -> bool:
        return self.error_kind is None

    @classmethod
    def failed(cls, sql: str, kind: ErrorKind, reason: str) -> Execution:
        return cls(sql=sql, error_kind=kind, reason=reason)


class ReadOnlySQL:
    """Guarded, read-only execution over any number of databases, one cached executor per URL.

    Args:
        row_cap: most rows a statement may return; more is ``row_cap``, never a silent truncation.
        timeout_s: time limit of one statement on the database.
        max_sql_bytes: longer SQL is ``guard_blocked`` without being parsed.
        max_result_bytes: a bigger result (or any one value over it) is ``row_cap``, never fetched whole.
        sampling_s: all the value sampling of one database's schema inspection; each query also has
            ``timeout_s``. A sample past either is left out of the schema, which says so.
    """

    def __init__(
        self,
        *,
        row_cap: int = ROW_CAP,
        timeout_s: float = 10.0,
        max_sql_bytes: int = MAX_SQL_BYTES,
        max_result_bytes: int = MAX_RESULT_BYTES,
        sampling_s: float = SAMPLING_S,
        results: ResultCache[Execution] | None = None,
    ) -> None:
        self.row_cap, self.timeout_s, self.sampling_s = row_cap, timeout_s, sampling_s
        self.results = results
        """Statements that ran, by (URL, SQL), reused instead of run again; None (the default): none kept."""
        self.max_sql_bytes, self.max_result_bytes = max_sql_bytes, max_result_bytes
        self._executors: dict[str, ReadOnlyExecutor] = {}
        self._schemas: dict[str, SchemaContext] = {}
        self._bare: dict[str, SchemaContext] = {}
        self._unique: dict[str, UniqueKeys] = {}
        self._lock = threading.Lock()

    def executor(self, url: str) -> ReadOnlyExecutor:
        """The cached executor of ``url``.

        Raises:
            ExecutionError: the URL cannot be used (``config``) or reached (``connect``).
        """
        with self._lock:
            executor = self._executors.get(url)
            if executor is None:
                executor = self._executors[url] = ReadOnlyExecutor(
                    url, row_cap=self.row_cap, timeout_s=self.timeout_s, max_result_bytes=self.max_result_bytes
                )
            return executor

    def is_open(self, url: str) -> bool:
        """Whether ``url``'s executor is open (never opens one)."""
        return url in self._executors

    def dialect(self, url: str) -> str:
        """The sqlglot dialect of ``url``'s engine (``sqlite``, ``postgres``, ...); raises like :meth:`executor`."""
        return self.executor(url).dialect

    def schema(self, url: str) -> SchemaContext:
        """The schema context of ``url``, inspected once and then cached; raises like :meth:`executor`."""
        cached = self._schemas.get(url)
        if cached is None:
            cached = self._schemas[url] = inspect_read_only(self.executor(url), sampling_s=self.sampling_s)
        return cached

    def cached_schema(self, url: str) -> SchemaContext | None:
        """The schema context of ``url`` when it was inspected already, else None; never touches the database."""
        return self._schemas.get(url)

    def structure(self, url: str) -> list[Any]:
        """The schema of ``url`` without its data (:meth:`SchemaContext.structure`), from :meth:`bare_schema`."""
        return self.bare_schema(url).structure()

    def bare_schema(self, url: str) -> SchemaContext:
        """The schema context of ``url`` without sampled values (names, types, keys, comments): the cached full
        context when there is one, else an inspection that samples no values (a fraction of the cost: no
        ``count(DISTINCT ...)`` nor a sorted sample of every text column), kept until :meth:`forget`."""
        cached = self._schemas.get(url) or self._bare.get(url)
        if cached is None:
            cached = self._bare[url] = inspect_read_only(self.executor(url), sample_values=False)
        return cached

    def unique_keys(self, url: str) -> UniqueKeys:
        """``url``'s UNIQUE column sets per table (:func:`~services.readonly.inspection.unique_keys`), read once and
        kept until :meth:`forget`; raises like :meth:`executor`."""
        found = self._unique.get(url)
        if found is None:
            found = self._unique[url] = unique_keys(self.executor(url))
        return found

    def run_readonly(self, sql: str, url: str, *, fresh: bool = False, reference: bool = False) -> Execution:
        """Guard ``sql`` for ``url``'s dialect, then run it read-only. Never raises.

        With a result cache, SQL that ran on ``url`` before is not run again (its execution is returned);
        ``fresh``: a second, independent run, made once per (URL, SQL) and kept apart
        (:mod:`services.readonly.result_cache`). ``reference``: the statement is a reference's (the grader's
        own), whose rows are bounded by the byte budget (:func:`~services.readonly.limits.reference_row_cap`),
        not by the row cap of a model's answer. The cache does not tell the two apart: a result that ran is
        the database's answer either way, and the grader holds every answer to its question's row cap."""
        cached = None if self.results is None else self.results.get(url, sql, second=fresh)
        if cached is not None:
            return cached
        done = self._run_readonly(sql, url, reference)
        if self.results is not None:
            self.results.put(url, sql, done, second=fresh)
        return done

    def _run_readonly(self, sql: str, url: str, reference: bool) -> Execution:
        try:
            try:
                executor = self.executor(url)
            except ExecutionError as exc:
                return Execution.failed(sql, _OPEN_KINDS.get(exc.kind, ErrorKind.DB_UNREACHABLE), exc.message)
            blocked = guard(sql, executor.dialect, self.max_sql_bytes)
            if blocked is not None:
                return Execution.failed(sql, ErrorKind.GUARD_BLOCKED, blocked)
            unsendable = not_text(sql)
            if unsendable is not None:
                return Execution.failed(sql, ErrorKind.DATABASE, unsendable)
            try:
                if reference:
                    result = executor.execute(sql, row_cap=reference_row_cap(self.max_result_bytes))
                else:
                    result = executor.execute(sql)
            except ExecutionError as exc:
                return Execution.failed(sql, _RUN_KINDS.get(exc.kind, ErrorKind.DATABASE), exc.message)
            return Execution(sql, tuple(result.columns), result.rows, result.elapsed_ms, kinds=result.kinds)
        except Exception as exc:  # a bug here is the service's, and says nothing about the SQL
            log.exception("readonly_sql: unexpected failure")
            return Execution.failed(sql, ErrorKind.INTERNAL, f"internal error: {type(exc).__name__}: {exc}")

    def after_fork(self) -> None:
        """In a forked child: let go of the parent's pooled connections without closing them (they are the
        parent's), so the child opens its own. SQLite's files only: a server connection or the DuckDB worker
        must not be used from a fork at all."""
        for executor in self._executors.values():
            executor.engine.dispose(close=False)

    def forget(self, url: str) -> None:
        """Drop the cached executor and schema of one URL (after its schema changed, say)."""
        with self._lock:
            self._schemas.pop(url, None)
            self._bare.pop(url, None)
            self._unique.pop(url, None)
            executor = self._executors.pop(url, None)
        if executor is not None:
            executor.close()

    def close(self) -> None:
        for url in list(self._executors):
            self.forget(url)

    def __enter__(self) -> ReadOnlySQL:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def not_text(sql: str) -> str | None:
    """Why ``sql`` cannot be sent to a database, or None: a lone surrogate (a recorded answer or a model's
    reply can carry one, as ``\\ud800`` in JSON) is not text, and a driver fails on it before the database
    sees it. That is the SQL failing to run (``database``), not the service failing (``internal``)."""
    try:
        sql.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (
            f"The SQL holds {sql[exc.start]!r} at character {exc.start + 1}, a lone surrogate that is not text: "
            "it cannot be sent to the database."
        )
    return None


def guard(sql: str, dialect: str, max_bytes: int = MAX_SQL_BYTES) -> str | None:
    """Why ``sql`` may not run (fail closed: a guard that cannot classify it blocks it), or None.

    SQL over ``max_bytes`` is blocked before anything else, and never kept in the cache.
    """
    longer = too_long(sql, max_bytes) if isinstance(sql, str) else None
    return longer.reason if longer is not None else _guard(sql, dialect, max_bytes)


@lru_cache(maxsize=8192)
def _guard(sql: str, dialect: str, max_bytes: int) -> str | None:
    """Cached per (SQL, dialect): the verdict is a function of the text alone, and a grader runs one
    statement on every rotation (a self-check, twice)."""
    try:
        verdict = validate_readonly_sql(sql, dialect, max_bytes=max_bytes)
    except Exception as exc:
        return f"The read-only guard could not classify the SQL ({type(exc).__name__}: {exc}); it was not run"
    return None if verdict.allowed else verdict.reason
