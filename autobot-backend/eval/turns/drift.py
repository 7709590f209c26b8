"""Re-judging: score the turns a stored report holds again, and say how far the new scores moved.

A stored report is the JSON of an earlier ``--suite turns`` run: it carries every turn, its
evidence digest, and the score one judge gave it. The new scores are the configured judge's; the
two judges are shown side by side, turn by turn, and never pooled (:func:`eval.turns.report.one_judge`
refuses a stored report that already mixes judges). A turn moved down when its band dropped or its
composite fell more than :data:`DRIFT_TOLERANCE` points; with ``--fail-on-regression`` that fails.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.core.errors import HarnessError
from eval.core.jsonl import json_file
from eval.core.stats import cohen_kappa, spearman_rho
from eval.turns.format import Turn, TurnsFileError, parse_turn
from eval.turns.judge import Judgement
from eval.turns.report import MixedJudges, one_judge
from eval.turns.rubric import BANDS, Band

DRIFT_TOLERANCE = 10.0
"""Composite points a turn may fall between two judgings before it counts as moved down."""
_RANK = {b: i for i, b in enumerate(reversed(BANDS))}  # poor 0, partial 1, good 2


class StoredReportError(HarnessError):
    """A stored report that cannot be re-judged; the message names the file and what to do."""


@dataclass(frozen=True)
class Stored:
    """One turn as a stored report scored it."""

    turn: Turn
    composite: float | None
    band: Band | None
    digest: str


@dataclass(frozen=True)
class StoredReport:
    path: Path
    judge: dict[str, Any]
    turns: list[Stored]


def load_stored(path: Path) -> StoredReport:
    """The turns and scores of an earlier turns-suite JSON report, checked to come from one judge."""
    data = json_file(
        path,
        StoredReportError,
        missing="no such report; --rejudge takes the JSON report of an earlier --suite turns run",
        unreadable="cannot read the stored report",
    )
    if not isinstance(data, dict) or data.get("suite") != "turns" or not isinstance(data.get("turns"), list):
        raise StoredReportError(
            f"{path}: not a turns-suite JSON report (no suite 'turns' with a turns list); write one with "
            "--suite turns --json PATH"
        )
    entries = [e for e in data["turns"] if isinstance(e, dict)]
    if len(entries) != len(data["turns"]) or not entries:
        raise StoredReportError(f"{path}: the report's turns must be a non-empty list of objects")
    header: dict[str, Any] = data["judge"] if isinstance(data.get("judge"), dict) else {}
    try:
        judge = one_judge([header, *(e.get("judge") or {} for e in entries)], f"{path}: the stored scores")
    except MixedJudges as exc:
        raise StoredReportError(str(exc)) from None
    stored: list[Stored] = []
    for i, e in enumerate(entries):
        try:
            turn = parse_turn(e.get("turn"), f"{path}: turns[{i}]")
        except TurnsFileError as exc:
            raise StoredReportError(f"{exc} (the stored report is damaged; re-judge the original turns file)") from None
        composite, band = e.get("composite"), e.get("band")
        stored.append(
            Stored(
                turn,
                float(composite) if isinstance(composite, int | float) and not isinstance(composite, bool) else None,
                next((b for b in BANDS if b == band), None),
                str(e.get("digest") or ""),
            )
        )
    return StoredReport(path, judge, stored)


@dataclass(frozen=True)
class Moved:
    """One turn's stored score beside its new one."""

    turn_id: str
    stored: float
    now: float
    delta: float
    stored_band: Band
    band: Band
    moved_down: bool
    """A lower band, or more than :data:`DRIFT_TOLERANCE` points lower."""


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def drift(stored: StoredReport, judgements: Sequence[Judgement], judge: Mapping[str, Any]) -> dict[str, Any]:
    """Per turn, the stored and the new score; overall, how far and how often they moved."""
    now = {j.turn.turn_id: j for j in judgements}
    rows: list[Moved] = []
    skipped: list[dict[str, str]] = []
    for s in stored.turns:
        j = now.get(s.turn.turn_id)
        if s.digest and s.digest != s.turn.digest():
            skipped.append({"turn_id": s.turn.turn_id, "why": "the stored turn changed since it was scored"})
        elif s.composite is None or s.band is None:
            skipped.append({"turn_id": s.turn.turn_id, "why": "unmeasured in the stored report"})
        elif j is None or j.arithmetic is None:
            skipped.append({"turn_id": s.turn.turn_id, "why": f"unmeasured now: {j.reason if j else 'not judged'}"})
        else:
            new, band = float(j.arithmetic.composite), j.arithmetic.band
            delta = round(new - s.composite, 4)
            down = _RANK[band] < _RANK[s.band] or delta < -DRIFT_TOLERANCE
            rows.append(Moved(s.turn.turn_id, s.composite, new, delta, s.band, band, down))
    deltas = [r.delta for r in rows]
    identity = {k: judge.get(k) for k in ("model", "rubric_version", "prompt_sha256")}
    return {
        "stored_report": str(stored.path),
        "stored_judge": stored.judge,
        "judge": identity,
        "same_judge": dict(stored.judge) == identity,
        "tolerance": DRIFT_TOLERANCE,
        "compared": len(rows),
        "mean_delta": _round(statistics.fmean(deltas)) if deltas else None,
        "mean_abs_delta": _round(statistics.fmean(abs(d) for d in deltas)) if deltas else None,
        "max_abs_delta": _round(max(abs(d) for d in deltas)) if deltas else None,
        "band_changes": sum(r.stored_band != r.band for r in rows),
        "band_kappa": _round(cohen_kappa([r.stored_band for r in rows], [r.band for r in rows])),
        "spearman_rho": _round(spearman_rho([r.stored for r in rows], [r.now for r in rows])),
        "moved_down": [r.turn_id for r in rows if r.moved_down],
        "not_compared": skipped,
        "turns": [dataclasses.asdict(r) for r in rows],
    }
