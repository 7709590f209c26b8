"""``eval.compare`` shows how the wrong and error answers moved by diagnosis category ("schema -3, filter +1"),
with the questions behind each number, in its Markdown (its terminal view), its JSON and its HTML page (issue 25
point 4). Both runs are real: recorded answers graded on the built-in fixtures."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from eval.cli.compare import main as compare_main
from eval.run import main as run_main
from eval.tests import small_run as sr


def _run(work: Path, answers: dict[str, dict], out: str) -> None:
    (work / f"{out}.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers.values()))
    common = ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--model", "scripted"]
    run_main([*common, "--answers", f"{out}.jsonl", "--json", f"{out}.json"])


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str]:
    work = tmp_path_factory.mktemp("category-shift")
    cwd = os.getcwd()
    os.chdir(work)
    try:
        sr.write_corpus(work / "mine.yaml")
        sr.write_answers(work / "a.jsonl")  # three answers reading no table there is: schema
        base = [json.loads(line) for line in (work / "a.jsonl").read_text().splitlines()]
        a = {x["id"]: x for x in base}
        _run(work, a, "a")
        b = {q["id"]: q for q in sr.perfect_answers().values()}
        right = next(q for q in sr.PICKED if q.id == sr.WRONG)
        assert right.sql is not None and "o.status = 'completed' AND " in right.sql
        b[sr.WRONG] = {"id": sr.WRONG, "sql": right.sql.replace("o.status = 'completed' AND ", "")}
        _run(work, b, "b")
        code = compare_main(["a.json", "b.json", "--json", "c.json", "--markdown", "c.md", "--html", "c.html"])
        assert code == 0
        return json.loads((work / "c.json").read_text()), (work / "c.md").read_text(), (work / "c.html").read_text()
    finally:
        os.chdir(cwd)


def test_the_shift_by_category_with_its_questions(compared):
    result, _, _ = compared
    shift = result["category_shift"]
    assert shift["line"] == "schema -3, filter +1"
    assert shift["categories"]["schema"] == {
        "a": 3,
        "b": 0,
        "shift": -3,
        "left": sorted([sr.WRONG, sr.HOSTILE, sr.BROKEN], key=[q.id for q in sr.PICKED].index),
        "joined": [],
    }
    assert shift["categories"]["filter"] == {"a": 0, "b": 1, "shift": 1, "left": [], "joined": [sr.WRONG]}


def test_the_markdown_names_the_shift_and_the_questions(compared):
    _, text, _ = compared
    assert "## Wrong and error answers by diagnosis category" in text
    assert "Shift A -> B: **schema -3, filter +1**" in text
    filter_row = next(line for line in text.splitlines() if line.startswith("| filter |"))
    assert sr.WRONG.replace("_", "\\_") in filter_row or sr.WRONG in filter_row


def test_the_html_page_shows_the_shift_and_the_questions(compared):
    _, _, page = compared
    assert 'id="category-shift"' in page and "Shift A &rarr; B: <strong>schema -3, filter +1</strong>" in page
    row = page[page.index('data-category="filter"') :]
    row = row[: row.index("</tr>")]
    assert '<td class="num">+1</td>' in row and sr.WRONG in row
    schema = page[page.index('data-category="schema"') :]
    assert '<td class="num">-3</td>' in schema[: schema.index("</tr>")]
