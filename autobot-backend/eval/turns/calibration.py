"""Calibration: how far the judge agrees with people who labelled the same turns.

A labels file is JSON Lines, ``{"turn_id": "...", "score": 0-100, "band": "good|partial|poor"}``
(optionally ``"labeller"`` and ``"note"``). Agreement is Spearman's rho between the composites and the
human scores, and Cohen's kappa between the composite's band and the human band (the judge's own
band beside it). The method's target is kappa of at least :data:`TARGET_KAPPA`; until labels exist,
every report says the judge is ``uncalibrated``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.core.errors import HarnessError
from eval.core.jsonl import json_lines
from eval.core.stats import cohen_kappa, spearman_rho
from eval.turns.judge import Judgement
from eval.turns.rubric import BANDS, Band

TARGET_KAPPA = 0.7
"""The Ask Axon method's own bar for the judge's bands against a human's."""
_KEYS = frozenset({"turn_id", "score", "band", "labeller", "note"})


class LabelsFileError(HarnessError):
    """A labels file that cannot be used; the message names the file, line and turn."""


@dataclass(frozen=True)
class Label:
    turn_id: str
    score: float
    band: Band
    labeller: str | None = None


def load_labels(path: Path) -> dict[str, Label]:
    """Every label of a labels file, by turn id; all-or-nothing."""
    lines = json_lines(
        path,
        LabelsFileError,
        missing="no such labels file; pass a JSON Lines file with --labels",
        unreadable="cannot read the labels file",
    )
    labels: dict[str, Label] = {}
    numbers: dict[str, int] = {}
    for line in lines:
        where, data, n = line.where, line.value, line.number
        if line.error is not None:
            raise LabelsFileError(f"{where}: not valid JSON (column {line.error.colno}: {line.error.msg})")
        if not isinstance(data, dict):
            raise LabelsFileError(f'{where}: a label must be an object {{"turn_id", "score", "band"}}')
        tid = data.get("turn_id")
        if not isinstance(tid, str) or not tid.strip():
            raise LabelsFileError(f"{where}: turn_id must be a non-empty string")
        at = f"{where}: turn {tid!r}"
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise LabelsFileError(f"{at}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_KEYS))}")
        score = data.get("score")
        if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 100:
            raise LabelsFileError(f"{at}: score must be a number from 0 to 100, got {json.dumps(score)}")
        band = data.get("band")
        if band not in BANDS:
            raise LabelsFileError(f"{at}: band must be one of {', '.join(BANDS)}, got {json.dumps(band)}")
        if tid in labels:
            raise LabelsFileError(f"{at}: already labelled on line {numbers[tid]}; one label per turn")
        labeller = data.get("labeller")
        labels[tid] = Label(tid, float(score), band, labeller if isinstance(labeller, str) else None)
        numbers[tid] = n
    if not labels:
        raise LabelsFileError(f"{path}: no labels in the file (one JSON object a line)")
    return labels


def uncalibrated() -> dict[str, Any]:
    return {
        "status": "uncalibrated",
        "target_kappa": TARGET_KAPPA,
        "note": "no human labels were given (--labels FILE): how far this judge agrees with people is unknown",
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def calibrate(judgements: Sequence[Judgement], labels: Mapping[str, Label], path: str = "") -> dict[str, Any]:
    """Agreement of the scored, labelled turns with their labels (rho on scores, kappa on bands)."""
    by_id = {j.turn.turn_id: j for j in judgements}
    pairs = [(by_id[tid], label) for tid, label in labels.items() if tid in by_id and by_id[tid].arithmetic is not None]
    composites = [float(j.arithmetic.composite) for j, _ in pairs if j.arithmetic is not None]
    bands = [j.arithmetic.band for j, _ in pairs if j.arithmetic is not None]
    judge_bands = [j.arithmetic.judge_band for j, _ in pairs if j.arithmetic is not None]
    kappa = cohen_kappa(bands, [lab.band for _, lab in pairs])
    return {
        "status": "calibrated" if pairs else "uncalibrated",
        "labels_file": path,
        "target_kappa": TARGET_KAPPA,
        "labels": len(labels),
        "pairs": len(pairs),
        "spearman_rho": _round(spearman_rho(composites, [lab.score for _, lab in pairs])),
        "kappa": _round(kappa),
        "kappa_judge_band": _round(cohen_kappa(judge_bands, [lab.band for _, lab in pairs])),
        "meets_target": None if kappa is None else kappa >= TARGET_KAPPA,
        "band_agreement": sum(b == lab.band for b, (_, lab) in zip(bands, pairs)),
        "not_in_run": sorted(set(labels) - set(by_id)),
        "not_scored": sorted(tid for tid in labels if tid in by_id and by_id[tid].arithmetic is None),
        "turns": [
            {
                "turn_id": j.turn.turn_id,
                "composite": c,
                "band": b,
                "human_score": lab.score,
                "human_band": lab.band,
            }
            for (j, lab), c, b in zip(pairs, composites, bands)
        ],
    }
