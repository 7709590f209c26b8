"""The captured-turns file: JSON Lines, one turn a line, read strictly and all-or-nothing.

A turn is what a system saw and said for one question, with no reference answer: the question,
the trajectory of SQL statements (status, error, row count, the first rows), the answer text when
there is one, and the time. ``services.turn_capture`` writes it (the NL service with
``NL_SQL_CAPTURE_DIR``, the SQL suite with ``--export-turns``); the format is documented in
``docs/eval/judge.md``. Every problem names the file, the line and the turn id, and what to fix.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from eval.core.errors import HarnessError
from eval.core.jsonl import json_lines
from services.turn_capture import ROWS_KEPT, STEP_STATUSES, TURN_FORMAT_VERSION

StepStatus = Literal["ok", "error", "blocked"]

_TURN_KEYS = frozenset(
    {"version", "turn_id", "time", "question", "trajectory", "answer", "declined", "failed", "tools", "meta"}
)
_TURN_REQUIRED = ("turn_id", "time", "question", "trajectory")
_STEP_KEYS = frozenset({"sql", "status", "error", "error_kind", "row_count", "columns", "rows"})
MAX_TEXT = 200_000
"""Longest question, answer, statement or reason a turn may carry (characters); longer is a broken capture."""


class TurnsFileError(HarnessError):
    """A captured-turns file that cannot be used; the message names the file, line and turn."""


@dataclass(frozen=True)
class Step:
    """One SQL statement of a turn's trajectory."""

    sql: str
    status: StepStatus
    """``ok`` (it ran), ``error`` (it failed to run), ``blocked`` (the read-only guard stopped it)."""
    error: str | None = None
    """Why it did not run; None when it ran."""
    row_count: int | None = None
    """Rows it returned; None when it did not run."""
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[Any, ...], ...] = ()
    """The first rows the system saw (at most 20), as JSON values."""
    error_kind: str | None = None

    @property
    def returned_rows(self) -> bool:
        return self.status == "ok" and bool(self.row_count)


@dataclass(frozen=True)
class Turn:
    """One captured turn; :meth:`evidence` is exactly what the judge is shown."""

    turn_id: str
    time: str
    question: str
    trajectory: tuple[Step, ...]
    answer: str | None = None
    """The final answer text the user read; None when none was captured (faithfulness is then null)."""
    declined: str | None = None
    """The system chose not to answer, and said why."""
    failed: str | None = None
    """The system could not answer (no statement came back), and why."""
    tools: tuple[str, ...] = ()
    """Non-SQL tools an agent called (names only; their output is not captured)."""
    meta: Mapping[str, Any] = field(default_factory=dict)
    """Anything the capturer kept (source, execution verdict, ...): kept, never shown to the judge."""
    source: str = field(default="", compare=False)
    """``file:line``, for messages."""

    def evidence(self) -> dict[str, Any]:
        """The captured evidence the judge reads: no id, no meta (an execution verdict would give it away)."""
        out: dict[str, Any] = {
            "question": self.question,
            "trajectory": [
                {
                    "sql": s.sql,
                    "status": s.status,
                    "error": s.error,
                    "row_count": s.row_count,
                    "columns": list(s.columns),
                    "rows": [list(r) for r in s.rows],
                }
                for s in self.trajectory
            ],
            "answer": self.answer,
        }
        if self.declined is not None:
            out["declined"] = self.declined
        if self.failed is not None:
            out["failed"] = self.failed
        if self.tools:
            out["tools"] = list(self.tools)
        return out

    def to_json(self) -> dict[str, Any]:
        """The turn as a line of the file (round-trips through :func:`parse_turn`)."""
        out: dict[str, Any] = {"version": TURN_FORMAT_VERSION, "turn_id": self.turn_id, "time": self.time}
        out |= self.evidence()
        out.setdefault("declined", None)
        out.setdefault("failed", None)
        if self.trajectory:
            for step, raw in zip(self.trajectory, out["trajectory"]):
                if step.error_kind is not None:
                    raw["error_kind"] = step.error_kind
        if self.meta:
            out["meta"] = dict(self.meta)
        return out

    def digest(self) -> str:
        """SHA-256 of the evidence: a stored score belongs to this exact turn only."""
        return hashlib.sha256(json.dumps(self.evidence(), sort_keys=True).encode()).hexdigest()


