"""What the read-only executor returns, and how it fails: :class:`QueryResult` and :class:`ExecutionError`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["EXECUTION_ERROR_KINDS", "ExecutionError", "QueryResult"]

EXECUTION_ERROR_KINDS: dict[str, str] = {
    "timeout": "the statement ran past the time limit and was stopped",
    "row_cap": "the statement returned more rows than the row cap or more bytes than the result budget, or needed "
    "more memory than its engine's cap",
    "database": "the database rejected or failed the statement (syntax, unknown column, not authorized...)",
    "connect": "the database could not be reached or opened (missing SQLite file, server down, bad login)",
    "config": "the URL or the settings cannot work (unparseable URL, unknown or missing driver, bad limits, "
    "an engine that cannot be made read-only)",
}
"""Every ``ExecutionError.kind``, with what it means."""


class ExecutionError(Exception):
    """A statement could not be run or its result could not be returned in full."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        """One of :data:`EXECUTION_ERROR_KINDS`."""
        self.message = message
        """What happened and what to do; never holds a password or other secret from the URL."""


@dataclass(frozen=True)
class QueryResult:
    columns: tuple[str, ...]
    """Column names in order; duplicates are kept (``SELECT a.id, b.id`` gives two ``id``)."""
    rows: list[tuple[Any, ...]]
    """Rows as positional tuples of the driver's Python values."""
    elapsed_ms: float
    """Wall time of execution and fetch."""
    kinds: tuple[frozenset[type], ...] | None = None
    """Each column's types as the fetch read them (a column of text alone: ``str``); None when not read."""
