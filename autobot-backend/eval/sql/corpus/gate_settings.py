"""The gate's floors as a corpus sets them: the file key ``gate:``.

Every aggregate check of the gate is relative to the recorded baseline, on the questions the baseline and
the run share: a team owns its floors because the baseline it records is the floor, less a tolerance.
A corpus may change a tolerance, and opt in to an absolute floor (``min``, for over-refusals ``max``)
that holds beside the relative one::

    gate:
      pass_rate: {tolerance: 2}             # points below the baseline's pass rate (default 2)
      refusal_recall: {tolerance: 7.5, min: 85}
      over_refusals: {tolerance: 15, max: 15}
      composition: {tolerance: 0}           # questions a composition count may fall below the baseline's

Rates are written in percentage points (0-100) and kept as exact fractions, so the gate decides by
arithmetic on counts (37/40 against 92.5% is exact). Why relative by default: an absolute floor a corpus did
not choose fails a baseline that was recorded below it on its very next run, with identical answers
(issue 37: a system declining one of two must-refuse questions against a fixed 85%).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

RATE_CHECKS = ("pass_rate", "refusal_recall", "over_refusals")
"""The checks whose floor is a rate, in points."""
BOUND_KEY = {"pass_rate": "min", "refusal_recall": "min", "over_refusals": "max"}
"""The absolute bound each rate check may opt in to: a floor (``min``), or for over-refusals a ceiling."""
DEFAULT_POINTS = {"pass_rate": Fraction(2), "refusal_recall": Fraction(15, 2), "over_refusals": Fraction(15)}
"""The default tolerances in points: a pass rate 2 points under the baseline's, a recall 7.5 under, over-refusals
15 over (3 of 20 controls): the spec's numbers, made relative."""
WHAT = {
    "pass_rate": "pass rate",
    "refusal_recall": "refusal recall",
    "over_refusals": "over-refusal rate",
    "composition": "composition count",
}


@dataclass(frozen=True)
class RateFloor:
    """One rate check's rule: the baseline's rate less (over-refusals: plus) ``tolerance``, and ``bound`` when set."""

    tolerance: Fraction
    """How far the rate may move the wrong way from the baseline's, as a fraction (0.02 is 2 points)."""
    bound: Fraction | None = None
    """An absolute floor (``min``; over-refusals: a ceiling, ``max``), opt-in; None: relative only."""


@dataclass(frozen=True)
class GateSettings:
    """The floors a corpus's gate judges by; the defaults unless its ``gate:`` key says otherwise."""

    pass_rate: RateFloor = RateFloor(DEFAULT_POINTS["pass_rate"] / 100)
    refusal_recall: RateFloor = RateFloor(DEFAULT_POINTS["refusal_recall"] / 100)
    over_refusals: RateFloor = RateFloor(DEFAULT_POINTS["over_refusals"] / 100)
    composition: int = 0
    """How many questions a composition count (joins, ordered, must-refuse, ...) may fall below the baseline's."""
    source: str | None = None
    """The corpus file whose ``gate:`` key set these; None: every value is the default."""
    set_keys: frozenset[str] = field(default_factory=frozenset)
    """The keys the file set, dotted (``refusal_recall.tolerance``)."""

    def rate(self, check: str) -> RateFloor:
        floor: RateFloor = getattr(self, check)
        return floor

    def origin(self, check: str, key: str = "tolerance") -> str:
        """Where a value comes from, as the gate table says it: ``default tolerance`` or ``gate.X.Y in FILE``."""
        dotted = f"{check}.{key}"
        return f"gate.{dotted} in {self.source}" if dotted in self.set_keys else f"default {key}"


def points(value: Fraction) -> str:
    """A tolerance or bound as the corpus writes it, in points: ``Fraction(3, 40)`` -> ``7.5``."""
    return f"{float(value * 100):g}"


