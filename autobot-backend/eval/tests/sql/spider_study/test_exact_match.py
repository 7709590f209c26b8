"""``python -m eval.sql.spider_study exact-match``: the shared sets graded with ``--exact-match official`` against
Spider's official script, pair by pair; the benchmarks page's figures are the command's own (``--check-docs``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from eval.sql.spider_study._exact import agreement, report
from eval.sql.spider_study._graded import BACKEND, GradedSet
from eval.sql.spider_study._sets import SpiderDev
from eval.tests import needs_spider


def _question(i: int, match: bool | None, note: str = "", verdict: str = "pass") -> dict:
    exact = {"mode": "official", "match": match, "note": note, "extended": {"match": match, "note": ""}}
    return {"id": f"spider-{i:04d}", "verdict": verdict, "exact": exact}


def _published(tmp_path: Path, rows: list[tuple[int, bool, str | None]]) -> SpiderDev:
    lines = [{"set": "S", "dev_index": i, "exact_match": m, "error": e} for i, m, e in rows]
    (tmp_path / "official_exact_match.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    return SpiderDev(tmp_path)


def _graded(questions: list[dict], matched: int, measured: int) -> GradedSet:
    em = {
        "mode": "official",
        "matched": matched,
        "measured": measured,
        "differ": 1,
        "other": {"mode": "extended", "matched": 1, "measured": 2, "rate": 0.5},
    }
    return GradedSet("S", {"questions": questions, "exact_match": em})


def test_agreement_counts_pairs_parser_failures_and_the_gap(tmp_path):
    spider = _published(tmp_path, [(0, True, None), (1, False, "parse: KeyError: 'inner'"), (2, False, None)])
    unread = "Spider's parser cannot read the candidate's SQL: `INNER JOIN`"
    named = "the candidate's SQL names what the database does not have: column nme"
    graded = _graded([_question(0, True), _question(1, False, unread), _question(2, True, named, "error")], 2, 3)
    s = agreement(spider, graded)
    assert s.official == (1, 3) and s.ours == (2, 3) and s.extended == (1, 2)
    assert s.pairs[(True, "match")] == 1 and s.pairs[(False, "no match")] == 1 and s.pairs[(False, "match")] == 1
    assert s.disagreeing == (2,) and s.agreeing == 2
    assert s.parser[(True, True)] == 1 and s.parser[(False, False)] == 2
    assert s.missing_names == (1, 0)
    assert round(s.gap_points, 1) == 33.3 and not s.met
    text = report([s], first=5)
    assert "NOT within 1 point" in text and "disagreeing pairs (dev index): 2" in text


def test_a_run_not_in_official_mode_is_refused(tmp_path):
    spider = _published(tmp_path, [(0, True, None)])
    graded = _graded([_question(0, True)], 1, 1)
    graded.report["exact_match"]["mode"] = "extended"
    with pytest.raises(ValueError, match="not in official mode"):
        agreement(spider, graded)


@needs_spider.mark
def test_the_shared_sets_are_within_a_point_and_the_benchmarks_page_carries_the_figures():
    done = subprocess.run(
        [sys.executable, "-m", "eval.sql.spider_study", "exact-match", "--check-docs"],
        cwd=BACKEND,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    spider = needs_spider.SPIDER
    assert spider is not None
    for name in spider.prediction_sets():
        assert f"{name}: within 1 point of the official figure" in done.stdout
