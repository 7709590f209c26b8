"""Bar geometry for the HTML pages: numbers in, rectangles out; the templates draw them.

Only arithmetic lives here (no markup), so a bar is tested by its numbers and rendered by the
template engine with everything escaped. The trend's charts, which need axes, ticks and a legend, are
drawn by matplotlib (:mod:`eval.tools.trend_chart`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Bar", "Segment", "rate_bar", "stacked_bar"]


@dataclass(frozen=True)
class Segment:
    label: str
    count: int
    x: float
    width: float
    css: str
    """The class that colours it (``v-pass``, ``v-wrong``...)."""


@dataclass(frozen=True)
class Bar:
    total: int
    width: float
    segments: tuple[Segment, ...]


def stacked_bar(parts: Sequence[tuple[str, int, str]], total: int, width: float = 240.0) -> Bar:
    """One horizontal bar of ``width`` for ``total`` items split into ``(label, count, css)`` parts;
    a part of zero draws nothing (its count still shows in the text beside the bar)."""
    segments, x = [], 0.0
    for label, count, css in parts:
        w = width * count / total if total else 0.0
        if count:
            segments.append(Segment(label, count, round(x, 2), round(w, 2), css))
        x += w
    return Bar(total, width, tuple(segments))


def rate_bar(run: Mapping[str, Any], scale: float) -> dict[str, float | None]:
    """A report's pass rate and its interval (``pass_rate``, ``ci`` of a compared or matrix run's JSON) as
    lengths on a bar ``scale`` long; no interval, no whiskers."""
    ci = run.get("ci")
    return {
        "rate": round(scale * (run.get("pass_rate") or 0.0), 2),
        "low": None if not ci else round(scale * ci[0], 2),
        "high": None if not ci else round(scale * ci[1], 2),
    }
