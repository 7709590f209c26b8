"""The gate's checks as a run holds them: each named, passed, failed or not evaluable (``eval.sql.gate.checks``
computes them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

GateStatus = Literal["passed", "failed", "indeterminate"]


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

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GateResult:
        return cls([GateCheck(c["name"], c["ok"], c["detail"]) for c in data.get("checks", [])])
