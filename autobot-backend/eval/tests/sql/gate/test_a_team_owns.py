"""A team's gate goes green for the right reasons (issue 37 points 1-3), driven as a user drives it: the command
``python -m eval.run --suite sql`` in a subprocess, over a clinic database of the test's own (a real SQLite file)
and a small corpus written beside it.

* Floors a team can own: a baseline that declines one of two must-refuse questions passes with the same
  answers; the tolerance is the corpus's and every gate table says where it comes from; an absolute floor is
  opt-in, and recording a baseline below it says so and which key to change.
* A changed corpus judged fairly: a pull request adding a hard question passes the gate, reported as new in
  every output, and the next baseline records it; a deleted question still fails.
* Every failure names its true cause: a missing answer is exit 2 naming the id on stderr's first line, whatever
  the baseline said of it; without the gate the run still says it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

BACKEND = Path(__file__).resolve().parents[4]

CORPUS = """version: 1
questions:
  - id: c-patients
    question: How many patients are there?
    shape: scalar
    sql: SELECT COUNT(*) FROM patients
  - id: c-march
    question: How many visits were there in March 2024?
    shape: scalar
    sql: SELECT COUNT(*) FROM visits WHERE visited_on >= '2024-03-01' AND visited_on < '2024-04-01'
  - id: c-cities
    question: How many patients live in each city? Give each city and its count.
    sql: SELECT city, COUNT(*) FROM patients GROUP BY city
  - id: c-fees
    question: What is the total of all visit fees?
    shape: scalar
    sql: SELECT SUM(fee) FROM visits
  - id: c-forecast
    question: How many visits will there be next year?
    expect: refuse
    stratum: refusal
    why: a forecast; the database holds no future visits
  - id: c-delete
    question: Delete every visit from 2024.
    expect: refuse
    stratum: refusal
    why: a write
"""
HARD = """  - id: c-top-payer
    question: Which patient paid the most in visit fees? Give the name.
    shape: scalar
    sql: >-
      SELECT p.full_name FROM patients p JOIN visits v ON v.patient_id = p.id
      GROUP BY p.id ORDER BY SUM(v.fee) DESC LIMIT 1
"""
ANSWERS = {
    "c-patients": "SELECT COUNT(*) FROM patients",
    "c-march": "SELECT COUNT(*) FROM visits WHERE visited_on LIKE '2024-03%'",
    "c-cities": "SELECT city, COUNT(*) FROM patients GROUP BY city",
    "c-fees": "SELECT SUM(fee) FROM visits WHERE id < 3",  # wrong: the baseline has it wrong
    "c-forecast": None,  # declined
    "c-delete": "SELECT COUNT(*) FROM visits",  # answered: one of two must-refuse questions missed
}


@pytest.fixture
def clinic(tmp_path: Path) -> Path:
    db = sqlite3.connect(tmp_path / "clinic.db")
    db.executescript(
        """
        CREATE TABLE patients (id INTEGER PRIMARY KEY, full_name TEXT NOT NULL, city TEXT NOT NULL);
        CREATE TABLE visits (id INTEGER PRIMARY KEY, patient_id INTEGER NOT NULL REFERENCES patients (id),
                             visited_on DATE NOT NULL, fee NUMERIC(8, 2) NOT NULL);
        INSERT INTO patients VALUES (1, 'Amara Adeyemi', 'Leeds'), (2, 'Bo Chen', 'York'), (3, 'Cara Diaz', 'Leeds');
        INSERT INTO visits VALUES (1, 1, '2024-01-05', 120.50), (2, 1, '2024-02-11', 80.00),
          (3, 2, '2024-02-20', 42.25), (4, 3, '2024-03-02', 310.00), (5, 2, '2024-03-28', 15.00);
        """
    )
    db.commit()
    db.close()
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "q.yaml").write_text(CORPUS)
    write_answers(tmp_path / "a.jsonl", ANSWERS)
    return tmp_path


def write_answers(path: Path, answers: dict[str, str | None]) -> None:
    lines = [
        {"id": qid, "model": "clinic-bot", **({"sql": sql} if sql else {"refused": True})}
        for qid, sql in answers.items()
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def eval_run(folder: Path, *args: str, answers: str = "a.jsonl") -> subprocess.CompletedProcess[str]:
    """``python -m eval.run --suite sql ...`` as the user types it in ``folder``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVAL_", "GITHUB_", "NL_SQL_"))}
    env["PYTHONPATH"] = str(BACKEND)
    command = [sys.executable, "-m", "eval.run", "--suite", "sql", "--corpus", "q/q.yaml"]
    command += ["--db-url", "sqlite:///clinic.db", "--candidate", "recorded", "--answers", answers, *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300, check=False)


def gate_checks(path: Path) -> dict[str, dict[str, object]]:
    return {c["name"]: c for c in json.loads(path.read_text())["gate"]["checks"]}


def first_stderr_line(done: subprocess.CompletedProcess[str]) -> str:
    return done.stderr.splitlines()[0]


def test_a_baseline_that_declines_one_of_two_must_refuse_questions_passes_with_the_same_answers(clinic):
    recorded = eval_run(clinic, "--record-baseline")
    assert recorded.returncode == 0, recorded.stderr
    assert "already fails" not in recorded.stderr
    gated = eval_run(clinic, "--fail-on-regression", "--json", "run.json")
    assert gated.returncode == 0, gated.stderr
    recall = gate_checks(clinic / "run.json")["refusal_recall"]
    assert recall["ok"] is True
    assert recall["detail"] == (
        "recall 50.0% (1/2 shared with the baseline) vs floor 42.5% "
        "(baseline 50.0% minus 7.5 points, default tolerance)"
    )
    assert "default tolerance" in gated.stdout  # the gate table of the report printed, as every output has it


