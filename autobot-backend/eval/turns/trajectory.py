"""The judge as the trajectory suite's quality evaluator (``--evaluator judge``).

It keeps the evaluator contract (:class:`eval.trajectory.evaluator.Evaluator`): a score in 0..1 (the rubric's
composite / 100) compared with the golden's ``baseline_score`` under the same epsilon, and no score
when it cannot judge, which makes the golden's score half ``unmeasured``, never a regression. Its
name carries the judge model and rubric version, so a report says exactly who scored it.
"""

from __future__ import annotations

from collections.abc import Mapping

from eval.core.classification import utc_now
from eval.trajectory.contract import CandidateResult
from eval.trajectory.store import GoldenTrajectory
from eval.turns.format import Turn
from eval.turns.judge import Judge, Judgement
from eval.turns.prompt import PROMPT_SHA256
from eval.turns.rubric import RUBRIC_VERSION


class JudgeCouldNotScore(Exception):
    """The judge gave no valid score for this answer; the message says why (the report shows it)."""


def trajectory_turn(golden: GoldenTrajectory, result: CandidateResult) -> Turn:
    """A trajectory golden's answer as a captured turn: the prompt, the tools called, the answer text."""
    prompt = golden.inputs.get("prompt")
    question = prompt if isinstance(prompt, str) and prompt.strip() else str(golden.inputs)
    return Turn(
        turn_id=golden.trajectory_id,
        time=utc_now(),
        question=question,
        trajectory=(),
        answer=(result.response_text or "").strip(),
        tools=tuple(result.tool_sequence or ()),
    )


class JudgeEvaluator:
    """Scores a trajectory golden's answer with the model judge: composite / 100."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge
        self.name = f"judge:{judge.model}:{RUBRIC_VERSION}"
        self.label = (
            f"model judge {judge.model} (rubric {RUBRIC_VERSION}, prompt sha256 {PROMPT_SHA256[:12]}), composite / 100"
        )
        self.warning = (
            f"Quality scores come from the model judge {judge.model} ({RUBRIC_VERSION}); the goldens' baseline "
            "scores were not recorded by this judge, so a score's change against them compares two measures."
        )
        self.judgements: dict[str, Judgement] = {}
        """Each golden's judgement, kept as evidence."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> JudgeEvaluator:
        return cls(Judge.from_env(environ))

    def score(self, golden: GoldenTrajectory, result: CandidateResult) -> float | None:
        """The composite / 100; None for an empty answer; :class:`JudgeCouldNotScore` when the judge gave none."""
        if not (result.response_text or "").strip():
            return None
        judgement = self.judge.judge(trajectory_turn(golden, result))
        self.judgements[golden.trajectory_id] = judgement
        if judgement.arithmetic is None:
            raise JudgeCouldNotScore(judgement.reason or "no valid judgement")
        return float(judgement.arithmetic.composite) / 100
