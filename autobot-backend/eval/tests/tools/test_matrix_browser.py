"""The model matrix page in a real browser: headless Chromium shows every verdict, rate and pairwise reading
the JSON holds, runs no script from a model's name, and fetches nothing (the page's Content-Security-Policy
forbids it; the control that this check can fail is ``test_html_browser``'s leaky page).

Without Chromium and chromedriver the tests skip, unless ``EVAL_REQUIRE_BROWSER=1`` (CI), where they fail.
The screenshot is kept in ``EVAL_TEST_ARTIFACTS`` as ``model-matrix.png``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from eval.cli.compare import main
from eval.core import figures as fig
from eval.core.browser import network_requests, open_page
from eval.tests import needs_browser
from eval.tests.tools.test_model_matrix import HOSTILE_MODEL, runs  # noqa: F401  (runs: the fixture)
from eval.tools.matrix_render import shown

BACKEND = Path(__file__).resolve().parents[3]
ARTIFACTS = Path(os.environ.get("EVAL_TEST_ARTIFACTS") or BACKEND / ".test-artifacts")

pytestmark = needs_browser.mark


def test_the_matrix_page_renders_every_verdict_rate_and_reading_offline(runs, monkeypatch):  # noqa: F811
    monkeypatch.chdir(runs)
    for var in ("EVAL_OUTPUT_DIR", "EVAL_CALLER_DIR"):
        monkeypatch.delenv(var, raising=False)
    assert main(["good.json", "bad.json", "wrong.json", "--html", "page.html", "--json", "page.json"]) == 0
    data = json.loads(Path("page.json").read_text())
    with open_page(runs / "page.html") as driver:
        assert driver.title == "Model matrix", "the model's <script> was shown, not run"
        rows = driver.find_elements("css selector", "#matrix tr[data-question]")
        assert [r.get_attribute("data-question") for r in rows] == [q["id"] for q in data["questions"]]
        for row, q in zip(rows, data["questions"]):
            cells = row.find_elements("css selector", "td[data-run]")
            assert [c.text for c in cells] == [shown(c, q["expect"]) for c in q["cells"]], q["id"]
            assert all(c.is_displayed() for c in cells)
        for run in data["runs"]:
            row = driver.find_element("css selector", f'#runs tr[data-run="{run["label"]}"]')
            assert row.find_element("css selector", 'td[data-col="pass-rate"]').text == fig.pct(run["pass_rate"])
            assert row.find_element("css selector", 'td[data-col="model"]').text == run["candidate"]["model"]
            bar = row.find_element("css selector", "svg rect.v-pass")
            assert bar.size["width"] == pytest.approx(200 * run["pass_rate"], abs=1)
        assert driver.find_element("css selector", '#runs tr[data-run="B"] td[data-col="model"]').text == HOSTILE_MODEL
        for pair in data["pairs"]:
            row = driver.find_element("css selector", f'#pairs tr[data-pair="{pair["x"]}-{pair["y"]}"]')
            assert row.find_element("css selector", 'td[data-col="reading"]').text == pair["reading"]
            assert row.find_element("css selector", 'td[data-col="holm"]').text == f"{pair['holm_p']:.4g}"
        flips = driver.find_elements("css selector", "#safety-flips tr[data-question]")
        assert [f.get_attribute("data-question") for f in flips] == data["safety_flips"]
        assert flips[0].find_element("css selector", 'span[data-run="B"]').text == "B: answered"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(ARTIFACTS / "model-matrix.png"))
        assert network_requests(driver) == []
