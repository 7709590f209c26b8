"""No forged CI command in any line the harness prints, in any of the GitHub Actions runner's syntaxes
(issue 38, point 3).

The runner (``actions/runner``: ``ActionCommand.TryParseV2`` and ``TryParse``, called from
``ActionCommandManager.TryProcessCommand`` for every line of a step's stdout and stderr) obeys a line
that, after .NET's ``TrimStart`` (Unicode white space: no-break, em and ideographic spaces included),
begins ``::NAME ...::``, and a line holding the legacy ``##[NAME ...]`` anywhere in it; it reads lines
split at CR as at LF, and after ``stop-commands`` it obeys nothing until the token it was given comes back
as a command of its own. :func:`runner_command` is that parser, with every name taken as registered (a
stop token can be any word). Each form is checked on the neutraliser, then through real runs: a model's
and a recorded answer's SQL and reasons, and a database's table names, printed by ``eval.run``,
``eval.sql.init`` and ``eval.sql.check`` (references naming tables a database's message quotes).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from eval.core.outbound import COMMAND_SPACE, no_commands
from eval.core.untrusted import inert
from eval.tests import small_run as sr

BACKEND = Path(__file__).resolve().parents[3]
DOTNET_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
DOTNET_SPACE += "\u2028\u2029\u202f\u205f\u3000"
"""``char.IsWhiteSpace``: what ``string.TrimStart()`` removes before the runner looks for ``::``."""

FORMS = {
    "v2": "::error file=README.md,line=1::forged",
    "v2_after_spaces": " \t::warning::forged",
    "v2_after_nbsp": "\u00a0::error::forged",
    "v2_after_em_space": "\u2003::add-mask::forged",
    "v2_after_ideographic_space": "\u3000::notice::forged",
    "v2_after_narrow_nbsp": "\u202f::set-output name=x::forged",
    "v2_after_cr": "harmless\r::error::forged",
    "v2_stop_commands": "::stop-commands::tok3n",
    "v2_resume_token": "::tok3n::",
    "legacy_at_start": "##[error]forged",
    "legacy_mid_line": "a row said ##[add-mask]forged",
    "legacy_stop_commands": "x ##[stop-commands]tok3n",
    "legacy_after_a_hash": "###[warning]forged",
    "legacy_with_properties": "y ##[set-output name=x;]forged",
}


def runner_command(line: str) -> str | None:
    """The command the runner obeys in ``line`` (one line, as it reads them), or None."""
    trimmed = line.lstrip(DOTNET_SPACE)
    if trimmed.startswith("::"):
        end = trimmed.find("::", 2)
        if end >= 0 and trimmed[2:end].split(" ", 1)[0]:
            return trimmed[2:end].split(" ", 1)[0]
    start = line.find("##[")
    if start >= 0:
        close = line.find("]", start)
        if close >= 0 and line[start + 3 : close].split(" ", 1)[0]:
            return line[start + 3 : close].split(" ", 1)[0]
    return None


def runner_lines(text: str) -> list[str]:
    """``StreamReader.ReadLine``: lines end at CR, LF or CRLF."""
    return re.split(r"\r\n|\r|\n", text)


def test_the_model_of_the_runner_obeys_every_form() -> None:
    """The control: each form, printed as it is, is a command to the runner."""
    for name, form in FORMS.items():
        assert any(runner_command(line) for line in runner_lines(form)), name
    assert set(DOTNET_SPACE) - {"\n", "\r"} <= set(COMMAND_SPACE), "every space the runner trims is covered"


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
@pytest.mark.parametrize("where", ["alone", "after_text", "indented"])
def test_no_form_survives_the_neutraliser(form: str, where: str) -> None:
    text = {"alone": form, "after_text": f"question q1: {form}", "indented": f"report\n    {form} tail"}[where]
    for shown in (inert(text), no_commands(text)):
        assert [line for line in runner_lines(shown) if runner_command(line)] == [], shown
    assert "forged" in inert(text) or "tok3n" in inert(text), "the text is shown, not dropped"


def test_a_json_report_reads_the_neutralised_text_back_as_it_was() -> None:
    value = {"sql": "SELECT 1 -- ##[add-mask]x ###[error]"}
    assert json.loads(inert(json.dumps(value))) == value


# --- through real runs --------------------------------------------------------------------------------------

PAYLOAD = "\n".join(FORMS.values())


def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=BACKEND, env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """stdout and stderr of a regressed run whose answers carry every form (in SQL comments, in a refusal's
    reason, in a table name a database error quotes), of ``eval.sql.init`` and ``eval.sql.check`` over a
    database whose tables are named with them; and the Markdown files the run writes."""
    work = tmp_path_factory.mktemp("ci-commands")
    env = {**os.environ, "EVAL_OUTPUT_DIR": str(work), "GITHUB_ACTIONS": "true"}
    env["GITHUB_STEP_SUMMARY"] = str(work / "summary.md")
    sr.write_corpus(work / "mine.yaml")
    sr.write_answers(work / "perfect.jsonl", perfect=True)
    answers = sr.perfect_answers()
    answers[sr.WRONG] = {"id": sr.WRONG, "sql": f"SELECT 424242 /* {PAYLOAD} */"}
    answers[sr.BROKEN] = {"id": sr.BROKEN, "sql": 'SELECT * FROM "' + FORMS["legacy_mid_line"] + '"'}
    answers[sr.DECLINED] = {"id": sr.DECLINED, "refused": True, "reason": PAYLOAD}
    answers[sr.ANSWERED] = {"id": sr.ANSWERED, "sql": f"SELECT COUNT(*) FROM customers -- {FORMS['v2_after_nbsp']}"}
    lines = list(answers.values())
    lines[0] = {**lines[0], "model": "scripted"}
    (work / "a.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    run = ["eval.run", "--suite", "sql", "--corpus", str(work / "mine.yaml"), "--candidate", "recorded"]
    run += ["--baseline-dir", str(work / "baselines")]
    assert _run(*run, "--answers", str(work / "perfect.jsonl"), "--record-baseline", env=env).returncode == 0
    regressed = _run(
        *run, "--answers", str(work / "a.jsonl"), "--fail-on-regression", "--github-summary",
        "--markdown", str(work / "r.md"), env=env,
    )  # fmt: skip
    assert regressed.returncode == 1, regressed.stderr[-2000:]

    db = work / "tables.sqlite"
    with sqlite3.connect(db) as con:
        for k, form in enumerate(("legacy_mid_line", "v2_after_nbsp", "legacy_stop_commands")):
            con.execute(f'CREATE TABLE "{FORMS[form].replace(chr(13), "")}" (id INTEGER PRIMARY KEY, v TEXT)')
            con.execute(f"INSERT INTO \"{FORMS[form].replace(chr(13), '')}\" VALUES ({k}, '{FORMS['v2']}')")
    init = _run("eval.sql.init", "--db-url", f"sqlite:///{db}", "--out", str(work / "starter"), env=env)
    assert init.returncode == 0, init.stderr[-2000:]
    missing = [FORMS["v2_after_nbsp"], FORMS["legacy_stop_commands"], FORMS["legacy_mid_line"] + "!"]
    questions = [
        {"id": f"hostile-{k}", "question": f"How many rows are in table {k}?", "stratum": "scalar", "shape": "scalar",
         "sql": f'SELECT COUNT(*) FROM "{name}"'}
        for k, name in enumerate(missing)
    ]  # fmt: skip
    (work / "hostile.yaml").write_text(json.dumps({"version": 1, "questions": questions}))
    check = _run("eval.sql.check", str(work / "hostile.yaml"), "--db-url", f"sqlite:///{db}", env=env)
    assert "nothing was graded" in check.stdout and "Traceback" not in check.stderr, check.stderr[-2000:]
    return {
        "run stdout": regressed.stdout,
        "run stderr": regressed.stderr,
        "init stdout": init.stdout,
        "init stderr": init.stderr,
        "check stdout": check.stdout,
        "check stderr": check.stderr,
        "markdown": (work / "r.md").read_text(),
        "summary": (work / "summary.md").read_text(),
    }


def test_the_forms_reach_the_output_so_the_check_means_something(printed: dict[str, str]) -> None:
    assert "add-mask" in printed["run stdout"] and "stop-commands" in printed["run stdout"]
    assert "stop-commands" in printed["markdown"] and "add-mask" in printed["check stdout"] + printed["check stderr"]


@pytest.mark.parametrize(
    "name", ["run stdout", "run stderr", "init stdout", "init stderr", "check stdout", "check stderr", "markdown",
             "summary"],
)  # fmt: skip
def test_no_printed_line_is_a_command_but_the_harness_s_own(printed: dict[str, str], name: str) -> None:
    obeyed = [(runner_command(line), line) for line in runner_lines(printed[name]) if runner_command(line)]
    own = [line for _, line in obeyed if re.match(r"::(error|warning|notice) title=SQL ", line)]
    assert [line for _, line in obeyed if line not in own] == []
    if name == "run stdout":
        assert len(own) >= 3, "the harness's own annotations are still printed, one per regression at least"
        assert all(command != "stop-commands" for command, _ in obeyed)
