"""Chart geometry for the HTML pages: numbers in, rectangles and points out; the templates draw them.

Only arithmetic lives here (no markup), so a chart is tested by its numbers and rendered by the
template engine with everything escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Bar", "LineChart", "Point", "Segment", "line_chart", "stacked_bar"]


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


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    low: float | None
    high: float | None
    """The interval's ends, in the chart's y coordinates (None without an interval)."""
    label: str


@dataclass(frozen=True)
class LineChart:
    width: float
    height: float
    points: tuple[Point, ...]
    path: str
    """The SVG path data joining the points (numbers only)."""


def line_chart(
    values: Sequence[tuple[str, float, tuple[float, float] | None]], width: float = 480.0, height: float = 160.0
) -> LineChart:
    """Rates in [0, 1] over equally spaced runs, with their intervals: y grows downwards in SVG."""
    n, pad = len(values), 12.0
    step = (width - 2 * pad) / (n - 1) if n > 1 else 0.0

    def y(rate: float) -> float:
        return round(pad + (height - 2 * pad) * (1.0 - rate), 2)

    points = tuple(
        Point(
            round(pad + i * step, 2),
            y(rate),
            None if ci is None else y(ci[0]),
            None if ci is None else y(ci[1]),
            label,
        )
        for i, (label, rate, ci) in enumerate(values)
    )
    path = " ".join(f"{'M' if i == 0 else 'L'}{p.x},{p.y}" for i, p in enumerate(points))
    return LineChart(width, height, points, path)
