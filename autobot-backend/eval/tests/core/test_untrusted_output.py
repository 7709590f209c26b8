"""Nothing untrusted speaks to the CI runner or the terminal (issue 23, point 1).

A model reply that hides lines beginning with ``::`` in a SQL comment passed the guard and reached
stdout, where the GitHub Actions runner reads such a line as a workflow command; raw ESC and NUL
bytes reached the Markdown, the annotations and the terminal. Here a real run in a fresh process
(stdout not a terminal, as in CI) grades answers carrying those payloads, and every output is read.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from eval.core.untrusted import inert, visible, visible_all
from eval.sql.model.serialise import from_json
from eval.sql.render import render_terminal
from eval.tests import small_run as sr

BACKEND = Path(__file__).resolve().parents[3]
HIDDEN = "\n::error file=README.md,line=1::forged\n  ::stop-commands::x\n\x1b]0;pwned\x07\x1b[2J\x00"
FORGED_SQL = f"SELECT 424242 /* {HIDDEN} */"
MISSED_SQL = f"SELECT COUNT(*) FROM customers /* {HIDDEN} */"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    work = tmp_path_factory.mktemp("untrusted")
    sr.write_corpus(work / "mine.yaml")
    sr.write_answers(work / "perfect.jsonl", perfect=True)
    answers = sr.perfect_answers()
    answers[sr.WRONG] = {"id": sr.WRONG, "sql": FORGED_SQL}
    answers[sr.ANSWERED] = {"id": sr.ANSWERED, "sql": MISSED_SQL}
    answers[sr.DECLINED] = {"id": sr.DECLINED, "refused": True, "reason": f"no {HIDDEN}"}
    lines = list(answers.values())
    lines[0] = {**lines[0], "model": "scripted"}
    (work / "a.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    summary = work / "summary.md"
    env = {**os.environ, "EVAL_OUTPUT_DIR": str(work), "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    common = [sys.executable, "-m", "eval.run", "--suite", "sql", "--corpus", str(work / "mine.yaml")]
    common += ["--candidate", "recorded", "--baseline-dir", str(work / "baselines")]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*common, *args], cwd=BACKEND, env=env, capture_output=True, text=True, timeout=300)

    assert run("--answers", str(work / "perfect.jsonl"), "--record-baseline").returncode == 0
    proc = run(
        "--answers", str(work / "a.jsonl"), "--fail-on-regression", "--github-summary",
        "--json", str(work / "r.json"), "--markdown", str(work / "r.md"), "--html", str(work / "r.html"),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr[-2000:]
    report = from_json(json.loads((work / "r.json").read_text()))
    terminal = io.StringIO()
    render_terminal(report, Console(file=terminal, force_terminal=True, width=120), None, shown=50)
    return {
        "stdout": proc.stdout,
        "stderr": proc.stderr,
        "markdown": (work / "r.md").read_text(),
        "html": (work / "r.html").read_text(),
        "summary": summary.read_text(),
        "terminal": terminal.getvalue(),
    }


def test_the_payload_is_in_the_report_so_the_checks_below_mean_something(outputs: dict[str, str]) -> None:
    assert "424242" in outputs["markdown"] and "stop-commands" in outputs["markdown"]
    assert "stop-commands" in outputs["stdout"] and "pwned" in outputs["terminal"]


@pytest.mark.parametrize("name", ["stdout", "stderr", "markdown", "summary"])
def test_no_line_from_untrusted_text_begins_a_workflow_command(outputs: dict[str, str], name: str) -> None:
    commands = [line for line in outputs[name].splitlines() if line.lstrip().startswith("::")]
    assert all(line.startswith("::error title=SQL ") for line in commands), commands
    if name == "stdout":
        assert len(commands) >= 2, "the harness's own annotations are still printed (one per regression at least)"


@pytest.mark.parametrize("name", ["stdout", "stderr", "markdown", "summary", "html"])
def test_no_raw_control_character_in_any_output(outputs: dict[str, str], name: str) -> None:
    assert not CONTROL.findall(outputs[name].replace("\n", "").replace("\t", ""))
    if name not in ("stderr", "summary"):  # the job summary names the failing questions, not their SQL
        assert "\\x1b" in outputs[name], "the escape is shown, visibly, not dropped"


def test_the_terminal_receives_no_escape_sequence_from_untrusted_text(outputs: dict[str, str]) -> None:
    own = re.sub(r"\x1b\[[0-9;]*m", "", outputs["terminal"])  # rich's own colours
    assert "\x1b" not in own and "\x07" not in own and "\x00" not in own
    assert "\\x1b]0;pwned" in own


def test_visible_and_inert_at_their_edges() -> None:
    assert visible("tab\tand\nnewline stay") == "tab\tand\nnewline stay"
    assert visible("\x00\x1b\x7f\x9b\ud800") == "\\x00\\x1b\\x7f\\x9b\\ud800"
    assert inert("::a\n \t::b\nx ::c") == "\\x3a:a\n \t\\x3a:b\nx ::c"
    assert inert(":one colon\n:") == ":one colon\n:"
    assert visible_all({"k\x1b": ("v\x00", ["w\x07"])}) == {"k\\x1b": ("v\\x00", ["w\\x07"])}
