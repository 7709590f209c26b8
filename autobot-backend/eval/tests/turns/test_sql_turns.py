"""The SQL suite's answers as captured turns: ``--export-turns`` writes them, ``--judge`` judges every one and
measures the judge against the execution verdicts, per stratum, end to end against a judge on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
import yaml

from eval.run import main
from eval.turns.format import load_turns
from tests.http_fakes import FakeHTTPServer, refused_port

from ..judge_fakes import ScriptedJudge, point_judge_at, verdict

CORPUS = [
    {"id": "b1", "question": "How many books are there?", "stratum": "count", "shape": "scalar",
     "sql": "SELECT COUNT(*) FROM books"},
    {"id": "b2", "question": "Which books came out after 1900?", "stratum": "list",
     "sql": "SELECT title FROM books WHERE year > 1900"},
    {"id": "b3", "question": "List the titles.", "stratum": "list", "sql": "SELECT title FROM books"},
    {"id": "r1", "question": "Delete every book.", "stratum": "unsupported_write", "expect": "refuse"},
    {"id": "r2", "question": "What is each author's birthday?", "stratum": "out_of_schema", "expect": "refuse"},
]  # fmt: skip
ANSWERS = [
    {"id": "b1", "sql": "SELECT COUNT(*) FROM books", "model": "books-bot"},  # pass
    {"id": "b2", "sql": "SELECT title FROM books WHERE year < 1900"},  # wrong
    {"id": "b3", "sql": "SELECT nope FROM books"},  # error
    {"id": "r1", "refused": True, "reason": "writes are not allowed"},  # a correct refusal
    {"id": "r2", "sql": "SELECT title FROM books"},  # a missed refusal
]
JUDGE = {
    "How many books are there?": verdict(9, 9, 9, None),  # good, execution good: agree
    "Which books came out after 1900?": verdict(9, 9, 9, None),  # good on a wrong answer: a judge error
    "List the titles.": verdict(9, 9, 9, None),  # every statement failed: capped at 40, poor
    "Delete every book.": verdict(3, 3, 3, None, "poor"),  # poor on a correct refusal: too harsh
    "What is each author's birthday?": verdict(2, 2, 2, None, "poor"),  # poor on a missed refusal: agree
}


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("EVAL_OUTPUT_DIR", "EVAL_CALLER_DIR", "NL_SQL_LLM_BASE_URL", "NL_SQL_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'books.db'}")
    with engine.begin() as c:
        c.exec_driver_sql("CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, year INTEGER)")
        c.exec_driver_sql("INSERT INTO books VALUES (1, 'Dune', 1965), (2, 'Emma', 1815), (3, 'Ulysses', 1922)")
    engine.dispose()
    (tmp_path / "books.yaml").write_text(yaml.safe_dump({"version": 1, "questions": CORPUS}, sort_keys=False))
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(a) + "\n" for a in ANSWERS))
    return tmp_path


def sql_run(work: Path, *args: str) -> int:
    db = f"sqlite:///{work / 'books.db'}"
    return main(["--suite", "sql", "--candidate", "recorded", "--answers", "a.jsonl", "--corpus", "books.yaml",
                 "--db-url", db, *args])  # fmt: skip


def test_export_turns_writes_every_answer_as_a_turn_with_its_grade(work, monkeypatch):
    assert sql_run(work, "--export-turns", "turns.jsonl", "--json", "r.json") == 0
    turns = {t.turn_id: t for t in load_turns(work / "turns.jsonl")}
    assert list(turns) == ["b1", "b2", "b3", "r1", "r2"]  # in the corpus's order
    assert {k: t.meta["verdict"] for k, t in turns.items()} == {
        "b1": "pass", "b2": "wrong", "b3": "error", "r1": "refused", "r2": "answered"}  # fmt: skip
    assert turns["b2"].trajectory[0].rows == (("Emma",),) and turns["b2"].trajectory[0].row_count == 1
    assert turns["b3"].trajectory[0].status == "error" and "nope" in turns["b3"].trajectory[0].error
    assert turns["r1"].trajectory == () and turns["r1"].declined == "writes are not allowed"
    assert all(t.answer is None and t.meta["source"] == "eval.sql" for t in turns.values())
    assert json.loads((work / "r.json").read_text())["judge"] is None  # no --judge: nothing judged

    # the exported run is a captured-turns file like any other: the turns suite judges it
    with FakeHTTPServer(handler=ScriptedJudge(JUDGE)) as server:
        point_judge_at(monkeypatch, server)
        assert main(["--suite", "turns", "--turns", "turns.jsonl"]) == 0


def test_judge_measures_the_judge_against_the_execution_verdicts_per_stratum(work, monkeypatch, capsys):
    judge = ScriptedJudge(JUDGE)
    with FakeHTTPServer(handler=judge) as server:
        point_judge_at(monkeypatch, server, "judge-7b")
        assert sql_run(work, "--judge", "--json", "r.json", "--markdown", "r.md") == 0
    assert sum(judge.asked.values()) == 5
    j = json.loads((work / "r.json").read_text())["judge"]
    assert j["judge"]["model"] == "judge-7b" and j["judge"]["rubric_version"] == "turns-rubric-v1"
    total = j["agreement"]
    assert (total["compared"], total["agree"], total["judge_errors"], total["too_harsh"]) == (5, 3, 1, 1)
    assert {name: {k: v for k, v in c.items() if v and "/" in k} for name, c in j["strata"].items()} == {
        "count": {"good/good": 1},
        "list": {"bad/good": 1, "bad/poor": 1},
        "out_of_schema": {"bad/poor": 1},
        "unsupported_write": {"good/poor": 1},
    }
    assert [(e["question_id"], e["verdict"], e["composite"]) for e in j["judge_errors"]] == [("b2", "wrong", 90.0)]
    assert [e["question_id"] for e in j["too_harsh"]] == ["r1"]
    # execution good [b1, r1] against judge good [b1, b2]: p_o = 3/5, p_e = 13/25, kappa = 1/6
    assert j["kappa"] == round(1 / 6, 4)
    b3 = next(t for t in j["turns"] if t["turn_id"] == "b3")
    assert b3["arithmetic"]["pre_cap"] == 90.0 and b3["composite"] == 40.0 and b3["caps"] == ["all_sql_failed"]
    text = (work / "r.md").read_text()
    assert "## The model judge against the execution verdicts" in text
    assert "### Judge errors (band good, execution bad): 1" in text and "**b2** (wrong, row\\_count)" in text


def test_judge_needs_its_configuration_before_anything_runs(work, monkeypatch, capsys):
    for var in ("NL_SQL_JUDGE_BASE_URL", "NL_SQL_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    assert sql_run(work, "--judge", "--json", "r.json") == 2
    assert "the judge is not configured" in capsys.readouterr().err
    assert not (work / "r.json").exists()


def test_a_judge_that_cannot_be_reached_judges_nothing_and_the_run_exits_2(work, monkeypatch, capsys):
    monkeypatch.setenv("NL_SQL_JUDGE_MODEL", "judge-7b")
    with refused_port() as port:
        monkeypatch.setenv("NL_SQL_JUDGE_BASE_URL", f"http://127.0.0.1:{port}/v1")
        assert sql_run(work, "--judge", "--json", "r.json") == 2
    data = json.loads((work / "r.json").read_text())
    assert data["summary"]["pass"] == 1  # the execution verdicts stand
    assert data["judge"]["summary"]["scored"] == 0 and len(data["judge"]["unmeasured"]) == 5
    assert "no answer could be judged" in capsys.readouterr().err


def test_export_turns_outside_the_working_directory_is_refused_before_the_run(work, capsys):
    assert sql_run(work, "--export-turns", "../turns.jsonl") == 2
    assert "refusing to write" in capsys.readouterr().err


def test_an_answer_that_cannot_be_kept_as_a_turn_keeps_its_verdict(work, monkeypatch):
    monkeypatch.setenv("NL_SQL_MAX_SQL_BYTES", "300000")  # the guard lets it run: the turn's own limit is tested
    long_sql = "SELECT COUNT(*) FROM books -- " + "x" * 200_001  # longer than a turn may carry
    answers = [{"id": "b1", "sql": long_sql, "model": "books-bot"}] + ANSWERS[1:]
    (work / "a.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers))
    assert sql_run(work, "--export-turns", "turns.jsonl", "--json", "r.json") == 0
    data = json.loads((work / "r.json").read_text())
    assert next(q for q in data["questions"] if q["id"] == "b1")["verdict"] == "pass"
    assert any("1 answer(s) could not be kept as captured turns" in w for w in data["warnings"])
    assert [t.turn_id for t in load_turns(work / "turns.jsonl")] == ["b2", "b3", "r1", "r2"]
