"""A new fact reaches every output, in as many files as the architecture page says (issue 35 point 3).

The edits of :mod:`eval.tests.new_fact` (a verdict ``timeout``, a field ``retries`` of a question, a section showing
it) are applied to a copy of the ``eval`` package; a fresh interpreter with that copy first on its path reads the
committed example run, gives three wrong answers the new verdict and two failing questions retries, and writes every
output: the JSON, the Markdown report and the job summary, the terminal, JUnit, the HTML page, the GitHub
annotations, the accuracy record (its row and its per-stratum block) and the trend (its line, its Markdown and its
page). Each output is read back here, by its structure where it has one, and compared with counts worked out here
from the example run's JSON: the verdict's count where every verdict's is (the record's counts adding up to every
question), the section where every section is, the field on each question that has it.

The control renders the same run with the code as it is: every one of those checks fails on it, so they can fail.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from eval.tests import new_fact
from eval.tests.markup_readers import html_tree
from eval.tests.output_readers import md_sections, md_table, term_table

BACKEND = Path(__file__).resolve().parents[4]
EXAMPLE = BACKEND.parent / "docs" / "eval" / "examples" / "sql-run.json"
ARCHITECTURE = BACKEND.parent / "docs" / "eval" / "architecture.md"

_RENDER = r"""
import dataclasses, io, json, sys
from pathlib import Path
from rich.console import Console
from eval.sql import render
from eval.sql.model.outcome import Verdict
from eval.sql.model.serialise import from_json, to_json
from eval.sql.records import accuracy_page, trend_file
from eval.tools import trend

source, out, changes = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3])
run = from_json(json.loads(source.read_text(encoding="utf-8")), str(source))
new_verdict = getattr(Verdict, "TIMEOUT", None)

def changed(o):
    if new_verdict is not None and o.question_id in changes["verdict"]:
        o = dataclasses.replace(o, verdict=new_verdict, reason="timeout", detail="ran past 30 s", excerpt=None,
                                diagnosis=None)
    if o.question_id in changes["field"] and hasattr(o, "retries"):
        o = dataclasses.replace(o, retries=changes["field"][o.question_id])
    return o

run = dataclasses.replace(run, outcomes=[changed(o) for o in run.outcomes])
console = Console(record=True, width=400, file=io.StringIO())
render.render_terminal(run, console, "report.md", shown=len(run.failing))
page = out / "accuracy.md"
accuracy_page.ensure_page(page)
row = accuracy_page.append_record(run, page)
accuracy_page.append_strata(run, row, page)
trend_file.append_line(out / "accuracy.jsonl", trend_file.trend_line(run.summary, row, commit=None, dirty=None))
points = trend.load(out / "accuracy.jsonl")
outputs = {
    "report.json": json.dumps(to_json(run), indent=2) + "\n",
    "report.md": render.to_markdown(run),
    "summary.md": render.summary_markdown(run),
    "terminal.txt": console.export_text(),
    "junit.xml": render.to_junit(run),
    "page.html": render.to_html(run),
    "annotations.txt": "\n".join(render.ci_annotations(run)) + "\n",
    "trend.md": trend.to_markdown(points),
    "trend.html": trend.to_html(points),
}
for name, text in outputs.items():
    (out / name).write_text(text, encoding="utf-8")
"""


def _changes() -> dict[str, Any]:
    """Three answerable wrong answers get the new verdict; the first of them and the next wrong one retries."""
    questions = json.loads(EXAMPLE.read_text(encoding="utf-8"))["questions"]
    wrong = [q["id"] for q in questions if q["expect"] == "answer" and q["verdict"] == "wrong"]
    return {"verdict": wrong[:3], "field": {wrong[0]: 2, wrong[3]: 1}}


def _expected(changes: dict[str, Any]) -> dict[str, Any]:
    """The counts the outputs must show, from the example run's JSON (nothing of the code under test)."""
    questions = json.loads(EXAMPLE.read_text(encoding="utf-8"))["questions"]
    verdict = {q["id"]: (new_fact.VERDICT if q["id"] in changes["verdict"] else q["verdict"]) for q in questions}
    answerable = Counter(verdict[q["id"]] for q in questions if q["expect"] == "answer")
    refuse_unmeasured = sum(q["expect"] == "refuse" and q["verdict"] == "unmeasured" for q in questions)
    return {
        "counts": dict(answerable),
        "answerable": sum(answerable.values()),
        "record total": sum(answerable.values()) + refuse_unmeasured,
        "retries": changes["field"],
        "retries line": f"retries: {len(changes['field'])} question(s) asked again, "
        f"{sum(changes['field'].values())} retries in all",
    }


