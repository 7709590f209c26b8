"""Output a person reads (issue 37 point 7), each case driven as a user drives it: ``python -m eval.run`` (and
``eval.compare``) in a subprocess, over a clinic database and a corpus of the test's own.

The service's log counted in one line per kind unless ``--verbose`` (forked children's records counted too);
numbers in sentences as a person writes them; a scalar mismatch as "expected 27, got 400"; the terminal at 80
columns (a real pseudo-terminal) with no line wider, no id cut, and the headline again as its last line; files
named relative to where the user stands; the accuracy record stamped with the corpus's own repository's commit,
or none; an unknown flag answered with the nearest one. The pages (an anchor past the sticky bar, the trend's
series) are checked in Chromium.
"""

from __future__ import annotations

import doctest
import fcntl
import json
import os
import pty
import re
import sqlite3
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from eval.cli import parser as cli_parser
from eval.core import output
from eval.core.browser import open_page
from eval.sql.model import words
from eval.tests import needs_browser
from eval.tools import trend_chart

BACKEND = Path(__file__).resolve().parents[3]
LONG = "clinic-average-fee-per-visit-in-march-2024"
BROKEN = [f"clinic-broken-{i}" for i in range(8)]
CORPUS = (
    "version: 1\nquestions:\n"
    + "".join(
        f"  - id: {qid}\n    question: How many visits did patient {i} have?\n    shape: scalar\n"
        f"    sql: SELECT COUNT(*) FROM visits WHERE patient_id = {i}\n"
        for i, qid in enumerate(BROKEN)
    )
    + (
        f"  - id: {LONG}\n    question: What was the average fee of a visit in March 2024?\n    shape: scalar\n"
        "    sql: SELECT AVG(fee) FROM visits WHERE visited_on LIKE '2024-03%'\n"
        "  - id: clinic-patients\n    question: How many patients are there?\n    shape: scalar\n"
        "    sql: SELECT COUNT(*) FROM patients\n"
    )
)
ANSWERS = {
    **{qid: f"SELECT COUNT(*) FROM no_such_table_{i}" for i, qid in enumerate(BROKEN)},
    LONG: "SELECT AVG(fee) FROM visits",
    "clinic-patients": "SELECT 400",
}


