"""The rubric's arithmetic, done by plain code: the judge gives four subscores and a band, this module
turns them into one composite out of 100, applies the deterministic caps, and bands the result.

Nothing here asks a model, so every number a report shows can be recomputed by hand from the
subscores, and the judge cannot talk its way past a cap. Fractions keep the arithmetic exact. The
weights, caps and thresholds are the constants below; why they are what they are is in
``docs/eval/judge.md``. Changing any of them is a new :data:`RUBRIC_VERSION` (a test pins
:func:`rubric_fingerprint` to make that loud).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, Literal

from eval.turns.format import Turn

Band = Literal["good", "partial", "poor"]
BANDS: tuple[Band, ...] = ("good", "partial", "poor")

RUBRIC_VERSION = "turns-rubric-v1"
"""The rubric's identity: prompt, weights, caps and thresholds together. Scores of two versions are
never aggregated."""

DIMENSIONS = ("intent", "sql_quality", "result_relevance", "answer_faithfulness")
NOMINAL_WEIGHTS: Mapping[str, Fraction] = {
    "intent": Fraction(30, 100),
    "sql_quality": Fraction(25, 100),
    "result_relevance": Fraction(25, 100),
    "answer_faithfulness": Fraction(20, 100),
}
NULLABLE = frozenset({"answer_faithfulness"})
"""The dimension that is null when no answer text was captured."""
SUBSCORE_MIN, SUBSCORE_MAX = 0, 10

GOOD_FROM = 75
"""A composite of at least this is ``good``."""
PARTIAL_FROM = 45
"""At least this (and below :data:`GOOD_FROM`) is ``partial``; below it, ``poor``."""


@dataclass(frozen=True)
class Cap:
    """A deterministic ceiling on the composite, read from the captured evidence alone."""

    name: str
    limit: int
    """The composite is at most this when the cap applies."""
    rule: str
    """When it applies, in words (the docs and reports print it)."""


ALL_SQL_FAILED = Cap(
    "all_sql_failed",
    40,
    "every SQL statement that ran failed (at least one error, none ran): the turn never obtained a result. "
    "A statement the read-only guard blocked is neither success nor failure",
)
FIGURES_WITHOUT_ROWS = Cap(
    "figures_without_rows",
    20,
    "the answer states figures (numbers written in digits that are not in the question) but no statement "
    "returned rows and no other tool was used: the figures come from nowhere the turn shows",
)
CAPS: tuple[Cap, ...] = (ALL_SQL_FAILED, FIGURES_WITHOUT_ROWS)

_FIGURE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?!\w)")


def figures(text: str, besides: str = "") -> list[str]:
    """The numbers written in digits in ``text`` that do not occur in ``besides`` (the question).

    Example:
        >>> figures("In 2024 we had 1,204 orders worth 31.5% more; Q3 was best", "How many orders in 2024?")
        ['1,204', '31.5']
    """
    known = {_number(m.group()) for m in _FIGURE.finditer(besides)}
    return [m.group() for m in _FIGURE.finditer(text) if _number(m.group()) not in known]


def _number(token: str) -> Decimal | str:
    try:
        return Decimal(token.replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the pattern only matches digits, dots and commas
        return token


def caps_for(turn: Turn) -> list[tuple[Cap, str]]:
    """The caps whose condition holds for ``turn``, each with what in the evidence triggered it."""
    found: list[tuple[Cap, str]] = []
    errors = [s for s in turn.trajectory if s.status == "error"]
    if errors and not any(s.status == "ok" for s in turn.trajectory):
        found.append((ALL_SQL_FAILED, f"{len(errors)} statement(s) failed, none ran"))
    if turn.answer is not None and not turn.tools and not any(s.returned_rows for s in turn.trajectory):
        stated = figures(turn.answer, turn.question)
        if stated:
            shown = ", ".join(stated[:5]) + (" ..." if len(stated) > 5 else "")
            found.append((FIGURES_WITHOUT_ROWS, f"the answer states {shown} and no statement returned rows"))
    return found


def band_of(score: Fraction | float) -> Band:
    if score >= GOOD_FROM:
        return "good"
    return "partial" if score >= PARTIAL_FROM else "poor"


@dataclass(frozen=True)
class DimensionLine:
    name: str
    value: int | None
    """What the judge gave (None: the dimension dropped out)."""
    used: int | None
    """After clamping to 0..10."""
    nominal_weight: Fraction
    effective_weight: Fraction
    """After renormalising over the dimensions present (0 for a dropped one)."""
    contribution: Fraction
    """effective weight x used x 10: points out of 100."""

    @property
    def clamped(self) -> bool:
        return self.value != self.used


@dataclass(frozen=True)
class AppliedCap:
    name: str
    limit: int
    detail: str
    binding: bool
    """It lowered the composite (the pre-cap score was above the limit)."""


@dataclass(frozen=True)
class Arithmetic:
    """Every step from subscores to band, so a scored turn can be checked by hand."""

    dimensions: tuple[DimensionLine, ...]
    pre_cap: Fraction
    caps: tuple[AppliedCap, ...]
    composite: Fraction
    band: Band
    judge_band: Band
    """The band the judge itself gave; compared with :attr:`band`, never used in the composite."""

    @property
    def band_agrees(self) -> bool:
        return self.band == self.judge_band

    def to_json(self) -> dict[str, Any]:
        return {
            "dimensions": [
                {
                    "name": d.name,
                    "value": d.value,
                    "used": d.used,
                    "clamped": d.clamped,
                    "nominal_weight": float(d.nominal_weight),
                    "effective_weight": float(d.effective_weight),
                    "contribution": float(d.contribution),
                }
                for d in self.dimensions
            ],
            "pre_cap": float(self.pre_cap),
            "caps": [{"name": c.name, "limit": c.limit, "binding": c.binding, "detail": c.detail} for c in self.caps],
            "composite": float(self.composite),
            "band": self.band,
            "judge_band": self.judge_band,
            "band_agrees": self.band_agrees,
        }


def clamp(value: int) -> int:
    return max(SUBSCORE_MIN, min(SUBSCORE_MAX, value))


def compose(subscores: Mapping[str, int | None], judge_band: Band, caps: Sequence[tuple[Cap, str]] = ()) -> Arithmetic:
    """The composite of four subscores, capped and banded.

    Example:
        >>> a = compose({"intent": 8, "sql_quality": 6, "result_relevance": 7, "answer_faithfulness": None}, "good")
        >>> float(a.composite), [float(d.effective_weight) for d in a.dimensions], a.band
        (70.625, [0.375, 0.3125, 0.3125, 0.0], 'partial')

    Raises:
        ValueError: a dimension other than faithfulness is null or missing, or a subscore is not an integer.
    """
    present: dict[str, int] = {}
    for name in DIMENSIONS:
        value = subscores.get(name)
        if value is None:
            if name not in NULLABLE:
                raise ValueError(f"{name} is required; only {', '.join(sorted(NULLABLE))} may be null")
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an integer, got {value!r}")
        present[name] = value
    total = sum(NOMINAL_WEIGHTS[n] for n in present)
    lines = []
    for name in DIMENSIONS:
        if name not in present:
            lines.append(DimensionLine(name, None, None, NOMINAL_WEIGHTS[name], Fraction(0), Fraction(0)))
            continue
        used = clamp(present[name])
        effective = NOMINAL_WEIGHTS[name] / total
        lines.append(DimensionLine(name, present[name], used, NOMINAL_WEIGHTS[name], effective, effective * used * 10))
    pre_cap = sum((d.contribution for d in lines), Fraction(0))
    applied = tuple(AppliedCap(cap.name, cap.limit, detail, pre_cap > cap.limit) for cap, detail in caps)
    composite = min([pre_cap, *(Fraction(c.limit) for c in applied)])
    return Arithmetic(tuple(lines), pre_cap, applied, composite, band_of(composite), judge_band)


def rubric_fingerprint(system_prompt: str) -> str:
    """SHA-256 over the prompt and every number of the arithmetic: what :data:`RUBRIC_VERSION` names."""
    material = {
        "prompt": system_prompt,
        "weights": {k: str(v) for k, v in NOMINAL_WEIGHTS.items()},
        "nullable": sorted(NULLABLE),
        "range": [SUBSCORE_MIN, SUBSCORE_MAX],
        "caps": [[c.name, c.limit, c.rule] for c in CAPS],
        "bands": [GOOD_FROM, PARTIAL_FROM],
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()
