"""The turns suite's report: the model of one judging run, its summary and its JSON.

Everything in one report was scored by one judge (model, rubric version, prompt): scores of two
judges are never summed, averaged or banded together (:func:`one_judge`). Drift between two judges
is reported turn by turn, side by side, never pooled.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eval.core.classification import utc_now
from eval.core.errors import HarnessError
from eval.turns.judge import Judgement
from eval.turns.rubric import BANDS, CAPS, GOOD_FROM, NOMINAL_WEIGHTS, PARTIAL_FROM, RUBRIC_VERSION
from eval.turns.scoring import judgement_json

IDENTITY_KEYS = ("model", "rubric_version", "prompt_sha256")


class MixedJudges(HarnessError):
    """Scores of more than one judge were about to be aggregated together."""


def one_judge(identities: Iterable[Mapping[str, Any]], where: str = "these scores") -> dict[str, Any]:
    """The one judge identity all of ``identities`` share; :class:`MixedJudges` when they differ."""
    seen = {tuple(str(i.get(k)) for k in IDENTITY_KEYS) for i in identities}
    if len(seen) > 1:
        shown = "; ".join(", ".join(f"{k} {v}" for k, v in zip(IDENTITY_KEYS, s)) for s in sorted(seen))
        raise MixedJudges(
            f"{where} come from {len(seen)} judges ({shown}): scores of different judge models, rubric "
            "versions or prompts are never aggregated together; score them in separate runs"
        )
    if not seen:
        return {}
    return dict(zip(IDENTITY_KEYS, next(iter(seen))))


def distribution(values: Sequence[float]) -> dict[str, Any]:
    """Count, mean, quartiles and range of composites (None without any)."""
    if not values:
        return {"n": 0, "mean": None, "median": None, "p25": None, "p75": None, "min": None, "max": None}
    p25, _, p75 = statistics.quantiles(values, n=4, method="inclusive") if len(values) > 1 else (values[0],) * 3
    return {
        "n": len(values),
        "mean": round(statistics.fmean(values), 2),
        "median": round(statistics.median(values), 2),
        "p25": round(p25, 2),
        "p75": round(p75, 2),
        "min": min(values),
        "max": max(values),
    }


def histogram(values: Sequence[float]) -> list[dict[str, Any]]:
    """Composites in ten bins of ten points, ``[0, 10) .. [90, 100]``."""
    counts = Counter(min(int(v // 10), 9) for v in values)
    return [{"from": 10 * b, "to": 10 * b + 10, "count": counts.get(b, 0)} for b in range(10)]


def summary(judgements: Sequence[Judgement]) -> dict[str, Any]:
    """The figures of one judge's run: distribution, bands, caps, disagreements."""
    scored = [j.arithmetic for j in judgements if j.arithmetic is not None]
    composites = [float(a.composite) for a in scored]
    caps: dict[str, dict[str, Any]] = {c.name: {"limit": c.limit, "applied": 0, "binding": 0} for c in CAPS}
    for a in scored:
        for c in a.caps:
            caps[c.name]["applied"] += 1
            caps[c.name]["binding"] += int(c.binding)
    return {
        "turns": len(judgements),
        "scored": len(scored),
        "unmeasured": len(judgements) - len(scored),
        "distribution": distribution(composites),
        "histogram": histogram(composites),
        "bands": {b: sum(a.band == b for a in scored) for b in BANDS},
        "judge_bands": {b: sum(a.judge_band == b for a in scored) for b in BANDS},
        "band_disagreements": sum(not a.band_agrees for a in scored),
        "caps": caps,
    }


def rubric_json() -> dict[str, Any]:
    return {
        "version": RUBRIC_VERSION,
        "weights": {k: float(v) for k, v in NOMINAL_WEIGHTS.items()},
        "bands": {"good": f">= {GOOD_FROM}", "partial": f">= {PARTIAL_FROM}", "poor": f"< {PARTIAL_FROM}"},
        "caps": [{"name": c.name, "limit": c.limit, "rule": c.rule} for c in CAPS],
    }


@dataclass
class TurnsReport:
    source: dict[str, Any]
    """``{"path", "sha256", "turns", "kind"}``: the captured-turns file, or the stored report re-judged."""
    judge: dict[str, Any]
    """The judge's identity and how it was asked (:meth:`eval.turns.judge.Judge.describe`)."""
    judgements: list[Judgement]
    calibration: dict[str, Any]
    """``status`` ``uncalibrated`` until human labels are given (:mod:`eval.turns.calibration`)."""
    drift: dict[str, Any] | None = None
    """Against stored scores (``--rejudge``)."""
    gate: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    partial: bool = False
    generated_at: str = field(default_factory=utc_now)

    @property
    def summary(self) -> dict[str, Any]:
        return summary(self.judgements)

    def identity(self) -> dict[str, Any]:
        return {k: self.judge.get(k) for k in IDENTITY_KEYS}


def to_json(report: TurnsReport) -> dict[str, Any]:
    identity = report.identity()
    scored = [j for j in report.judgements if j.arithmetic is not None]
    return {
        "suite": "turns",
        "generated_at": report.generated_at,
        "partial": report.partial,
        "judge": report.judge,
        "rubric": rubric_json(),
        "source": report.source,
        "summary": report.summary,
        "band_disagreements": [
            {
                "turn_id": j.turn.turn_id,
                "band": j.arithmetic.band,
                "judge_band": j.arithmetic.judge_band,
                "composite": float(j.arithmetic.composite),
            }
            for j in scored
            if j.arithmetic is not None and not j.arithmetic.band_agrees
        ],
        "unmeasured": [{"turn_id": j.turn.turn_id, "reason": j.reason} for j in report.judgements if not j.scored],
        "calibration": report.calibration,
        "drift": report.drift,
        "gate": report.gate,
        "warnings": report.warnings,
        "turns": [judgement_json(j, identity) for j in report.judgements],
    }
