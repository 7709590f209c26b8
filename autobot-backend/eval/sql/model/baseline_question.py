"""What a baseline remembers of one question: its verdict then, and whether that was good."""

from __future__ import annotations

from dataclasses import dataclass, field

from eval.sql.model.codec import key
from eval.sql.model.outcome import Verdict


def _not_repeated(q: BaselineQuestion) -> bool:
    return q.samples is None


def _not_refuted(q: BaselineQuestion) -> bool:
    return not q.refuted


@dataclass(frozen=True)
class BaselineQuestion:
    verdict: Verdict
    good: bool
    """A pass, or (must-refuse) a correct refusal."""
    expect: str | None = None
    stratum: str | None = None
    passes: int | None = field(default=None, metadata=key(omit=_not_repeated))
    """With ``--repeats``: how many of the baseline's asks passed, of :attr:`samples` (written only then)."""
    samples: int | None = field(default=None, metadata=key(omit=_not_repeated))
    refuted: bool = field(default=False, metadata=key(omit=_not_refuted))
    """A pass the counterexample search refuted (``--counterexamples``): ``--gate-refuted`` does not hold it
    against a run that is refuted too. Written only then, so a baseline of a run without the search keeps its
    bytes."""