def build(folder: Path) -> Path:
    db = sqlite3.connect(folder / "clinic.db")
    db.executescript(
        "CREATE TABLE patients (id INTEGER PRIMARY KEY, full_name TEXT NOT NULL);"
        "CREATE TABLE visits (id INTEGER PRIMARY KEY, patient_id INTEGER, visited_on DATE, fee NUMERIC(8, 2));"
        + "".join(f"INSERT INTO patients VALUES ({i}, 'patient {i}');" for i in range(27))
        + "INSERT INTO visits VALUES (1, 1, '2024-03-02', 110.1), (2, 2, '2024-03-09', 97.31), "
        "(3, 3, '2024-03-15', 133.45), (4, 1, '2024-01-05', 64.2);"
    )
    db.commit()
    db.close()
    (folder / "q").mkdir()
    (folder / "q" / "clinic.yaml").write_text(CORPUS)
    lines = [{"id": qid, "model": "clinic-bot", "sql": sql} for qid, sql in ANSWERS.items()]
    (folder / "a.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


@pytest.fixture
def clinic(tmp_path: Path) -> Path:
    return build(tmp_path)


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVAL_", "GITHUB_", "NL_SQL_"))}
    return env | {"PYTHONPATH": str(BACKEND)} | extra


RUN = ["eval.run", "--suite", "sql", "--corpus", "q/clinic.yaml", "--db-url", "sqlite:///clinic.db"]
RUN += ["--candidate", "recorded", "--answers", "a.jsonl"]


def command(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=folder,
        env=environment(**env),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("processes", ["1", "2"])  # in one process, and graded in forked children
def test_the_service_log_is_counted_in_one_line_per_kind_unless_verbose(clinic, processes):
    quiet = command(clinic, *RUN, EVAL_PROCESSES=processes)
    assert quiet.returncode == 0, quiet.stderr
    logged = quiet.stderr.count("nl_sql error db_id=")  # anywhere: a progress line may share its line
    assert 1 <= logged <= 3 * int(processes), quiet.stderr  # the first few of each kind, in full
    (count,) = [line for line in quiet.stderr.splitlines() if line.startswith("warning: log autobot.nl_sql.audit")]
    assert count == (
        f"warning: log autobot.nl_sql.audit (nl_sql ...): 8 warning record(s), {logged} printed above, "
        f"{8 - logged} more not; --verbose prints every one"
    )
    loud = command(clinic, *RUN, "--verbose", EVAL_PROCESSES=processes)
    assert loud.stderr.count("nl_sql error db_id=") == 8
    assert "warning: log autobot" not in loud.stderr


def test_numbers_in_sentences_are_written_as_a_person_writes_them(clinic):
    done = command(clinic, *RUN, "--json", "run.json", "--markdown", "run.md", "--html", "run.html")
    assert done.returncode == 0, done.stderr
    questions = {q["id"]: q for q in json.loads((clinic / "run.json").read_text())["questions"]}
    assert questions["clinic-patients"]["detail"] == "expected 27, got 400"  # a scalar: no pairing of rows
    assert questions[LONG]["detail"] == "expected 113.62, got 101.27"  # AVG: 113.62000000000001 and 101.265
    markdown, page = (clinic / "run.md").read_text(), (clinic / "run.html").read_text()
    prose = re.sub(r"```sql.*?```|<pre.*?</pre>", "", markdown + page, flags=re.S)  # SQL is the candidate's text
    assert re.findall(r"\d\.\d{7,}", prose) == []
    costs = re.findall(r"SQL ([\d.,]+) ms", page)
    # Three significant digits, whatever the timer read: 0.435 on a busy machine, 0.0997 on a quiet one
    # (a count of decimals would depend on how fast the SQL ran); whole milliseconds from 100 up.
    assert costs and all(len(c.replace(".", "").lstrip("0")) <= 3 for c in costs if "." in c), costs
    assert all(c.replace(",", "").isdigit() for c in costs if "." not in c), costs


def terminal(folder: Path, *args: str, columns: int = 80) -> tuple[int, str]:
    """The command in a pseudo-terminal ``columns`` wide (what a person at a terminal sees), escapes removed."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = environment(COLUMNS=str(columns), TERM="xterm-256color")
    proc = subprocess.Popen(
        [sys.executable, "-m", *args], cwd=folder, env=env, stdin=follower, stdout=follower, stderr=subprocess.DEVNULL
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the far end closed: the command is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    code = proc.wait(timeout=300)
    text = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    return code, re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07", "", text)


def test_the_terminal_fits_80_columns_cuts_no_id_and_ends_with_the_headline(clinic):
    code, shown = terminal(clinic, *RUN, "--html", "report.html")
    assert code == 0
    lines = shown.rstrip("\n").splitlines()
    assert "SQL answer accuracy" in shown and "Failing questions (10)" in shown
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert "…" not in shown
    assert any(line.strip() == LONG for line in lines) or any(line.startswith(LONG + " ") for line in lines)
    assert lines[-1] == "pass 0.0% (0/10) · gate not evaluated"
    assert "beside the reference's: report.html" in shown  # named as the user wrote it


def test_reports_and_messages_name_files_relative_to_where_the_user_stands(clinic):
    done = command(clinic, *RUN, "--record-baseline")
    assert done.returncode == 0 and "baseline recorded: q/baselines/recorded--clinic-bot.json" in done.stderr
    files = ("run.json", "run.md", "run.html", "run.xml")
    done = command(clinic, *RUN, "--json", files[0], "--markdown", files[1], "--html", files[2], "--junit", files[3])
    assert done.returncode == 0, done.stderr
    folder = str(clinic.resolve())
    for name in files:
        assert folder not in (clinic / name).read_text(), name
    assert folder not in done.stderr and folder not in done.stdout
    report = json.loads((clinic / "run.json").read_text())
    assert [f["path"] for f in report["corpus"]["files"]] == ["q/clinic.yaml"]
    assert report["run"]["db_url"] == "sqlite:///clinic.db"
    assert report["baseline"]["path"] == "q/baselines/recorded--clinic-bot.json"
    compared = command(clinic, "eval.compare", "run.json", "run.json", "--json", "cmp.json")
    assert compared.returncode == 0 and json.loads((clinic / "cmp.json").read_text())["a"]["report"] == "run.json"


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


def test_the_accuracy_record_is_stamped_with_the_corpus_s_own_commit_or_none(clinic):
    done = command(clinic, *RUN, "--record-accuracy", "record.md")
    assert done.returncode == 0, done.stderr
    (line,) = [json.loads(x) for x in (clinic / "record.jsonl").read_text().splitlines()]
    assert line.get("commit") is None  # in no repository: never the harness's commit

    git(clinic, "init", "-q")
    git(clinic, "add", "q/clinic.yaml", "a.jsonl")
    git(clinic, "commit", "-q", "-m", "the clinic's questions")
    head = git(clinic, "rev-parse", "HEAD")
    done = command(clinic, *RUN, "--record-accuracy", "record.md")
    assert done.returncode == 0, done.stderr
    last = json.loads((clinic / "record.jsonl").read_text().splitlines()[-1])
    assert (last["commit"], last.get("dirty")) == (head, False)
    harness = git(BACKEND, "rev-parse", "HEAD")
    assert head != harness


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            [*RUN, "--fail-on-regresion"],
            "unrecognized arguments: --fail-on-regresion (did you mean --fail-on-regression?)",
        ),
        (["eval.compare", "a.json", "b.json", "--markdwn", "x.md"], "(did you mean --markdown?)"),
        (["eval.trend", "--al-cohorts"], "(did you mean --all-cohorts?)"),
    ],
)
def test_an_unknown_flag_is_answered_with_the_nearest(clinic, args, said):
    done = command(clinic, *args)
    assert done.returncode == 2 and said in done.stderr, done.stderr


@pytest.mark.parametrize("module", [output, words, cli_parser, trend_chart], ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    failed, attempted = doctest.testmod(module)
    assert attempted and not failed


@needs_browser.mark
def test_a_link_to_a_question_shows_its_header_below_the_sticky_bar(clinic):
    done = command(clinic, *RUN, "--html", "report.html")
    assert done.returncode == 0, done.stderr
    target = "clinic-patients"  # the last card, far below the bar's first place
    with open_page(clinic / "report.html", width=1000, height=700) as driver:
        driver.get((clinic / "report.html").resolve().as_uri() + f"#q-{target}")
        measured = driver.execute_script(
            "const bar = document.querySelector('.filters').getBoundingClientRect();"
            f"const card = document.getElementById('q-{target}').getBoundingClientRect();"
            "return [bar.bottom, card.top, window.scrollY];"
        )
        bar_bottom, card_top, scrolled = measured
        assert scrolled > 0, "the page did not scroll to the card"
        assert card_top >= bar_bottom, f"the card's header is under the sticky bar ({card_top} < {bar_bottom})"
        header = driver.find_element("css selector", f"#q-{target} summary .q-id")
        assert header.text == target and header.is_displayed()


def trend_line(day: str, model: str, rate: float) -> str:
    return json.dumps(
        {
            "date": day, "candidate": "recorded", "model": model, "engine": "sqlite", "corpus_digest": "c" * 64,
            "pass_rate": rate, "pass_rate_ci": [max(0.0, rate - 0.1), min(1.0, rate + 0.1)],
        }
    )  # fmt: skip


@needs_browser.mark
def test_the_trend_draws_cohorts_of_two_runs_each_in_its_own_colour_and_marker(tmp_path):
    lines = [trend_line(f"2026-01-{d:02d}", f"m-{k}", 0.3 + 0.05 * k) for k in range(12) for d in (1, 2)[: 1 + (k < 3)]]
    (tmp_path / "t.jsonl").write_text("".join(sorted(line + "\n" for line in lines)))  # 3 cohorts of 2, 9 of 1
    for args, series in (([], 3), (["--all-cohorts"], 12)):
        done = command(tmp_path, "eval.trend", "--file", "t.jsonl", "--html", "t.html", *args)
        assert done.returncode == 0, done.stderr
        with open_page(tmp_path / "t.html") as driver:
            drawn = driver.find_elements("css selector", "#chart-pass_rate g[id^='pass_rate-series-']")
            assert len(drawn) == series
            colours = [g.find_element("css selector", ":scope > path").value_of_css_property("stroke") for g in drawn]
            shapes = [g.find_element("css selector", "defs path").get_attribute("d") for g in drawn]
            assert len(set(colours)) == series, colours  # a colour of its own, and a marker of its own among 8
            assert len(set(shapes)) == min(series, 8)
            note = driver.find_elements("css selector", "#not-drawn")
            assert (len(note) == 1 and "9 cohort(s) of a single run" in note[0].text) == (not args)