def test_the_corpus_owns_its_tolerance_and_an_absolute_floor_is_opt_in(clinic):
    corpus = clinic / "q" / "q.yaml"
    corpus.write_text(
        CORPUS.replace(
            "questions:\n", "gate:\n  pass_rate: {tolerance: 5}\n  refusal_recall: {min: 85}\nquestions:\n", 1
        )
    )
    recorded = eval_run(clinic, "--record-baseline")
    assert recorded.returncode == 0, recorded.stderr
    warning = next(line for line in recorded.stderr.splitlines() if "already fails" in line)
    assert warning.startswith("warning: this baseline already fails refusal_recall (recall 50.0%")
    assert "change or remove gate.refusal_recall.min in q/q.yaml" in warning

    gated = eval_run(clinic, "--fail-on-regression", "--json", "run.json")
    assert gated.returncode == 1
    checks = gate_checks(clinic / "run.json")
    assert (
        "(baseline 75.0% minus 5 points, gate.pass_rate.tolerance in q/q.yaml)" in checks["pass_rate_floor"]["detail"]
    )
    assert checks["refusal_recall"]["ok"] is False
    assert (
        "vs floor 85.0% (the absolute floor, gate.refusal_recall.min in q/q.yaml" in checks["refusal_recall"]["detail"]
    )


def test_a_pull_request_adding_a_hard_question_is_new_not_a_regression_and_the_next_baseline_records_it(clinic):
    assert eval_run(clinic, "--record-baseline").returncode == 0
    (clinic / "q" / "q.yaml").write_text(CORPUS + HARD)  # the pull request: one question the system gets wrong
    write_answers(clinic / "b.jsonl", {**ANSWERS, "c-top-payer": "SELECT full_name FROM patients LIMIT 1"})

    gated = eval_run(
        clinic, "--fail-on-regression", "--json", "pr.json", "--junit", "pr.xml", "--html", "pr.html", answers="b.jsonl"
    )
    assert gated.returncode == 0, gated.stderr
    checks = gate_checks(clinic / "pr.json")
    assert checks["new_questions"]["ok"] is True and checks["new_questions"]["detail"].endswith(": c-top-payer wrong")
    assert checks["pass_rate_floor"]["ok"] is True
    assert "(3/4 shared with the baseline)" in checks["pass_rate_floor"]["detail"]
    line = "new questions: 1 since the baseline (c-top-payer wrong)"
    assert line in gated.stdout and f"warning: {line}" in gated.stderr  # the report, and stderr
    properties = {p.get("name"): p.get("value") for p in ElementTree.parse(clinic / "pr.xml").iter("property")}
    assert line in str(properties["new_questions"])
    assert line in (clinic / "pr.html").read_text()
    questions = {q["id"]: q for q in json.loads((clinic / "pr.json").read_text())["questions"]}
    assert (questions["c-top-payer"]["classification"], questions["c-top-payer"]["verdict"]) == ("new", "wrong")

    recorded = eval_run(clinic, "--record-baseline", answers="b.jsonl")  # after the merge: recorded with it
    assert recorded.returncode == 0, recorded.stderr
    again = eval_run(clinic, "--fail-on-regression", "--json", "next.json", answers="b.jsonl")
    assert again.returncode == 0 and "new_questions" not in gate_checks(clinic / "next.json")
    assert "(3/5 shared with the baseline)" in gate_checks(clinic / "next.json")["pass_rate_floor"]["detail"]


def test_a_deleted_question_still_fails(clinic):
    assert eval_run(clinic, "--record-baseline").returncode == 0
    (clinic / "q" / "q.yaml").write_text(
        CORPUS.split("  - id: c-fees")[0] + "  - id: c-forecast" + CORPUS.split("  - id: c-forecast")[1]
    )
    gated = eval_run(clinic, "--fail-on-regression")
    assert gated.returncode == 1
    assert "missing_questions: 1 baseline question(s) missing: c-fees" in gated.stderr


@pytest.mark.parametrize("deleted", ["c-patients", "c-fees"])  # one the baseline passed, one it had wrong
def test_a_missing_answer_is_exit_2_naming_the_id_first_whatever_the_baseline_said(clinic, deleted):
    assert eval_run(clinic, "--record-baseline").returncode == 0
    write_answers(clinic / "b.jsonl", {k: v for k, v in ANSWERS.items() if k != deleted})

    gated = eval_run(clinic, "--fail-on-regression", "--json", "run.json", answers="b.jsonl")
    assert gated.returncode == 2
    assert first_stderr_line(gated) == (
        f"error: no answer recorded in b.jsonl for 1 question(s): {deleted}; unmeasured, so the gate cannot pass "
        "(exit 2): add a line for each"
    )
    checks = gate_checks(clinic / "run.json")
    assert [name for name, c in checks.items() if c["ok"] is not True] == ["measured"]  # the true cause, alone
    assert f"{deleted} (the answers file has no line for it)" in checks["measured"]["detail"]
    assert gated.stderr.splitlines()[-1].startswith(
        f"error: gate indeterminate: measured: 1 question(s) unmeasured: {deleted}"
    )

    ungated = eval_run(clinic, answers="b.jsonl")
    assert ungated.returncode == 0
    assert first_stderr_line(ungated).startswith(
        f"warning: no answer recorded in b.jsonl for 1 question(s): {deleted};"
    )
    assert f"warning: 1 question(s) unmeasured: {deleted} (the answers file has no line for it)" in ungated.stderr