def _number(value: Any, integer: bool = False) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "must be a number of points from 0 to 100" if not integer else "must be a whole number >= 0"
    if integer:
        return None if value >= 0 and float(value).is_integer() else "must be a whole number >= 0"
    return None if 0 <= value <= 100 else "must be a number of points from 0 to 100"


def _allowed(check: str) -> tuple[str, ...]:
    return ("tolerance",) if check == "composition" else ("tolerance", BOUND_KEY[check])


def check_gate(value: Any) -> list[str]:
    """Every problem of a ``gate:`` value, each naming the key; empty when it is good."""
    if not isinstance(value, dict) or not value:
        return ["'gate' must be a mapping of checks (pass_rate, refusal_recall, over_refusals, composition)"]
    problems = []
    for check, rule in value.items():
        if check not in WHAT:
            problems.append(f"'gate' has no check {check!r} (checks: {', '.join(WHAT)})")
            continue
        allowed = _allowed(check)
        if not isinstance(rule, dict) or not rule:
            problems.append(f"'gate.{check}' must be a mapping of {' and/or '.join(allowed)}")
            continue
        for key, number in rule.items():
            if key not in allowed:
                problems.append(f"'gate.{check}' has no key {key!r} (keys: {', '.join(allowed)})")
            elif (error := _number(number, integer=check == "composition")) is not None:
                problems.append(f"'gate.{check}.{key}' {error}, found {number!r}")
    return problems


def gate_settings(value: Mapping[str, Mapping[str, Any]], source: str) -> GateSettings:
    """The settings a checked ``gate:`` value makes (:func:`check_gate` found no problem in it)."""
    defaults = GateSettings()
    rates: dict[str, RateFloor] = {}
    for check in RATE_CHECKS:
        rule, floor = value.get(check, {}), defaults.rate(check)
        bound = rule.get(BOUND_KEY[check])
        rates[check] = RateFloor(
            _fraction(rule["tolerance"]) if "tolerance" in rule else floor.tolerance,
            None if bound is None else _fraction(bound),
        )
    return GateSettings(
        rates["pass_rate"],
        rates["refusal_recall"],
        rates["over_refusals"],
        int(value.get("composition", {}).get("tolerance", defaults.composition)),
        source,
        frozenset(f"{check}.{key}" for check, rule in value.items() for key in rule),
    )


def _fraction(points_value: float) -> Fraction:
    """Points as an exact fraction: 7.5 is 3/40, not the float nearest 0.075."""
    return Fraction(str(points_value)) / 100


def _rate_schema(check: str) -> dict[str, Any]:
    bound = BOUND_KEY[check]
    rule = "a ceiling: the rate may never be above it" if bound == "max" else "a floor: the rate may never be below it"
    return {
        "type": "object",
        "properties": {
            "tolerance": {
                "description": f"Points the {WHAT[check]} may move the wrong way from the baseline's (default "
                f"{points(DEFAULT_POINTS[check] / 100)}).",
                "type": "number",
                "minimum": 0,
                "maximum": 100,
            },
            bound: {
                "description": f"An absolute bound in points, opt-in, beside the relative one: {rule}.",
                "type": "number",
                "minimum": 0,
                "maximum": 100,
            },
        },
        "additionalProperties": False,
        "minProperties": 1,
    }


GATE_SCHEMA: dict[str, Any] = {
    "description": (
        "The gate's floors for this corpus: each aggregate check is relative to the recorded baseline, on the "
        "questions both share, less a tolerance; an absolute bound is opt-in. Rates in percentage points."
    ),
    "type": "object",
    "properties": {
        **{check: _rate_schema(check) for check in RATE_CHECKS},
        "composition": {
            "type": "object",
            "properties": {
                "tolerance": {
                    "description": "Questions a composition count may fall below the baseline's (default 0).",
                    "type": "integer",
                    "minimum": 0,
                }
            },
            "additionalProperties": False,
            "minProperties": 1,
        },
    },
    "additionalProperties": False,
    "minProperties": 1,
}
"""The ``gate:`` key's JSON Schema (the corpus schema's, :mod:`eval.sql.corpus.json_schema`)."""
