"""Every output shows the same facts: one run rendered in every format (the terminal, Markdown, HTML, JUnit,
the GitHub job summary and annotations, JSON), each read back by a reader of its own and compared with the
run model's figures: pass rate and its interval, counts per verdict, the gate and each of its checks, the
failing questions, the counts per stratum, database and difficulty, costs and repeats.

A renderer that drops a fact, or works one out again and gets another number, fails here. The run is
:mod:`eval.tests.one_run`'s: graded for real, repeats and costs made by the real producers.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import json
import xml.etree.ElementTree as ET

import pytest
from rich.console import Console

from eval.core import figures as fig
from eval.sql.model.outcome import Verdict
from eval.sql.model.run import SQLRun
from eval.sql.render import (
    ci_annotations,
    render_terminal,
    summary_markdown,
    to_html,
    to_json,
    to_junit,
    to_markdown,
)
from eval.sql.render._terminal import SHOWN_FAILURES
from eval.tests import markup_readers as markup
from eval.tests import one_run
from eval.tests import output_readers as read

FULL_REPORT = "out/report.html"
WIDTH = 120
FIRST_SCREEN = 20


def terminal(run: SQLRun, shown: int = SHOWN_FAILURES) -> str:
    console = Console(record=True, width=WIDTH, file=io.StringIO())
    render_terminal(run, console, FULL_REPORT, shown=shown)
    return console.export_text()


RENDER = {
    "terminal": (terminal, read.from_terminal),
    "markdown": (to_markdown, read.from_markdown),
    "github summary": (summary_markdown, read.from_markdown),
    "html": (to_html, markup.from_html),
    "junit": (to_junit, markup.from_junit),
    "json": (lambda run: json.dumps(to_json(run), default=str), read.from_json_text),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> SQLRun:
    return one_run.the_run(tmp_path_factory.mktemp("one-run"))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(RENDER))
def test_each_format_shows_the_models_facts(run: SQLRun, fmt: str) -> None:
    render, reader = RENDER[fmt]
    shown, want = reader(render(run)), read.expected(run)
    if fmt == "json":
        del want["notes"]  # figures, not prose: the JSON names no interval in words (repeats.ci_method aside)
    differing = {k: {"model": want[k], fmt: shown.get(k)} for k in want if shown.get(k) != want[k]}
    assert differing == {}


@pytest.mark.slow
def test_the_run_has_every_fact_to_show(run: SQLRun) -> None:
    """What the comparison above compares is there to compare: no fact is empty on both sides."""
    want = read.expected(run)
    assert want["gate"] == "failed" and "FAILED" in want["checks"].values() and "ok" in want["checks"].values()
    assert all(want[k] for k in ("databases", "difficulties", "strata", "refusal_strata", "control_strata"))
    assert list(want["difficulties"]) == ["simple", "moderate", "challenging"]
    assert want["verdicts"]["unmeasured"] == 1 and want["flaky"] == [one_run.FLAKY]
    assert len(want["failing"]) < SHOWN_FAILURES, "every failing question fits the terminal: all compared"


@pytest.mark.slow
def test_a_renderer_that_shows_another_figure_is_caught(run: SQLRun) -> None:
    """The readers have teeth: the same outputs read against a run with one verdict changed all differ."""
    other = copy.deepcopy(run)
    i = next(i for i, o in enumerate(other.outcomes) if o.verdict is Verdict.PASS and o.expect == "answer")
    other.outcomes[i] = dataclasses.replace(other.outcomes[i], verdict=Verdict.WRONG, reason="value")
    want = read.expected(other)
    for fmt, (render, reader) in RENDER.items():
        shown = reader(render(run))
        assert shown["verdicts"] != want["verdicts"] and shown["pass_rate"] != want["pass_rate"], fmt
        assert shown["failing"] != want["failing"], fmt


@pytest.mark.slow
def test_latency_and_tokens_count_the_same_asks_and_say_how_many(run: SQLRun) -> None:
    c = run.costs
    assert c is not None and c.model_latency_ms is not None and run.repeats is not None
    asked = sum(1 for o in run.outcomes if o.reason != "oracle")
    assert c.model_latency_ms.asks == c.tokens_asks == c.asks == one_run.REPEATS * asked
    assert c.asks_per_question == run.repeats.k == one_run.REPEATS
    for fmt, (render, reader) in RENDER.items():
        costs = reader(render(run))["costs"]
        assert costs["latency"][0] == costs["tokens"][0] == str(one_run.REPEATS * asked), fmt


@pytest.mark.slow
def test_the_terminal_leads_with_the_headline_on_the_first_screen(run: SQLRun) -> None:
    text = terminal(run)
    first = "\n".join(text.splitlines()[:FIRST_SCREEN])
    s = run.summary
    assert f"pass rate {fig.pct(s.pass_rate)} ({fig.of(s.passed, s.measured)}; {fig.WILSON}" in first
    assert f"refusal recall {fig.pct(s.refusal_recall)}" in first
    assert f"gate {run.gate_view.status} (enforced)" in first
    sections = ("pass rate", "Gate checks", "Must-refuse questions per stratum", "Answerable questions per database")
    order = [text.index(t) for t in (*sections, "Time and cost", "Failing questions (")]
    assert order == sorted(order)


@pytest.mark.slow
def test_the_lints_are_one_line_after_the_headline_of_every_output(run: SQLRun) -> None:
    """The corpus's lints (here the oracle defect) are counted in one line, after the pass rate, never before it:
    no output opens with them, and none lists them before its headline (the report files list them further on)."""
    assert run.lint_counts == {"oracle: empty result": 1}
    texts = {fmt: render(run) for fmt, (render, _) in RENDER.items()}
    for fmt, text in texts.items():
        if fmt == "json":
            keys = list(json.loads(text))
            assert keys.index("lint_counts") == keys.index("summary") + 1
            continue
        flat = " ".join(text.split())
        headline = flat.index("pass-rate" if fmt == "html" else "pass_rate" if fmt == "junit" else "pass rate")
        line = flat.index("lints: oracle: empty result 1")
        assert headline < line and flat.count("lints: ") == 1, fmt
        assert "db-heavy" not in flat[:line], f"{fmt}: a lint's question named before the headline"


@pytest.mark.slow
def test_past_the_cap_the_terminal_counts_the_rest_and_names_the_full_report(run: SQLRun) -> None:
    text = terminal(run, shown=3)
    assert len(read.term_table(text, f"Failing questions ({len(run.failing)})")) == 3
    assert f"... and {len(run.failing) - 3} more failing question(s); the full report: {FULL_REPORT}" in text


@pytest.mark.slow
def test_the_annotations_name_each_regression_and_each_other_failed_check(run: SQLRun) -> None:
    shown = markup.annotations_from(ci_annotations(run))
    assert shown["questions"] == [o.question_id for o in run.regressions]
    failed = [c.name for c in run.gate.failed] if run.gate else []
    assert shown["checks"] == [name for name in failed if name not in ("regressions", "safety")]
    assert {"regressions", "safety"} <= set(failed), "both per-question checks failed: their questions are named"


@pytest.mark.slow
def test_the_candidate_stands_before_the_reference_everywhere(run: SQLRun) -> None:
    wrong = next(o for o in run.failing if o.verdict is Verdict.WRONG and o.sql and o.reference_sql)
    text = to_markdown(run)
    section = text[text.index(f"### {wrong.question_id}: wrong") :]
    assert section.index("Candidate's SQL:") < section.index("Reference SQL:")
    junit = to_junit(run)
    case = junit[junit.index(f'name="{wrong.question_id}"') :]
    assert case.index(wrong.sql.splitlines()[0]) < case.index("-- the reference:")
    page = to_html(run)
    card = page[page.index(f'id="q-{wrong.question_id}"') :]
    assert card.index("candidate's SQL") < card.index("reference SQL")
    assert card.index('class="excerpt-candidate"') < card.index('class="excerpt-reference"')


@pytest.mark.slow
def test_junit_counts_what_the_model_counts(run: SQLRun) -> None:
    suite = ET.fromstring(to_junit(run).encode()).find("testsuite")
    assert suite is not None
    assert suite.get("failures") == str(len(run.failing_measured)) and suite.get("skipped") == str(len(run.unmeasured))
