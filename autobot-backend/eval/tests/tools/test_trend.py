"""The trend: one JSON line per recorded run, and ``python -m eval.trend`` over time per candidate and model."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from eval.cli import trend as trend_cli
from eval.cli.compare import main as compare_main
from eval.run import main
from eval.sql.records import docs as docs_mod
from eval.sql.records import trend_file
from eval.tests import small_run as sr


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("EVAL_OUTPUT_DIR", "EVAL_CALLER_DIR"):
        monkeypatch.delenv(var, raising=False)
    sr.write_corpus(tmp_path / "mine.yaml")
    return tmp_path


def _record(work: Path, answers: Path) -> int:
    args = ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--answers", str(answers)]
    return main([*args, "--record-accuracy", "record.md", "--json", f"{answers.stem}.json"])


def test_each_recorded_run_is_one_json_line_with_its_commit_and_intervals(work):
    assert _record(work, sr.write_answers(work / "good.jsonl", perfect=True)) == 0
    assert _record(work, sr.write_answers(work / "bad.jsonl")) == 0
    lines = [json.loads(x) for x in (work / "record.jsonl").read_text().splitlines()]
    assert [x["pass"] for x in lines] == [8, 4] and [x["measured"] for x in lines] == [8, 8]
    assert (
        lines[1]["pass_rate"] == 0.5
        and lines[1]["pass_rate_ci"] == json.loads((work / "bad.json").read_text())["summary"]["pass_rate_ci"]
    )
    assert lines[0]["refusal_recall"] == 1.0 and lines[1]["correct_refusals"] == 2
    assert lines[0].get("commit") is None  # the corpus is in no repository: the harness's commit is not its
    assert lines[0]["cohort"] == json.loads((work / "good.json").read_text())["cohort"]["fingerprint"]


def test_the_trend_shows_each_candidate_and_model_over_time(work, capsys):
    assert _record(work, sr.write_answers(work / "good.jsonl", perfect=True, model="m-1")) == 0
    assert _record(work, sr.write_answers(work / "bad.jsonl", model="m-1")) == 0
    assert _record(work, sr.write_answers(work / "other.jsonl", perfect=True, model="m-2 <b>")) == 0
    capsys.readouterr()
    assert trend_cli.main(["--file", "record.jsonl", "--html", "t.html", "--all-cohorts"]) == 0
    out = capsys.readouterr().out
    assert "## recorded / m-1" in out and "## recorded / m-2 \\<b\\>" in out
    assert "100.0% (" in out and "50.0% (" in out
    page = (work / "t.html").read_text()
    assert page.count('<section class="series"') == 2
    assert 'id="chart-pass_rate"' in page and 'id="chart-refusal_recall"' in page
    assert len(set(re.findall(r'<g id="pass_rate-series-\d+"', page))) == 2, "a series per cohort"
    assert "m-2 <b>" not in page and "m-2 &lt;b&gt;" in page
    assert trend_cli.main(["--file", "record.jsonl", "--html", "t.html"]) == 0  # by default: cohorts of 2 runs or more
    page = (work / "t.html").read_text()
    assert (
        len(set(re.findall(r'<g id="pass_rate-series-\d+"', page))) == 1 and page.count('<section class="series"') == 2
    )
    assert 'id="not-drawn"' in page and "m-2 &lt;b&gt;" in page.split('id="not-drawn"')[1].split("</p>")[0]


def test_a_bad_trend_line_names_the_file_and_line(work, capsys):
    (work / "t.jsonl").write_text('{"date": "2026-01-01", "candidate": "x", "model": "y", "pass_rate": 0.5}\n{oops\n')
    assert trend_cli.main(["--file", "t.jsonl"]) == 2
    assert "t.jsonl:2: not a JSON line" in capsys.readouterr().err
    assert trend_cli.main(["--file", "missing.jsonl"]) == 2
    (work / "d.jsonl").write_text('{"date": "29/11/2026", "candidate": "x", "model": "y", "pass_rate": 0.5}\n')
    capsys.readouterr()
    assert trend_cli.main(["--file", "d.jsonl", "--html", "d.html"]) == 2
    assert "d.jsonl:1: 'date' is \"29/11/2026\", not a date YYYY-MM-DD" in capsys.readouterr().err


def test_a_record_written_before_the_trend_is_backfilled_once(work, capsys):
    page = work / "old.md"
    page.write_text(docs_mod.ACCURACY_PAGE.read_text())
    assert trend_cli.main(["--file", "old.jsonl", "--backfill", "old.md"]) == 0
    lines = [json.loads(x) for x in (work / "old.jsonl").read_text().splitlines()]
    assert lines and all(x["source"] == "record row" and x["commit"] is None for x in lines)
    first = lines[0]
    assert (first["pass"], first["measured"]) == (36, 108)
    assert first["pass_rate_ci"][0] < 1 / 3 < first["pass_rate_ci"][1]
    assert trend_cli.main(["--file", "old.jsonl", "--backfill", "old.md"]) == 2
    assert "already backfilled" in capsys.readouterr().err


def test_compare_writes_the_comparison_as_html(work):
    _record(work, sr.write_answers(work / "good.jsonl", perfect=True))
    _record(work, sr.write_answers(work / "bad.jsonl"))
    assert compare_main(["good.json", "bad.json", "--html", "c.html"]) == 0
    page = (work / "c.html").read_text()
    assert 'data-side="A"' in page and 'data-side="B"' in page
    assert page.count('<tr><td class="mono">') == 5, "one row per flip"
    assert os.path.getsize(work / "c.html") < 100_000


def test_a_trend_line_reads_back_as_the_point_it_was_written_from():
    point = trend_file.TrendPoint(
        date="2026-12-03", candidate="embedded", model="embedded-v5", pass_rate=0.5926, passed=64, measured=108,
        pass_rate_ci=[0.4986, 0.6803], commit="abc", dirty=False, suite="off",
    )  # fmt: skip
    line = point.to_json()
    assert line["pass"] == 64 and "passed" not in line
    assert trend_file.TrendPoint.from_json(json.loads(json.dumps(line))) == point
    with pytest.raises(KeyError, match="pass_rate"):
        trend_file.TrendPoint.from_json({"date": "d", "candidate": "c", "model": "m"})
