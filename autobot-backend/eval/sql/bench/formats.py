"""Spider's and BIRD's question and gold files, read as those projects' evaluators read them.

* Questions: a JSON list, one object per question, with ``db_id`` and ``question`` (BIRD adds
  ``question_id``, ``evidence`` and ``difficulty``).
* Gold: one line per question, ``SQL<TAB>db_id`` (Spider's ``dev_gold.sql``, BIRD's ``dev.sql``), read
  as both evaluators read it: the lines Python's ``readlines`` gives (``\\n``, ``\\r\\n`` or ``\\r``),
  blank ones skipped, each stripped and split on TAB into exactly two fields (both evaluators unpack
  exactly two, so a third is refused here rather than crash there).

Predictions are :mod:`eval.sql.bench.predictions`. Every problem names the file, the line or key,
the question and what to do; nothing is half-read.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from eval.core.errors import HarnessError
from eval.core.jsonl import parse_json, read_bounded, text_lines

Benchmark = Literal["spider", "bird"]


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
    ordered: bool | None = None
    """Whether the gold's outermost query orders its rows, where the import has read it (None: not yet)."""


@dataclass(frozen=True)
class QuestionsRead:
    questions: list[BenchQuestion]
    notes: list[str] = field(default_factory=list)
    """What the reading did that a user should know (duplicate ids paired by position)."""


def evaluator_lines(path: Path) -> list[tuple[int, list[str]]]:
    """``(line number, fields)`` of every non-blank line, as Spider's evaluator reads a file:
    ``[l.strip().split('\\t') for l in f.readlines() if len(l.strip()) > 0]``; the file and each line bounded
    (:mod:`eval.core.jsonl`)."""
    lines = text_lines(path, BenchFormatError, missing="file not found", unreadable="cannot read it")
    return [(n, line.strip().split("\t")) for n, line in lines if line.strip()]


def read_questions(benchmark: Benchmark, questions: Path, gold: Path, prefix: str) -> QuestionsRead:
    """The questions file and the gold file, paired line by line and checked to name the same databases."""
    items = read_json(questions)
    if not isinstance(items, list) or not items:
        raise BenchFormatError(f"{questions}: expected a non-empty JSON list of questions, as {benchmark} ships it")
    golds = _gold_lines(gold)
    if len(golds) != len(items):
        raise BenchFormatError(
            f"{gold}: {len(golds)} gold line(s), but {questions} has {len(items)} question(s); the gold file has one "
            "'SQL<TAB>db_id' line per question, in the questions file's order"
        )
    ids = _ids(benchmark, questions, items, prefix)
    out = []
    for i, (item, (lineno, sql, gold_db)) in enumerate(zip(items, golds)):
        where = f"{questions}: question {i}"
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
        evidence = item.get("evidence") if benchmark == "bird" else None
        if isinstance(evidence, str) and evidence.strip():
            text = f"{text.strip()} (Evidence: {evidence.strip()})"
        difficulty = item.get("difficulty") if benchmark == "bird" else None
        out.append(
            BenchQuestion(
                index=i,
                id=ids[i],
                database=db,
                question=" ".join(text.split()),
                gold=sql,
                difficulty=difficulty if isinstance(difficulty, str) and difficulty.strip() else None,
            )
        )
    return QuestionsRead(out, _duplicate_note(benchmark, questions, items, ids))


def _ids(benchmark: Benchmark, path: Path, items: list[Any], prefix: str) -> list[str]:
    """``prefix-NNNN``: Spider's position, BIRD's ``question_id``; a ``question_id`` seen before gets ``-2``,
    ``-3`` ... in file order (BIRD's evaluator pairs by position, so a repeated id is still its own question)."""
    width = max(4, len(str(len(items) - 1)))
    seen: Counter[str] = Counter()
    ids = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise BenchFormatError(f"{path}: question {i}: expected a JSON object, found {type(item).__name__}")
        number = item.get("question_id", i) if benchmark == "bird" else i
        base = f"{prefix}-{number:0{width}d}" if isinstance(number, int) else f"{prefix}-{number}"
        seen[base] += 1
        ids.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    clashes = sorted(i for i, n in Counter(ids).items() if n > 1)
    if clashes:
        raise BenchFormatError(
            f"{path}: question ids {', '.join(clashes[:10])} come out twice (a 'question_id' spelled like another's "
            "repeat); give each question its own 'question_id'"
        )
    return ids


def _duplicate_note(benchmark: Benchmark, path: Path, items: list[Any], ids: list[str]) -> list[str]:
    if benchmark != "bird":
        return []
    counts = Counter(str(item.get("question_id")) for item in items if "question_id" in item)
    repeated = [(qid, n) for qid, n in counts.items() if n > 1]
    if not repeated:
        return []
    renamed = [new for new, item in zip(ids, items) if counts.get(str(item.get("question_id")), 0) > 1]
    shown = ", ".join(f"{qid} ({n} times)" for qid, n in repeated[:10]) + (" ..." if len(repeated) > 10 else "")
    return [
        f"{path}: {len(repeated)} question_id(s) appear more than once: {shown}. Questions, gold lines and "
        "predictions are paired by position, as BIRD's evaluator pairs them; the repeats are told apart by "
        f"position: {', '.join(renamed[:20])}{' ...' if len(renamed) > 20 else ''}"
    ]


def _gold_lines(path: Path) -> list[tuple[int, str, str]]:
    out = []
    for lineno, fields in evaluator_lines(path):
        if len(fields) != 2 or not fields[0].strip() or not fields[1].strip():
            raise BenchFormatError(
                f"{path}:{lineno}: expected 'SQL<TAB>db_id' (two fields split on TAB), found {len(fields)} field(s); "
                "Spider's and BIRD's evaluators read exactly two, so a TAB inside the SQL must be a space"
            )
        out.append((lineno, fields[0].strip(), fields[1].strip()))
    return out


def read_text(path: Path) -> str:
    return read_bounded(path, BenchFormatError, missing="file not found", unreadable="cannot read it")


def read_json(path: Path) -> Any:
    return parse_json(read_text(path), str(path), BenchFormatError, unreadable="not valid JSON")
