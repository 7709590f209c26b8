"""A small SQL run for the report tests: a corpus of built-in questions (one of them reworded to carry
markup) and an answers file with every kind of outcome, hostile text included."""

from __future__ import annotations

import json
import sqlite3
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


# --- two databases of the user's own (``database:`` questions, ``--db-dir``), with difficulty labels --------

DATABASES = {
    "concert_singer": [
        "CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER)",
        "INSERT INTO singer VALUES (1, 'Joe Sharp', 'Netherlands', 52), (2, 'Timbaland', 'United States', 32),"
        " (3, 'Justin Brown', 'France', 29), (4, 'Rose White', 'France', 41), (5, 'John Nizinik', 'France', 52)",
    ],
    "pets_1": [
        "CREATE TABLE pets (pet_id INTEGER PRIMARY KEY, pet_type TEXT, weight REAL)",
        "INSERT INTO pets VALUES (1, 'cat', 12.0), (2, 'dog', 13.4), (3, 'dog', 10.0), (4, 'cat', 9.3)",
    ],
}
# (id, database, difficulty, question, reference, the recorded answer: SQL, or None to decline)
DB_QUESTIONS = [
    ("db-singers", "concert_singer", "simple", "How many singers do we have?", "SELECT count(*) FROM singer",
     "SELECT count(*) FROM singer"),
    ("db-france-age", "concert_singer", "moderate", "What is the average age of singers from France?",
     "SELECT AVG(age) FROM singer WHERE country = 'France'", "SELECT SUM(age) FROM singer WHERE country = 'France'"),
    ("db-dogs", "pets_1", "simple", "How many dogs are there?", "SELECT count(*) FROM pets WHERE pet_type = 'dog'",
     None),
    ("db-pets", "pets_1", "moderate", "How many pets are there?", "SELECT count(*) FROM pets",
     "SELECT count(*) FROM pets"),
    # The reference returns nothing: an oracle defect, so the question is unmeasured and the run goes on.
    ("db-heavy", "pets_1", "challenging", "Which pets weigh over 100?", "SELECT pet_id FROM pets WHERE weight > 100",
     "SELECT 1"),
]  # fmt: skip


def build_databases(root: Path) -> Path:
    """``root/NAME/NAME.sqlite`` for each of :data:`DATABASES` (a benchmark's layout, for ``--db-dir``)."""
    for name, statements in DATABASES.items():
        (root / name).mkdir(parents=True)
        db = sqlite3.connect(root / name / f"{name}.sqlite")
        for statement in statements:
            db.execute(statement)
        db.commit()
        db.close()
    return root


CONTROL = next(q for q in BUILTIN.questions if q.stratum.startswith("control_") and q.fixture == PICKED[0].fixture)
"""A must-answer control of the refusal battery, answered right."""


def write_mixed_corpus(path: Path) -> Path:
    """:data:`PICKED` and :data:`CONTROL` on the built-in fixtures, then :data:`DB_QUESTIONS` on the two
    databases."""
    write_corpus(path)
    data = yaml.safe_load(path.read_text())
    c = CONTROL
    data["questions"].append(
        {"id": c.id, "question": c.question, "expect": c.expect, "stratum": c.stratum, "fixture": c.fixture,
         "shape": c.shape, "ordered": c.ordered, "decimals": c.decimals, "sql": c.sql, "static": c.static}
    )  # fmt: skip
    data["questions"] += [
        {"id": qid, "question": text, "database": db, "difficulty": level, "stratum": "bench", "sql": sql}
        for qid, db, level, text, sql, _ in DB_QUESTIONS
    ]
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def write_mixed_answers(path: Path, *, perfect: bool = False, model: str = "scripted") -> Path:
    """:func:`write_answers`, then the database questions' answers (perfect: each its reference)."""
    write_answers(path, perfect=perfect, model=model)
    extra = [{"id": CONTROL.id, "sql": CONTROL.sql}]
    extra += [
        {"id": qid, "sql": sql}
        if perfect
        else ({"id": qid, "sql": answer} if answer is not None else {"id": qid, "refused": True, "reason": "unsure"})
        for qid, _, _, _, sql, answer in DB_QUESTIONS
    ]
    with path.open("a") as fh:
        fh.write("".join(json.dumps(x) + "\n" for x in extra))
    return path
