"""A SQL question against its baseline record, in the vocabulary both suites share."""

from __future__ import annotations

from eval.core.classification import Classification
from eval.sql.model.baseline_question import BaselineQuestion
from eval.sql.model.outcome import SQLOutcome, Verdict


def classify_sql(outcome: SQLOutcome, baseline: BaselineQuestion | None) -> Classification:
    """A SQL question against its baseline record (``None``: not in it).

    Good means a pass, or (must-refuse) a correct refusal. Was good and now is not: regression;
    the reverse: improvement; otherwise unchanged. Unmeasured now: unmeasured. Not in the baseline,
    or unmeasured there: new (there is nothing measured to compare with).
    """
    if not outcome.measured:
        return Classification.UNMEASURED
    if baseline is None or baseline.verdict is Verdict.UNMEASURED:
        return Classification.NEW
    if baseline.good and not outcome.good:
        return Classification.REGRESSION
    if not baseline.good and outcome.good:
        return Classification.IMPROVEMENT
    return Classification.UNCHANGED
