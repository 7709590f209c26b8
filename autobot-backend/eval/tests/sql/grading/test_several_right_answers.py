"""Several right answers (issue 24 point 5): a question's ``also:`` alternatives and ``columns:`` rule,
graded end to end on a real SQLite file with a recorded answers file through ``eval.run.main``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from eval.run import main as run_main

LIST = """\
    question: List the customers.
    sql: SELECT id, name FROM customers
    columns: {required: [], optional: [id, name]}
"""
CORPUS = f"""\
version: 1
questions:
  - id: ids
{LIST}  - id: names
{LIST}  - id: both
{LIST}  - id: extra
{LIST}  - id: count
    question: How many customers are there?
    sql: SELECT COUNT(*) FROM customers
    also:
      - SELECT COUNT(*) + 0 FROM customers
      - SELECT COUNT(DISTINCT name) * 10 FROM customers
  - id: plain
    question: List the customers' names.
    sql: SELECT name FROM customers
"""
ANSWERS = {
    "ids": "SELECT id FROM customers",
    "names": "SELECT name FROM customers",
    "both": "SELECT id, name FROM customers",
    "extra": "SELECT id, name, email FROM customers",
    "count": "SELECT COUNT(*) * 10 FROM customers",
    "plain": "SELECT id, name FROM customers",
}


@pytest.fixture
def team(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("EVAL_CALLER_DIR", "EVAL_OUTPUT_DIR"):
        monkeypatch.delenv(var, raising=False)
    db = sqlite3.connect(tmp_path / "shop.sqlite")
    db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT)")
    db.execute("INSERT INTO customers VALUES (1, 'Ada', 'a@x'), (2, 'Grace', 'g@x'), (3, 'Edsger', 'e@x')")
    db.commit()
    db.close()
    (tmp_path / "questions.yaml").write_text(CORPUS)
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps({"id": k, "sql": v}) + "\n" for k, v in ANSWERS.items()))
    return tmp_path


def graded(team: Path) -> dict:
    args = ["--suite", "sql", "--corpus", "questions.yaml", "--db-url", f"sqlite:///{team / 'shop.sqlite'}"]
    args += ["--candidate", "recorded", "--answers", "answers.jsonl", "--model", "shop-model", "--json", "r.json"]
    run_main(args)
    return json.loads(Path("r.json").read_text())


def test_ids_names_or_both_pass_under_a_columns_rule_and_an_unlisted_column_fails(team):
    got = {q["id"]: q for q in graded(team)["questions"]}
    assert got["ids"]["verdict"] == "pass"
    assert "matched the reference's columns id (optional id included)" in got["ids"]["detail"]
    assert got["names"]["verdict"] == "pass" and "columns name (optional name included)" in got["names"]["detail"]
    assert got["both"]["verdict"] == "pass"
    assert got["both"]["detail"] == "matched on 1 rotation(s)"  # the reference itself: no form named
    assert got["extra"]["verdict"] == "wrong"
    assert got["extra"]["reason"] == "column_count"  # the reason against the main reference, unchanged


def test_an_alternative_that_matches_passes_and_the_reason_names_it(team):
    got = {q["id"]: q for q in graded(team)["questions"]}
    assert got["count"]["verdict"] == "pass"
    assert got["count"]["detail"].endswith("matched alternative 3 (also[1])")


def test_a_question_without_the_keys_grades_as_before(team):
    got = {q["id"]: q for q in graded(team)["questions"]}
    assert got["plain"]["verdict"] == "wrong" and got["plain"]["reason"] == "column_count"


def test_an_alternative_that_fails_to_run_is_an_oracle_defect_naming_it(team):
    (team / "questions.yaml").write_text(CORPUS.replace("COUNT(DISTINCT name) * 10", "COUNT(shoe_size)"))
    data = graded(team)
    [defect] = data["oracle_defects"]
    assert defect["question_id"] == "count" and defect["kind"] == "oracle: reference failed to run"
    assert defect["detail"].startswith("alternative 3 (also[1]): ") and "shoe_size" in defect["detail"]
    assert "count" not in {q["id"] for q in data["questions"] if q["verdict"] == "pass"}


def test_a_columns_rule_naming_no_reference_column_is_an_oracle_defect(team):
    (team / "questions.yaml").write_text(CORPUS.replace("optional: [id, name]}\n", "optional: [id, nme]}\n", 1))
    [defect] = graded(team)["oracle_defects"]
    assert defect["question_id"] == "ids" and defect["kind"] == "oracle: columns rule does not fit"
    assert "'nme' is not a reference column (columns: id, name)" in defect["detail"]


@pytest.mark.parametrize(("order", "verdict"), [("positional", "wrong"), ("any", "pass")])
def test_columns_by_position_keep_the_reference_order_unless_any_order_is_accepted(team, order, verdict):
    corpus = f"""\
version: 1
column_order: {order}
questions:
  - id: ids
    question: List the customers' emails, with their names if you like.
    sql: SELECT id, name, email FROM customers
    columns: {{required: [3], optional: [2]}}
"""
    (team / "questions.yaml").write_text(corpus)
    (team / "answers.jsonl").write_text(json.dumps({"id": "ids", "sql": "SELECT email, name FROM customers"}) + "\n")
    [q] = graded(team)["questions"]
    assert q["verdict"] == verdict
    if verdict == "pass":
        assert q["detail"].endswith("matched the reference's columns name, email (optional name included)")
    else:  # the reason is the one against the main reference
        assert q["reason"] == "column_count"
