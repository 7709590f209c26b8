"""The run model is the file format: a JSON report reads back into the same run, figures included."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from eval.run import main as run_main
from eval.sql.fixtures import cache
from eval.sql.model import codec
from eval.sql.model.serialise import SCHEMA_VERSION, ReportFormatError, from_json, to_json
from eval.tests import small_run as sr

SNAPSHOT = Path(__file__).parents[2] / "data" / "characterisation" / "builtin.json"


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A real run of the small corpus with every kind of outcome (wrong, error, refused, missed refusal,
    an excerpt, hostile text), compared against a baseline so every question is classified."""
    work = tmp_path_factory.mktemp("model")
    cwd = os.getcwd()
    os.chdir(work)
    try:
        sr.write_corpus(work / "mine.yaml")
        sr.write_answers(work / "perfect.jsonl", perfect=True)
        sr.write_answers(work / "a.jsonl")
        common = ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--model", "scripted"]
        assert run_main([*common, "--answers", "perfect.jsonl", "--record-baseline"]) == 0
        assert run_main([*common, "--answers", "a.jsonl", "--json", "r.json"]) == 0
    finally:
        os.chdir(cwd)
    return json.loads((work / "r.json").read_text())


def test_a_report_reads_back_into_the_run_it_was_written_from(graded: dict) -> None:
    run = from_json(graded, "r.json")
    assert json.loads(json.dumps(to_json(run))) == graded
    assert graded["schema_version"] == SCHEMA_VERSION
    assert {q["classification"] for q in graded["questions"]} >= {"regression", "unchanged"}
    assert any(q["excerpt"] for q in graded["questions"]), "the round trip must carry an excerpt"
    assert codec.to_json(run.summary) == graded["summary"] and run.failing, "figures are recomputed from the questions"


def test_the_builtin_run_reads_back_whole() -> None:
    """148 real outcomes of the built-in generator (the characterisation snapshot)."""
    data = json.loads(SNAPSHOT.read_text())
    assert json.loads(json.dumps(to_json(from_json(data)), sort_keys=True)) == data


def test_figures_a_file_contradicts_are_not_believed(graded: dict) -> None:
    forged = json.loads(json.dumps(graded))
    forged["summary"]["pass"] = 999
    assert from_json(forged).summary.passed == graded["summary"]["pass"]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(suite="trajectory"), "not a SQL suite report"),
        (lambda d: d.update(schema_version=99), "schema_version 99"),
        (lambda d: d["questions"][0].update(verdict="maybe"), "malformed"),
        (lambda d: d["questions"][0].pop("id"), "malformed"),
    ],
)
def test_a_file_that_is_not_a_run_is_refused_by_name(graded: dict, mutate, message: str) -> None:
    bad = json.loads(json.dumps(graded))
    mutate(bad)
    with pytest.raises(ReportFormatError, match=message) as err:
        from_json(bad, "runs/b.json")
    assert "runs/b.json" in str(err.value)


def test_the_fixture_version_ignores_moves_and_words_but_not_code(tmp_path: Path) -> None:
    a = tmp_path / "a.py"
    a.write_text(
        '"""Rows."""\nimport random\n\n\ndef rows(seed):\n    """Doc."""\n    return random.Random(seed).random()\n'
    )
    moved = tmp_path / "moved" / "b.py"
    moved.parent.mkdir()
    moved.write_text(
        '"""Rows, re-worded."""\nfrom __future__ import annotations\n\nimport random  # moved\n\n\n'
        'def rows(seed):\n    """Another doc."""\n    return random.Random(seed).random()\n'
    )
    changed = tmp_path / "c.py"
    changed.write_text("import random\n\n\ndef rows(seed):\n    return random.Random(seed + 1).random()\n")
    assert cache.code_digest([a]) == cache.code_digest([moved])
    assert cache.code_digest([a]) != cache.code_digest([changed])
    assert cache.source_digest([a]) != cache.source_digest([moved]), "the cache still keys on the bytes"


def test_wrong_and_error_answers_carry_their_diagnosis_and_the_run_counts_them(graded: dict) -> None:
    """Graded for real (recorded answers on the built-in fixtures): a diagnosis on each answerable wrong or
    error answer, none elsewhere, read back whole, and the counts by primary category (issue 25)."""
    by_id = {q["id"]: q for q in graded["questions"]}
    broken = by_id[sr.BROKEN]
    assert broken["verdict"] == "error" and broken["diagnosis"]["primary"] == "schema"  # no such table
    wrong = by_id[sr.WRONG]  # SELECT 424242: reads none of the tables the reference reads
    assert wrong["verdict"] == "wrong" and wrong["diagnosis"]["primary"] == "schema", wrong["diagnosis"]
    for q in graded["questions"]:
        diagnosable = q["expect"] == "answer" and q["verdict"] in ("wrong", "error")
        assert (q["diagnosis"] is not None) == diagnosable, q["id"]
    run = from_json(graded, "r.json")
    counts = run.diagnosis_counts
    assert sum(counts.overall.values()) == sum(q["diagnosis"] is not None for q in graded["questions"])
    assert codec.to_json(counts) == graded["diagnosis_counts"]
    assert sum(n for per in counts.strata.values() for n in per.values()) == sum(counts.overall.values())
