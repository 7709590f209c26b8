"""Runs given nothing to judge, or hostile input: exit 2 with the reason, never a headline about nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from eval.run import main
from eval.sql.corpus import load_corpus
from services.sql_executor import ReadOnlyExecutor

BUILTIN = load_corpus()
FIRST = next(q for q in BUILTIN.questions if q.expect == "answer" and q.fixture == "retail")
ENDLESS = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT COUNT(*) FROM r"


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("EVAL_OUTPUT_DIR", "EVAL_CALLER_DIR", "NL_SQL_LLM_BASE_URL", "NL_SQL_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def test_a_database_with_no_tables_is_exit_2(work, capsys):
    (work / "empty.sqlite").touch()
    assert main(["--suite", "sql", "--db-url", f"sqlite:///{work / 'empty.sqlite'}", "--json", "r.json"]) == 2
    assert "has no tables" in capsys.readouterr().err
    assert not (work / "r.json").exists()


def test_an_empty_answers_file_is_exit_2(work, capsys):
    (work / "a.jsonl").write_text("\n\n")
    assert main(["--suite", "sql", "--candidate", "recorded", "--answers", "a.jsonl"]) == 2
    err = capsys.readouterr().err
    assert "a.jsonl: no answers" in err


def test_an_unparseable_database_url_is_never_echoed(work, capsys):
    assert main(["--suite", "sql", "--db-url", "user:hunter2@127.0.0.1:1/x"]) == 2
    out, err = capsys.readouterr()
    assert "hunter2" not in out + err and "does not parse" in err


def test_a_query_that_timed_out_is_not_run_again(work, monkeypatch):
    """An unbounded answer costs one statement timeout, not one a rotation."""
    corpus = {
        "version": 1,
        "fixture": "retail",
        "questions": [
            {
                "id": FIRST.id,
                "question": FIRST.question,
                "shape": FIRST.shape,
                "ordered": FIRST.ordered,
                "sql": FIRST.sql,
            }
        ],
    }
    (work / "one.yaml").write_text(yaml.safe_dump(corpus))
    (work / "a.jsonl").write_text(json.dumps({"id": FIRST.id, "sql": ENDLESS}) + "\n")
    runs: list[str] = []
    real = ReadOnlyExecutor.execute

    def counted(self: ReadOnlyExecutor, sql: str):  # a spy: the real execute, counted
        runs.append(sql)
        return real(self, sql)

    monkeypatch.setattr(ReadOnlyExecutor, "execute", counted)
    args = ["--suite", "sql", "--corpus", "one.yaml", "--candidate", "recorded", "--answers", "a.jsonl"]
    assert main([*args, "--statement-timeout", "0.5", "--json", "r.json"]) == 0
    (graded,) = json.loads(Path("r.json").read_text())["questions"]
    assert (graded["verdict"], graded["reason"]) == ("error", "timeout")
    assert graded["detail"].startswith("rotation 1:")
    assert runs.count(ENDLESS) == 1
