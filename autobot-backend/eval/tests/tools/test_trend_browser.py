"""The trend page in headless Chromium (issue 26 point 1): each chart renders with its axes, tick values and
a legend naming every cohort; no line joins two cohorts; a corpus digest change is marked; nothing is
fetched and no name from the data runs as script.

Without Chromium and chromedriver the tests skip, unless ``EVAL_REQUIRE_BROWSER=1`` (CI), where they fail.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from eval.cli import trend as trend_cli
from eval.core.browser import network_requests, open_page
from eval.tests import needs_browser
from eval.tools.trend_chart import Cohort

pytestmark = needs_browser.mark

HOSTILE = '<script>document.title="pwned"</script>'


def _line(date: str, model: str, engine: str, digest: str, rate: float, recall: float) -> str:
    return json.dumps(
        {
            "date": date, "candidate": "embedded", "model": model, "engine": engine, "corpus_digest": digest,
            "pass_rate": rate, "pass_rate_ci": [rate - 0.1, rate + 0.1],
            "refusal_recall": recall, "refusal_recall_ci": [recall - 0.05, min(1.0, recall + 0.05)],
        }
    )  # fmt: skip


COHORTS = {  # cohort -> its runs (date, pass rate, refusal recall); A and B differ only in the corpus digest
    ("m-1", "sqlite", "aaaa1111aaaa1111"): [("2026-01-01", 0.40, 0.90), ("2026-01-02", 0.45, 0.85)],
    ("m-1", "sqlite", "bbbb2222bbbb2222"): [("2026-01-03", 0.60, 0.95), ("2026-01-05", 0.62, 0.92)],
    (HOSTILE, "duckdb", "bbbb2222bbbb2222"): [("2026-01-04", 0.30, 0.70)],
}


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("trend-browser")
    lines = sorted((d, _line(d, m, e, g, r, c)) for (m, e, g), runs in COHORTS.items() for d, r, c in runs)
    (work / "t.jsonl").write_text("".join(line + "\n" for _, line in lines))  # in date order, as recorded
    cwd = os.getcwd()
    os.chdir(work)
    try:
        assert trend_cli.main(["--file", "t.jsonl", "--html", "t.html", "--all-cohorts"]) == 0  # one has one run
    finally:
        os.chdir(cwd)
    return work / "t.html"


def _vertices(d: str) -> list[tuple[float, float]]:
    numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", d)]
    return list(zip(numbers[::2], numbers[1::2]))


@pytest.mark.parametrize(("key", "axis"), [("pass_rate", "pass rate"), ("refusal_recall", "refusal recall")])
def test_each_chart_has_axes_ticks_a_legend_and_one_line_per_cohort(page, key, axis):
    with open_page(page) as driver:
        svg = driver.find_element("css selector", f"figure#chart-{key} svg")
        assert svg.is_displayed() and svg.size["width"] > 400 and svg.size["height"] > 150, "the chart renders"
        texts = [t.get_attribute("textContent") for t in svg.find_elements("css selector", "text")]
        assert "date of the run" in texts and f"{axis} (95% interval as bars)" in texts
        assert {"0%", "50%", "100%"} <= set(texts), "the y axis has its tick values"
        dates = [t for t in texts if re.fullmatch(r"\d{4}-\d\d-\d\d", t)]
        assert len(dates) >= 2 and all("2025-12-31" <= d <= "2026-01-06" for d in dates), dates
        legend = svg.find_element("css selector", f"g#{key}-legend")
        named = [t.get_attribute("textContent") for t in legend.find_elements("css selector", "text")]
        for (model, engine, digest), _ in COHORTS.items():
            assert Cohort("embedded", model, engine, digest).label in named, "the legend names each cohort"

        series = svg.find_elements("css selector", f'g[id^="{key}-series-"]')
        assert len(series) == len(COHORTS), "one series per cohort"
        lines = []
        for group, runs in zip(series, COHORTS.values()):
            paths = group.find_elements("css selector", ":scope > path")  # the markers' shape is under <defs>
            assert len(paths) <= 1, "a cohort is one line"
            lines.append(_vertices(paths[0].get_attribute("d")) if paths else [])
            if len(runs) > 1:  # a line of one run may be drawn as no path at all
                assert len(lines[-1]) == len(runs), "a line joins its own cohort's runs and no other's"
            assert len(lines[-1]) <= len(runs)
            assert len(group.find_elements("css selector", "use")) == len(runs), "one marker per run"
        a, b, _c = lines
        assert max(x for x, _ in a) < min(x for x, _ in b), "corpus A's line ends before corpus B's begins"
        assert not any(len(v) > 2 for v in lines), "no line spans the digest change"
        intervals = svg.find_elements("css selector", f'g[id^="{key}-interval-"]')
        assert len(intervals) == len(COHORTS), "each series' runs have their intervals"

        changes = svg.find_elements("css selector", f'g[id^="{key}-corpus-change-label-"]')
        assert [c.get_attribute("textContent").strip() for c in changes] == ["corpus bbbb2222"]
        mark = svg.find_element("css selector", f"g#{key}-corpus-change-0 path")
        assert _vertices(mark.get_attribute("d"))[0][0] == pytest.approx(b[0][0], abs=0.01), "marked at B's start"

        assert driver.title != "pwned" and HOSTILE[:20] in " ".join(named), "the model's name is shown, not run"
        assert network_requests(driver) == []


def test_the_page_holds_no_duplicate_id(page):
    """Two matplotlib charts on one page: their ids are namespaced, so a reference cannot cross charts."""
    with open_page(page) as driver:
        ids = driver.execute_script("return Array.from(document.querySelectorAll('[id]'), e => e.id)")
    assert len(ids) > 100 and len(ids) == len(set(ids))
