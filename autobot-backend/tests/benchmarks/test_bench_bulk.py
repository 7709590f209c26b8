"""``make bench ARGS=bulk`` grades the same files both ways (issue 40 point 4): the questions of a shared Spider set
whose database is shared, imported and run by this project, and graded by the test-suite's own ``evaluation.py``.
Nothing is timed; three questions are graded both ways, each a real process."""

from __future__ import annotations

import json
import os

import pytest

from benchmarks import bench_bulk
from eval.tests import needs_spider

pytestmark = [
    needs_spider.mark,
    pytest.mark.skipif(
        not (bench_bulk.PEERS / "test-suite-sql-eval" / "evaluation.py").is_file(),
        reason=f"the test-suite's code is not at {bench_bulk.PEERS}",
    ),
]


def test_the_shared_files_leave_out_the_questions_without_a_database(tmp_path):
    spider = needs_spider.SPIDER
    assert spider is not None
    files = bench_bulk.shared_files(spider, "C3+GPT-3.5", tmp_path)
    questions = json.loads((files / "dev.json").read_text())
    golds = (files / "gold.sql").read_text().splitlines()
    assert len(questions) == len(golds) == len((files / "pred.sql").read_text().splitlines()) == 972
    assert all(g.endswith("\t" + q["db_id"]) for q, g in zip(questions, golds))


def test_both_graders_grade_the_same_files(tmp_path):
    spider = needs_spider.SPIDER
    assert spider is not None
    files = bench_bulk.shared_files(spider, "DAIL-SQL+GPT-4", tmp_path / "set")
    for name in ("dev.json",):
        (files / name).write_text(json.dumps(json.loads((files / name).read_text())[:3]))
    for name in ("gold.sql", "pred.sql"):
        (files / name).write_text("".join(line + "\n" for line in (files / name).read_text().splitlines()[:3]))
    env = {**os.environ, "EVAL_OUTPUT_DIR": str(tmp_path), "EVAL_CALLER_DIR": str(tmp_path)}
    ours = bench_bulk.ours(spider, files, env)
    theirs = bench_bulk.testsuite(spider, files, env)
    assert "3 questions" in ours.output and ours.cpu > 0  # the run's report: its corpus of the three
    assert "EXECUTION ACCURACY" in theirs.output and theirs.cpu > 0
