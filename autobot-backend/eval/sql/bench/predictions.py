"""A benchmark's predictions file, paired with its questions by position, as the benchmarks' evaluators pair them.

* Spider's text file: read as Spider's evaluator reads it (``l.strip().split('\\t')`` of every
  non-blank line, field 0 the SQL). Text after a TAB is never a reason to refuse the file: the evaluator
  grades the text before the first TAB, and so does this import, saying on which lines it did (a line
  ``SQL<TAB>db_id`` naming the question's own database is the usual form and is not reported).
* A CSV file (DIN-SQL's): the column named by ``--predictions-column``, one row per question after the
  header row; a file without that column, or without a header row, is refused naming the columns it has.
* BIRD's JSON object ``{"0": "SQL\\t----- bird -----\\tdb_id", ...}`` keyed by the question's position.

An empty prediction, or a BIRD entry that is not a string (a generation that failed), is recorded as no
SQL (graded ``refused``; both evaluators count it wrong).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from eval.core.jsonl import read_bounded
from eval.sql.bench.formats import BenchFormatError, Benchmark, BenchQuestion, evaluator_lines, read_json

BIRD_SEPARATOR = "\t----- bird -----\t"
NO_SQL = "the predictions file has no SQL for this question"
SHOWN = 10
"""Line numbers or ids listed in a note before "..." (the count is always given)."""


@dataclass(frozen=True)
class Prediction:
    sql: str | None
    """None: the file has no SQL for the question (graded as no SQL came back)."""
    why: str = ""


@dataclass(frozen=True)
class PredictionsRead:
    by_id: dict[str, Prediction]
    """Question id -> its prediction; a question the file has no entry for is absent."""
    notes: list[str] = field(default_factory=list)


def read_predictions(
    benchmark: Benchmark, path: Path, questions: Sequence[BenchQuestion], column: str | None = None
) -> PredictionsRead:
    """The predictions of every question, read in the file's own format (CSV when ``column`` is given)."""
    if column is not None:
        return _csv_predictions(path, questions, column)
    if path.suffix.lower() == ".csv":
        header = _csv_header(path)
        raise BenchFormatError(
            f"{path}: a CSV file; name the column that holds the SQL with --predictions-column (its columns: "
            f"{_names(header)})"
        )
    return _spider_predictions(path, questions) if benchmark == "spider" else _bird_predictions(path, questions)


def _spider_predictions(path: Path, questions: Sequence[BenchQuestion]) -> PredictionsRead:
    lines = evaluator_lines(path)
    if len(lines) != len(questions):
        raise BenchFormatError(
            f"{path}: {len(lines)} prediction(s) (non-blank lines), but there are {len(questions)} question(s); "
            "Spider pairs them by line, so write one SQL per line for every question, in order"
        )
    out, cut = {}, []
    for (lineno, fields), q in zip(lines, questions):
        if len(fields) > 1 and [f.strip() for f in fields[1:]] != [q.database]:
            cut.append(lineno)
        out[q.id] = Prediction(fields[0]) if fields[0].strip() else Prediction(None, NO_SQL)
    notes = []
    if cut:
        notes.append(
            f"{path}: {len(cut)} line(s) hold a TAB followed by something other than the question's database "
            f"({_lines(cut)}); the SQL taken is the text before the first TAB, as Spider's evaluator takes it"
        )
    return PredictionsRead(out, notes)


def _csv_rows(path: Path) -> list[list[str]]:
    """The rows, as the csv module reads them (a quoted cell may hold newlines); a BOM is not a column's name."""
    text = read_bounded(
        path, BenchFormatError, missing="file not found", unreadable="not a CSV file this import can read"
    )
    try:
        return list(csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline="")))
    except csv.Error as exc:
        raise BenchFormatError(f"{path}: not a CSV file this import can read ({exc})") from None


def _csv_header(path: Path) -> list[str]:
    rows = _csv_rows(path)
    return rows[0] if rows else []


def _csv_predictions(path: Path, questions: Sequence[BenchQuestion], column: str) -> PredictionsRead:
    rows = _csv_rows(path)
    header = rows[0] if rows else []
    if column not in header:
        raise BenchFormatError(
            f"{path}: no column {column!r} in the header row (its first row has: {_names(header)}); a CSV of "
            "predictions starts with a header row naming its columns: pass --predictions-column with the one "
            "holding the SQL"
        )
    at = header.index(column)
    body = [(n, row) for n, row in enumerate(rows[1:], 2) if any(cell.strip() for cell in row)]
    if len(body) != len(questions):
        raise BenchFormatError(
            f"{path}: {len(body)} row(s) after the header, but there are {len(questions)} question(s); the rows are "
            "paired with the questions by position, one row per question, in order"
        )
    out = {}
    for (_, row), q in zip(body, questions):
        sql = row[at].strip() if at < len(row) else ""
        out[q.id] = Prediction(sql) if sql else Prediction(None, NO_SQL)
    return PredictionsRead(out, [f"{path}: column {column!r} of {len(body)} row(s), paired by position"])


def _bird_predictions(path: Path, questions: Sequence[BenchQuestion]) -> PredictionsRead:
    data = read_json(path)
    if not isinstance(data, dict):
        raise BenchFormatError(
            f'{path}: expected a JSON object {{"0": "SQL\\t----- bird -----\\tdb_id", ...}}, as BIRD writes it'
        )
    out = {}
    for key, value in data.items():
        if not (isinstance(key, str) and key.isdigit() and int(key) < len(questions)):
            raise BenchFormatError(
                f"{path}: key {key!r} is not the position of a question (0 to {len(questions) - 1}) in the questions "
                "file; BIRD keys predictions by that position"
            )
        q = questions[int(key)]
        if not isinstance(value, str):
            out[q.id] = Prediction(None, NO_SQL)
            continue
        sql, sep, db = value.rpartition(BIRD_SEPARATOR)
        if not sep:
            raise BenchFormatError(
                f"{path}: key {key!r} (question {q.id!r}): expected 'SQL\\t----- bird -----\\tdb_id', found no "
                "'----- bird -----' separator"
            )
        if db.strip() != q.database:
            raise BenchFormatError(
                f"{path}: key {key!r}: the prediction names database {db.strip()!r}, question {q.id!r} is on "
                f"{q.database!r}"
            )
        out[q.id] = Prediction(sql.strip()) if sql.strip() else Prediction(None, NO_SQL)
    return PredictionsRead(out)


def _names(header: list[str]) -> str:
    return ", ".join(repr(h) for h in header[:20]) + (" ..." if len(header) > 20 else "") if header else "none"


def _lines(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:SHOWN])
    return f"line{'s' if len(numbers) > 1 else ''} {shown}{' ...' if len(numbers) > SHOWN else ''}"
