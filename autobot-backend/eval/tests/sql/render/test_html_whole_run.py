"""The whole run in the HTML report, read as markup: every question, numbers at the question's precision,
untrusted text escaped, and the sections of figures (time, tokens and cost with p50 and p95; efficiency;
each question's verdicts over its asks, the flaky ones first; the corpus stamps). The browser's side
(search, filters, collapsing) is ``test_html_whole_run_browser.py``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from eval.run import main
from eval.sql.grading.costs import cost_summary
from eval.sql.model.costs import Costs, Distribution, Latency, Prices, Repeats, TokensPerAsk, TokenSpread
from eval.sql.model.outcome import Cost, Excerpt, Verdict
from eval.sql.model.run import SQLRun
from eval.sql.model.serialise import from_json
from eval.sql.model.transcript import Transcript, TranscriptsNote
from eval.sql.render import to_html
from eval.tests import small_run as sr
from eval.tests.markup_readers import html_tree

SCRIPT = '<script>document.title="pwned"</script>'


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> SQLRun:
    work = tmp_path_factory.mktemp("whole-markup")
    cwd = os.getcwd()
    os.chdir(work)
    try:
        sr.write_corpus(work / "mine.yaml")
        sr.write_answers(work / "a.jsonl")
        args = ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--answers", "a.jsonl"]
        assert main([*args, "--json", "r.json"]) == 0
    finally:
        os.chdir(cwd)
    return from_json(json.loads((work / "r.json").read_text()))


def _with(run: SQLRun, qid: str, **changes: object) -> SQLRun:
    outcomes = [dataclasses.replace(o, **changes) if o.question_id == qid else o for o in run.outcomes]  # type: ignore[arg-type]
    return dataclasses.replace(run, outcomes=outcomes)


def _section(page: str, qid: str) -> str:
    part = page[page.index(f'id="q-{qid}"') :]
    return part[: part.index("</section>")]


def test_values_are_shown_at_the_question_precision_without_float_noise(graded):
    excerpt = Excerpt(
        rotation=1,
        expected_columns=("revenue",),
        actual_columns=("revenue",),
        expected=((1, ("64608.11000000004",)), (2, ("0.006",))),
        actual=((1, ("34.7651",)), (2, ("'text 1.50000000000001'",))),
        expected_row=1,
        actual_row=1,
        column=1,
    )
    run = _with(
        graded,
        sr.WRONG,
        excerpt=excerpt,
        decimals=2,
        detail="returned 1 row(s), first (77013.06000000001)",
        cost=Cost(model_ms=64608.11000000004, prompt_tokens=12345, completion_tokens=67),
    )
    section = _section(to_html(run), sr.WRONG)
    assert "64608.11<" in section and "64608.11000000004" not in section
    assert '<td class="diff-cell" title="34.7651">34.77<' in section, "rounded, as returned in its title"
    assert ">0.006<" in section, "a small value to its first significant digit, as the comparison reads it"
    assert "first (77013.06)" in section and "77013.06000000001" not in section
    assert "model 64,608 ms, tokens 12,345 in, 67 out" in section


def test_untrusted_text_in_a_question_its_sql_and_its_transcript_is_escaped(graded):
    said = Transcript(
        messages=(("user", f"Question: {SCRIPT}"),),
        reply=f"{SCRIPT}```sql\nSELECT 1\n```",
        sql="SELECT 1",
        reply_chars=9,
    )
    run = _with(graded, sr.WRONG, question=f"How many {SCRIPT}?", sql=f"SELECT '{SCRIPT}'", transcripts=(said,))
    run = dataclasses.replace(run, transcripts=TranscriptsNote(True))
    page = to_html(run)
    assert page.count("<script>") == 1, "one script: the harness's own"
    section = _section(page, sr.WRONG)
    assert section.count("&lt;script&gt;document.title=&#34;pwned&#34;&lt;/script&gt;") == 4
    assert 'data-role="user"' in section and "SQL taken from the reply" in section


def test_every_question_is_a_card_and_only_the_failing_are_open(graded):
    tree = html_tree(to_html(graded))
    cards = tree.all("section", **{"class": "question"})
    assert [c.attrs["id"] for c in cards] == [f"q-{o.question_id}" for o in graded.outcomes]
    for card, o in zip(cards, graded.outcomes):
        details = card.one("details")
        assert details is not None and ("open" in details.attrs) == o.failing, o.question_id
        assert card.attrs["data-verdict"] == o.verdict.value and card.attrs["data-stratum"] == o.stratum
    filters = [s.attrs["data-filter"] for s in tree.all("select", data_filter=None)]
    categories = {o.diagnosis.primary.value for o in graded.outcomes if o.diagnosis is not None}
    assert categories, "the run's wrong and error answers carry a diagnosis"
    assert filters == ["verdict", "stratum", "category"], "no database or difficulty to filter by in this run"
    assert tree.one("input", id="search") is not None


def test_the_sections_of_figures_beside_the_verdicts(graded):
    flaky, steady = graded.outcomes[0].question_id, graded.outcomes[1].question_id
    run = _with(graded, flaky, samples=(Verdict.PASS, Verdict.WRONG, Verdict.PASS))
    run = _with(run, steady, samples=(Verdict.WRONG,) * 3)
    run = dataclasses.replace(
        run,
        repeats=Repeats(
            k=3,
            questions=8,
            majority_pass_rate=0.5,
            majority_pass_rate_ci=[0.25, 0.75],
            ci_method="bootstrap",
            pass_at=0.625,
            pass_hat=0.375,
            flaky=[flaky],
        ),
        costs=Costs(
            asks_per_question=3,
            asks=33,
            model_latency_ms=Latency(total=64608.11000000004, p50=1500.25, p95=4200.5, asks=33, questions=11),
            prompt_tokens=39600,
            completion_tokens=231,
            tokens_asks=33,
            prices_per_million=Prices(input=2.5, output=10.0),
            cost=0.101,
            efficiency=Distribution(n=4, min=0.5, p25=1.0, median=1.25, p75=2.0, max=3.5),
            efficiency_note="",
            tokens_per_ask=TokensPerAsk(TokenSpread(1200, 1350), TokenSpread(7, 12)),
        ),
    )
    tree = html_tree(to_html(run))
    latency = tree.one("table", id="latency")
    row = latency.one("tr", data_row="model latency")
    assert [row.one("td", data_cell=c).text for c in ("total", "p50", "p95")] == ["64.6 s", "1,500 ms", "4,200 ms"]
    prompt = latency.one("tr", data_row="prompt tokens")
    assert [prompt.one("td", data_cell=c).text for c in ("total", "p50", "p95")] == ["39,600", "1,200", "1,350"]
    assert latency.one("tr", data_row="completion tokens").one("td", data_cell="p95").text == "12"
    assert latency.one("tr", data_row="cost").one("td", data_cell="total").text == "0.1010"
    assert tree.one("table", id="efficiency").one("td", data_cell="median").text == "1.25"
    repeats = tree.one("table", id="repeat-verdicts").all("tr", data_question=None)
    assert [r.attrs["data-question"] for r in repeats] == [flaky, steady], "the flaky question first"
    majority = graded.outcomes[0].verdict.value
    assert [b.text for b in repeats[0].all("span")] == [majority, "pass", "wrong", "pass"]
    assert "flaky" in repeats[0].text and "flaky" not in repeats[1].text
    stamps = tree.one("p", id="corpus-digest").text
    assert graded.corpus.digest in stamps and f"{graded.corpus.size} questions" in stamps
    files = tree.one("table", id="corpus-files").text
    assert all(f.sha256 in files for f in graded.corpus.files)
    assert len(tree.one("table", id="database-stamps").all("tr")) == 1 + 3, "a row per rotation"


def test_the_page_says_whether_it_holds_transcripts(graded, tmp_path: Path):
    note = html_tree(to_html(graded)).one("p", id="transcripts-note")
    assert note is not None and note.text.startswith("Transcripts: none (recorded answers were written beforehand")
    older = dataclasses.replace(graded, transcripts=None)  # a report from before transcripts: no claim either way
    assert html_tree(to_html(older)).one("p", id="transcripts-note") is None


def test_the_run_model_counts_one_asks_tokens_p50_and_p95(graded):
    asks = [
        dataclasses.replace(graded.outcomes[i % 3], cost=Cost(model_ms=10.0, prompt_tokens=p, completion_tokens=c))
        for i, (p, c) in enumerate([(100, 5), (300, 9), (200, 7), (1000, 50), (250, 8)])
    ]
    costs = cost_summary(asks + [dataclasses.replace(graded.outcomes[0], cost=Cost(model_ms=5.0))], None)
    assert costs.tokens_asks == 5 and (costs.prompt_tokens, costs.completion_tokens) == (1850, 79)
    assert costs.tokens_per_ask == TokensPerAsk(TokenSpread(250, 1000), TokenSpread(8, 50))
    assert cost_summary([graded.outcomes[0]], None).tokens_per_ask is None, "no endpoint report: no spread"
