"""A team's own questions over its own database: baselines beside the corpus, the gate, its own
dated record, the system under test named, paths read from where the user stands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from eval.run import main

CORPUS = """version: 1
questions:
  - id: hr-1
    question: How many people work here?
    shape: scalar
    sql: SELECT COUNT(*) FROM staff
  - id: hr-2
    question: Headcount per team, team and count.
    sql: SELECT team, COUNT(*) FROM staff GROUP BY team
  - id: hr-3
    question: What is the average salary?
    shape: scalar
    sql: SELECT AVG(salary) FROM staff
  - id: hr-r1
    question: Delete every contractor from the staff table.
    expect: refuse
    stratum: unsupported_write
"""
RIGHT = [
    {"id": "hr-1", "sql": "SELECT COUNT(*) FROM staff"},
    {"id": "hr-2", "sql": "SELECT team, COUNT(*) FROM staff GROUP BY team"},
    {"id": "hr-3", "sql": "SELECT AVG(salary) FROM staff"},
    {"id": "hr-r1", "refused": True},
]


def build_hr(path: Path, extra: int = 0) -> None:
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE staff (id INTEGER PRIMARY KEY, team TEXT, salary NUMERIC(10, 2))")
        rows = [(i, ("data", "ops", "sales")[i % 3], 40000 + 1234.5 * i) for i in range(1, 21 + extra)]
        conn.exec_driver_sql("INSERT INTO staff VALUES " + ", ".join(f"({i}, '{t}', {s})" for i, t, s in rows))
    engine.dispose()


@pytest.fixture
def team(tmp_path, monkeypatch):
    """The user stands in ``team/``; the harness runs from somewhere else (as make eval does)."""
    root = tmp_path / "team"
    (root / "q").mkdir(parents=True)
    (root / "q" / "mine.yaml").write_text(CORPUS)
    build_hr(root / "hr.db")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("EVAL_CALLER_DIR", str(root))
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    return root


def answers(root: Path, lines: list[dict], name: str = "a.jsonl") -> str:
    (root / name).write_text("".join(json.dumps(x) + "\n" for x in lines))
    return name


def run(*args: str) -> int:
    return main(
        ["--suite", "sql", "--corpus", "q/mine.yaml", "--db-url", "sqlite:///hr.db", "--candidate", "recorded", *args]
    )


def test_own_corpus_over_own_database_is_gated_end_to_end_with_its_baseline_beside_it(team, capsys):
    first = answers(team, RIGHT)
    assert run("--answers", first, "--model", "hr-bot", "--record-baseline") == 0
    assert (team / "q" / "baselines" / "recorded--hr-bot.json").is_file()
    assert run("--answers", first, "--model", "hr-bot", "--fail-on-regression", "--json", "out.json") == 0
    assert json.loads((team / "out.json").read_text())["gate"]["status"] == "passed"  # written where the user stands
    # the next commit of the same service: another file, the same system
    broken = answers(
        team, [RIGHT[0], {"id": "hr-2", "sql": "SELECT team, 1 FROM staff GROUP BY team"}, *RIGHT[2:]], "b.jsonl"
    )
    capsys.readouterr()
    assert run("--answers", broken, "--model", "hr-bot", "--fail-on-regression") == 1
    assert "hr-2: was pass, now wrong" in capsys.readouterr().err


def test_the_report_says_when_the_database_changed_since_the_baseline(team):
    first = answers(team, RIGHT)
    assert run("--answers", first, "--model", "hr-bot", "--record-baseline") == 0
    (team / "hr.db").unlink()
    build_hr(team / "hr.db", extra=3)
    assert run("--answers", first, "--model", "hr-bot", "--json", "out.json") == 0
    warnings = json.loads((team / "out.json").read_text())["warnings"]
    assert any("database changed since the baseline" in w and "the data changed" in w for w in warnings)


def test_a_model_named_twice_differently_is_exit_2(team, capsys):
    named = answers(team, [{**RIGHT[0], "model": "hr-bot-2"}, *RIGHT[1:]])
    assert run("--answers", named, "--model", "hr-bot") == 2
    assert "name model 'hr-bot-2', but --model says 'hr-bot'" in capsys.readouterr().err


def test_a_baseline_of_unmeasured_questions_is_refused_unless_forced(team, capsys):
    partial = answers(team, RIGHT[:2])
    assert run("--answers", partial, "--model", "hr-bot", "--record-baseline") == 2
    assert "unmeasured" in capsys.readouterr().err
    assert not (team / "q" / "baselines").exists()
    assert run("--answers", partial, "--model", "hr-bot", "--record-baseline", "--force") == 0


def test_own_dated_record_is_created_then_appended(team):
    first = answers(team, RIGHT)
    assert run("--answers", first, "--model", "hr-bot", "--record-accuracy", "records/hr.md") == 0
    assert run("--answers", first, "--model", "hr-bot", "--record-accuracy", "records/hr.md") == 0
    page = (team / "records" / "hr.md").read_text()
    assert page.count("| recorded | hr-bot |") == 2 and "confirmed" in page


def test_the_built_in_record_is_not_for_an_own_corpus(team, capsys):
    assert run("--answers", answers(team, RIGHT), "--record-accuracy") == 2
    assert "--record-accuracy PATH" in capsys.readouterr().err


def test_a_report_outside_the_allowed_directory_says_how_to_allow_it(team, capsys):
    assert run("--answers", answers(team, RIGHT), "--json", "../outside.json") == 2
    assert "EVAL_OUTPUT_DIR=DIR" in capsys.readouterr().err


def test_model_names_map_to_distinct_bounded_file_names(tmp_path):
    from eval.sql.gate.baseline import SLUG_CHARS, baseline_path

    a, b = baseline_path("recorded", "a/b", tmp_path), baseline_path("recorded", "a_b", tmp_path)
    assert a != b and b.name == "recorded--a_b.json", "a plain name keeps its file name"
    long = baseline_path("recorded", "m" * 300, tmp_path)
    assert len(long.name) <= len("recorded--") + SLUG_CHARS + len(".json")
    long.write_text("{}")  # the file system takes the name
    assert baseline_path("embedded", "embedded-v5").name == "embedded--embedded-v5.json"


def test_a_baseline_under_the_earlier_file_name_is_still_found(tmp_path, monkeypatch):
    from eval.tests import small_run as sr

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    sr.write_corpus(tmp_path / "mine.yaml")
    sr.write_answers(tmp_path / "a.jsonl", perfect=True, model="team/model-1")
    common = ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--answers", "a.jsonl"]
    assert main([*common, "--record-baseline"]) == 0
    [written] = (tmp_path / "baselines").glob("*.json")
    assert written.name != "recorded--team_model-1.json", "a name with a '/' gets its digest"
    written.rename(written.with_name("recorded--team_model-1.json"))  # as an earlier harness named it
    assert main([*common, "--fail-on-regression"]) == 0
