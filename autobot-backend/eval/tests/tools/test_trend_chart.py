"""The trend's matplotlib charts as SVG text (issue 26 point 1): the same runs give the same bytes, names
from the data are escaped text (never markup, never mathtext), and series follow cohorts.

What the chart looks like in a browser is :mod:`eval.tests.tools.test_trend_browser`'s.
"""

from __future__ import annotations

import re

import pytest

from eval.sql.records.trend_file import TrendPoint
from eval.tools.trend_chart import LABEL_CHARS, Cohort, cohorts, svg_chart


def _run(date: str, model: str = "m", digest: str = "d1", engine: str = "sqlite", rate: float = 0.5) -> TrendPoint:
    return TrendPoint(date=date, candidate="c", model=model, engine=engine, corpus_digest=digest, pass_rate=rate,
                      pass_rate_ci=[rate - 0.1, rate + 0.1])  # fmt: skip


def test_the_same_runs_give_the_same_svg_with_no_date_in_it():
    runs = [_run("2026-01-01"), _run("2026-01-02", digest="d2")]
    first = svg_chart("pass_rate", runs)
    assert first == svg_chart("pass_rate", runs)
    assert first.startswith("<svg") and "<?xml" not in first and "<!DOCTYPE" not in first
    assert "<dc:date>" not in first and "Matplotlib v" not in first
    assert svg_chart("pass_rate", [*runs, _run("2026-01-03")]) != first, "the control: other runs, another chart"


def test_a_name_from_the_data_is_escaped_text():
    hostile = "<script>alert(1)</script> $\\alpha$ & \x1b[2J"
    svg = svg_chart("pass_rate", [_run("2026-01-01", model=hostile)])
    assert "<script" not in svg and "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    assert "$\\alpha$ &amp; \\x1b[2J" in svg, "shown as written: no mathtext, the escape made visible"
    assert "\x1b" not in svg
    marked = svg_chart("pass_rate", [_run("2026-01-01"), _run("2026-01-02", digest="<b>\x1bxxxx")])
    assert "corpus &lt;b&gt;\\x1bxxxx" in marked and "<b>" not in marked, "a digest is data too"


def test_a_long_name_is_clipped_in_the_legend():
    label = Cohort("c", "m" * 500, "sqlite", "d1").label
    assert len(label) == LABEL_CHARS and label.endswith("...")


def test_a_series_is_one_cohort_and_each_has_its_own_line():
    runs = [
        _run("2026-01-01"), _run("2026-01-02"),  # one cohort
        _run("2026-01-03", digest="d2"),  # the corpus changed: another
        _run("2026-01-03", engine="duckdb"), _run("2026-01-04", model="m2"),
    ]  # fmt: skip
    groups = cohorts(runs)
    assert [len(v) for v in groups.values()] == [2, 1, 1, 1]
    svg = svg_chart("pass_rate", runs)
    assert sorted(re.findall(r'<g id="pass_rate-series-(\d+)"', svg)) == ["0", "1", "2", "3"]
    assert re.findall(r'<g id="pass_rate-corpus-change-label-\d+">', svg) == [
        '<g id="pass_rate-corpus-change-label-0">'
    ]
    ids = re.findall(r'\sid="([^"]+)"', svg + svg_chart("refusal_recall", [_run("2026-01-01")]))
    assert len(ids) == len(set(ids)), "two charts on one page share no id"


def test_many_cohorts_make_a_taller_chart_not_a_collapsed_one():
    """Past about 15 series the legend is taller than the axes: the chart grows (a collapsed layout would be a
    warning, which the test suite makes an error)."""
    many = [_run(f"2026-01-{i % 28 + 1:02d}", model=f"m{i}") for i in range(60)]
    heights = [float(re.search(r'height="([\d.]+)pt"', svg_chart("pass_rate", r)).group(1)) for r in (many[:3], many)]
    assert heights[0] == pytest.approx(4.2 * 72) and heights[1] > 2.5 * heights[0]
    assert len(re.findall(r'<g id="pass_rate-series-\d+"', svg_chart("pass_rate", many))) == 60
