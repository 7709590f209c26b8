"""Any result size is gradeable (issue 27 point 3): the row cap of a model's answer is a setting (``--row-cap``,
a corpus key, ``NL_SQL_ROW_CAP``), and a reference is bounded by the byte budget alone, so a 100k-row
reference is graded ``pass`` or ``wrong``, never ``unmeasured``. Real SQLite files, built here."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from eval.core.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK
from eval.run import main
from services.readonly import limits
from services.readonly.execute import ErrorKind, ReadOnlySQL

ROWS = 100_000
ALL = "SELECT id, name, qty FROM items"
CORPUS = f"""version: 1
questions:
  - id: big-1
    question: Every item, its name and quantity.
    sql: {ALL}
"""


@pytest.fixture(scope="module")
def items(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rowcap") / "items.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER)")
        conn.executemany("INSERT INTO items VALUES (?, ?, ?)", ((i, f"item-{i}", i % 17) for i in range(ROWS)))
    conn.close()
    return path


@pytest.fixture
def team(tmp_path, monkeypatch):
    (tmp_path / "q.yaml").write_text(CORPUS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVAL_CALLER_DIR", str(tmp_path))
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    monkeypatch.delenv(limits.ROW_CAP_ENV, raising=False)
    return tmp_path


def run(root: Path, db: Path, sql: str, *flags: str, corpus: str = "q.yaml") -> tuple[int, dict]:
    """One recorded answer to ``big-1`` graded on ``db``: the exit code and the question's outcome."""
    (root / "a.jsonl").write_text(json.dumps({"id": "big-1", "sql": sql}) + "\n")
    args = ["--suite", "sql", "--corpus", corpus, "--db-url", f"sqlite:///{db}", "--candidate", "recorded"]
    code = main([*args, "--answers", "a.jsonl", "--model", "m", "--json", "out.json", *flags])
    (outcome,) = json.loads((root / "out.json").read_text())["questions"]
    return code, outcome


def test_a_100k_row_reference_is_graded_pass_with_the_row_cap_raised(team, items):
    code, outcome = run(team, items, ALL, "--row-cap", "200000")
    assert (code, outcome["verdict"]) == (EXIT_OK, "pass")


def test_a_100k_row_answer_with_one_value_changed_is_wrong_not_unmeasured(team, items):
    code, outcome = run(
        team, items, "SELECT id, name, CASE WHEN id = 777 THEN 0 ELSE qty END FROM items", "--row-cap", "100000"
    )
    assert outcome["verdict"] == "wrong" and outcome["reason"] == "value" and code != EXIT_CANNOT_JUDGE


def test_at_the_default_cap_the_reference_still_runs_and_the_answer_is_an_error(team, items):
    """The model's answer is held to 10,000 rows; the reference is not, so the question is measured."""
    code, outcome = run(team, items, ALL)
    assert outcome["verdict"] == "error" and outcome["reason"] == "row_cap" and code != EXIT_CANNOT_JUDGE
    assert "more than 10000 rows" in outcome["detail"]


def test_the_question_row_cap_and_the_environment_variable_set_it_too(team, items, monkeypatch):
    (team / "own.yaml").write_text(CORPUS.replace("    sql:", "    row_cap: 100000\n    sql:"))
    assert run(team, items, ALL, corpus="own.yaml")[1]["verdict"] == "pass"
    (team / "small.yaml").write_text(CORPUS.replace("    sql:", "    row_cap: 99999\n    sql:"))
    _, outcome = run(team, items, ALL, "--row-cap", "500000", corpus="small.yaml")  # the question's own wins
    assert (outcome["verdict"], outcome["reason"]) == ("error", "row_cap") and "99999" in outcome["detail"]
    monkeypatch.setenv(limits.ROW_CAP_ENV, "100000")
    assert run(team, items, ALL)[1]["verdict"] == "pass"


def test_a_row_cap_other_than_the_default_is_a_cohort_key(team, items):
    run(team, items, ALL)
    default = json.loads((team / "out.json").read_text())["cohort"]["keys"]
    run(team, items, ALL, "--row-cap", "200000")
    raised = json.loads((team / "out.json").read_text())["cohort"]["keys"]
    assert "row_cap" not in default and raised["row_cap"] == 200_000


@pytest.mark.parametrize("value", ["0", "-3"])
def test_a_row_cap_below_one_is_a_usage_error(team, items, value, capsys):
    (team / "a.jsonl").write_text(json.dumps({"id": "big-1", "sql": ALL}) + "\n")
    code = main(["--suite", "sql", "--corpus", "q.yaml", "--db-url", f"sqlite:///{items}", "--row-cap", value])
    assert code == EXIT_CANNOT_JUDGE and "--row-cap must be a whole number of rows >= 1" in capsys.readouterr().err


def test_a_bad_environment_row_cap_is_named(monkeypatch):
    monkeypatch.setenv(limits.ROW_CAP_ENV, "lots")
    with pytest.raises(ValueError, match="NL_SQL_ROW_CAP='lots': expected a whole number of rows"):
        limits.row_cap()


def test_a_reference_is_bounded_by_the_byte_budget_not_the_row_cap(items):
    url = f"sqlite:///{items}"
    with ReadOnlySQL(row_cap=10, max_result_bytes=8_000_000) as db:
        assert db.run_readonly(ALL, url).error_kind is ErrorKind.ROW_CAP
        assert len(db.run_readonly(ALL, url, reference=True).rows) == ROWS
    with ReadOnlySQL(row_cap=10, max_result_bytes=1_000_000) as db:
        over = db.run_readonly(ALL, url, reference=True)
    assert over.error_kind is ErrorKind.ROW_CAP and "result budget" in (over.reason or "")
