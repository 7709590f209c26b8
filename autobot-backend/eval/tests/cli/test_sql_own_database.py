"""``python -m eval.run --suite sql`` over a user's own database and corpus: graded with oracle defects flagged,
a broken reference over the built-in fixtures graded apart. Answers are scripted, nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import sqlalchemy as sa

from eval.tests.cli._helpers import _user_corpus, sql, write_answers


def _user_db(path: Path) -> str:
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as c:
        c.exec_driver_sql("CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, year INTEGER)")
        c.exec_driver_sql("INSERT INTO books VALUES (1, 'Dune', 1965), (2, 'Emma', 1815), (3, 'Ulysses', 1922)")
    engine.dispose()
    return f"sqlite:///{path}"


def test_db_url_grades_a_users_own_database_and_flags_oracle_defects(work):
    url = _user_db(work / "books.db")
    corpus = _user_corpus(
        work / "mine.yaml",
        [
            {
                "id": "b1",
                "question": "How many books are there?",
                "shape": "scalar",
                "sql": "SELECT COUNT(*) FROM books",
            },
            {
                "id": "b2",
                "question": "Which books came out after 2000?",
                "sql": "SELECT title FROM books WHERE year > 2000",
            },
            {"id": "b3", "question": "List the titles.", "sql": "SELECT title FROM books"},
        ],
    )
    answers = write_answers(
        work / "a.jsonl",
        [
            {"id": "b1", "sql": "SELECT COUNT(id) AS n FROM books"},
            {"id": "b3", "sql": "SELECT title FROM books WHERE year < 1900"},
        ],
    )
    assert (
        sql(
            "--candidate",
            "recorded",
            "--answers",
            str(answers),
            "--model",
            "books-model",
            "--corpus",
            str(corpus),
            "--db-url",
            url,
            "--json",
            "u.json",
        )
        == 0
    )
    data = json.loads((work / "u.json").read_text())
    verdicts = {q["id"]: (q["verdict"], q["reason"]) for q in data["questions"]}
    assert verdicts == {"b1": ("pass", None), "b2": ("unmeasured", "oracle"), "b3": ("wrong", "row_count")}
    assert data["run"]["rotations"] == 1 and data["run"]["seed"] is None
    assert [d["question_id"] for d in data["oracle_defects"]] == ["b2"]
    assert "empty" in data["oracle_defects"][0]["kind"]


def test_user_corpus_over_builtin_fixtures_with_a_broken_reference_is_graded_apart(work):
    corpus = _user_corpus(
        work / "mine.yaml",
        [
            {
                "id": "u1",
                "question": "How many customers do we have?",
                "fixture": "retail",
                "shape": "scalar",
                "sql": "SELECT COUNT(*) FROM customers",
            },
            {"id": "u2", "question": "What is the warehouse count?", "fixture": "retail", "sql": "SELECT nope FROM x"},
        ],
    )
    answers = write_answers(work / "a.jsonl", [{"id": "u1", "sql": "SELECT COUNT(*) FROM customers"}])
    args = ("--candidate", "recorded", "--answers", str(answers), "--model", "m", "--corpus", str(corpus))
    assert sql(*args, "--json", "u.json") == 0
    data = json.loads((work / "u.json").read_text())
    assert {q["id"]: q["verdict"] for q in data["questions"]} == {"u1": "pass", "u2": "unmeasured"}
    assert data["oracle_defects"][0]["kind"].endswith("reference failed to run")
