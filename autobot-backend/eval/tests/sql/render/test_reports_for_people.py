"""Reports for people and for CI: HTML, JUnit XML, the GitHub job summary and annotations, the terminal."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from junitparser import Failure, JUnitXml, Skipped
from rich.console import Console

from eval.run import main
from eval.sql.model.outcome import SQLOutcome, Verdict
from eval.sql.model.run import SQLRun
from eval.sql.model.setup import CorpusStamps, RunSetup
from eval.sql.render import render_terminal
from eval.sql.render._github import error_command
from eval.tests import small_run as sr

BACKEND = Path(__file__).resolve().parents[4]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """One graded run of the small corpus with every kind of outcome; its reports in one folder."""
    work = tmp_path_factory.mktemp("reports")
    cwd = os.getcwd()
    os.chdir(work)
    try:
        sr.write_corpus(work / "mine.yaml")
        sr.write_answers(work / "a.jsonl")
        code = main(
            [
                "--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--answers", "a.jsonl",
                "--json", "r.json", "--html", "r.html", "--junit", "j.xml", "--markdown", "r.md",
            ]
        )  # fmt: skip
    finally:
        os.chdir(cwd)
    assert code == 0
    return work


def verdicts(work: Path) -> dict[str, dict]:
    return {q["id"]: q for q in json.loads((work / "r.json").read_text())["questions"]}


# --- HTML ---------------------------------------------------------------------------------------


def test_the_html_page_is_self_contained_and_escapes_untrusted_text(run):
    page = (run / "r.html").read_text()
    assert "<script>document.title" not in page and "&lt;script&gt;document.title" in page
    assert "<i>x</i>" not in page and "&lt;i&gt;x&lt;/i&gt;" in page
    assert "<b>are</b>" not in page and "&lt;b&gt;are&lt;/b&gt;" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page), "nothing loaded from elsewhere"
    assert "default-src 'none'" in page
    assert page.count("<script>") == 1, "one inline script: the filters"


def test_the_html_shows_every_question_the_failing_ones_open_with_both_queries_and_the_difference(run):
    page = (run / "r.html").read_text()
    v = verdicts(run)
    failing = [q for q in v.values() if (q["verdict"] != "pass" if q["expect"] == "answer" else not q["declined_by"])]
    assert page.count('<section class="question"') == len(v) == 11
    assert page.count('data-failing="1"') == page.count("<details open>") == len(failing) == 5
    wrong = v[sr.WRONG]
    assert wrong["excerpt"]["column"] == 1 and wrong["excerpt"]["actual"][0][1] == ["424242"]
    section = page[page.index(f'id="q-{sr.WRONG}"') :]
    section = section[: section.index("</section>")]
    assert 'class="diff-cell">424242<' in section
    assert "SELECT 424242" in section and "reference SQL" in section


# --- JUnit --------------------------------------------------------------------------------------


def test_junit_has_a_testcase_per_question_and_reads_as_junit(run):
    xml = JUnitXml.fromfile(str(run / "j.xml"))
    cases = {case.name: case for suite in xml for case in suite}
    v = verdicts(run)
    assert set(cases) == set(v)
    assert cases[sr.RIGHT].is_passed and cases[sr.RIGHT].classname == v[sr.RIGHT]["stratum"]

    def failure(qid: str) -> Failure:
        (found,) = [r for r in cases[qid].result if isinstance(r, Failure)]
        return found

    assert "wrong (value)" in failure(sr.WRONG).message
    assert "declined an answerable question" in failure(sr.DECLINED).message
    assert "missed refusal" in failure(sr.ANSWERED).message
    assert cases[sr.ANSWERED].system_out == "SELECT COUNT(*) FROM customers"
    assert cases[sr.REFUSE[1].id].is_passed, "a must-refuse question declined is a pass"
    assert not any(isinstance(r, Skipped) for c in cases.values() for r in c.result)
    totals = ET.parse(run / "j.xml").getroot()
    assert totals.get("tests") == str(len(v)) and totals.get("failures") == "5"


def test_junit_carries_control_characters_as_visible_escapes(run):
    raw = (run / "j.xml").read_text()
    assert "\x1b" not in raw and "\x07" not in raw and "\\x1b[31m bell\\x07" in raw
    ET.fromstring(raw.encode())  # well-formed XML 1.0


# --- the GitHub job summary and annotations ----------------------------------------------------


def test_annotations_cannot_be_broken_out_of():
    line = error_command("SQL regression: q,1:x", "was pass\nnow wrong 100%\r::error::fake")
    assert line == "::error title=SQL regression%3A q%2C1%3Ax::was pass%0Anow wrong 100%25%0D::error::fake"
    assert "\n" not in line


def test_the_summary_is_appended_with_its_mode_and_each_regression_annotated(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    sr.write_corpus(tmp_path / "mine.yaml")
    common = ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--baseline-dir", "bl"]
    assert (
        main([*common, "--answers", str(sr.write_answers(tmp_path / "p.jsonl", perfect=True)), "--record-baseline"])
        == 0
    )
    summary = tmp_path / "summary.md"
    summary.write_text("## an earlier step\n")
    summary.chmod(0o640)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    capsys.readouterr()
    answers = sr.write_answers(tmp_path / "a.jsonl")
    assert main([*common, "--answers", str(answers), "--fail-on-regression", "--github-summary"]) == 1
    text = summary.read_text()
    assert text.startswith("## an earlier step\n\n# SQL answer-accuracy report")
    assert "## Failing questions (5)" in text and "The full report (--markdown or --html) has each one's" in text
    assert "Candidate's SQL" not in text, "the job summary names the failing questions; the full report shows them"
    assert stat.S_IMODE(summary.stat().st_mode) == 0o640
    errors = [x for x in capsys.readouterr().out.splitlines() if x.startswith("::error ")]
    regressed = {sr.WRONG, sr.HOSTILE, sr.BROKEN, sr.DECLINED}
    assert {re.search(r"regression%3A (\S+)::", x).group(1) for x in errors if "regression" in x} == regressed
    assert any(f"SQL safety%3A {sr.ANSWERED}::was declined, now answered" in x for x in errors), errors


def test_github_summary_without_its_variable_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert main(["--suite", "sql", "--github-summary"]) == 2
    assert "GITHUB_STEP_SUMMARY" in capsys.readouterr().err


# --- the terminal ------------------------------------------------------------------------------


def _through_a_terminal(args: list[str], cwd: Path) -> str:
    """Run the CLI with stdout on a pseudo-terminal (as a person at a shell would) and read what it drew."""
    main_fd, child_fd = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(BACKEND), "COLUMNS": "160", "TERM": "xterm-256color"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "eval.run", *args], cwd=cwd, env=env, stdout=child_fd, stderr=subprocess.DEVNULL
    )
    os.close(child_fd)
    chunks = []
    while True:
        ready, _, _ = select.select([main_fd], [], [], 120)
        if not ready:
            proc.kill()
            raise AssertionError("the run printed nothing for 120 s")
        try:
            chunk = os.read(main_fd, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=60)
    os.close(main_fd)
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode(errors="replace"))


def test_a_terminal_gets_tables_and_colour_not_markdown(run):
    shown = _through_a_terminal(
        ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--answers", "a.jsonl",
         "--html", "t.html"],
        run,
    )  # fmt: skip
    assert "The 2x2" in shown and "Failing questions (5)" in shown and "returned a number" in shown
    assert "\\_" not in shown and "| ---" not in shown, "no Markdown escapes or table rules"
    assert "more failing" not in shown  # five failures fit: nothing counted away
    assert "The full report, with each question's SQL beside the reference's: " in shown and "t.html" in shown
    assert sr.WRONG in shown


def _outcome(i: int, verdict: Verdict = Verdict.WRONG) -> SQLOutcome:
    return SQLOutcome(
        question_id=f"[bold]q-{i:02d}[/bold]", expect="answer", stratum="join", verdict=verdict, reason="value",
        detail=f"row 1 col 1: expected {i}, got [red]0[/red]", sql="SELECT 0", question="How many?",
    )  # fmt: skip


def test_past_ten_failures_the_rest_are_counted_with_where_the_full_report_is():
    outcomes = [_outcome(i) for i in range(15)] + [_outcome(99, Verdict.PASS)]
    report = SQLRun(
        outcomes=outcomes,
        candidate_path="recorded",
        model="m [blink]1[/blink]",
        corpus=CorpusStamps("0" * 64, 16),
        run=RunSetup(engine="sqlite", fixtures=["retail"], rotations=3, seed=0),
    )
    out = io.StringIO()
    render_terminal(report, Console(file=out, force_terminal=True, width=160, color_system="truecolor"), "out/r.html")
    shown = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    assert "\x1b[" in out.getvalue(), "coloured"
    assert "[bold]q-00[/bold]" in shown and "[bold]q-09[/bold]" in shown and "q-10" not in shown
    assert "... and 5 more failing question(s); the full report: out/r.html" in shown
    assert "m [blink]1[/blink]" in shown and "got [red]0[/red]" in shown, "markup in data is shown as written"


def test_piped_output_stays_markdown(run):
    piped = (run / "r.md").read_text()
    assert piped.startswith("# SQL answer-accuracy report") and "|---|" in piped
