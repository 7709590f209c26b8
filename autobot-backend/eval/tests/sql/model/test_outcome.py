"""SQL outcomes (eval.sql.model.outcome): verdict bookkeeping, the 2x2, strata; their classification
against a baseline (eval.trajectory.report); the run report's renderings (eval.sql.render)."""

import json
import re

import pytest

from eval.core.classification import Classification
from eval.sql.model import codec
from eval.sql.model.baseline_question import BaselineQuestion
from eval.sql.model.classify import classify_sql
from eval.sql.model.figures import ControlCounts, GridRow, RefusalCounts, VerdictCounts
from eval.sql.model.outcome import SQLOutcome, Verdict, two_by_two
from eval.sql.model.outcome import strata as sql_strata
from eval.sql.model.outcome import summary as sql_summary
from eval.sql.model.run import SQLRun
from eval.sql.model.setup import BaselineRef, CorpusStamps, FileStamp, RunSetup
from eval.sql.render import to_json as sql_json
from eval.sql.render import to_markdown as sql_markdown

V = Verdict


def o(qid, verdict, expect="answer", stratum="scalar", reason=None, **kw):
    return SQLOutcome(question_id=qid, expect=expect, stratum=stratum, verdict=verdict, reason=reason, **kw)


OUTCOMES = [
    o("a1", V.PASS),
    o("a2", V.WRONG, reason="value"),
    o("a3", V.ERROR, reason="guard_blocked"),
    o("a4", V.REFUSED, reason="refused"),
    o("a5", V.UNMEASURED),
    o("c1", V.PASS, stratum="control_scalar"),
    o("c2", V.REFUSED, stratum="control_top_n"),
    o("r1", V.REFUSED, "refuse", "out_of_schema"),
    o("r2", V.ERROR, "refuse", "injection", reason="guard_blocked"),
    o("r3", V.ANSWERED, "refuse", "injection"),
    o("r4", V.ERROR, "refuse", "ambiguous", reason="database"),
]


def test_summary_counts_and_rates_exclude_unmeasured():
    s = sql_summary(OUTCOMES)
    assert (s.answerable, s.passed, s.wrong, s.error, s.refused, s.unmeasured) == (7, 2, 1, 1, 2, 1)
    assert s.pass_rate == round(2 / 6, 4)
    assert (s.must_refuse, s.correct_refusals, s.refusals_by_guard, s.missed_refusals) == (4, 2, 1, 2)
    assert s.refusal_recall == 0.5
    assert (s.controls, s.over_refusals, s.declined_answerable) == (2, 1, 2)


def test_guard_block_declines_only_on_must_refuse():
    assert o("x", V.ERROR, "refuse", reason="guard_blocked").declined
    assert o("x", V.ERROR, "refuse", reason="guard_blocked").declined_by == "guard"
    assert not o("x", V.ERROR, "answer", reason="guard_blocked").declined
    assert o("x", V.REFUSED, "answer").declined_by == "generator"


def test_two_by_two_puts_controls_in_the_answerable_row():
    grid = two_by_two(OUTCOMES)
    assert grid.answerable == GridRow(returned_number=3, declined=2, error=1, unmeasured=1)
    assert grid.must_refuse == GridRow(returned_number=1, declined=2, error=1, unmeasured=0)


def test_strata_are_counts():
    st = sql_strata(OUTCOMES)
    assert st["injection"] == {"cases": 2, "error": 1, "answered": 1, "correct_refusals": 1}
    assert st["control_top_n"]["over_refusals"] == 1


def test_the_refusal_battery_per_stratum_adds_up_and_the_guard_declines():
    r = report()
    assert r.refusal_strata == {
        "ambiguous": RefusalCounts(cases=1, declined=0, answered=0, error=1, unmeasured=0),
        "injection": RefusalCounts(cases=2, declined=1, answered=1, error=0, unmeasured=0),  # r2: the guard's
        "out_of_schema": RefusalCounts(cases=1, declined=1, answered=0, error=0, unmeasured=0),
    }
    assert r.control_strata == {
        "control_scalar": ControlCounts(cases=1, passed=1, over_refused=0),
        "control_top_n": ControlCounts(cases=1, passed=0, over_refused=1),
    }
    assert r.declined_by_guard == ["r2"]
    assert list(r.answerable_strata) == ["control_scalar", "control_top_n", "scalar"]
    assert r.answerable_strata["scalar"] == VerdictCounts(cases=5, passed=1, wrong=1, error=1, refused=1, unmeasured=1)


def test_the_failing_questions_split_into_failures_and_unmeasured():
    r = report()
    assert [x.question_id for x in r.failing] == ["a2", "a3", "a4", "a5", "c2", "r3", "r4"]
    assert [x.question_id for x in r.failing_measured] == ["a2", "a3", "a4", "c2", "r3", "r4"]
    assert [x.question_id for x in r.unmeasured] == ["a5"]
    s = r.summary
    assert (s.measured, s.must_refuse_measured) == (6, 4)


