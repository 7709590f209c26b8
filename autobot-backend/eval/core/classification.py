"""What happened to one golden or question relative to its baseline: the vocabulary both suites classify in,
and the one way a run is stamped with the time."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum


class Classification(StrEnum):
    """What happened to one golden (trajectory or SQL question) relative to its baseline."""

    REGRESSION = "regression"
    """Worse than the baseline: a deterministic check failed, the score dropped by more than
    epsilon, or (SQL) a question that passed or was correctly refused no longer is."""
    IMPROVEMENT = "improvement"
    """Better than the baseline by more than epsilon, or (SQL) newly passing."""
    UNCHANGED = "unchanged"
    """Within the band, or (SQL) the same verdict class as the baseline."""
    UNMEASURED = "unmeasured"
    """The harness could not judge: no result, or the evaluator could not score. Never a
    regression, never a pass."""
    NEW = "new"
    """(SQL) The question is not in the baseline."""


def utc_now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
