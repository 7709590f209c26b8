"""No traceback from any tool on bad input; every file a tool reads bounded in size and depth (issue 38,
points 2 and 5).

``bench_import`` took 21 minutes and 9.3 GB for a 1 GB line and exited 0; ``eval.compare`` took 7.7 GB for
a 1.6 GB report and read ``/dev/zero`` until MemoryError; deeply nested JSON was a RecursionError
traceback in both; ``eval.trend`` crashed on lines out of range or of the wrong type, and ``--backfill``
on the harness's own page when a refusal recall or over-refusals cell is ``n/a``. Each is run here
through the command's ``main`` and must end as exit 2 with an error naming the file, and no traceback.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from eval.cli import bench_import, compare, spider_study, trend
from eval.core.jsonl import MAX_DEPTH
from eval.sql.records import docs as docs_mod
from eval.tests import needs_spider

EXAMPLE_RUN = Path(__file__).resolve().parents[4] / "docs" / "eval" / "examples" / "sql-run.json"
TREND = docs_mod.ACCURACY_PAGE.with_suffix(".jsonl")


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_CALLER_DIR", raising=False)
    monkeypatch.setenv("EVAL_OUTPUT_DIR", str(tmp_path))
    return tmp_path


def refused(capsys: pytest.CaptureFixture[str], code: int, *named: str) -> str:
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in out + err and "internal error" not in err, err[-2000:]
    assert err.startswith("error: ") and all(n in err for n in named), err[-2000:]
    return err


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# --- eval.compare ----------------------------------------------------------------------------------------


def _mutated(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(json.loads(EXAMPLE_RUN.read_text()))
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


# One-field mutations that crashed eval.compare (found by mutating the example run at random).
MUTATIONS = [
    (("candidate",), "x"),
    (("corpus",), True),
    (("cohort", "keys"), True),
    (("questions", 0, "stratum"), -1),
    (("questions", 0, "stratum"), 10**30),
    (("questions", 0, "id"), ["a"]),
    (("questions", 0, "rotations"), "3"),
]


@pytest.mark.parametrize(
    ("path", "value"), MUTATIONS, ids=[".".join(map(str, p)) + "=" + repr(v)[:12] for p, v in MUTATIONS]
)
def test_compare_refuses_a_report_with_a_value_of_the_wrong_kind(work, capsys, path, value):
    shutil.copy(EXAMPLE_RUN, work / "a.json")
    (work / "b.json").write_text(json.dumps(_mutated(path, value)))
    refused(capsys, compare.main(["a.json", "b.json"]), "b.json")


def test_compare_refuses_json_nested_past_the_bound(work, capsys):
    shutil.copy(EXAMPLE_RUN, work / "a.json")
    for depth in (MAX_DEPTH + 1, 100_000):  # past the bound, and past Python's own recursion limit
        (work / "b.json").write_text(nested(depth))
        refused(capsys, compare.main(["a.json", "b.json"]), "b.json", f"nested deeper than {MAX_DEPTH} levels")


def test_compare_reads_no_further_than_the_input_limit(work, capsys, monkeypatch):
    shutil.copy(EXAMPLE_RUN, work / "a.json")
    refused(capsys, compare.main(["a.json", "/dev/zero"]), "/dev/zero: larger than 268,435,456 bytes")
    monkeypatch.setenv("EVAL_MAX_INPUT_BYTES", str(EXAMPLE_RUN.stat().st_size - 1))
    refused(capsys, compare.main(["a.json", str(EXAMPLE_RUN)]), "EVAL_MAX_INPUT_BYTES")


# --- eval.trend ------------------------------------------------------------------------------------------

BAD_LINES = [
    ("pass_rate", "x"), ("pass_rate", 2), ("pass_rate", True), ("pass_rate", []), ("pass_rate_ci", [0.9, 0.1]),
    ("pass_rate_ci", [2, 3]), ("pass_rate_ci", ["a", "b"]), ("pass_rate_ci", 5), ("date", "9999-12-31"),
    ("date", 123), ("candidate", []), ("model", {}), ("commit", 123), ("refusal_recall", "n/a"),
    ("refusal_recall", -0.1), ("refusal_recall_ci", [5, 6]), ("corpus_digest", 5), ("questions", -5),
    ("dirty", "yes"), ("suite", "maybe"), ("rotations", {}), ("verdicts", [3]), ("verdicts", {"pass": -1}),
    ("verdicts", {"pass": "3"}),
]  # fmt: skip


@pytest.mark.parametrize(("key", "value"), BAD_LINES, ids=[f"{k}={v!r}"[:24] for k, v in BAD_LINES])
def test_trend_names_a_line_out_of_range_or_of_the_wrong_kind(work, capsys, key, value):
    last = json.loads(TREND.read_text().splitlines()[-1])
    (work / "t.jsonl").write_text(json.dumps(last) + "\n" + json.dumps({**last, key: value}) + "\n")
    for html in ([], ["--html", "t.html"]):
        refused(capsys, trend.main(["--file", "t.jsonl", *html]), "t.jsonl:2:", repr(key))
    assert not (work / "t.html").exists()


def test_trend_refuses_json_nested_past_the_bound(work, capsys):
    (work / "t.jsonl").write_text(nested(5000) + "\n")
    refused(capsys, trend.main(["--file", "t.jsonl"]), "t.jsonl:1:", "nested deeper")


def test_backfill_reads_the_harness_s_own_page_with_a_figure_of_n_a(work, capsys):
    """A record row whose refusal recall and over-refusals are ``n/a`` (no must-refuse case, no control) is
    backfilled with those figures null; a row that does not read is named, and nothing is written."""
    page = docs_mod.ACCURACY_PAGE.read_text()
    first = next(line for line in page.splitlines() if line.startswith("| 20") and "| provisional |" in line)
    cells = first.split(" | ")
    cells[-3], cells[-2] = "n/a", "n/a"
    (work / "old.md").write_text(page.replace(first, " | ".join(cells), 1))
    assert trend.main(["--file", "old.jsonl", "--backfill", "old.md"]) == 0
    line = json.loads((work / "old.jsonl").read_text().splitlines()[0])
    assert (line["refusal_recall"], line["over_refusals"], line["controls"]) == (None, None, None)
    capsys.readouterr()
    cells[2] = "many"  # the questions cell
    (work / "bad.md").write_text(page.replace(first, " | ".join(cells), 1))
    refused(capsys, trend.main(["--file", "bad.jsonl", "--backfill", "bad.md"]), "bad.md: the row of")
    assert not (work / "bad.jsonl").exists()


# --- bench_import ----------------------------------------------------------------------------------------


@pytest.fixture
def spider(work: Path) -> Path:
    import sqlite3

    (work / "database" / "shop").mkdir(parents=True)
    with sqlite3.connect(work / "database" / "shop" / "shop.sqlite") as con:
        con.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)")
        con.execute("INSERT INTO items VALUES (1, 'a')")
    (work / "dev.json").write_text(
        json.dumps([{"db_id": "shop", "question": f"How many items {i}?"} for i in range(3)])
    )
    (work / "gold.sql").write_text("SELECT count(*) FROM items\tshop\n" * 3)
    return work


def _import(*args: str) -> int:
    return bench_import.main(["spider", "--gold", "gold.sql", "--out", "out", "--model", "m", "--db-dir", "database",
                              *args])  # fmt: skip


def test_import_refuses_a_one_gigabyte_line_after_reading_the_limit(spider, capsys):
    with open(spider / "pred.sql", "wb") as fh:
        fh.truncate(1 << 30)  # 1 GB of NUL bytes and no line end (sparse: nothing is written to disk)
    refused(capsys, _import("--questions", "dev.json", "--predictions", "pred.sql"), "pred.sql: larger than")
    assert not (spider / "out").exists()


def test_import_refuses_a_line_longer_than_any_sql(spider, capsys):
    (spider / "pred.sql").write_text("SELECT 1\nSELECT 2\nSELECT '" + "x" * 2_000_000 + "'\n")
    refused(capsys, _import("--questions", "dev.json", "--predictions", "pred.sql"), "pred.sql:3:", "a line of")


def test_import_refuses_questions_nested_past_the_bound(spider, capsys):
    (spider / "deep.json").write_text(nested(100_000))
    refused(capsys, _import("--questions", "deep.json"), "deep.json", "nested deeper")


def test_import_of_honest_files_still_works(spider, capsys):
    """The control: the same files, with predictions of an ordinary length, import."""
    (spider / "pred.sql").write_text("SELECT count(*) FROM items\n" * 3)
    assert _import("--questions", "dev.json", "--predictions", "pred.sql") == 0, capsys.readouterr().err
    assert (spider / "out" / "spider.answers.jsonl").exists()


# --- the Spider study's packets ---------------------------------------------------------------------------


@needs_spider.mark
@pytest.mark.parametrize("line", [nested(5000), '{"set": "a"}', "[1]", "{"], ids=["deep", "keys", "array", "cut"])
def test_packets_name_a_draw_line_that_does_not_read(work, capsys, line):
    """``packets --draw`` read its file whole with ``json.loads`` per line: a RecursionError or KeyError traceback."""
    (work / "draw.jsonl").write_text(line + "\n")
    refused(capsys, spider_study.main(["packets", "--draw", "draw.jsonl", "--out", "p"]), "draw.jsonl:1:")
    assert not (work / "p").exists()
