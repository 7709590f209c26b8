"""``python -m eval.sql.spider_study suspects``: the flags of the shared Spider golds by kind, the seeded sample taken
across the kinds, the committed judgements' precision, and the benchmarks page's block it keeps (issue 34 point 6)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from eval.core.errors import UsageError
from eval.sql.oracle.suspect import KINDS
from eval.sql.spider_study import _suspects as suspects
from eval.sql.spider_study._graded import BACKEND
from eval.sql.spider_study._suspects import Flag, Judgement
from eval.tests import needs_spider


def flag(n: int, kind: str, finding: str = "seen") -> Flag:
    return Flag(f"spider-{n:04d}", kind, (finding,))


def test_the_sample_takes_the_kinds_in_turns_and_is_seeded():
    flags = [flag(i, "unmatched_literal") for i in range(40)] + [flag(100 + i, "ungrouped_column") for i in range(2)]
    flags += [flag(200 + i, "limit_tie") for i in range(40)]
    drawn = suspects.sample(flags, size=10, seed=34)
    assert [f.kind for f in drawn[:6]] == ["unmatched_literal", "ungrouped_column", "limit_tie"] * 2
    assert [f.kind for f in drawn[6:]] == ["unmatched_literal", "limit_tie"] * 2  # a kind run dry drops out
    assert drawn == suspects.sample(list(reversed(flags)), size=10, seed=34)  # the order flags come in is not the draw
    assert drawn != suspects.sample(flags, size=10, seed=35)
    assert len(suspects.sample(flags[:3], size=30)) == 3  # fewer flags than the size: all of them


def test_precision_counts_right_over_judged_and_a_changed_finding_is_not_judged():
    drawn = [flag(1, "narrow_literal"), flag(2, "output_columns"), flag(3, "limit_tie", "new words")]
    judged = {
        "spider-0001/narrow_literal": Judgement("spider-0001/narrow_literal", "seen", "right", "a republic"),
        "spider-0002/output_columns": Judgement("spider-0002/output_columns", "seen", "wrong", "asked"),
        "spider-0003/limit_tie": Judgement("spider-0003/limit_tie", "old words", "right", "tie"),
    }
    result = suspects.precision(drawn, judged)
    assert [f.key for f in result.unjudged] == ["spider-0003/limit_tie"] and result.value is None and not result.met
    del judged["spider-0003/limit_tie"]
    result = suspects.precision(drawn[:2], judged)
    assert result.value == 0.5 and not result.met and [f.key for f in result.wrong] == ["spider-0002/output_columns"]
    assert "1 right of 2 = 50% (target 90%: NOT met)" in suspects.summary("set", 9, drawn[:2], result)


def test_a_judgement_without_a_verdict_or_reason_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "judgements.yaml"
    path.write_text(
        yaml.safe_dump({"judgements": [{"flag": "spider-0001/limit_tie", "finding": "x", "verdict": "maybe"}]})
    )
    with pytest.raises(UsageError, match=r"judgements\.yaml: judgement 1 \(spider-0001/limit_tie\)"):
        suspects.load_judgements(path)
    assert suspects.load_judgements(tmp_path / "absent.yaml") == {}


def test_the_committed_judgements_name_each_kind_and_a_reason():
    judged = suspects.load_judgements()
    assert len(judged) == suspects.SIZE
    assert {j.flag.split("/")[1] for j in judged.values()} <= set(KINDS)
    assert all(j.reason.strip() and j.finding for j in judged.values())


def _study(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "eval.sql.spider_study", "suspects", *args],
        cwd=BACKEND,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )


@needs_spider.mark
def test_the_benchmarks_page_block_is_what_the_study_prints_and_the_target_holds():
    done = _study("--check-docs")
    assert done.returncode == 0, done.stderr
    assert "| `narrow_literal` |" in done.stdout and "| `output_columns` |" in done.stdout
    assert "(target 90%: met)" in done.stdout


@needs_spider.mark
def test_unjudged_flags_exit_2_and_the_sample_shows_each_flag_with_its_evidence(tmp_path: Path):
    (tmp_path / "none.yaml").write_text("judgements: []\n")
    env = {"EVAL_OUTPUT_DIR": str(tmp_path), "EVAL_CALLER_DIR": str(tmp_path)}
    done = _study("--judgements", "none.yaml", "--sample", str(tmp_path / "sample.md"), "--stub", "stub.yaml", env=env)
    assert done.returncode == 2 and "30 sampled flag(s) not judged" in done.stderr
    sample = (tmp_path / "sample.md").read_text()
    assert sample.count("**Finding:**") == suspects.SIZE and "## 30. `spider-" in sample
    assert "**Stored values holding each compared string**" in sample  # a literal kind's evidence
    stub = yaml.safe_load((tmp_path / "stub.yaml").read_text())["judgements"]
    assert len(stub) == suspects.SIZE and all(row["verdict"] == "" and row["finding"] for row in stub)
