"""Plain helpers the SQL run's command-line tests share: the built-in corpus, a perfect system's answers file,
and ``python -m eval.run --suite sql`` called in process."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from eval.run import main
from eval.sql.corpus.questions import load_corpus

BUILTIN = load_corpus()
ANSWERABLE = [q for q in BUILTIN.questions if q.expect == "answer"]


def write_answers(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def reference_answers(model: str | None = "scripted-1", skip: set[str] = frozenset()) -> list[dict]:
    """A perfect system's answers file: every answerable question's reference, every must-refuse case declined."""
    lines = [
        {"id": q.id, "sql": q.sql} if q.expect == "answer" else {"id": q.id, "refused": True}
        for q in BUILTIN.questions
        if q.id not in skip
    ]
    if model:
        lines[0]["model"] = model
    return lines


def sql(*args: str) -> int:
    return main(["--suite", "sql", *args])


def recorded(answers: Path, *args: str) -> int:
    return sql("--candidate", "recorded", "--answers", str(answers), "--baseline-dir", "baselines", *args)


def _user_corpus(path: Path, questions: list[dict]) -> Path:
    path.write_text(yaml.safe_dump({"version": 1, "questions": questions}, sort_keys=False))
    return path