def _text(value: object, what: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip():
        kind = "a non-empty string" + (" or null" if optional else "")
        raise ValueError(f"{what} must be {kind}, got {_shown(value)}")
    if len(value) > MAX_TEXT:
        raise ValueError(f"{what} is {len(value):,} characters long; at most {MAX_TEXT:,}")
    return value


def _shown(value: object) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _count(value: object, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a whole number of rows or null, got {_shown(value)}")
    return value


def _step(raw: object, i: int) -> Step:
    where = f"trajectory[{i}]"
    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be an object with sql and status, got {_shown(raw)}")
    unknown = sorted(set(raw) - _STEP_KEYS)
    if unknown:
        raise ValueError(f"{where} has unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_STEP_KEYS))}")
    sql = _text(raw.get("sql"), f"{where}.sql")
    status = raw.get("status")
    if status not in STEP_STATUSES:
        raise ValueError(f"{where}.status must be one of {', '.join(STEP_STATUSES)}, got {_shown(status)}")
    error = _text(raw.get("error"), f"{where}.error", optional=True)
    row_count = _count(raw.get("row_count"), f"{where}.row_count")
    columns, rows = raw.get("columns", []), raw.get("rows", [])
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise ValueError(f"{where}.columns must be a list of column names")
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise ValueError(f"{where}.rows must be a list of rows, each a list of values")
    if len(rows) > ROWS_KEPT:
        raise ValueError(f"{where}.rows keeps {len(rows)} rows; a turn keeps the first {ROWS_KEPT}")
    if status == "ok":
        if error is not None:
            raise ValueError(f"{where} ran (status ok) but has an error; use status error, or drop the error")
        if row_count is None or row_count < len(rows):
            raise ValueError(f"{where}.row_count must be the number of rows returned (at least the rows kept)")
    else:
        if error is None:
            raise ValueError(f"{where} did not run (status {status}): say why in error")
        if rows or row_count:
            raise ValueError(f"{where} did not run (status {status}) but carries rows")
    kind = raw.get("error_kind")
    if kind is not None and not isinstance(kind, str):
        raise ValueError(f"{where}.error_kind must be a string or null")
    return Step(sql or "", status, error, row_count, tuple(columns), tuple(tuple(r) for r in rows), kind)


def parse_turn(data: object, source: str = "<turn>") -> Turn:
    """One turn from its JSON object; a :class:`TurnsFileError` names ``source`` and the turn id."""
    if not isinstance(data, dict):
        raise TurnsFileError(f"{source}: a turn must be a JSON object, got {_shown(data)}")
    tid = data.get("turn_id")
    where = f"{source}: turn {tid!r}" if isinstance(tid, str) and tid.strip() else source
    try:
        if not isinstance(tid, str) or not tid.strip():
            raise ValueError(f"turn_id must be a non-empty string, got {_shown(tid)}")
        missing = [k for k in _TURN_REQUIRED if k not in data]
        if missing:
            raise ValueError(f"missing required key(s) {', '.join(missing)}")
        unknown = sorted(set(data) - _TURN_KEYS)
        if unknown:
            raise ValueError(f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_TURN_KEYS))}")
        if data.get("version", TURN_FORMAT_VERSION) != TURN_FORMAT_VERSION:
            raise ValueError(f"version {_shown(data.get('version'))} is not {TURN_FORMAT_VERSION}, the one this reads")
        when = _text(data["time"], "time") or ""
        try:
            datetime.fromisoformat(when.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"time must be an ISO 8601 timestamp, got {_shown(when)}") from None
        trajectory = data["trajectory"]
        if not isinstance(trajectory, list):
            raise ValueError("trajectory must be a list of statements (empty when none ran)")
        steps = tuple(_step(s, i) for i, s in enumerate(trajectory))
        tools = data.get("tools") or []
        if not isinstance(tools, list) or not all(isinstance(t, str) and t.strip() for t in tools):
            raise ValueError("tools must be a list of tool names")
        meta = data.get("meta") or {}
        if not isinstance(meta, dict):
            raise ValueError("meta must be an object")
        return Turn(
            turn_id=tid,
            time=when,
            question=_text(data["question"], "question") or "",
            trajectory=steps,
            answer=_text(data.get("answer"), "answer", optional=True),
            declined=_text(data.get("declined"), "declined", optional=True),
            failed=_text(data.get("failed"), "failed", optional=True),
            tools=tuple(tools),
            meta=meta,
            source=source,
        )
    except ValueError as exc:
        raise TurnsFileError(f"{where}: {exc}") from None


def load_turns(path: Path) -> list[Turn]:
    """Every turn of a captured-turns file, in file order; all-or-nothing.

    Raises:
        TurnsFileError: the file cannot be read, a line is not JSON or not a valid turn, two lines share
            a turn id, or there are no turns.
    """
    lines = json_lines(
        path,
        TurnsFileError,
        missing="no such captured-turns file; pass a JSON Lines file with --turns",
        unreadable="cannot read the captured-turns file",
    )
    turns: list[Turn] = []
    seen: dict[str, int] = {}
    for line in lines:
        where, data, n = line.where, line.value, line.number
        if line.error is not None:
            raise TurnsFileError(
                f"{where}: not valid JSON (column {line.error.colno}: {line.error.msg}); "
                "each line must be one turn object"
            )
        turn = parse_turn(data, where)
        if turn.turn_id in seen:
            raise TurnsFileError(
                f"{where}: turn {turn.turn_id!r} is already on line {seen[turn.turn_id]}; turn ids must be unique"
            )
        seen[turn.turn_id] = n
        turns.append(turn)
    if not turns:
        raise TurnsFileError(f"{path}: no turns in the file (one JSON object a line)")
    return turns


def dump_turns(turns: Sequence[Mapping[str, Any]]) -> str:
    """Turn objects as the file's text."""
    return "".join(json.dumps(t, ensure_ascii=False, default=str) + "\n" for t in turns)