def _render(code: Path, out: Path, changes: dict[str, Any]) -> dict[str, str]:
    """Every output of the example run, written by the ``eval`` package under ``code`` in a fresh interpreter."""
    out.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(code), str(BACKEND)])}
    done = subprocess.run(
        [sys.executable, "-c", _RENDER, str(EXAMPLE), str(out), json.dumps(changes)],
        cwd=out,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return {p.name: p.read_text(encoding="utf-8") for p in out.iterdir() if p.suffix != ".jsonl"} | {
        "trend line": (out / "accuracy.jsonl").read_text(encoding="utf-8")
    }


def _counted(shown: dict[str, Any]) -> dict[str, int]:
    """The verdicts an output counts questions of (a count of 0 left out, as the run's own counts leave it)."""
    return {v: int(n) for v, n in shown.items() if str(n).isdigit() and int(n)}


def _markdown(text: str, want: dict[str, Any], *, full: bool) -> list[str]:
    missing = []
    sections = md_sections(text)
    (row,) = md_table(sections.get("Verdicts", [])) or [{}]
    shown = _counted({v: n for v, n in row.items() if v != "pass rate"})
    if shown != want["counts"]:
        missing.append(f"verdict counts {shown}")
    strata = md_table(sections.get("Answerable questions per stratum", []))
    if sum(int(r.get(new_fact.VERDICT, 0)) for r in strata) != want["counts"][new_fact.VERDICT]:
        missing.append("the verdict per stratum")
    if f"{want['retries line']}." not in sections.get(new_fact.SECTION_TITLE, []):
        missing.append("the section")
    if full:
        for qid, n in want["retries"].items():
            lines = next((lines for h, lines in sections.items() if h.startswith(f"{qid}: ")), [])
            if f"Retried {n} time(s)" not in "\n".join(lines):
                missing.append(f"the field of {qid}")
    return missing


def _terminal(text: str, want: dict[str, Any]) -> list[str]:
    missing = []
    counts = re.search(r"^answerable (\d+): (.+?)(?:;|$)", text, re.M)
    shown = _counted(dict(p.rsplit(" ", 1) for p in counts.group(2).split(", "))) if counts else {}
    if shown != want["counts"]:
        missing.append(f"verdict counts {shown}")
    if want["retries line"] not in text:
        missing.append("the section")
    title = re.search(r"^Failing questions \(\d+\)", text, re.M)
    failing = {r["question"]: r for r in term_table(text, title.group() if title else "")}
    for qid, n in want["retries"].items():
        if failing.get(qid, {}).get(new_fact.FIELD) != str(n):
            missing.append(f"the field of {qid}")
    return missing


def _junit(text: str, want: dict[str, Any]) -> list[str]:
    missing = []
    suite = ET.fromstring(text.encode()).find("testsuite")
    assert suite is not None
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    shown = _counted({k.removeprefix("verdict."): v for k, v in props.items() if k and k.startswith("verdict.")})
    if shown != want["counts"]:
        missing.append(f"verdict counts {shown}")
    if props.get(new_fact.FIELD) != want["retries line"]:
        missing.append("the section")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    failures = [c.find("failure") for c in cases.values()]
    typed = [f for f in failures if f is not None and f.get("type") == new_fact.VERDICT]
    if len(typed) != want["counts"][new_fact.VERDICT]:
        missing.append("the verdict's failures")
    for qid, n in want["retries"].items():
        out = cases[qid].find("system-out")
        if out is None or f"-- retried {n} time(s)" not in (out.text or ""):
            missing.append(f"the field of {qid}")
    return missing


def _html(text: str, want: dict[str, Any]) -> list[str]:
    missing = []
    page = html_tree(text)
    table = page.one("table", id="verdicts")
    cells = table.all("td", data_count=None) if table else []
    shown = _counted({td.attrs["data-count"]: td.text for td in cells})
    if shown != want["counts"]:
        missing.append(f"verdict counts {shown}")
    strata = page.one("table", id="answer-strata")
    per = strata.all("td", data_count=new_fact.VERDICT) if strata else []
    if sum(int(td.text) for td in per) != want["counts"][new_fact.VERDICT]:
        missing.append("the verdict per stratum")
    section = page.one("p", id=new_fact.FIELD)
    if section is None or section.text != f"{want['retries line']}.":
        missing.append("the section")
    for qid, n in want["retries"].items():
        card = page.one("section", id=f"q-{qid}")
        shown_field = card.one("p", **{"class": new_fact.FIELD}) if card else None
        if shown_field is None or shown_field.text != f"retried {n} time(s)":
            missing.append(f"the field of {qid}")
    return missing


def _json(text: str, want: dict[str, Any]) -> list[str]:
    data = json.loads(text)
    missing = []
    shown = _counted({v: data["summary"].get(v) for v in (*want["counts"], "error", "unmeasured")})
    if shown != want["counts"]:
        missing.append(f"verdict counts {shown}")
    fields = {q["id"]: q.get(new_fact.FIELD) for q in data["questions"]}
    missing += [f"the field of {qid}" for qid, n in want["retries"].items() if fields.get(qid) != n]
    return missing


def _annotations(text: str, want: dict[str, Any]) -> list[str]:
    lines = text.splitlines()
    return [
        f"the field of {qid}"
        for qid, n in want["retries"].items()
        if f"::notice title=SQL retried%3A {qid}::asked {n} more time(s)" not in lines
    ]


def _record(text: str, want: dict[str, Any]) -> list[str]:
    """The accuracy page: the row counts every question in a verdict column, the strata block draws the column."""
    missing = []
    record = text[text.index("<!-- accuracy-record:start -->") : text.index("<!-- accuracy-record:end -->")]
    (row,) = md_table(record.splitlines()[1:])
    verdicts = [c for c in row if c in want["counts"] or c == new_fact.VERDICT]
    if row.get(new_fact.VERDICT) != str(want["counts"][new_fact.VERDICT]):
        missing.append("the verdict's column")
    if sum(int(row[c]) for c in verdicts) != want["record total"]:
        missing.append(f"every question counted ({sum(int(row[c]) for c in verdicts)} of {want['record total']})")
    block = text[text.index("<!-- accuracy-strata:start -->") :].splitlines()
    first = next(i for i, line in enumerate(block) if line.startswith("|"))
    table = block[first : next(i for i in range(first, len(block)) if not block[i].startswith("|"))]
    per_stratum = sum(int(r.get(new_fact.VERDICT, "0")) for r in md_table(table))
    if per_stratum != want["counts"][new_fact.VERDICT]:
        missing.append("the verdict in the strata block")
    return missing


def _trend(outputs: dict[str, str], want: dict[str, Any]) -> list[str]:
    n = want["counts"][new_fact.VERDICT]
    missing = []
    line = json.loads(outputs["trend line"])
    if (line.get("verdicts") or {}).get(new_fact.VERDICT) != n:
        missing.append("the verdict in the trend file")
    if f"{new_fact.VERDICT} {n}" not in outputs["trend.md"]:
        missing.append("the verdict in the trend's Markdown")
    cells = [td.text for td in html_tree(outputs["trend.html"]).all("td", **{"class": "verdicts"})]
    if not any(f"{new_fact.VERDICT} {n}" in c for c in cells):
        missing.append("the verdict on the trend page")
    return missing


def not_shown(outputs: dict[str, str], want: dict[str, Any]) -> dict[str, list[str]]:
    """Per output, what of the new verdict, section and field it fails to show (empty lists: all shown)."""
    return {
        "json": _json(outputs["report.json"], want),
        "markdown": _markdown(outputs["report.md"], want, full=True),
        "job summary": _markdown(outputs["summary.md"], want, full=False),
        "terminal": _terminal(outputs["terminal.txt"], want),
        "junit": _junit(outputs["junit.xml"], want),
        "html": _html(outputs["page.html"], want),
        "annotations": _annotations(outputs["annotations.txt"], want),
        "accuracy page": _record(outputs["accuracy.md"], want),
        "trend": _trend(outputs, want),
    }


@pytest.fixture(scope="module")
def patched(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the ``eval`` package (its tests left out) with every change of :mod:`eval.tests.new_fact` made."""
    code = tmp_path_factory.mktemp("code")
    shutil.copytree(BACKEND / "eval", code / "eval", ignore=shutil.ignore_patterns("tests", "__pycache__"))
    edits = tuple(e for change in ("a new verdict", "a new fact in every output") for e in new_fact.CHANGES[change])
    new_fact.apply(code, edits)
    return code


@pytest.mark.slow
def test_a_new_verdict_section_and_field_are_in_every_output(patched: Path, tmp_path: Path) -> None:
    changes = _changes()
    want = _expected(changes)
    assert want["counts"][new_fact.VERDICT] == 3 and len(want["retries"]) == 2
    outputs = _render(patched, tmp_path / "out", changes)
    assert not_shown(outputs, want) == {name: [] for name in not_shown(outputs, want)}


@pytest.mark.slow
def test_the_checks_fail_on_outputs_without_them(tmp_path: Path) -> None:
    """The control: the same run rendered by the code as it is (no such verdict, field or section)."""
    changes = _changes()
    outputs = _render(BACKEND, tmp_path / "out", changes)
    missing = not_shown(outputs, _expected(changes))
    assert all(missing.values()), {name: found for name, found in missing.items() if not found}


_ROW = re.compile(r"^\| (?P<change>[^|]+?) \| \*\*(?P<count>\d+)\*\*: (?P<files>.+) \|$", re.M)


def test_the_architecture_page_counts_the_files_each_change_touches() -> None:
    """ "Where a change goes": each row the edits make states how many files its change touches, and names each."""
    rows = {m["change"]: m for m in _ROW.finditer(ARCHITECTURE.read_text(encoding="utf-8"))}
    for change, edits in new_fact.CHANGES.items():
        assert change in rows, f"architecture.md has no row {change!r} with its count (| change | **N**: files |)"
        touched = new_fact.files(edits)
        assert int(rows[change]["count"]) == len(touched), (change, touched)
        named = set(re.findall(r"`([^`]+)`", rows[change]["files"]))
        assert new_fact.as_documented(edits) <= named, (change, new_fact.as_documented(edits) - named)
