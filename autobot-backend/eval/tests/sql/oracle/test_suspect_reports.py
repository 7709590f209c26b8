"""Suspect references reported (issue 25 point 5): flagged by the self-check, references and alternatives alike;
a suspect reference graded as usual and shown apart and beside its verdict in every output, its untrusted
literal escaped; counted by kind by the bench import and listed by the corpus check without failing it.
The checks themselves are ``test_suspect_references.py``."""

from __future__ import annotations

import dataclasses
import json
import sqlite3

import pytest
import yaml
from rich.console import Console

from eval.cli.bench_import import main as import_main
from eval.cli.check import main as check_main
from eval.run import main
from eval.sql.corpus.questions import load_corpus
from eval.sql.model import codec
from eval.sql.model.outcome import Verdict
from eval.sql.model.serialise import from_json
from eval.sql.oracle.selfcheck import run_self_check
from eval.sql.oracle.suspect import (
    JOIN_WITHOUT_CONDITION,
    LIMIT_TIE,
    NARROW_LITERAL,
    OUTPUT_COLUMNS,
    UNGROUPED_COLUMN,
    UNMATCHED_LITERAL,
    by_kind,
)
from eval.sql.render import ci_annotations, render_terminal, to_html, to_junit, to_markdown
from eval.tests.sql.oracle._helpers import WORLD, build_world
from services.readonly.execute import ReadOnlySQL


def test_the_self_check_flags_the_reference_and_alternatives_and_reuses_its_tie_lint(tmp_path):
    url = build_world(tmp_path / "world.sqlite")
    corpus_file = tmp_path / "mine.yaml"
    questions = [
        {
            "id": "w1",
            "question": "Countries of North America?",
            "sql": "SELECT name FROM country WHERE continent = 'North America'",
            "also": ["SELECT name FROM country WHERE continent = 'north america' OR code IN ('US', 'CA')"],
        },
        {
            "id": "w2",
            "question": "The smallest city?",
            "ordered": True,
            "sql": "SELECT name FROM city ORDER BY population LIMIT 1",
        },
        {
            "id": "w3",
            "question": "Countries per continent?",
            "sql": "SELECT continent, COUNT(*) FROM country GROUP BY continent",
        },
    ]
    corpus_file.write_text(yaml.safe_dump({"version": 1, "questions": questions}, sort_keys=False))
    corpus = load_corpus([corpus_file], fixtures=None)
    with ReadOnlySQL() as database:
        result = run_self_check(database, corpus, {None: [url]}, lint_rotations=False, snapshot_dir=None)
    assert result.defects == []  # suspects are not defects: every question is graded
    [alt] = result.suspects["w1"]
    assert alt.kind == UNMATCHED_LITERAL and alt.detail.startswith("alternative 2 (also[0]): ")
    [tie] = result.suspects["w2"]
    assert tie.kind == LIMIT_TIE and "LIMIT 1 cuts inside a tie of 2 rows" in tie.detail
    assert "w3" not in result.suspects
    assert by_kind([*result.suspects["w1"], *result.suspects["w2"]]) == {
        UNMATCHED_LITERAL: 1,
        NARROW_LITERAL: 0,
        JOIN_WITHOUT_CONDITION: 0,
        UNGROUPED_COLUMN: 0,
        OUTPUT_COLUMNS: 0,
        LIMIT_TIE: 1,
    }


HOSTILE = "<script>alert(1)</script> | **x** %0A::error::"


