"""The trend's charts: one per headline figure, drawn by matplotlib as inline SVG (issue 26 point 1).

A series is one cohort (candidate, model, engine, corpus digest): its runs are one line, so no line
joins runs of different cohorts. Time is on the x axis (runs of one date are spread over that day in
the file's order), the figure on the y axis from 0% to 100%, each run's 95% interval a vertical bar;
the first run on each new corpus digest is marked by a dashed vertical line named by the digest.

matplotlib because it is the charting library the Python field trusts most, draws on a server with
no browser, and its SVG needs no script: the page keeps its Content-Security-Policy and works offline.
It is imported in :func:`svg_chart` only (``--help`` loads none of it). The SVG is deterministic
(``svg.hashsalt``, no date or creator in its metadata), its text stays text (``svg.fonttype: none``)
so a reader and a test can find tick values and legend names, and untrusted names (models,
candidates) are written with matplotlib's XML escaping, never parsed as mathtext, control characters
made visible and clipped to :data:`LABEL_CHARS`.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from eval.core.untrusted import clip, visible
from eval.sql.records.trend_file import TrendPoint

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["FIGURES", "LABEL_CHARS", "Cohort", "cohorts", "style", "svg_chart"]

FIGURES = {"pass_rate": "pass rate", "refusal_recall": "refusal recall"}
"""The headline figures charted, by their key in a trend line."""
LABEL_CHARS = 80
"""At most this many characters of a series' name in a legend (the table below the chart has it whole)."""
_DIGEST_CHARS = 8
_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
            "#17becf", "#393b79", "#ad494a", "#637939", "#e7ba52", "#7b4173", "#3182bd", "#e6550d", "#31a354",
            "#843c39", "#969696")  # fmt: skip
"""matplotlib's ``tab10``, then ten darker or lighter hues (of ``tab20b`` and ``tab20c``): twenty series, twenty
colours; each series also has its own marker among the eight (:func:`style`), so two series never look alike."""
_EPOCH = date(1970, 1, 1)
"""Day 0 of the x axis: matplotlib's ``date.epoch``, set in :func:`svg_chart` so the two agree."""
_WIDTH, _HEIGHT = 11.5, 4.2
"""The chart's size in inches (1 inch is 72 SVG points); it grows taller when the legend needs it."""
_LEGEND_TOP, _LEGEND_ROW = 1.2, 0.2
"""Inches above and below the legend, and per legend entry at its 8-point type."""
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_TAG = re.compile(r"<[^<>]+>")
_ID = re.compile(r'(\sid)="([^"#]+)"')
_REFERENCE = re.compile(r'(url\(|href=")#([^)"]+)')
_DECLARATION = re.compile(r"\A(?:<\?xml[^>]*\?>\s*)?(?:<!DOCTYPE[^>]*>\s*)?", re.S)


@dataclass(frozen=True)
class Cohort:
    """One series: the runs of one candidate, model, engine and corpus digest."""

    candidate: str
    model: str
    engine: str
    corpus_digest: str

    @property
    def label(self) -> str:
        digest = self.corpus_digest[:_DIGEST_CHARS] or "-"
        return clip(visible(f"{self.candidate} / {self.model} · {self.engine} · corpus {digest}"), LABEL_CHARS)


def cohorts(runs: Sequence[TrendPoint]) -> dict[Cohort, list[TrendPoint]]:
    """Runs grouped by cohort in date order (the file's order within a date), series in order of first run."""
    out: dict[Cohort, list[TrendPoint]] = {}
    for r in sorted(runs, key=lambda r: r.date):
        key = Cohort(r.candidate, r.model, r.engine or "-", r.corpus_digest or "")
        out.setdefault(key, []).append(r)
    return out


def style(n: int) -> tuple[str, str]:
    """The ``n``-th series' colour and marker: a colour of its own for twenty series, and the markers in turn, so
    series ``n`` and ``n + 20`` (the first colour again) still differ in marker.

    Example:
        >>> [style(n) for n in (0, 1, 10, 20)]
        [('#1f77b4', 'o'), ('#ff7f0e', 's'), ('#393b79', '^'), ('#1f77b4', 'v')]
    """
    return _PALETTE[n % len(_PALETTE)], _MARKERS[n % len(_MARKERS)]


def _times(runs: Sequence[TrendPoint]) -> dict[int, float]:
    """Each run's x in days since :data:`_EPOCH`: its date, runs of one date spread evenly over that day in the
    file's order."""
    by_day: dict[str, list[int]] = {}
    for i, r in enumerate(runs):
        by_day.setdefault(str(r.date)[:10], []).append(i)
    out = {}
    for day, members in by_day.items():
        start = (date.fromisoformat(day) - _EPOCH).days
        for k, i in enumerate(members):
            out[i] = start + (k + 0.5) / len(members)
    return out