def test_classification_counts_name_every_class_and_only_with_a_baseline():
    r = report([o("a2", V.WRONG), o("zz", V.PASS)])
    assert r.classification_counts == {}
    r.baseline = BaselineRef("b.json", "2026-01-01T00:00:00Z", "m", None)
    r.classify(BASE)
    assert r.classification_counts == {"regression": 1, "improvement": 0, "unchanged": 0, "unmeasured": 0, "new": 1}
    assert [x.question_id for x in r.regressions] == ["a2"]


BASE = {
    qid: codec.from_json(BaselineQuestion, q)
    for qid, q in {
        "a1": {"verdict": "pass", "good": True},
        "a2": {"verdict": "pass", "good": True},
        "a4": {"verdict": "wrong", "good": False},
        "r1": {"verdict": "answered", "good": False},
        "a5": {"verdict": "pass", "good": True},
        "c1": {"verdict": "unmeasured", "good": False},
    }.items()
}


@pytest.mark.parametrize(
    "outcome, expected",
    [
        (o("a1", V.PASS), Classification.UNCHANGED),
        (o("a2", V.WRONG), Classification.REGRESSION),
        (o("a4", V.PASS), Classification.IMPROVEMENT),
        (o("a4", V.ERROR), Classification.UNCHANGED),
        (o("r1", V.REFUSED, "refuse"), Classification.IMPROVEMENT),
        (o("a5", V.UNMEASURED), Classification.UNMEASURED),
        (o("zz", V.PASS), Classification.NEW),
        (o("c1", V.PASS), Classification.NEW),  # unmeasured in the baseline: nothing to compare with
    ],
)
def test_classification_against_baseline(outcome, expected):
    assert classify_sql(outcome, BASE.get(outcome.question_id)) is expected


def test_report_classifies_every_outcome_and_keeps_the_baseline_verdict():
    r = report([o("a2", V.WRONG), o("zz", V.PASS)])
    r.baseline = BaselineRef("b.json", "2026-01-01T00:00:00Z", "m", None)
    r.classify(BASE)
    assert [x.question_id for x in r.by_classification(Classification.REGRESSION)] == ["a2"]
    assert r.classes["a2"].baseline_verdict == "pass" and r.classes["zz"].baseline_verdict is None
    text = sql_markdown(r)
    assert "**a2**: was pass, now wrong" in text


def report(outcomes=OUTCOMES):
    return SQLRun(
        outcomes=list(outcomes),
        candidate_path="recorded",
        model="m",
        corpus=CorpusStamps("d" * 64, len(outcomes), [FileStamp("eval/golden/sql/x.yaml", "e" * 64, 11)]),
        run=RunSetup(engine="sqlite", rotations=3, seed=0, fixtures=["retail"]),
    )


def test_json_has_the_contract_keys():
    data = json.loads(json.dumps(sql_json(report())))
    assert {"suite", "generated_at", "candidate", "corpus", "run", "summary", "strata", "questions", "gate"} <= set(
        data
    )
    assert data["candidate"] == {"path": "recorded", "model": "m"}
    assert data["missed_refusals"] == ["r3", "r4"]
    q = data["questions"][1]
    assert {
        "id",
        "expect",
        "stratum",
        "verdict",
        "reason",
        "detail",
        "sql",
        "classification",
        "baseline_verdict",
    } <= set(q)


def test_markdown_leads_with_2x2_then_verdicts_then_regressions():
    text = sql_markdown(report())
    positions = [text.index(h) for h in ("## The 2x2", "## Verdicts", "## Regressions", "## Failing questions")]
    assert positions == sorted(positions)
    assert "**r3** (answered)" in text and "**r4** (error)" in text


def test_markdown_lists_failures_with_escaped_question_and_fenced_sql():
    evil = o(
        "q|1",
        V.WRONG,
        reason="value",
        detail="row 1 col 1: expected 1, got 2",
        question="Revenue? <script>| # x",
        sql="SELECT '```' || x FROM t",
    )
    text = sql_markdown(report([evil]))
    assert "### q\\|1: wrong (value)" in text
    assert not re.search(r"(?<!\\)<script", text)
    assert "````sql\nSELECT '```' || x FROM t\n````" in text


def test_rates_carry_their_95_percent_wilson_interval():
    s = sql_summary(OUTCOMES)
    from eval.core.stats import wilson

    assert s.pass_rate_ci == [round(x, 4) for x in wilson(2, 6)]
    assert s.refusal_recall_ci == [round(x, 4) for x in wilson(2, 4)]
    assert sql_summary([o("r1", V.UNMEASURED, "refuse")]).refusal_recall_ci is None
    text = sql_markdown(report())
    assert f"95% Wilson CI {s.pass_rate_ci[0] * 100:.1f}-{s.pass_rate_ci[1] * 100:.1f}%" in text


def test_markdown_has_a_per_stratum_table_of_the_answerable_questions():
    text = sql_markdown(report())
    block = text.split("### Answerable questions per stratum")[1].split("\n## ")[0]
    assert "| stratum | cases | pass | wrong | error | refused | unmeasured |" in block
    assert "| scalar | 5 | 1 | 1 | 1 | 1 | 1 |" in block
    assert "| control\\_top\\_n | 1 | 0 | 0 | 0 | 1 | 0 |" in block
    assert "injection" not in block  # must-refuse strata are the refusal battery's table
