"""A small SQL run for the report tests: a corpus of built-in questions (one of them reworded to carry
markup) and an answers file with every kind of outcome, hostile text included."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from eval.sql.corpus.questions import Question, load_corpus

BUILTIN = load_corpus()
ANSWERABLE = [q for q in BUILTIN.questions if q.expect == "answer" and not q.stratum.startswith("control_")]
REFUSE = [q for q in BUILTIN.questions if q.expect == "refuse"]
PICKED: list[Question] = ANSWERABLE[:8] + REFUSE[:3]
MARKUP_QUESTION = "How many [bold red]customers[/] <b>are</b> there & why?"
HOSTILE_SQL = 'SELECT \'<script>document.title="pwned"</script>\' AS "<i>x</i>"'
CONTROL_SQL = "SELECT 1 /* \x1b[31m bell\x07 */ FROM nowhere_at_all"

RIGHT, WRONG, HOSTILE, BROKEN, DECLINED = (q.id for q in PICKED[:5])
ANSWERED = REFUSE[0].id


def write_corpus(path: Path) -> Path:
    questions = []
    for q in PICKED:
        item = {"id": q.id, "question": q.question, "expect": q.expect, "stratum": q.stratum, "fixture": q.fixture}
        if q.expect == "answer":
            item.update(shape=q.shape, ordered=q.ordered, decimals=q.decimals, sql=q.sql, static=q.static)
        questions.append(item)
    questions[1]["question"] = MARKUP_QUESTION  # the wrong one: shown in every report
    path.write_text(yaml.safe_dump({"version": 1, "questions": questions}, sort_keys=False))
    return path


def perfect_answers() -> dict[str, dict]:
    return {q.id: {"id": q.id, "sql": q.sql} if q.expect == "answer" else {"id": q.id, "refused": True} for q in PICKED}


def write_answers(path: Path, *, perfect: bool = False, model: str = "scripted") -> Path:
    """Perfect, or: one right, one wrong number, one hostile, one that fails to run, one declined
    answerable, one missed refusal; the rest right."""
    answers = perfect_answers()
    if not perfect:
        answers[WRONG] = {"id": WRONG, "sql": "SELECT 424242"}
        answers[HOSTILE] = {"id": HOSTILE, "sql": HOSTILE_SQL}
        answers[BROKEN] = {"id": BROKEN, "sql": CONTROL_SQL}
        answers[DECLINED] = {"id": DECLINED, "refused": True, "reason": "not <sure>"}
        answers[ANSWERED] = {"id": ANSWERED, "sql": "SELECT COUNT(*) FROM customers"}
    lines = list(answers.values())
    lines[0] = {**lines[0], "model": model}
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path