def _digest_changes(ordered: Sequence[TrendPoint], x: dict[int, float]) -> list[tuple[float, str]]:
    """Where each corpus digest but the first is first seen, in time order."""
    seen: set[str] = set()
    marks = []
    for i in sorted(x, key=x.__getitem__):
        digest = ordered[i].corpus_digest or ""
        if digest not in seen:
            if seen:
                marks.append((x[i], visible(digest[:_DIGEST_CHARS]) or "-"))
            seen.add(digest)
    return marks


def _draw(ax: Axes, key: str, runs: Sequence[TrendPoint]) -> None:
    import matplotlib.dates as mdates
    from matplotlib.ticker import MultipleLocator, PercentFormatter

    ordered = sorted(runs, key=lambda r: r.date)
    x = _times(ordered)
    index = {id(r): i for i, r in enumerate(ordered)}
    for n, (cohort, items) in enumerate(cohorts(ordered).items()):
        shown = [
            (x[index[id(r)]], value, getattr(r, f"{key}_ci")) for r in items if (value := getattr(r, key)) is not None
        ]
        if not shown:
            continue
        colour, marker = style(n)
        (line,) = ax.plot([p[0] for p in shown], [p[1] for p in shown], color=colour, marker=marker, markersize=5,
                          linewidth=1.6, label=cohort.label)  # fmt: skip
        line.set_gid(f"series-{n}")
        bars = [(t, value, ci) for t, value, ci in shown if ci is not None]
        if bars:
            errors = [[value - ci[0] for _, value, ci in bars], [ci[1] - value for _, value, ci in bars]]
            drawn = ax.errorbar([b[0] for b in bars], [b[1] for b in bars], yerr=errors, fmt="none", ecolor=colour,
                                elinewidth=1.2, capsize=3, alpha=0.6)  # fmt: skip
            drawn.lines[2][0].set_gid(f"interval-{n}")
    for i, (t, digest) in enumerate(_digest_changes(ordered, x)):
        ax.axvline(t, color="#59636e", linestyle="--", linewidth=1).set_gid(f"corpus-change-{i}")
        ax.annotate(f"corpus {digest}", (t, 1.0), xytext=(3, -3), textcoords="offset points", fontsize=8,
                    color="#59636e", rotation=90, va="top", ha="left").set_gid(f"corpus-change-label-{i}")  # fmt: skip
    ax.set_ylim(0, 1.0)
    ax.yaxis.set_major_locator(MultipleLocator(0.1))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.xaxis.set_major_locator(mdates.AutoDateLocator(minticks=3, maxticks=8))  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%Y-%m-%d"))  # type: ignore[no-untyped-call]
    if x:
        first, last = min(x.values()), max(x.values())
        ax.set_xlim(first - 0.5, last + 0.5)
    ax.grid(True, axis="y", color="#d1d9e0", linewidth=0.6)
    ax.set_xlabel("date of the run")
    ax.set_ylabel(f"{FIGURES[key]} (95% interval as bars)")
    if ax.get_legend_handles_labels()[0]:  # no run has this figure: no series to name
        legend = ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False,
                           title="series (cohort)")  # fmt: skip
        legend.set_gid("legend")


def svg_chart(key: str, runs: Sequence[TrendPoint]) -> str:
    """The chart of figure ``key`` (a key of :data:`FIGURES`) as an ``<svg>`` element to inline in a page."""
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    with matplotlib.rc_context(
        {
            "svg.hashsalt": f"eval-trend-{key}",  # the ids matplotlib derives from hashes: the same on every run
            "svg.fonttype": "none",  # text as <text>, not glyph outlines
            "svg.id": "chart",
            "text.parse_math": False,  # a "$" in a model's name is a dollar sign
            "font.family": "DejaVu Sans",  # shipped with matplotlib: the same metrics on every machine
            "date.epoch": _EPOCH.isoformat() + "T00:00:00",
        }
    ):
        height = max(_HEIGHT, _LEGEND_TOP + _LEGEND_ROW * len(cohorts(runs)))  # the legend fits beside the axes
        figure = Figure(figsize=(_WIDTH, height), layout="constrained")
        FigureCanvasSVG(figure)
        _draw(figure.add_subplot(), key, runs)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    return _namespaced(_DECLARATION.sub("", buffer.getvalue()), key)


def _namespaced(svg: str, prefix: str) -> str:
    """Every id in ``svg``'s tags and every reference to one prefixed by ``prefix-``: two charts on a page
    share none. Only tags are touched: text is escaped (no ``<`` in it), so a name cannot be rewritten."""

    def tag(m: re.Match[str]) -> str:
        inside = _ID.sub(lambda i: f'{i.group(1)}="{prefix}-{i.group(2)}"', m.group())
        return _REFERENCE.sub(lambda r: f"{r.group(1)}#{prefix}-{r.group(2)}", inside)

    return _TAG.sub(tag, svg)
