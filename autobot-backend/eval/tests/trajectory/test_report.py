import json
import re

import pytest

from eval.core.classification import Classification
from eval.core.runner import Replay
from eval.trajectory.contract import CandidateResult
from eval.trajectory.evaluator import LexicalOverlapEvaluator
from eval.trajectory.report import build_trajectory_report, classify_trajectory, trajectory_json, trajectory_markdown

from ..conftest import make_golden

R, IMP, U, M = (
    Classification.REGRESSION,
    Classification.IMPROVEMENT,
    Classification.UNCHANGED,
    Classification.UNMEASURED,
)


def _replay(tools=("search", "answer"), status="completed", baseline=0.8):
    g = make_golden(tools=("search", "answer"), status="completed", score=baseline)
    return Replay(
        g, CandidateResult(response_text="x", tool_sequence=None if tools is None else list(tools), final_status=status)
    )


@pytest.mark.parametrize(
    "tools, status, score, expected",
    [
        # None means "not reported": it cannot fail the check, and it cannot pass it either.
        (None, None, 0.8, U),
        (None, "completed", 0.8, U),
        (("search",), "completed", 0.99, R),  # wrong tools regress whatever the score says
        (("search", "answer"), "failed", 0.99, R),  # wrong status likewise
        (("answer", "search"), "completed", 0.8, R),  # order matters
        (("search", "answer"), "completed", None, M),  # evaluator cannot judge -> unmeasured
        (None, None, None, M),
        (("search",), "completed", None, R),  # deterministic failure still counts without a score
    ],
)
def test_deterministic_checks_then_score(tools, status, score, expected):
    assert classify_trajectory(_replay(tools, status), score, 0.05).classification is expected


def test_none_is_not_false():
    o = classify_trajectory(_replay(None, None), 0.8)
    assert o.tool_match is None and o.status_match is None
    o = classify_trajectory(_replay(("x",), "failed"), 0.8)
    assert o.tool_match is False and o.status_match is False


@pytest.mark.parametrize(
    "baseline, score, expected",
    [
        (0.90, 0.85, U),  # a drop of exactly epsilon is inside the band (float noise included)
        (0.90, 0.849, R),  # just past it
        (0.85, 0.90, U),  # a rise of exactly epsilon
        (0.85, 0.901, IMP),
        (0.80, 0.80, U),
        (0.05, 0.0, U),
        (1.0, 0.0, R),
    ],
)
def test_epsilon_band_edges(baseline, score, expected):
    assert classify_trajectory(_replay(baseline=baseline), score, 0.05).classification is expected


@pytest.mark.parametrize("score", [float("nan"), 1.5, -0.1, True])
def test_indeterminate_scores_are_unmeasured(score):
    o = classify_trajectory(_replay(), score, 0.05)
    assert o.classification is M
    assert any("unusable score" in r for r in o.reasons)


def test_no_result_is_unmeasured_with_the_failure():
    o = classify_trajectory(Replay(make_golden(), None, "timeout: no answer within 1 s"), None)
    assert o.classification is M and o.reasons == ["timeout: no answer within 1 s"]


def test_lexical_evaluator_cannot_judge_empty_text():
    ev = LexicalOverlapEvaluator()
    g = make_golden(excerpt="forty two")
    assert ev.score(g, CandidateResult(response_text="")) is None
    assert ev.score(make_golden(excerpt=""), CandidateResult(response_text="x")) is None
    assert ev.score(g, CandidateResult(response_text="Forty two")) == 1.0


def test_evaluator_crash_is_unmeasured_not_regression():
    class Broken:
        name, label = "broken", "broken judge"

        def score(self, golden, result):
            raise RuntimeError("judge offline")

    report = build_trajectory_report([_replay()], Broken(), "c")
    [o] = report.outcomes
    assert o.classification is M and "evaluator failed: RuntimeError: judge offline" in o.reasons


def test_report_groups_per_task_class_and_serialises():
    replays = [
        Replay(
            make_golden("a", task_class="x"),
            CandidateResult("the answer is forty two", ["search", "answer"], "completed"),
        ),
        Replay(make_golden("b", task_class="x"), CandidateResult("z", ["search"], "completed")),
        Replay(make_golden("c", task_class="y"), None, "timeout: no answer within 1 s"),
    ]
    report = build_trajectory_report(replays, LexicalOverlapEvaluator(), "cand", 0.05)
    data = json.loads(json.dumps(trajectory_json(report)))
    assert data["summary"] == {"regression": 1, "improvement": 1, "unchanged": 0, "unmeasured": 1, "total": 3}
    assert data["task_classes"]["x"]["regression"] == 1 and data["task_classes"]["y"]["unmeasured"] == 1
    assert data["evaluator"]["label"].startswith("offline")


def test_markdown_escapes_untrusted_fields():
    evil = "x|y](http://evil)<img src=x>\n# heading"
    g = make_golden(evil, task_class="tc|*")
    report = build_trajectory_report([Replay(g, None, "crash: " + evil)], LexicalOverlapEvaluator(), "c")
    text = trajectory_markdown(report)
    table_rows = [line for line in text.splitlines() if line.startswith("| x")]
    assert table_rows, text
    row = table_rows[0]
    # the only unescaped pipes are the table's own separators (8 columns -> 9 pipes)
    assert row.replace("\\|", "").count("|") == 9
    assert not re.search(r"(?<!\\)<img", text) and "\\<img" in text
    assert "\n# heading" not in text
