"""The whole run in the HTML report, in a real browser: every question is on the page (passes collapsed,
and they expand), typing in the search hides the questions that do not match by id, text or SQL, and
each filter (verdict, stratum, database, difficulty, failure category) narrows the list.

The run is a real recorded run over the built-in fixtures and two databases of the user's own (so
databases and difficulty labels are real, and its wrong and error answers carry their diagnosis); a model
transcript is added to the run model read back from its JSON, as a model candidate would add it. Skips
without Chromium, as ``test_html_browser.py`` does (fails under ``EVAL_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest

from eval.core.browser import network_requests, open_page
from eval.run import main
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.serialise import from_json
from eval.sql.model.transcript import Transcript
from eval.sql.render import to_html
from eval.tests import needs_browser
from eval.tests import small_run as sr

pytestmark = needs_browser.mark

SCRIPT = '<script>document.title="pwned"</script>'


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> tuple[Path, dict[str, dict[str, Any]]]:
    work = tmp_path_factory.mktemp("whole")
    cwd = os.getcwd()
    os.chdir(work)
    try:
        sr.build_databases(work / "db")
        sr.write_mixed_corpus(work / "mine.yaml")
        sr.write_mixed_answers(work / "a.jsonl")
        args = ["--suite", "sql", "--corpus", "mine.yaml", "--db-dir", "db", "--candidate", "recorded"]
        assert main([*args, "--answers", "a.jsonl", "--json", "r.json"]) == 0
    finally:
        os.chdir(cwd)
    run = from_json(json.loads((work / "r.json").read_text()))
    said = Transcript(
        messages=(("system", "rules"), ("user", f"Question: {SCRIPT}")),
        reply=f"```sql\nSELECT 424242\n```\n{SCRIPT}",
        sql="SELECT 424242",
        latency_ms=12.5,
        prompt_tokens=100,
        completion_tokens=9,
        reply_chars=40,
    )
    outcomes: list[SQLOutcome] = [
        dataclasses.replace(o, transcripts=(said,)) if o.question_id == sr.WRONG else o for o in run.outcomes
    ]
    run.outcomes = outcomes
    assert any(o.diagnosis is not None for o in outcomes), "the run's wrong and error answers carry a diagnosis"
    path = work / "whole.html"
    path.write_text(to_html(run))
    return path, {
        o.question_id: {"o": o, "category": "" if o.diagnosis is None else o.diagnosis.primary.value} for o in outcomes
    }


def _shown(driver) -> list[str]:
    return [
        s.get_attribute("id").removeprefix("q-")
        for s in driver.find_elements("css selector", "section.question")
        if s.is_displayed()
    ]


def _count(driver) -> str:
    return driver.find_element("id", "shown-count").text


def test_every_question_is_there_passes_collapsed_and_they_expand(page):
    path, by_id = page
    with open_page(path) as driver:
        assert sorted(_shown(driver)) == sorted(by_id) and _count(driver) == f"{len(by_id)} shown"
        right = driver.find_element("id", f"q-{sr.RIGHT}")
        text = right.find_element("css selector", ".q-text")
        assert not text.is_displayed(), "a pass is collapsed: only its line shows"
        right.find_element("tag name", "summary").click()
        assert text.is_displayed() and text.text == by_id[sr.RIGHT]["o"].question
        wrong = driver.find_element("id", f"q-{sr.WRONG}")
        assert wrong.find_element("css selector", ".q-text").is_displayed(), "a failing question is open"
        transcript = wrong.find_element("css selector", "details.transcripts")
        reply = transcript.find_element("css selector", "pre.reply")
        assert not reply.is_displayed(), "the transcript is collapsed"
        transcript.find_element("tag name", "summary").click()
        assert reply.is_displayed() and SCRIPT in reply.text, "the reply's <script> is shown as text"
        assert driver.title != "pwned"
        assert network_requests(driver) == []
        other = next(q for q, x in by_id.items() if x["o"].good and q != sr.RIGHT)
        link = driver.find_element("id", f"q-{other}").find_element("css selector", ".q-text")
        assert not link.is_displayed()
        driver.get(f"{path.resolve().as_uri()}#q-{other}")  # a link to a question opens its card
        assert driver.find_element("id", f"q-{other}").find_element("css selector", ".q-text").is_displayed()


def test_typing_in_the_search_hides_what_does_not_match(page):
    path, by_id = page
    with open_page(path) as driver:
        box = driver.find_element("id", "search")
        box.send_keys("db-")  # by id: the five questions of the user's databases
        assert sorted(_shown(driver)) == sorted(q for q in by_id if q.startswith("db-"))
        box.clear()
        box.send_keys("424242")  # by the candidate's SQL
        assert _shown(driver) == [sr.WRONG] and _count(driver) == "1 shown"
        box.clear()
        box.send_keys("FRANCE average")  # by the question's text, every word, any case
        assert _shown(driver) == ["db-france-age"]
        box.clear()
        box.send_keys("no such words anywhere")
        assert _shown(driver) == [] and _count(driver) == "0 shown"
        box.clear()
        box.send_keys(" ")  # nothing typed: everything
        assert len(_shown(driver)) == len(by_id)


def test_each_filter_narrows_the_list(page):
    path, by_id = page
    from selenium.webdriver.support.ui import Select

    def expect(key: str, value: str) -> list[str]:
        if key == "category":
            return sorted(q for q, x in by_id.items() if x["category"] == value)
        if key == "verdict":
            return sorted(q for q, x in by_id.items() if x["o"].verdict.value == value)
        return sorted(q for q, x in by_id.items() if (getattr(x["o"], key) or "") == value)

    with open_page(path) as driver:
        for key, value in [
            ("verdict", "wrong"),
            ("stratum", "bench"),
            ("database", "pets_1"),
            ("difficulty", "moderate"),
            ("category", min(x["category"] for x in by_id.values() if x["category"])),
        ]:
            select = Select(driver.find_element("id", f"filter-{key}"))
            select.select_by_value(value)
            shown = sorted(_shown(driver))
            assert shown == expect(key, value) and 0 < len(shown) < len(by_id), key
            assert _count(driver) == f"{len(shown)} shown"
            select.select_by_value("")
            assert len(_shown(driver)) == len(by_id), key
        # two filters at once and the search: all of them hold
        Select(driver.find_element("id", "filter-database")).select_by_value("concert_singer")
        Select(driver.find_element("id", "filter-difficulty")).select_by_value("moderate")
        assert _shown(driver) == ["db-france-age"]
        driver.find_element("id", "search").send_keys("singers do we")
        assert _shown(driver) == []
