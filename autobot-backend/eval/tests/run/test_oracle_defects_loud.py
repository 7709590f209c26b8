"""A question its reference cannot grade is never silent, and never buries the headline: the pass rate shows
what its denominator leaves out; one line after the headline of every output, and on stderr, counts the
oracle defects by kind with what to do; the report files list each one (id, cause); the gate names a
question the baseline measured and this run could not; ``--strict`` makes any oracle defect exit 2."""

from __future__ import annotations

import json
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from eval.run import main as run_main

CORPUS = """\
version: 1
questions:
  - id: shop-count
    question: How many customers are there?
    sql: SELECT COUNT(*) FROM customers
  - id: shop-names
    question: List the customers' names.
    sql: SELECT name FROM customers
  - id: shop-broken
    question: What is each customer's shoe size?
    sql: SELECT shoe_size FROM customers
"""
ANSWERS = [
    {"id": "shop-count", "sql": "SELECT COUNT(*) FROM customers"},
    {"id": "shop-names", "sql": "SELECT name FROM customers WHERE id < 3"},
    {"id": "shop-broken", "sql": "SELECT 1"},
]


@pytest.fixture
def team(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("EVAL_CALLER_DIR", "EVAL_OUTPUT_DIR"):
        monkeypatch.delenv(var, raising=False)
    db = sqlite3.connect(tmp_path / "shop.sqlite")
    db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO customers VALUES (1, 'Ada'), (2, 'Grace'), (3, 'Edsger')")
    db.commit()
    db.close()
    (tmp_path / "questions.yaml").write_text(CORPUS)
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in ANSWERS))
    return tmp_path


def grade(team: Path, *extra: str) -> int:
    args = ["--suite", "sql", "--corpus", "questions.yaml", "--db-url", f"sqlite:///{team / 'shop.sqlite'}"]
    args += ["--candidate", "recorded", "--answers", "answers.jsonl", "--model", "shop-model"]
    return run_main([*args, *extra])


LINE = "lints: oracle: reference failed to run 1 (1 question(s) not graded, their reference cannot grade them"


def test_a_broken_reference_is_counted_after_the_headline_of_every_output_and_listed_in_the_files(team, capsys):
    outputs = ["--json", "r.json", "--markdown", "r.md", "--html", "r.html", "--junit", "r.xml"]
    assert grade(team, *outputs) == 0
    err = capsys.readouterr().err
    assert f"warning: {LINE}" in err and "--strict makes this exit 2" in err

    md = Path("r.md").read_text()
    assert md.index("(1/2; 95% Wilson CI") < md.index(LINE) < md.index("## The 2x2") + 2_000
    assert "1 not gradeable (oracle defects)" in md[: md.index(LINE)]
    defects = md[md.index("## Oracle defects") :]
    assert "shop-broken" in defects and "shoe\\_size" in defects
    html = Path("r.html").read_text()
    assert html.index('id="pass-rate"') < html.index('id="lint-counts"') < html.index('id="lint-list"')
    listed = html[html.index('id="lint-list"') :]
    assert "shop-broken" in listed and "shoe_size" in listed and "1 not gradeable" in html
    props = {p.get("name"): p.get("value") for p in ET.parse("r.xml").getroot().iter("property")}
    assert props["lints"].startswith(LINE) and "1 not gradeable" in props["pass_rate"]
    assert not any(name.startswith("notice.") for name in props)
    data = json.loads(Path("r.json").read_text())
    assert [d["question_id"] for d in data["oracle_defects"]] == ["shop-broken"]
    assert data["lint_counts"] == {"oracle: reference failed to run": 1}
    keys = list(data)
    assert keys.index("lint_counts") == keys.index("summary") + 1
    assert (data["summary"]["pass"], data["summary"]["measured"]) == (1, 2)


def test_strict_makes_an_oracle_defect_exit_2_and_records_nothing(team, capsys):
    assert grade(team, "--strict", "--json", "r.json", "--record-baseline", "--baseline-dir", "bl") == 2
    assert "--strict: a run with oracle defects is not judged" in capsys.readouterr().err
    assert Path("r.json").is_file() and not Path("bl").exists()


def test_a_run_without_oracle_defects_says_nothing_of_them_even_when_strict(team, capsys):
    (team / "questions.yaml").write_text(CORPUS.split("  - id: shop-broken")[0])
    assert grade(team, "--strict", "--markdown", "r.md") == 0
    assert "ORACLE" not in capsys.readouterr().err and "not gradeable" not in Path("r.md").read_text()


def test_the_gate_names_a_question_the_baseline_measured_and_this_run_cannot(team, capsys):
    assert grade(team, "--record-baseline", "--baseline-dir", "bl") == 0
    db = sqlite3.connect(team / "shop.sqlite")  # same schema; the data no longer answers shop-names
    db.execute("DELETE FROM customers")
    db.commit()
    db.close()
    capsys.readouterr()
    assert grade(team, "--fail-on-regression", "--baseline-dir", "bl", "--json", "r.json") == 2
    err = capsys.readouterr().err
    measured = next(c for c in json.loads(Path("r.json").read_text())["gate"]["checks"] if c["name"] == "measured")
    assert measured["ok"] is None
    assert "1 question(s) unmeasured: shop-names (oracle: empty result" in measured["detail"]
    assert "shop-names" in err


def test_in_github_actions_the_count_is_one_warning_and_the_summary_has_it_after_the_headline(
    team, capsys, monkeypatch
):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(team / "summary.md"))
    assert grade(team, "--github-summary") == 0
    out = capsys.readouterr().out
    warnings = [line for line in out.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 1
    assert warnings[0].startswith("::warning title=SQL corpus lints::lints: oracle: reference failed to run 1")
    summary = (team / "summary.md").read_text()
    assert summary.index("(1/2; 95% Wilson CI") < summary.index(LINE)