@pytest.fixture
def graded(tmp_path, monkeypatch):
    """A run of the reference candidate on a database of one's own: one suspect reference whose literal is hostile."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    db = sqlite3.connect(tmp_path / "w.sqlite")
    for statement in WORLD:
        db.execute(statement)
    db.execute("INSERT INTO country VALUES ('XX', ?, 'Nowhere', 1)", (HOSTILE.upper(),))
    db.commit()
    db.close()
    questions = [
        {
            "id": "h1",
            "question": "The odd country?",
            "sql": f"SELECT code FROM country WHERE name = '{HOSTILE}' OR code = 'XX'",
        },
        {"id": "ok1", "question": "How many countries?", "shape": "scalar", "sql": "SELECT COUNT(*) FROM country"},
        # grouped by the primary key: fine only when the run's database says which column that is
        {
            "id": "ok2",
            "question": "Cities per country?",
            "sql": "SELECT T1.name, COUNT(*) FROM country AS T1 JOIN city AS T2 ON T1.code = T2.country_code "
            "GROUP BY T1.code",
        },
    ]
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump({"version": 1, "questions": questions}, sort_keys=False))
    code = main(
        [
            "--suite",
            "sql",
            "--corpus",
            "mine.yaml",
            "--db-url",
            f"sqlite:///{tmp_path / 'w.sqlite'}",
            "--candidate",
            "reference",
            "--baseline-dir",
            "bl",
            "--json",
            "r.json",
            "--markdown",
            "r.md",
            "--html",
            "r.html",
            "--junit",
            "r.xml",
        ]
    )
    assert code == 0
    return tmp_path


def test_a_suspect_reference_is_graded_and_shown_apart_in_every_output(graded):
    data = json.loads((graded / "r.json").read_text())
    assert {q["id"]: q["verdict"] for q in data["questions"]} == {"h1": "pass", "ok1": "pass", "ok2": "pass"}
    [finding] = data["suspect_references"]
    assert finding["question_id"] == "h1" and finding["kind"] == UNMATCHED_LITERAL and HOSTILE in finding["detail"]
    run = from_json(data)
    assert [codec.to_json(s) for s in run.suspect_references] == [finding]  # read back as written
    md = (graded / "r.md").read_text()
    assert (
        "## Suspect references (1 question(s), 1 finding(s))" in md and "| **h1** | pass | unmatched\\_literal |" in md
    )
    assert "<script>" not in md and "\\<script\\>" in md and "\\*\\*x\\*\\*" in md
    html = (graded / "r.html").read_text()
    assert 'id="suspect-references"' in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert" not in html
    card = html[html.index('id="q-h1"') :]
    card = card[: card.index("</section>")]
    assert ">suspect reference</span>" in card and "Suspect reference (graded as usual): unmatched_literal:" in card
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in card and "<script>alert" not in card
    other = html[html.index('id="q-ok1"') :]
    assert ">suspect reference</span>" not in other[: other.index("</section>")]
    junit = (graded / "r.xml").read_text()
    assert 'name="suspect_reference.1" value="h1 (pass): suspect reference, unmatched_literal:' in junit
    assert "&lt;script&gt;" in junit and "-- suspect reference (unmatched_literal):" in junit
    [notice] = [line for line in ci_annotations(run) if line.startswith("::notice")]
    assert notice.startswith("::notice title=SQL suspect reference%3A h1::h1 (pass)")
    assert "\n" not in notice and "%250A%3A%3Aerror" not in notice and "%250A::error::" in notice
    console = Console(record=True, width=200, force_terminal=False)
    render_terminal(run, console)
    shown = console.export_text()
    assert "Suspect references (1 question(s), 1 finding(s))" in shown and "unmatched_literal" in shown


def test_a_run_without_suspects_writes_no_suspect_key_or_section(graded):
    run = from_json(json.loads((graded / "r.json").read_text()))
    run.suspect_references = []
    assert "Suspect references" not in to_markdown(run) + to_html(run) + to_junit(run)
    assert not [line for line in ci_annotations(run) if line.startswith("::notice")]


def test_a_failing_question_carries_its_flag_beside_the_verdict(graded):
    run = from_json(json.loads((graded / "r.json").read_text()))
    run.outcomes = [
        dataclasses.replace(o, verdict=Verdict.WRONG, reason="value") if o.question_id == "h1" else o
        for o in run.outcomes
    ]
    md = to_markdown(run)
    assert "### h1: wrong (value)" in md and "Suspect reference (unmatched\\_literal):" in md
    assert '<a href="#q-h1">h1</a>' in to_html(run)
    console = Console(record=True, width=200, force_terminal=False)
    render_terminal(run, console)
    assert "wrong suspect reference" in console.export_text()


SPIDER_GOLD = [
    ("How many countries are in North America?", "SELECT COUNT(*) FROM country WHERE continent = 'north america'"),
    ("Name a country and a city.", "SELECT T1.name, T2.name FROM country AS T1 JOIN city AS T2"),
    ("Countries per continent, and one name?", "SELECT continent, name, COUNT(*) FROM country GROUP BY continent"),
    ("The smallest city?", "SELECT name FROM city ORDER BY population LIMIT 1"),
    ("How many cities?", "SELECT COUNT(*) FROM city"),
    (
        "Cities of Europe?",
        "SELECT T2.name FROM country AS T1 JOIN city AS T2 ON T1.code = T2.country_code WHERE T1.continent = 'Europe'",
    ),
    ("The population and name of every country?", "SELECT name, population FROM country"),
]


@pytest.fixture
def spider_world(tmp_path, monkeypatch):
    """A Spider folder of its own: database/world_1/world_1.sqlite, dev.json, dev_gold.sql; one gold per kind."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_CALLER_DIR", raising=False)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    (tmp_path / "spider" / "database" / "world_1").mkdir(parents=True)
    build_world(tmp_path / "spider" / "database" / "world_1" / "world_1.sqlite")
    items = [{"db_id": "world_1", "question": text, "query": gold} for text, gold in SPIDER_GOLD]
    (tmp_path / "spider" / "dev.json").write_text(json.dumps(items))
    (tmp_path / "spider" / "dev_gold.sql").write_text("".join(f"{gold}\tworld_1\n" for _, gold in SPIDER_GOLD))
    return tmp_path


def test_bench_import_prints_how_many_references_are_suspect_by_kind(spider_world, capsys):
    args = ["spider", "--questions", "spider/dev.json", "--gold", "spider/dev_gold.sql", "--out", "out"]
    assert import_main(args) == 0
    assert "references: checked when the corpus is graded" in capsys.readouterr().out  # by default, not at import
    code = import_main([*args, "--check-references"])
    assert code == 0
    out = capsys.readouterr().out
    assert (
        "suspect references: 5 of 7 question(s) (unmatched_literal 1, narrow_literal 0, join_without_condition 1, "
        "ungrouped_column 1, output_columns 1, limit_tie 1)"
    ) in out
    assert "python -m eval.sql.check" in out and "out/spider.yaml --db-dir" in out


def test_the_corpus_check_lists_suspect_references_without_failing_on_them(spider_world, capsys):
    assert (
        import_main(["spider", "--questions", "spider/dev.json", "--gold", "spider/dev_gold.sql", "--out", "out"]) == 0
    )
    capsys.readouterr()
    assert check_main(["out/spider.yaml", "--db-dir", "spider/database"]) == 0
    out = capsys.readouterr().out.splitlines()
    flagged = [line for line in out if "suspect reference (" in line]
    assert [line.split(": question ")[1].split(":")[0] for line in flagged] == [
        "'spider-0000'",
        "'spider-0001'",
        "'spider-0002'",
        "'spider-0003'",
        "'spider-0006'",
    ]
    assert flagged[0].startswith("out/spider.yaml:") and "(unmatched_literal)" in flagged[0]
    assert "(output_columns)" in flagged[-1]
    assert out[-1] == (
        "clean: 7 question(s) in 1 file(s); 5 suspect reference finding(s) above, graded as usual; every reference ran "
        "and passed the self-check; nothing was graded"
    )
