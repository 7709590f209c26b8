"""The gate's checks as a run holds them: each named, passed, failed or not evaluable (``eval.sql.gate.checks``
computes them), and the gate as every output shows it (:class:`GateView`, the report's ``gate``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from eval.sql.model.codec import from_json, key

GateStatus = Literal["passed", "failed", "indeterminate"]
NOT_EVALUATED = "not_evaluated"
"""The status shown when no gate was evaluated (no baseline of this run's set-up)."""


@dataclass(frozen=True)
class GateCheck:
    name: str
    ok: bool | None
    """``None``: could not be evaluated (counts as indeterminate, never as passed)."""
    detail: str


@dataclass
class GateResult:
    checks: list[GateCheck] = field(default_factory=list)

    @property
    def status(self) -> GateStatus:
        if any(c.ok is False for c in self.checks):
            return "failed"
        if any(c.ok is None for c in self.checks):
            return "indeterminate"
        return "passed"

    @property
    def failed(self) -> list[GateCheck]:
        return [c for c in self.checks if c.ok is False]

    @property
    def not_evaluable(self) -> list[GateCheck]:
        return [c for c in self.checks if c.ok is None]


def _evaluated(view: GateView) -> bool:
    return view.status != NOT_EVALUATED


@dataclass(frozen=True)
class GateView:
    """The gate as every output shows it: its status (or ``not_evaluated``), its checks, why it was not evaluated
    (written only then), and whether the run enforced it."""

    status: str = NOT_EVALUATED
    checks: list[GateCheck] = field(default_factory=list)
    detail: str | None = field(default=None, metadata=key(omit=_evaluated))
    enforced: bool = False

    @property
    def result(self) -> GateResult | None:
        """The checks as the run holds them; None when the gate was not evaluated."""
        return GateResult(list(self.checks)) if _evaluated(self) else None


def gate_view(run: Mapping[str, Any]) -> GateView:
    """The ``gate`` of a JSON report (a report without one: not evaluated, not enforced)."""
    return from_json(GateView, run.get("gate") or {})
