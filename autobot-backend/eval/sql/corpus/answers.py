"""Recorded answers (``--answers FILE``): grade any system's output without running it.

JSON Lines, one answer per question::

    {"id": "rtl-scalar-001", "sql": "SELECT COUNT(*) FROM customers"}
    {"id": "rtl-scalar-002", "refused": true, "reason": "the schema has no delivery times"}

Optional keys: ``reason`` (with a refusal) and ``model`` (the system that answered; every line
that gives one must give the same). Blank lines are skipped. A question with no line is
``unmeasured`` with reason ``no answer recorded``: a missing line is neither a pass nor a correct
refusal. Any malformed line fails the whole file, naming
the file, the line, the id and what to do: a half-read answers file would grade a different
system from the one that was run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eval.core.errors import HarnessError
from eval.core.jsonl import json_lines
from services.generation.protocol import Generation

_ALLOWED = frozenset({"id", "sql", "refused", "reason", "model"})


class AnswersError(HarnessError):
    """The answers file cannot be used as it is."""


@dataclass(frozen=True)
class RecordedAnswers:
    answers: dict[str, Generation]
    """Question id -> the recorded SQL or refusal."""
    model: str | None
    path: Path


def load_answers(path: Path) -> RecordedAnswers:
    path = Path(path)
    lines = json_lines(
        path,
        AnswersError,
        missing="answers file not found; pass --answers with a JSON Lines file of "
        '{"id": ..., "sql": ...} or {"id": ..., "refused": true, "reason": ...}',
        unreadable="cannot read answers file",
    )
    answers: dict[str, Generation] = {}
    models: set[str] = set()
    problems: list[str] = []
    for line in lines:
        where, item = line.where, line.value
        if line.error is not None:
            problems.append(f"{where}: not valid JSON ({line.error.msg}); each line must be one JSON object")
            continue
        if not isinstance(item, dict):
            problems.append(f"{where}: each line must be a JSON object, got {type(item).__name__}")
            continue
        qid = item.get("id")
        if not isinstance(qid, str) or not qid.strip():
            problems.append(f'{where}: missing or empty "id"')
            continue
        where = f"{where} (id {qid})"
        unknown = sorted(set(item) - _ALLOWED)
        if unknown:
            problems.append(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_ALLOWED))}")
            continue
        if qid in answers:
            problems.append(f"{where}: second answer for the same id; keep one line per question")
            continue
        sql, refused, reason = item.get("sql"), item.get("refused", False), item.get("reason")
        if not isinstance(refused, bool):
            problems.append(f'{where}: "refused" must be true or false')
            continue
        if reason is not None and not isinstance(reason, str):
            problems.append(f'{where}: "reason" must be a string')
            continue
        if refused and sql is not None:
            problems.append(f'{where}: a line carries either "sql" or "refused": true, not both')
            continue
        if refused:
            answers[qid] = Generation.refuse(reason or "declined (no reason recorded)")
        elif isinstance(sql, str) and sql.strip():
            answers[qid] = Generation(sql=sql)
        else:
            problems.append(f'{where}: needs a non-empty "sql" string, or "refused": true')
            continue
        model = item.get("model")
        if model is not None:
            if not isinstance(model, str) or not model.strip():
                problems.append(f'{where}: "model" must be a non-empty string')
                continue
            models.add(model)
    if len(models) > 1:
        problems.append(
            f"{path}: lines name different models ({', '.join(sorted(models))}); one answers file grades one system"
        )
    if not answers and not problems:
        raise AnswersError(
            f"{path}: no answers (the file is empty): nothing could be graded; record one JSON line per question, "
            '{"id": ..., "sql": ...} or {"id": ..., "refused": true}'
        )
    if problems:
        shown = problems[:20] + ([f"... and {len(problems) - 20} more"] if len(problems) > 20 else [])
        raise AnswersError("malformed answers file:\n  " + "\n  ".join(shown))
    return RecordedAnswers(answers, next(iter(models)) if models else None, path)
