"""Pathological SQL ends as a named state, never a crash that loses the report (issue 38, point 5).

One answer with 5,000 nested parentheses crashed exact match on any Spider import (sqlglot's recursive
parser raised ``RecursionError``, which nothing caught), and with it the run, with no report. The one
shared parse now calls such SQL a parse error like any other; exact match, the diagnosis and the
suspect-reference checks each end in their own named state for it. Through the real import and run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlglot.errors import SqlglotError

from eval.cli import bench_import
from eval.run import main
from eval.sql.diagnosis import diagnose
from eval.sql.grading.spider_sql import NotReadable, parse
from eval.tests import small_run as sr
from services.readonly.parsed import statement_tree

DEEP = 5000


def nested(inner: str, depth: int = DEEP) -> str:
    return "(" * depth + inner + ")" * depth


def test_the_shared_parse_calls_it_a_parse_error() -> None:
    with pytest.raises(SqlglotError, match="nested too deeply"):
        statement_tree(f"SELECT {nested('1')} FROM t", "sqlite")
    with pytest.raises(NotReadable, match="nested too deeply"):
        parse(f"SELECT {nested('1')} FROM t", "sqlite")


def test_the_diagnosis_of_it_is_a_named_state() -> None:
    found = diagnose(f"SELECT {nested('1')} FROM singer", "SELECT 1 FROM singer", [(2,)], [(1,)], dialect="sqlite")
    assert found.line, "a category and a line, not an exception"


@pytest.fixture
def spider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The small run's two databases as a Spider export: questions, gold (one of them 5,000 deep), and
    predictions (one of them 5,000 deep)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVAL_OUTPUT_DIR", str(tmp_path))
    monkeypatch.delenv("EVAL_CALLER_DIR", raising=False)
    sr.build_databases(tmp_path / "database")
    rows = [(db, text, sql, answer or sql) for _, db, _, text, sql, answer in sr.DB_QUESTIONS]
    (tmp_path / "dev.json").write_text(json.dumps([{"db_id": db, "question": text} for db, text, _, _ in rows]))
    gold = [sql for _, _, sql, _ in rows]
    gold[3] = f"SELECT count(*) FROM pets WHERE {nested('1 = 1')}"
    (tmp_path / "gold.sql").write_text("".join(f"{sql}\t{db}\n" for sql, (db, *_) in zip(gold, rows)))
    predictions = [answer for *_, answer in rows]
    predictions[0] = f"SELECT {nested('count(*)')} FROM singer"
    (tmp_path / "pred.sql").write_text("".join(p + "\n" for p in predictions))
    return tmp_path


def test_a_spider_import_with_a_5000_deep_answer_and_gold_grades_with_exact_match(spider, capsys):
    common = ["spider", "--questions", "dev.json", "--gold", "gold.sql", "--db-dir", "database", "--model", "m"]
    assert bench_import.main([*common, "--predictions", "pred.sql", "--out", "out", "--check-references"]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err, err[-2000:]
    code = main(
        ["--suite", "sql", "--corpus", "out/spider.yaml", "--db-dir", "database", "--candidate", "recorded",
         "--answers", "out/spider.answers.jsonl", "--exact-match", "--json", "r.json"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code in (0, 1) and "Traceback" not in err, err[-2000:]
    questions = {q["id"]: q for q in json.loads((spider / "r.json").read_text())["questions"]}
    deep_answer = questions["spider-0000"]
    assert deep_answer["verdict"] == "error" and deep_answer["reason"] == "guard_blocked"
    assert deep_answer["exact"]["match"] is False and deep_answer["exact"]["note"], deep_answer["exact"]
    assert deep_answer["diagnosis"]["primary"] == "runtime"
    deep_gold = questions["spider-0003"]
    assert deep_gold["verdict"] == "unmeasured" and deep_gold["reason"] == "oracle"
