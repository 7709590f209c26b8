"""Quality evaluators: score a candidate's answer against a golden, or say they cannot.

The interface is deliberately small so a model-backed judge can be plugged in later: an
evaluator has a ``name`` and a ``label`` (what the report prints, so a reader knows what kind
of judge produced the number) and ``score(golden, result) -> float | None``. ``None`` means
"cannot judge": the score half of the verdict is then unmeasured, never a regression.
"""

from __future__ import annotations

from typing import Protocol

from rapidfuzz import fuzz

from eval.trajectory.contract import CandidateResult
from eval.trajectory.store import GoldenTrajectory


class Evaluator(Protocol):
    name: str
    label: str

    def score(self, golden: GoldenTrajectory, result: CandidateResult) -> float | None:
        """A quality score in 0..1, or ``None`` when this evaluator cannot judge."""
        ...


class LexicalOverlapEvaluator:
    """Offline, deterministic: how much of the golden's answer excerpt the response covers.

    It is a text-overlap heuristic (rapidfuzz ``token_set_ratio``), not a judge of
    correctness; the report labels it as such. It cannot judge an empty response or a golden
    with no excerpt.
    """

    name = "lexical-overlap-v1"
    label = "offline lexical-overlap heuristic (rapidfuzz token_set_ratio), not a model judge"

    def score(self, golden: GoldenTrajectory, result: CandidateResult) -> float | None:
        excerpt = golden.expected_output.output_text_excerpt.strip()
        response = (result.response_text or "").strip()
        if not excerpt or not response:
            return None
        return round(fuzz.token_set_ratio(excerpt.lower(), response.lower()) / 100.0, 4)


DEFAULT_EVALUATOR: Evaluator = LexicalOverlapEvaluator()
