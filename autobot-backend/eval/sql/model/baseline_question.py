"""What a baseline remembers of one question: its verdict then, and whether that was good."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from eval.sql.model.outcome import Verdict


@dataclass(frozen=True)
class BaselineQuestion:
    verdict: Verdict
    good: bool
    """A pass, or (must-refuse) a correct refusal."""
    expect: str | None = None
    stratum: str | None = None
    passes: int | None = None
    """With ``--repeats``: how many of the baseline's asks passed, of :attr:`samples`."""
    samples: int | None = None
    refuted: bool = False
    """A pass the counterexample search refuted (``--counterexamples``): ``--gate-refuted`` does not hold it
    against a run that is refuted too."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict.value, "good": self.good, "expect": self.expect}
        out["stratum"] = self.stratum
        if self.samples is not None:
            out |= {"passes": self.passes, "samples": self.samples}
        if self.refuted:  # only then: a baseline of a run without the search keeps its bytes
            out["refuted"] = True
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BaselineQuestion:
        """A baseline file's record of a question (:class:`KeyError`/:class:`ValueError` when it is not one)."""
        return cls(
            verdict=Verdict(data["verdict"]),
            good=bool(data["good"]),
            expect=data.get("expect"),
            stratum=data.get("stratum"),
            passes=data.get("passes"),
            samples=data.get("samples"),
            refuted=bool(data.get("refuted", False)),
        )
