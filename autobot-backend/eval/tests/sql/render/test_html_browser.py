"""The HTML report in a real browser: headless Chromium shows the report's numbers, the filters hide
what they should, no script from the data runs, and nothing is fetched from the network.

The screenshot is kept as a test artifact in ``EVAL_TEST_ARTIFACTS`` (default ``.test-artifacts/``
beside this backend, ignored by git). Without Chromium and chromedriver the tests skip, unless
``EVAL_REQUIRE_BROWSER=1`` (CI), where they fail.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from eval.core.browser import network_requests, open_page
from eval.run import main
from eval.tests import needs_browser
from eval.tests import small_run as sr

BACKEND = Path(__file__).resolve().parents[4]
ARTIFACTS = Path(os.environ.get("EVAL_TEST_ARTIFACTS") or BACKEND / ".test-artifacts")

pytestmark = needs_browser.mark


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[Path, dict]:
    work = tmp_path_factory.mktemp("browser")
    cwd = os.getcwd()
    os.chdir(work)
    try:
        sr.write_corpus(work / "mine.yaml")
        sr.write_answers(work / "a.jsonl")
        args = ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--answers", "a.jsonl"]
        assert main([*args, "--html", "r.html", "--json", "r.json"]) == 0
    finally:
        os.chdir(cwd)
    return work / "r.html", json.loads((work / "r.json").read_text())


def _visible(driver) -> list[tuple[str, str]]:
    sections = driver.find_elements("css selector", "section.question")
    return [(s.get_attribute("data-verdict"), s.get_attribute("data-stratum")) for s in sections if s.is_displayed()]


def test_the_page_shows_the_reports_numbers_offline(report):
    page, data = report
    with open_page(page) as driver:
        for arm in ("answerable", "must_refuse"):
            for cell, value in data["two_by_two"][arm].items():
                shown = driver.find_element("css selector", f'#two-by-two tr[data-row="{arm}"] td[data-cell="{cell}"]')
                assert shown.text == str(value), (arm, cell)
        for name, counts in data["strata"].items():
            table = "#refuse-strata" if "correct_refusals" in counts else "#answer-strata"
            row = driver.find_element("css selector", f'{table} tr[data-stratum="{name}"]')
            assert row.find_element("css selector", 'td[data-count="cases"]').text == str(counts["cases"])
            if table == "#answer-strata":
                assert row.find_element("css selector", 'td[data-count="pass"]').text == str(counts.get("pass", 0))
            else:
                declined = row.find_element("css selector", 'td[data-count="declined"]').text
                assert declined == str(counts["correct_refusals"])
        rate = driver.find_element("css selector", "#pass-rate .value").text
        assert rate == f"{data['summary']['pass_rate'] * 100:.1f}%"
        assert driver.title != "pwned", "the candidate's <script> was shown, not run"
        assert '<script>document.title="pwned"</script>' in driver.find_element("tag name", "body").text
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(ARTIFACTS / "sql-report.png"))
        assert network_requests(driver) == []


def test_the_filters_hide_what_they_should(report):
    page, data = report
    from selenium.webdriver.support.ui import Select

    with open_page(page) as driver:
        everything = _visible(driver)
        assert len(everything) == len(data["questions"]) == 11
        Select(driver.find_element("id", "filter-verdict")).select_by_value("wrong")
        wrong = _visible(driver)
        assert wrong and {v for v, _ in wrong} == {"wrong"} and len(wrong) == data["summary"]["wrong"]
        assert driver.find_element("id", "shown-count").text == f"{len(wrong)} shown"
        Select(driver.find_element("id", "filter-verdict")).select_by_value("")
        stratum = everything[0][1]
        Select(driver.find_element("id", "filter-stratum")).select_by_value(stratum)
        assert _visible(driver) == [x for x in everything if x[1] == stratum]


def test_a_page_that_reaches_for_the_network_is_caught(tmp_path):
    """The control: the check above can fail. An image from elsewhere is a request, even unanswered."""
    page = tmp_path / "leaky.html"
    page.write_text('<!doctype html><title>x</title><img src="http://example.invalid/pixel.png">')
    with open_page(page) as driver:
        assert network_requests(driver) == ["http://example.invalid/pixel.png"]


def test_no_script_but_the_harness_own_runs_on_the_page(report, tmp_path):
    """The CSP allows the page's own scripts by hash only: a script that got into the page anyway (as if
    escaping had failed) does not run, while the filters above still do."""
    page, _ = report
    html = page.read_text()
    assert "'unsafe-inline'; img-src" not in html and "script-src 'sha256-" in html
    forged = tmp_path / "forged.html"
    forged.write_text(html.replace("</h1>", '</h1><script>document.title = "pwned";</script>', 1))
    with open_page(forged) as driver:
        assert driver.title != "pwned"
    control = tmp_path / "control.html"  # the same page under the old policy: the forged script runs
    control.write_text(re.sub(r"script-src [^;]*;", "script-src 'unsafe-inline';", forged.read_text(), count=1))
    with open_page(control) as driver:
        assert driver.title == "pwned"
