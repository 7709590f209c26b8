"""Spider's EM end to end: a Spider folder of the test's own imported, graded with recorded predictions, and EM
by hardness beside execution accuracy in the JSON, the Markdown and the HTML, never in the pass rate."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

from eval.cli.bench_import import main as import_main
from eval.run import main as run_main
from eval.sql.bench.hardness import spider_hardness
from eval.sql.model import codec
from eval.sql.model.exact import ExactMatch, other_mode
from eval.sql.model.serialise import from_json, to_json
from eval.sql.render import render_terminal, to_html, to_markdown
from eval.sql.render._github import summary_markdown

SCHEMA = [
    "CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER)",
    "CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, concert_name TEXT, year INTEGER,"
    " singer_id INTEGER REFERENCES singer (singer_id))",
    "INSERT INTO singer VALUES (1, 'Joe Sharp', 'Netherlands', 52), (2, 'Timbaland', 'United States', 32),"
    " (3, 'Justin Brown', 'France', 29), (4, 'Rose White', 'France', 41), (5, 'John Nizinik', 'France', 53)",
    "INSERT INTO concert VALUES (1, 'Auditions', 2014, 2), (2, 'Super bootcamp', 2014, 2), (3, 'Home Visits', 2015, 1)",
]

# (question, gold, prediction, verdict, EM official, EM extended): each pair chosen for what EM and execution say
# of it, and for where the two modes part.
CASES = [
    ("How many singers?", "SELECT count(*) FROM singer", "SELECT count(*) FROM singer", "pass", True, True),
    # Another literal: the rows differ (wrong), while EM ignores values (a match): the two figures disagree.
    (
        "Names and ages of singers from France?",
        "SELECT name, age FROM singer WHERE country = 'France'",
        "SELECT age, name FROM singer WHERE country = 'Spain'",
        "wrong",
        True,
        True,
    ),
    # The same rows by another operator: a pass, not an exact match.
    (
        "Names of singers older than 40?",
        "SELECT name FROM singer WHERE age > 40",
        "SELECT name FROM singer WHERE age >= 41",
        "pass",
        False,
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
        True,
    ),
    # A column that does not exist: an error, and not a match.
    ("Names of all singers?", "SELECT name FROM singer", "SELECT nme FROM singer", "error", False, False),
    # INNER JOIN: Spider's parser cannot read it (official: no match); sqlglot can (extended: a match).
    (
        "Concerts and their singers?",
        "SELECT T2.concert_name, T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id",
        "SELECT T2.concert_name, T1.name FROM singer AS T1 INNER JOIN concert AS T2 ON T1.singer_id = T2.singer_id",
        "pass",
        False,
        True,
    ),
    # A reference with no rows: unmeasured by execution (an oracle defect, never asked), still compared by the
    # official count from the recorded answer; unmeasured in extended EM.
    (
        "Singers over 100?",
        "SELECT name FROM singer WHERE age > 100",
        "SELECT name FROM singer WHERE age > 99",
        "unmeasured",
        True,
        None,
    ),
]
OFFICIAL = [c[4] for c in CASES]
EXTENDED = [c[5] for c in CASES]


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
    assert "exact-set-match as its script counts it (exact_match: official" in capsys.readouterr().out
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
    assert "exact_match: official" in Path("out/spider.yaml").read_text()
    code, report = grade("out/spider.yaml", "--markdown", "report.md", "--html", "report.html")
    assert code == 0
    questions = report["questions"]
    assert [q["verdict"] for q in questions] == [c[3] for c in CASES]
    assert [q["exact"]["mode"] for q in questions] == ["official"] * len(CASES)
    assert [q["exact"]["match"] for q in questions] == OFFICIAL
    assert [q["exact"]["extended"]["match"] for q in questions] == EXTENDED
    assert questions[2]["exact"]["components"]["where"] is False and questions[2]["exact"]["tables"] is True
    assert "Spider's parser cannot read the candidate's SQL: `INNER JOIN`" in questions[5]["exact"]["note"]
    assert "does not have" in questions[4]["exact"]["extended"]["note"]  # nme: never a match, in either mode

    em = report["exact_match"]
    # Official: every question counts, the unmeasured one too (4 of 7); extended: the measured six (4 of 6).
    assert (em["mode"], em["cases"], em["measured"], em["matched"], em["unmeasured"]) == ("official", 7, 7, 4, 0)
    assert em["rate"] == 0.5714 and em["differ"] == 2
    assert em["other"] == {"mode": "extended", "measured": 6, "matched": 4, "rate": 0.6667}
    assert em["execution_rate"] == report["summary"]["pass_rate"] == 0.6667  # the same share, not the same questions
    levels = [spider_hardness(gold) for _, gold, *_ in CASES]
    for level, t in em["by_difficulty"].items():
        mine = [c for c, lv in zip(CASES, levels) if lv == level]
        assert t["cases"] == len(mine) and t["matched"] == sum(bool(c[4]) for c in mine)
        graded = [c for c in mine if c[3] != "unmeasured"]
        assert t["execution_rate"] == round(sum(c[3] == "pass" for c in graded) / len(graded), 4)
    assert set(em["by_difficulty"]) == set(levels) and list(em["by_difficulty"]) == [
        lv for lv in ("easy", "medium", "hard", "extra") if lv in levels
    ]
    assert em["components"]["where"] == 0.8571 and em["components"]["select"] == 0.7143  # unread: as the empty query
    # The pass rate is execution's alone: the EM figures do not enter it.
    assert report["summary"]["pass"] == 4

    markdown = Path("report.md").read_text()
    section = markdown.split("## Exact-set-match (Spider's EM, a second figure)")[1].split("\n## ")[0]
    assert "EM (official mode, as Spider's script counts it) 4/7 (57.1%" in section
    assert "extended mode: EM 4/6 (66.7%); the two modes score 2 answer(s) differently" in section
    assert "| all | 7 | 7 | 4/7 (57.1%) | 66.7% |" in section
    assert "where 85.7%" in section
    html = Path("report.html").read_text()
    assert 'id="exact-match"' in html and 'data-difficulty="all"' in html and "4/7 (57.1%)" in html
    assert 'data-mode="official"' in html and 'data-differ="2"' in html and "extended mode: EM 4/6 (66.7%)" in html

    # The JSON reads back to the same run, EM included.
    run = from_json(report)
    assert [o.exact for o in run.outcomes] == [o.exact for o in from_json(to_json(run)).outcomes]
    assert run.exact_match is not None and codec.to_json(run.exact_match) == em


def test_exact_match_flag_asks_for_it_on_any_corpus_and_changes_no_verdict_or_cohort(spider):
    text = Path("out/spider.yaml").read_text().replace("exact_match: official\n", "")
    Path("out/plain.yaml").write_text(text)
    _, without = grade("out/plain.yaml")
    assert "exact_match" not in without and all("exact" not in q for q in without["questions"])
    _, asked = grade("out/plain.yaml", "--exact-match")  # bare: the official mode
    assert (asked["exact_match"]["mode"], asked["exact_match"]["matched"]) == ("official", 4)
    assert [q["verdict"] for q in asked["questions"]] == [q["verdict"] for q in without["questions"]]
    assert asked["cohort"] == without["cohort"]
    _, extended = grade("out/plain.yaml", "--exact-match", "extended")
    em = extended["exact_match"]
    assert (em["mode"], em["measured"], em["matched"], em["unmeasured"], em["differ"]) == ("extended", 6, 4, 1, 2)
    assert em["other"] == {"mode": "official", "measured": 7, "matched": 4, "rate": 0.5714}
    assert [q["exact"]["match"] for q in extended["questions"]] == EXTENDED
    assert [q["exact"]["official"]["match"] for q in extended["questions"]] == OFFICIAL
    assert extended["cohort"] == without["cohort"]


@pytest.mark.parametrize(("key", "mode"), [("official", "official"), ("spider", "official"), ("extended", "extended")])
def test_the_corpus_key_names_the_mode_and_the_flag_overrides_it(spider, key, mode):
    text = Path("out/spider.yaml").read_text().replace("exact_match: official", f"exact_match: {key}")
    Path("out/keyed.yaml").write_text(text)
    _, report = grade("out/keyed.yaml")
    assert report["exact_match"]["mode"] == mode
    _, flagged = grade("out/keyed.yaml", "--exact-match", "extended" if mode == "official" else "official")
    assert flagged["exact_match"]["mode"] != mode


def test_every_renderer_names_the_mode_and_the_answers_the_modes_score_differently(spider, monkeypatch):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(spider / "summary.md"))
    _, report = grade("out/spider.yaml", "--junit", "report.xml", "--github-summary")
    run = from_json(report)
    text = _terminal(run)
    assert "EM (official mode, as Spider's script counts it) 4/7" in text
    assert "the two modes score 2 answer(s) differently" in text
    junit = {p.get("name"): p.get("value") for p in ET.parse("report.xml").iter("property")}
    assert junit["exact_match.mode"] == "official" and junit["exact_match.differ"] == "2"
    assert "the two modes score 2 answer(s) differently" in junit["exact_match"]
    assert junit["exact_match.all"] == "4/7 (57.1%) of 7 measured; execution 66.7%"
    summary = (spider / "summary.md").read_text()
    assert summary_markdown(run) in summary
    assert "EM (official mode, as Spider's script counts it) 4/7" in summary and "score 2 answer(s)" in summary
    extended = dataclasses.replace(
        run, outcomes=[dataclasses.replace(o, exact=_flipped(o.exact)) for o in run.outcomes]
    )
    assert "EM (extended mode, the project's reading) 4/6" in to_markdown(extended)
    assert 'data-mode="extended"' in to_html(extended) and "official mode: EM 4/7" in _terminal(extended)


def _flipped(exact: ExactMatch | None) -> ExactMatch | None:
    """The same answer's EM led by the other mode (what ``--exact-match extended`` writes)."""
    if exact is None:
        return None
    return ExactMatch(exact.other, {}, None, exact.other_note, exact.match, exact.note, mode=other_mode(exact.mode))


def _terminal(run) -> str:
    console = Console(record=True, width=400, force_terminal=False)
    render_terminal(run, console)
    return console.export_text()


def test_every_renderer_shows_em_and_escapes_a_difficulty_label(spider):
    _, report = grade("out/spider.yaml")
    run = from_json(report)
    hostile = "<b>x</b>|y"
    run.outcomes[0] = dataclasses.replace(run.outcomes[0], difficulty=hostile)
    markdown = to_markdown(run)
    section = markdown.split("## Exact-set-match")[1].split("\n## ")[0]
    assert hostile not in section and "| all | 7 | 7 | 4/7 (57.1%) | 66.7% |" in section
    html = to_html(run)
    assert hostile not in html and "&lt;b&gt;x&lt;/b&gt;|y" in html and 'id="exact-match-components"' in html
    text = _terminal(run)
    assert "Exact-set-match (Spider's EM, a second figure)" in text and "EM (official mode" in text
    assert hostile in text  # a terminal shows the label as written: rich Text, never markup
