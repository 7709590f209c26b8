"""Spider's and BIRD's files, read as those projects write them.

* Questions: a JSON list, one object per question, with ``db_id`` and ``question`` (BIRD adds
  ``question_id``, ``evidence`` and ``difficulty``).
* Gold: one line per question, ``SQL<TAB>db_id`` (Spider's ``dev_gold.sql``, BIRD's ``dev.sql``).
* Predictions: Spider, one SQL per line, blank lines skipped (as Spider's evaluator skips them), an
  optional ``<TAB>db_id`` after it; BIRD, a JSON object ``{"0": "SQL\\t----- bird -----\\tdb_id", ...}``
  keyed by the question's position in the questions file.

Every problem names the file, the line or key, the question and what to do; nothing is half-read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from eval.core.errors import HarnessError

Benchmark = Literal["spider", "bird"]
BIRD_SEPARATOR = "\t----- bird -----\t"


class BenchFormatError(HarnessError):
    """A benchmark file that cannot be read as its project writes it."""


@dataclass(frozen=True)
class BenchQuestion:
    index: int
    """Position in the questions file (0-based): how gold lines and predictions are paired with it."""
    id: str
    database: str
    question: str
    gold: str
    difficulty: str | None = None


@dataclass(frozen=True)
class Prediction:
    sql: str | None
    """None: the file has no SQL for the question (graded as no SQL came back)."""
    why: str = ""


def read_questions(benchmark: Benchmark, questions: Path, gold: Path, prefix: str) -> list[BenchQuestion]:
    """The questions file and the gold file, paired line by line and checked to name the same databases."""
    items = _json(questions)
    if not isinstance(items, list) or not items:
        raise BenchFormatError(f"{questions}: expected a non-empty JSON list of questions, as {benchmark} ships it")
    golds = _gold_lines(gold)
    if len(golds) != len(items):
        raise BenchFormatError(
            f"{gold}: {len(golds)} gold line(s), but {questions} has {len(items)} question(s); the gold file has one "
            "'SQL<TAB>db_id' line per question, in the questions file's order"
        )
    width = max(4, len(str(len(items) - 1)))
    out = []
    for i, (item, (lineno, sql, gold_db)) in enumerate(zip(items, golds)):
        where = f"{questions}: question {i}"
        if not isinstance(item, dict):
            raise BenchFormatError(f"{where}: expected a JSON object, found {type(item).__name__}")
        db, text = item.get("db_id"), item.get("question")
        if not isinstance(db, str) or not db.strip():
            raise BenchFormatError(f"{where}: no 'db_id'; every question names its database")
        if not isinstance(text, str) or not text.strip():
            raise BenchFormatError(f"{where}: no 'question' text")
        if gold_db != db:
            raise BenchFormatError(
                f"{gold}:{lineno}: the gold names database {gold_db!r}, question {i} of {questions} names {db!r}; "
                "the two files must list the questions in the same order"
            )
        number = item.get("question_id", i) if benchmark == "bird" else i
        evidence = item.get("evidence") if benchmark == "bird" else None
        if isinstance(evidence, str) and evidence.strip():
            text = f"{text.strip()} (Evidence: {evidence.strip()})"
        difficulty = item.get("difficulty") if benchmark == "bird" else None
        out.append(
            BenchQuestion(
                index=i,
                id=f"{prefix}-{number:0{width}d}" if isinstance(number, int) else f"{prefix}-{number}",
                database=db,
                question=" ".join(text.split()),
                gold=sql,
                difficulty=difficulty if isinstance(difficulty, str) and difficulty.strip() else None,
            )
        )
    return out


def read_predictions(benchmark: Benchmark, path: Path, questions: list[BenchQuestion]) -> dict[str, Prediction]:
    """Question id -> its prediction; a question the file has no entry for is absent."""
    return _spider_predictions(path, questions) if benchmark == "spider" else _bird_predictions(path, questions)


def _spider_predictions(path: Path, questions: list[BenchQuestion]) -> dict[str, Prediction]:
    lines = [(n, line.strip()) for n, line in enumerate(_text(path).splitlines(), 1) if line.strip()]
    if len(lines) != len(questions):
        raise BenchFormatError(
            f"{path}: {len(lines)} prediction(s) (non-blank lines), but there are {len(questions)} question(s); "
            "Spider pairs them by line, so write one SQL per line for every question, in order"
        )
    out = {}
    for (lineno, line), q in zip(lines, questions):
        sql, _, db = line.partition("\t")
        if db.strip() and db.strip() != q.database:
            raise BenchFormatError(
                f"{path}:{lineno}: the prediction names database {db.strip()!r}, question {q.id!r} is on "
                f"{q.database!r}; predictions follow the questions file's order"
            )
        out[q.id] = Prediction(sql.strip())
    return out


def _bird_predictions(path: Path, questions: list[BenchQuestion]) -> dict[str, Prediction]:
    data = _json(path)
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
            out[q.id] = Prediction(None, "the predictions file has no SQL for this question")
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
        out[q.id] = Prediction(sql.strip())
    return out


def _gold_lines(path: Path) -> list[tuple[int, str, str]]:
    out = []
    for lineno, line in enumerate(_text(path).splitlines(), 1):
        if not line.strip():
            continue
        sql, sep, db = line.strip().rpartition("\t")
        if not sep or not sql.strip() or not db.strip():
            raise BenchFormatError(f"{path}:{lineno}: expected 'SQL<TAB>db_id', as Spider's and BIRD's gold files")
        out.append((lineno, sql.strip(), db.strip()))
    return out


def _text(path: Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BenchFormatError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchFormatError(f"{path}: cannot read it ({exc})") from None


def _json(path: Path) -> Any:
    try:
        return json.loads(_text(path))
    except json.JSONDecodeError as exc:
        raise BenchFormatError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
