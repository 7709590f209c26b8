"""Every output shows why the wrong and error answers are wrong (issue 25 point 4): the counts by primary
category (all and per stratum) and each failing question's diagnosis line; the HTML the differing
clauses side by side. The run is real (recorded answers on the built-in fixtures), and one wrong answer's
SQL is hostile markup, which its diagnosis quotes: every output escapes it."""

from __future__ import annotations

import html
import io
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

from eval.run import main as run_main
from eval.sql.model.diagnosis import Category
from eval.sql.model.run import SQLRun
from eval.sql.model.serialise import from_json
from eval.sql.render import render_terminal, summary_markdown, to_html, to_junit, to_markdown
from eval.tests import small_run as sr


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> SQLRun:
    work = tmp_path_factory.mktemp("diagnosis-outputs")
    cwd = os.getcwd()
    os.chdir(work)
    try:
        sr.write_corpus(work / "mine.yaml")
        sr.write_answers(work / "a.jsonl")
        common = ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--model", "scripted"]
        run_main([*common, "--answers", "a.jsonl", "--json", "r.json"])
    finally:
        os.chdir(cwd)
    return from_json(json.loads((work / "r.json").read_text()), "r.json")


def test_the_run_holds_a_diagnosis_quoting_the_hostile_sql(run: SQLRun) -> None:
    hostile = next(o for o in run.outcomes if o.question_id == sr.HOSTILE)
    assert hostile.diagnosis is not None and "<script>" in hostile.diagnosis.line  # the raw text, in the model
    assert run.diagnosis_counts.overall and run.diagnosis_counts.strata


def test_markdown_shows_the_counts_and_each_line_escaped(run: SQLRun) -> None:
    text = to_markdown(run)
    assert "## Why they are wrong: wrong and error answers by primary category" in text
    counts = run.diagnosis_counts.overall
    header = next(line for line in text.splitlines() if line.startswith("|  |") and all(c in line for c in counts))
    assert [c.strip() for c in header.split("|")[2:-1]] == list(counts)  # a column per category, in precedence
    assert "Why: **schema**" in text  # the answer naming a table that is not there
    why = [line for line in text.splitlines() if line.startswith("Why: ")]
    assert len(why) == len(run.diagnosed)
    quoting = [line for line in why if "script" in line]
    assert quoting and all("<script>" not in line and "\\<script\\>" in line for line in quoting)


def test_the_job_summary_lists_each_diagnosed_question(run: SQLRun) -> None:
    text = summary_markdown(run)
    assert "## Why they are wrong" in text
    for o in run.diagnosed:
        assert f"- **{o.question_id}** **{o.diagnosis.primary.value}**" in text  # type: ignore[union-attr]
    assert all("<script>" not in line for line in text.splitlines() if line.startswith("- **"))


def test_html_shows_the_clauses_side_by_side_escaped(run: SQLRun) -> None:
    page = to_html(run)
    assert 'id="diagnosis-counts"' in page and 'class="clauses"' in page
    assert '<mark class="ref">' in page and '<mark class="cand">' in page
    assert "<script>document" not in page
    hostile = next(o for o in run.outcomes if o.question_id == sr.HOSTILE)
    assert hostile.diagnosis is not None
    assert html.escape(hostile.diagnosis.line, quote=False).split("'")[0] in page


def test_junit_and_terminal_carry_each_diagnosis(run: SQLRun) -> None:
    suite = ET.fromstring(to_junit(run))
    messages = [f.get("message", "") for f in suite.iter("failure")]
    assert any("why: schema: did not run" in m for m in messages), messages
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert {k for k in props if k and k.startswith("diagnosis.")} == {
        f"diagnosis.{c}" for c in run.diagnosis_counts.overall
    }
    console = Console(record=True, width=250, file=io.StringIO())
    render_terminal(run, console)
    shown = console.export_text()
    assert "Why they are wrong" in shown and "why (diagnosis)" in shown
    assert Category.SCHEMA.value + ": did not run" in shown


def test_a_run_without_a_diagnosis_shows_no_section(tmp_path: Path, run: SQLRun) -> None:
    import dataclasses

    clean = dataclasses.replace(run, outcomes=[dataclasses.replace(o, diagnosis=None) for o in run.outcomes])
    assert "Why they are wrong" not in to_markdown(clean)
    assert 'id="diagnosis-counts"' not in to_html(clean)
