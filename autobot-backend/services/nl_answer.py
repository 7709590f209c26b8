"""What one question to the NL database service comes back as: the typed :class:`Answer`, the
:class:`QueryRecord` its history and audit log keep, and every ``error_kind`` it can carry."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from services.generation.protocol import Generation
from services.readonly.execute import ErrorKind, Execution, Row

Status = Literal["ok", "refused", "error"]
ERROR_KINDS: Mapping[str, str] = {
    ErrorKind.BAD_REQUEST: "the question (or db_url) given is not usable: empty, not a string, too long",
    ErrorKind.CONFIG: "a URL or driver that cannot be used, or a generator configuration error",
    ErrorKind.DB_UNREACHABLE: "the database could not be opened or its schema read (missing file, server down)",
    ErrorKind.GENERATOR_UNAVAILABLE: "the generator could not be asked (endpoint down, timeout, bad reply envelope)",
    ErrorKind.GENERATOR_ERROR: "the generator crashed or returned something that is not a Generation: no SQL came back",
    ErrorKind.GUARD_BLOCKED: "the generated SQL is not a single read-only statement; it was not run",
    ErrorKind.DATABASE: "the database rejected the SQL (unknown column, type error, ...)",
    ErrorKind.TIMEOUT: "the query ran past the time limit and was stopped",
    ErrorKind.ROW_CAP: "the query returned more rows than the cap; a truncated answer is not returned",
    ErrorKind.REFUSED: "the generator declined to answer (status refused, not error)",
    ErrorKind.INTERNAL: "the service itself failed (a bug, logged with its traceback); nothing is known about the "
    "question",
}
"""Every ``error_kind`` a response can carry (each :class:`~services.readonly.execute.ErrorKind`) and its meaning."""


@dataclass(frozen=True)
class QueryRecord:
    """One entry of the history and of the audit log."""

    time: str
    """When the query was received, ISO 8601 in UTC."""
    question: str | None
    db_id: str
    user_id: str | None
    status: Status
    reason: str | None
    """Why it was refused or failed; ``None`` when ok."""
    error_kind: str | None
    """One of :data:`ERROR_KINDS`; ``None`` when ok."""
    sql: str | None
    row_count: int
    elapsed_ms: float
    generator: str
    model: str

    @classmethod
    def of(cls, answer: Answer, max_question_chars: int) -> QueryRecord:
        return cls(
            time=answer.received,
            question=answer.question[:max_question_chars] if answer.question else None,
            db_id=answer.db_id,
            user_id=answer.user_id,
            status=answer.status,
            reason=answer.reason,
            error_kind=None if answer.error_kind is None else answer.error_kind.value,
            sql=answer.sql,
            row_count=answer.row_count,
            elapsed_ms=answer.elapsed_ms,
            generator=answer.generator,
            model=answer.model,
        )


@dataclass(frozen=True)
class Answer:
    """One question's outcome, typed: what :meth:`NLDatabaseService.query` returns as a dict."""

    question: str | None
    """The question as asked (``None`` when it was not a string)."""
    db_id: str
    user_id: str | None
    status: Status
    error_kind: ErrorKind | None
    """``None`` when ok; :attr:`ErrorKind.REFUSED` when the generator declined."""
    reason: str | None
    """Why it was refused or failed, scrubbed of secrets; ``None`` when ok."""
    sql: str | None
    """The SQL the generator produced (also when the guard blocked it or it failed to run)."""
    generator: str
    model: str
    received: str
    """When the question was received, ISO 8601 in UTC."""
    elapsed_ms: float
    """The whole request: schema, generation, guard and execution."""
    generation_ms: float | None = None
    """Time the generator took (``None`` when it was not asked)."""
    execution: Execution | None = None
    """The run of :attr:`sql`: its rows, or why there are none (``None`` when nothing was run)."""
    generation: Generation | None = field(default=None, repr=False)
    """What the generator returned, with its raw output and usage when it reports them."""

    @property
    def columns(self) -> tuple[str, ...]:
        return self.execution.columns if self.execution is not None and self.execution.ok else ()

    @property
    def rows(self) -> list[Row]:
        return list(self.execution.rows) if self.execution is not None and self.execution.ok else []

    @property
    def row_count(self) -> int:
        """``len(rows)``, without copying them (the history and the audit keep only the count)."""
        return len(self.execution.rows) if self.execution is not None and self.execution.ok else 0

    def response(self) -> dict[str, Any]:
        """The response dict of :meth:`NLDatabaseService.query` (spec 12's public shape)."""
        columns, rows = self.columns, self.rows
        out: dict[str, Any] = {
            "question": self.question,
            "sql": self.sql,
            "results": [dict(zip(columns, row)) for row in rows],
            "rows": [list(row) for row in rows],
            "columns": list(columns),
            "row_count": len(rows),
            "db_id": self.db_id,
            "elapsed_ms": self.elapsed_ms,
            "status": self.status,
            "reason": self.reason,
            "error_kind": None if self.error_kind is None else self.error_kind.value,
            "generator": self.generator,
            "model": self.model,
            "user_id": self.user_id,
        }
        if self.status == "error":
            out["error"] = self.reason
        return out
