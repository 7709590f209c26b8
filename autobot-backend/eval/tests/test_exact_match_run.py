"""Spider's EM end to end: a Spider folder of the test's own imported, graded with recorded predictions, and EM
by hardness beside execution accuracy in the JSON, the Markdown and the HTML, never in the pass rate."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console

from eval.cli.bench_import import main as import_main
from eval.run import main as run_main
from eval.sql.bench.hardness import spider_hardness
from eval.sql.model.serialise import from_json, to_json
from eval.sql.render import render_terminal, to_html, to_markdown

SCHEMA = [
    "CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER)",
    "CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, concert_name TEXT, year INTEGER,"
    " singer_id INTEGER REFERENCES singer (singer_id))",
    "INSERT INTO singer VALUES (1, 'Joe Sharp', 'Netherlands', 52), (2, 'Timbaland', 'United States', 32),"
    " (3, 'Justin Brown', 'France', 29), (4, 'Rose White', 'France', 41), (5, 'John Nizinik', 'France', 53)",
    "INSERT INTO concert VALUES (1, 'Auditions', 2014, 2), (2, 'Super bootcamp', 2014, 2), (3, 'Home Visits', 2015, 1)",
]

# (question, gold, prediction, verdict, EM): each pair chosen for what EM and execution say of it.
CASES = [
    ("How many singers?", "SELECT count(*) FROM singer", "SELECT count(*) FROM singer", "pass", True),
    # Another literal: the rows differ (wrong), while EM ignores values (a match): the two figures disagree.
    (
        "Names and ages of singers from France?",
        "SELECT name, age FROM singer WHERE country = 'France'",
        "SELECT age, name FROM singer WHERE country = 'Spain'",
        "wrong",
        True,
    ),
    # The same rows by another operator: a pass, not an exact match.
    (
        "Names of singers older than 40?",
        "SELECT name FROM singer WHERE age > 40",
        "SELECT name FROM singer WHERE age >= 41",
        "pass",
        False,
    ),
    # The other end of the foreign key, tables the other way round: a match by Spider's key map.
    (
        "Who sang the most concerts?",
        "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id "
        "GROUP BY T2.singer_id ORDER BY count(*) DESC LIMIT 1",
        "SELECT s.name FROM concert AS c JOIN singer AS s ON c.singer_id = s.singer_id "
        "GROUP BY s.singer_id ORDER BY count(*) DESC LIMIT 1",
        "pass",
        True,
    ),
    # A column that does not exist: an error, and not a match.
    ("Names of all singers?", "SELECT name FROM singer", "SELECT nme FROM singer", "error", False),
]


@pytest.fixture
def spider(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_CALLER_DIR", raising=False)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    folder = tmp_path / "spider" / "database" / "concert_singer"
    folder.mkdir(parents=True)
    db = sqlite3.connect(folder / "concert_singer.sqlite")
    for statement in SCHEMA:
        db.execute(statement)
    db.commit()
    db.close()
    questions = [{"db_id": "concert_singer", "question": q, "query": gold} for q, gold, *_ in CASES]
    (tmp_path / "spider" / "dev.json").write_text(json.dumps(questions))
    (tmp_path / "spider" / "dev_gold.sql").write_text("".join(f"{gold}\tconcert_singer\n" for _, gold, *_ in CASES))
    (tmp_path / "pred.sql").write_text("".join(f"{pred}\n" for _, _, pred, *_ in CASES))
    code = import_main(
        [
            "spider",
            *("--questions", "spider/dev.json", "--gold", "spider/dev_gold.sql", "--predictions", "pred.sql"),
            *("--model", "em-test", "--out", "out", "--db-dir", "spider/database"),
        ]
    )
    assert code == 0
    assert "note: the corpus asks for Spider's exact-set-match (exact_match: spider)" in capsys.readouterr().out
    return tmp_path


def grade(corpus: str, *extra: str) -> tuple[int, dict]:
    code = run_main(
        [
            *("--suite", "sql", "--corpus", corpus, "--db-dir", "spider/database", "--candidate", "recorded"),
            *("--answers", "out/spider.answers.jsonl", "--json", "report.json", *extra),
        ]
    )
    return code, json.loads(Path("report.json").read_text())


def test_em_by_hardness_beside_execution_accuracy_in_json_markdown_and_html(spider):
    assert "exact_match: spider" in Path("out/spider.yaml").read_text()
    code, report = grade("out/spider.yaml", "--markdown", "report.md", "--html", "report.html")
    assert code == 0
    questions = report["questions"]
    assert [q["verdict"] for q in questions] == [c[3] for c in CASES]
    assert [q["exact"]["match"] for q in questions] == [c[4] for c in CASES]
    assert questions[2]["exact"]["components"]["where"] is False and questions[2]["exact"]["tables"] is True

    em = report["exact_match"]
    assert (em["measured"], em["matched"], em["unmeasured"], em["rate"]) == (5, 3, 0, 0.6)
    assert em["execution_rate"] == report["summary"]["pass_rate"] == 0.6  # the same share, not the same questions
    levels = [spider_hardness(gold) for _, gold, *_ in CASES]
    for level, t in em["by_difficulty"].items():
        mine = [c for c, lv in zip(CASES, levels) if lv == level]
        assert t["cases"] == len(mine) and t["matched"] == sum(c[4] for c in mine)
        assert t["execution_rate"] == round(sum(c[3] == "pass" for c in mine) / len(mine), 4)
    assert set(em["by_difficulty"]) == set(levels) and list(em["by_difficulty"]) == [
        lv for lv in ("easy", "medium", "hard", "extra") if lv in levels
    ]
    assert em["components"]["where"] == 0.8 and em["components"]["select"] == 0.8
    # The pass rate is execution's alone: the EM figures do not enter it.
    assert report["summary"]["pass"] == 3

    markdown = Path("report.md").read_text()
    section = markdown.split("## Exact-set-match (Spider's EM, a second figure)")[1].split("\n## ")[0]
    assert "EM 3/5 (60.0%" in section and "| all | 5 | 5 | 3/5 (60.0%) | 60.0% |" in section
    assert "where 80.0%" in section
    html = Path("report.html").read_text()
    assert 'id="exact-match"' in html and 'data-difficulty="all"' in html and "3/5 (60.0%)" in html

    # The JSON reads back to the same run, EM included.
    run = from_json(report)
    assert [o.exact for o in run.outcomes] == [o.exact for o in from_json(to_json(run)).outcomes]
    assert run.exact_match == em


def test_exact_match_flag_asks_for_it_on_any_corpus_and_changes_no_verdict_or_cohort(spider):
    text = Path("out/spider.yaml").read_text().replace("exact_match: spider\n", "")
    Path("out/plain.yaml").write_text(text)
    _, without = grade("out/plain.yaml")
    assert "exact_match" not in without and all("exact" not in q for q in without["questions"])
    _, asked = grade("out/plain.yaml", "--exact-match")
    assert asked["exact_match"]["matched"] == 3
    assert [q["verdict"] for q in asked["questions"]] == [q["verdict"] for q in without["questions"]]
    assert asked["cohort"] == without["cohort"]


def test_every_renderer_shows_em_and_escapes_a_difficulty_label(spider):
    _, report = grade("out/spider.yaml")
    run = from_json(report)
    hostile = "<b>x</b>|y"
    run.outcomes[0] = dataclasses.replace(run.outcomes[0], difficulty=hostile)
    markdown = to_markdown(run)
    section = markdown.split("## Exact-set-match")[1].split("\n## ")[0]
    assert hostile not in section and "| all | 5 | 5 | 3/5 (60.0%) | 60.0% |" in section
    html = to_html(run)
    assert hostile not in html and "&lt;b&gt;x&lt;/b&gt;|y" in html and 'id="exact-match-components"' in html
    console = Console(record=True, width=200, force_terminal=False)
    render_terminal(run, console)
    text = console.export_text()
    assert "Exact-set-match (Spider's EM, a second figure)" in text and "EM 3/5 (60.0%" in text
    assert hostile in text  # a terminal shows the label as written: rich Text, never markup
