"""One SQL run with every fact a report can show, for the test that renders it in every format.

The run is real where a recorded run can be: a corpus of built-in questions on the seeded fixtures
(must-refuse cases and controls of the refusal battery included) and of questions on two databases of
the user's own with difficulty labels (``--db-dir``), one of whose references returns nothing (an
oracle defect); graded from recorded answers against a baseline recorded from perfect answers (so it
regresses, and the gate fails), judged by a scripted model judge on 127.0.0.1 (``--judge``).

What a recorded run cannot produce is then made by the producers a model run calls, from synthetic
asks: two asks per question (``--repeats 2``), one question flaky, with latency and tokens, combined by
:func:`eval.sql.grading.asking.combine` and summed by :func:`eval.sql.grading.costs.cost_summary` and
:func:`~eval.sql.grading.costs.repeat_summary` at configured prices.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from eval.run import main
from eval.sql.grading.asking import combine
from eval.sql.grading.costs import cost_summary, repeat_summary
from eval.sql.model.outcome import ORACLE, Cost, SQLOutcome, Verdict
from eval.sql.model.run import SQLRun
from eval.sql.model.serialise import from_json
from eval.tests import small_run as sr
from tests.http_fakes import FakeHTTPServer

from .judge_fakes import ScriptedJudge, point_judge_at

REPEATS = 2
FLAKY = sr.WRONG
"""Wrong on its first ask, right on its second: flaky, and still wrong (a pass needs a strict majority)."""
PRICES = (2.5, 10.0)


def graded(work: Path) -> SQLRun:
    """The recorded run of the mixed corpus against its baseline, judged; read back from its JSON report."""
    sr.build_databases(work / "db")
    sr.write_mixed_corpus(work / "mine.yaml")
    common = ["--suite", "sql", "--corpus", "mine.yaml", "--db-dir", "db", "--candidate", "recorded"]
    common += ["--baseline-dir", "bl"]
    cwd = os.getcwd()
    os.chdir(work)
    try:
        sr.write_mixed_answers(work / "perfect.jsonl", perfect=True)
        # --force: the oracle defect leaves a question unmeasured, which a baseline takes only deliberately
        assert main([*common, "--answers", "perfect.jsonl", "--record-baseline", "--force"]) == 0
        sr.write_mixed_answers(work / "a.jsonl")
        with FakeHTTPServer(handler=ScriptedJudge()) as server, pytest.MonkeyPatch.context() as mp:
            point_judge_at(mp, server, "judge-7b")
            code = main([*common, "--answers", "a.jsonl", "--fail-on-regression", "--judge", "--json", "r.json"])
    finally:
        os.chdir(cwd)
    assert code == 1, "the run regresses against its baseline, and the gate is enforced"
    return from_json(json.loads((work / "r.json").read_text()), "r.json")


def _asks(o: SQLOutcome, i: int) -> list[SQLOutcome]:
    """Two asks of one question as a model run grades them: each with its time and tokens."""
    first = dataclasses.replace(
        o,
        cost=Cost(
            model_ms=100.0 + 7 * i,
            prompt_tokens=1200 + i,
            completion_tokens=40 + i,
            candidate_ms=2.0 + i / 10,
            reference_ms=3.0,
        ),
    )
    second = dataclasses.replace(
        first,
        cost=Cost(
            model_ms=400.0 + 11 * i, prompt_tokens=1200 + i, completion_tokens=60, candidate_ms=1.5, reference_ms=3.0
        ),
    )
    if o.question_id == FLAKY:
        second = dataclasses.replace(second, verdict=Verdict.PASS, reason=None, detail="matched on 3 rotation(s)")
    return [first, second]


def repeated(run: SQLRun) -> SQLRun:
    """The run as ``--repeats 2`` would have graded it (the oracle defect, never asked, stays as it is)."""
    asks = {o.question_id: _asks(o, i) for i, o in enumerate(run.outcomes) if o.reason != ORACLE}
    combined = {o.question_id: o for o in combine(asks)}
    run.outcomes = [combined.get(o.question_id, o) for o in run.outcomes]
    run.costs = cost_summary([a for pair in asks.values() for a in pair], PRICES, REPEATS)
    run.repeats = repeat_summary(run.outcomes, REPEATS)
    run.run.repeats = REPEATS
    return run


def the_run(work: Path) -> SQLRun:
    run = repeated(graded(work))
    assert run.repeats is not None and run.repeats.flaky == [FLAKY]
    assert run.gate is not None and run.gate.status == "failed" and run.regressions
    assert run.databases and run.difficulties and run.oracle_defects and run.judge is not None
    return run
