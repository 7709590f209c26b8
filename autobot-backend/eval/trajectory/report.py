"""The trajectory suite's regression classification and report.

Trajectory suite: deterministic checks (ordered tool sequence, terminal status) decide first;
a wrong tool sequence or status is a regression whatever the quality score says. Otherwise the
evaluator's score is compared with the golden's ``baseline_score`` under an epsilon band.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from eval.core import markdown as md
from eval.core.classification import Classification, utc_now
from eval.core.runner import Replay
from eval.trajectory.contract import CandidateResult
from eval.trajectory.evaluator import Evaluator
from eval.trajectory.store import GoldenTrajectory

DEFAULT_EPSILON = 0.05
# Scores are floats; 0.90 - 0.85 is 0.05000000000000004. A drop of exactly epsilon is "within".
_FLOAT_SLACK = 1e-9


@dataclass
class TrajectoryOutcome:
    trajectory_id: str
    task_class: str
    classification: Classification
    tool_match: bool | None
    """``None``: the candidate did not report tools, so the check could not run."""
    status_match: bool | None
    score: float | None
    baseline_score: float
    delta: float | None
    reasons: list[str] = field(default_factory=list)
    response_excerpt: str = ""


def _valid_score(score: float | None) -> float | None:
    if score is None or isinstance(score, bool) or not isinstance(score, (int, float)):
        return None
    if math.isnan(score) or not 0.0 <= score <= 1.0:
        return None
    return float(score)


def classify_trajectory(
    replay: Replay[GoldenTrajectory, CandidateResult], score: float | None, epsilon: float = DEFAULT_EPSILON
) -> TrajectoryOutcome:
    """Classify one replay. Order: no result, deterministic checks, then the score band."""
    golden = replay.task
    base: dict[str, Any] = dict(
        trajectory_id=golden.trajectory_id, task_class=golden.task_class, baseline_score=golden.baseline_score
    )
    result = replay.result
    if result is None:
        return TrajectoryOutcome(
            classification=Classification.UNMEASURED,
            tool_match=None,
            status_match=None,
            score=None,
            delta=None,
            reasons=[replay.failure or "no result"],
            **base,
        )
    reasons: list[str] = []
    tool_match = None if result.tool_sequence is None else list(result.tool_sequence) == list(golden.expected_tools)
    status_match = None if result.final_status is None else result.final_status == golden.expected_output.final_status
    if tool_match is False:
        reasons.append(f"tool sequence {list(result.tool_sequence or [])} != expected {list(golden.expected_tools)}")
    if status_match is False:
        reasons.append(f"final status {result.final_status!r} != expected {golden.expected_output.final_status!r}")
    valid = _valid_score(score)
    if score is not None and valid is None:
        reasons.append(f"evaluator returned an unusable score {score!r}")
    delta = None if valid is None else valid - golden.baseline_score
    excerpt = (result.response_text or "")[:200]
    if tool_match is False or status_match is False:
        cls = Classification.REGRESSION
    elif delta is None:
        cls = Classification.UNMEASURED
        reasons.append("quality score unmeasured: the evaluator could not judge this answer")
    elif delta < -epsilon - _FLOAT_SLACK:
        cls = Classification.REGRESSION
        reasons.append(
            f"score {valid:.3f} dropped {-delta:.3f} below baseline {golden.baseline_score:.3f} (epsilon {epsilon:g})"
        )
    elif delta > epsilon + _FLOAT_SLACK:
        cls = Classification.IMPROVEMENT
        reasons.append(f"score {valid:.3f} rose {delta:.3f} above baseline {golden.baseline_score:.3f}")
    else:
        cls = Classification.UNCHANGED
    return TrajectoryOutcome(
        classification=cls,
        tool_match=tool_match,
        status_match=status_match,
        score=valid,
        delta=None if delta is None else round(delta, 6),
        reasons=reasons,
        response_excerpt=excerpt,
        **base,
    )


@dataclass
class TrajectoryReport:
    outcomes: list[TrajectoryOutcome]
    candidate: str
    evaluator_name: str
    evaluator_label: str
    epsilon: float
    warnings: list[str] = field(default_factory=list)
    generated_at: str = field(default_factory=lambda: utc_now())

    def counts(self) -> Counter[str]:
        return Counter(o.classification.value for o in self.outcomes)

    def by_task_class(self) -> dict[str, Counter[str]]:
        groups: dict[str, Counter[str]] = {}
        for o in self.outcomes:
            groups.setdefault(o.task_class, Counter())[o.classification.value] += 1
        return dict(sorted(groups.items()))

    @property
    def regressed(self) -> bool:
        return any(o.classification is Classification.REGRESSION for o in self.outcomes)

    @property
    def measured(self) -> int:
        return sum(o.classification is not Classification.UNMEASURED for o in self.outcomes)


def build_trajectory_report(
    replays: list[Replay[GoldenTrajectory, CandidateResult]],
    evaluator: Evaluator,
    candidate: str,
    epsilon: float = DEFAULT_EPSILON,
    warnings: list[str] | None = None,
    *,
    echo: bool = False,
) -> TrajectoryReport:
    """Classify every replay. ``echo``: the candidate echoed each golden's own recording, which cannot
    fail, so nothing was measured: every trajectory is unmeasured (never an improvement)."""
    outcomes = []
    for r in replays:
        if echo:
            outcomes.append(_echoed(r.task))
            continue
        score, note = None, None
        if r.result is not None:
            try:
                score = evaluator.score(r.task, r.result)
            except Exception as exc:  # an evaluator failure is "cannot judge", not a regression
                note = f"evaluator failed: {type(exc).__name__}: {exc}"
        outcome = classify_trajectory(r, score, epsilon)
        if note:
            outcome.reasons.append(note)
        outcomes.append(outcome)
    return TrajectoryReport(outcomes, candidate, evaluator.name, evaluator.label, epsilon, list(warnings or []))


ECHO_REASON = "echo: the self-consistency candidate answers with the golden's own recording; nothing was measured"


def _echoed(golden: GoldenTrajectory) -> TrajectoryOutcome:
    return TrajectoryOutcome(
        trajectory_id=golden.trajectory_id,
        task_class=golden.task_class,
        classification=Classification.UNMEASURED,
        tool_match=None,
        status_match=None,
        score=None,
        baseline_score=golden.baseline_score,
        delta=None,
        reasons=[ECHO_REASON],
    )


_ORDER = [
    c.value
    for c in (
        Classification.REGRESSION,
        Classification.IMPROVEMENT,
        Classification.UNCHANGED,
        Classification.UNMEASURED,
    )
]


def trajectory_json(report: TrajectoryReport) -> dict[str, Any]:
    return {
        "suite": "trajectory",
        "generated_at": report.generated_at,
        "candidate": report.candidate,
        "evaluator": {"name": report.evaluator_name, "label": report.evaluator_label},
        "epsilon": report.epsilon,
        "warnings": report.warnings,
        "summary": {k: report.counts().get(k, 0) for k in _ORDER} | {"total": len(report.outcomes)},
        "task_classes": {tc: {k: c.get(k, 0) for k in _ORDER} for tc, c in report.by_task_class().items()},
        "trajectories": [
            {
                "trajectory_id": o.trajectory_id,
                "task_class": o.task_class,
                "classification": o.classification.value,
                "tool_match": o.tool_match,
                "status_match": o.status_match,
                "score": o.score,
                "baseline_score": o.baseline_score,
                "delta": o.delta,
                "reasons": o.reasons,
            }
            for o in report.outcomes
        ],
    }


def _check(value: bool | None) -> str:
    return "n/a" if value is None else ("yes" if value else "NO")


def trajectory_markdown(report: TrajectoryReport) -> str:
    counts = report.counts()
    out = [f"# Trajectory eval report ({md.escape(report.generated_at)})", ""]
    for w in report.warnings:
        out += [f"> **{md.escape(w)}**", ""]
    out += [
        f"Candidate: {md.escape(report.candidate)} · evaluator: {md.escape(report.evaluator_label)} "
        f"· epsilon {report.epsilon:g}",
        "",
    ]
    out += [
        md.table(
            ["regression", "improvement", "unchanged", "unmeasured", "total"],
            [[str(counts.get(k, 0)) for k in _ORDER] + [str(len(report.outcomes))]],
        ),
        "",
    ]
    out += [
        "## Per task class",
        "",
        md.table(
            ["task class"] + _ORDER,
            [[md.escape(tc)] + [str(c.get(k, 0)) for k in _ORDER] for tc, c in report.by_task_class().items()],
        ),
        "",
    ]
    out += [
        "## Per trajectory",
        "",
        md.table(
            ["trajectory", "task class", "verdict", "tools", "status", "score", "baseline", "why"],
            [
                [
                    md.escape(o.trajectory_id),
                    md.escape(o.task_class),
                    o.classification.value,
                    _check(o.tool_match),
                    _check(o.status_match),
                    "unmeasured" if o.score is None else f"{o.score:.3f}",
                    f"{o.baseline_score:.3f}",
                    md.escape("; ".join(o.reasons), limit=300) or "-",
                ]
                for o in report.outcomes
            ],
        ),
        "",
    ]
    return "\n".join(out)
