"""Captured turns: one question to the service, as one JSON line a judge can read later with no reference.

A turn keeps what the system saw and said, nothing more: the question, each SQL statement with its
status (``ok``, ``error``, or ``blocked`` by the read-only guard), its error, its row count and its
first :data:`ROWS_KEPT` rows, the answer text when there is one, and the time. The format is
documented in ``docs/eval/judge.md``; ``eval.turns.format`` reads it back, strictly.

:class:`TurnCapture` is the service's own writer, switched on by ``NL_SQL_CAPTURE_DIR`` (off by
default). It appends to ``turns-<UTC date>.jsonl`` in that folder and never makes a query fail: a
capture that cannot be written is logged and dropped, because the user's answer matters more than
its record. Captured rows are the user's data: the files are created readable by their owner only.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import logging
import math
import os
import threading
import uuid
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from services.nl_answer import Answer
from services.readonly.execute import ErrorKind, Execution

CAPTURE_DIR_ENV = "NL_SQL_CAPTURE_DIR"
TURN_FORMAT_VERSION = 1
ROWS_KEPT = 20
"""Rows of each statement a turn keeps: enough to check an answer against, small enough to read."""
STEP_STATUSES = ("ok", "error", "blocked")

log = logging.getLogger(__name__)


def jsonable(value: Any) -> Any:
    """A database value as JSON: numbers stay numbers where that loses nothing, everything else is text.

    Example:
        >>> [jsonable(v) for v in (Decimal("410000.37"), dt.date(2024, 3, 31), b"\\x00", float("nan"))]
        [410000.37, '2024-03-31', 'base64:AA==', 'nan']
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Decimal):
        if value.is_finite():
            as_float = float(value)
            if Decimal(repr(as_float)) == value:  # exact: 410000.37 stays a number
                return int(as_float) if value == value.to_integral_value() and abs(as_float) < 2**53 else as_float
        return str(value)
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return "base64:" + base64.b64encode(bytes(value)).decode("ascii")
    return str(value)


def step_from_execution(sql: str, execution: Execution | None, reason: str | None = None) -> dict[str, Any]:
    """One statement of a trajectory. ``execution`` None: the statement never ran (``reason`` says why)."""
    if execution is not None and execution.ok:
        return {
            "sql": sql,
            "status": "ok",
            "error": None,
            "row_count": len(execution.rows),
            "columns": list(execution.columns),
            "rows": [[jsonable(v) for v in row] for row in list(execution.rows)[:ROWS_KEPT]],
        }
    kind = None if execution is None else execution.error_kind
    return {
        "sql": sql,
        "status": "blocked" if kind is ErrorKind.GUARD_BLOCKED else "error",
        "error": (execution.reason if execution is not None else None) or reason or "the statement did not run",
        "error_kind": None if kind is None else kind.value,
        "row_count": None,
        "columns": [],
        "rows": [],
    }


def turn_from_answer(answer: Answer, turn_id: str, meta: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The captured turn of one service answer; None when there was no question to judge.

    The service writes no prose, so ``answer`` is None; a refusal is ``declined`` with its reason, and
    a request that produced no SQL for another reason (the endpoint down, say) is ``failed``.
    """
    if not answer.question or not answer.question.strip():
        return None
    trajectory = [] if answer.sql is None else [step_from_execution(answer.sql, answer.execution, answer.reason)]
    return {
        "version": TURN_FORMAT_VERSION,
        "turn_id": turn_id,
        "time": answer.received,
        "question": answer.question,
        "trajectory": trajectory,
        "answer": None,
        "declined": (answer.reason or "declined") if answer.status == "refused" else None,
        "failed": answer.reason if answer.status == "error" and answer.sql is None else None,
        "meta": {
            "source": "nl_database_service",
            "db_id": answer.db_id,
            "generator": answer.generator,
            "model": answer.model,
            "status": answer.status,
            "error_kind": None if answer.error_kind is None else answer.error_kind.value,
            **dict(meta or {}),
        },
    }


class TurnCapture:
    """Appends the service's turns to ``<directory>/turns-<UTC date>.jsonl``; never raises."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory).expanduser()
        self._lock = threading.Lock()
        self._warned = False

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> TurnCapture | None:
        """The capture ``NL_SQL_CAPTURE_DIR`` asks for; None when it is unset or blank (the default)."""
        raw = ((os.environ if environ is None else environ).get(CAPTURE_DIR_ENV) or "").strip()
        return cls(raw) if raw else None

    def write(self, answer: Answer) -> dict[str, Any] | None:
        """Append ``answer`` as a turn with a fresh id; the turn written, or None (nothing to judge, or failed)."""
        turn = turn_from_answer(answer, uuid.uuid4().hex)
        if turn is None:
            return None
        line = json.dumps(turn, ensure_ascii=False, default=str) + "\n"
        path = self.directory / f"turns-{answer.received[:10]}.jsonl"
        try:
            with self._lock:
                self.directory.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                with os.fdopen(fd, "a", encoding="utf-8") as fh:
                    fh.write(line)
        except OSError as exc:
            if not self._warned:  # once: a full disk must not flood the log on every question
                log.warning("nl_sql: cannot write captured turns to %s (%s); turns are not captured", path, exc)
                self._warned = True
            return None
        return turn
