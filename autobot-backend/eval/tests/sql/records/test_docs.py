"""The docs pages agree with the files: stamps and the worked example on the methodology page, the accuracy
record's digest."""

import re
from pathlib import Path

import pytest

from eval.sql.corpus.questions import load_corpus
from eval.sql.model.setup import Cohort, CorpusStamps, RunSetup
from eval.sql.records import accuracy_page as record
from eval.sql.records import docs
from eval.sql.records.worked_example import EXAMPLE_ID, UPDATE_EXAMPLE, render_example

CORPUS = load_corpus()


def test_methodology_stamps_match_the_corpus_files():
    assert docs.stamps_on_page() == docs.render_stamps(CORPUS).strip(), (
        "docs/eval/sql-methodology.md has stale corpus stamps: run "
        "`python -m eval.cli.docs --update-stamps` from autobot-backend/ and commit the page"
    )


def test_the_worked_example_is_what_the_committed_files_say():
    assert docs.WORKED_EXAMPLE.on_page() == render_example(CORPUS).strip(), (
        f"docs/eval/sql-methodology.md has a stale worked example: run `{UPDATE_EXAMPLE}` from autobot-backend/ "
        "and commit the page"
    )


def test_a_stale_worked_example_is_exit_1_naming_the_fix(tmp_path, monkeypatch, capsys):
    from eval.cli import docs as docs_cli

    page = tmp_path / "methodology.md"
    block = docs.Block("worked-example", page)
    page.write_text(f"# x\n\n{block.start}\nan old example of {EXAMPLE_ID}\n{block.end}\ntail\n")
    monkeypatch.setattr(docs, "WORKED_EXAMPLE", block)
    assert docs_cli.main([]) == 1
    assert UPDATE_EXAMPLE in capsys.readouterr().out
    assert docs_cli.main(["--update-example"]) == 0
    assert docs_cli.main([]) == 0
    text = page.read_text()
    assert "### rtl-group\\_by-005: wrong" in text and text.endswith(f"{block.end}\ntail\n")


def test_the_architecture_page_draws_the_report_sections_as_registered():
    from eval.cli.docs import UPDATE_SECTIONS
    from eval.sql.render import layout

    assert docs.SECTIONS.on_page() == layout.table().strip(), (
        f"docs/eval/architecture.md's table of the report's sections differs from the registry: run "
        f"`{UPDATE_SECTIONS}` from autobot-backend/ and commit the page"
    )


def test_a_stale_sections_table_is_exit_1_naming_the_fix(tmp_path, monkeypatch, capsys):
    from eval.cli import docs as docs_cli

    page = tmp_path / "architecture.md"
    block = docs.Block("report-sections", page)
    page.write_text(f"# x\n\n{block.start}\n| section | Markdown report |\n|---|---|\n| `run` | lead |\n{block.end}\n")
    monkeypatch.setattr(docs, "SECTIONS", block)
    assert docs_cli.main([]) == 1
    assert docs_cli.UPDATE_SECTIONS in capsys.readouterr().out
    assert docs_cli.main(["--update-sections"]) == 0
    assert docs_cli.main([]) == 0
    assert "| `stamps` |" in page.read_text()


def test_accuracy_record_has_a_row_and_its_latest_names_the_current_corpus():
    rows = record.read_record()
    assert rows, "docs/eval/sql-accuracy.md has no measured row; add one with --record-accuracy"
    latest = rows[-1]
    assert latest["corpus digest"] == CORPUS.digest[: docs.DIGEST_CHARS], (
        "the latest accuracy row was measured on another corpus: re-run with --record-accuracy"
    )
    assert latest["questions"] == str(CORPUS.size)


def test_accuracy_rows_are_dated_and_labelled():
    for row in record.read_record():
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["date"])
        assert row["status"] == "provisional" or row["status"].startswith("confirmed (agrees with ")
        assert row["candidate"] in {"reference", "embedded", "llm", "recorded"}


def test_record_row_round_trips_through_the_page(tmp_path):
    from eval.sql.model.outcome import SQLOutcome, Verdict
    from eval.sql.model.run import SQLRun

    page = tmp_path / "acc.md"
    page.write_text(f"# x\n\n{docs.RECORD_START}\n{docs.RECORD_END}\n")
    report = SQLRun(
        outcomes=[SQLOutcome("a", "answer", "s", Verdict.PASS)],
        candidate_path="embedded",
        model="embedded-v1",
        corpus=CorpusStamps("ab" * 32, 1),
        run=RunSetup(engine="sqlite", rotations=3, seed=0),
    )
    first = record.append_record(report, page)
    second = record.append_record(report, page)
    rows = record.read_record(page)
    assert [r["status"] for r in rows] == ["provisional", f"confirmed (agrees with {first['date']})"]
    assert rows[0]["pass rate"] == "100.0% (1/1)" and second["corpus digest"] == "ab" * 8


def test_strata_block_is_appended_with_the_row_identity_and_escaped_names(tmp_path):
    from eval.sql.model.outcome import SQLOutcome, Verdict
    from eval.sql.model.run import SQLRun

    page = tmp_path / "acc.md"
    page.write_text(f"# x\n\n{docs.RECORD_START}\n{docs.RECORD_END}\n\n{docs.STRATA_START}\n{docs.STRATA_END}\ntail\n")
    outcomes = [
        SQLOutcome("a", "answer", "join|*x*", Verdict.PASS),
        SQLOutcome("b", "answer", "join|*x*", Verdict.WRONG),
        SQLOutcome("c", "answer", "join|*x*", Verdict.ERROR),
        SQLOutcome("d", "refuse", "injection", Verdict.REFUSED),
        SQLOutcome("e", "refuse", "injection", Verdict.ANSWERED),
        SQLOutcome("f", "refuse", "injection", Verdict.ERROR),
    ]
    report = SQLRun(
        outcomes=outcomes,
        candidate_path="embedded",
        model="embedded-v9",
        corpus=CorpusStamps("cd" * 32, 6),
        run=RunSetup(engine="sqlite", rotations=3, seed=0),
    )
    row = record.append_record(report, page)
    record.append_strata(report, row, page)
    text = page.read_text()
    block = text[text.index(docs.STRATA_START) : text.index(docs.STRATA_END)]
    assert (
        f"#### {row['date']} · embedded / embedded-v9 · corpus `{'cd' * 8}` · sqlite, 3 rotation(s) · provisional"
        in block
    )
    assert r"| join\|\*x\* | answer | 3 | 1 | 1 | 1 | 0 | 0 |" in block
    assert "| injection | 3 | 1 | 1 | 1 | 0 |" in block
    assert text.endswith(f"|\n\n{docs.STRATA_END}\ntail\n")


def test_strata_block_needs_its_markers(tmp_path):
    import pytest

    from eval.sql.model.run import SQLRun

    page = tmp_path / "acc.md"
    page.write_text("# no markers\n")
    report = SQLRun(
        outcomes=[],
        candidate_path="embedded",
        model="m",
        corpus=CorpusStamps("0" * 64, 0),
        run=RunSetup(engine="sqlite", rotations=1),
    )
    with pytest.raises(docs.DocsError, match="accuracy-strata:start"):
        record.append_strata(report, {"date": "2026-11-29"}, page)


def _report(model="m1", fingerprint="c1", corpus="ab", seed=0):
    from eval.sql.model.outcome import SQLOutcome, Verdict
    from eval.sql.model.run import SQLRun

    suite = {
        "corpus": corpus * 32,
        "fixtures": {"retail": {"generator": "g", "schema": "s"}},
        "seed": seed,
        "rotations": 3,
    }
    return SQLRun(
        outcomes=[SQLOutcome("a", "answer", "s", Verdict.PASS)],
        candidate_path="llm",
        model=model,
        corpus=CorpusStamps(corpus * 32, 1),
        run=RunSetup(engine="sqlite", rotations=3, seed=seed),
        cohort=Cohort(fingerprint, {**suite, "temperature": 0}, model, None),
    )


def test_rows_of_one_cohort_stay_together(tmp_path):
    page = tmp_path / "own.md"
    record.ensure_page(page)
    for model, cohort in (("a", "c1"), ("b", "c2"), ("c", "c1")):
        record.append_record(_report(model, cohort), page)
    assert [(r["model"], r["cohort"]) for r in record.read_record(page)] == [("a", "c1"), ("c", "c1"), ("b", "c2")]


def test_a_run_of_another_suite_is_refused_unless_kept_off_suite(tmp_path):
    from eval.core.errors import UsageError

    page = tmp_path / "own.md"
    record.ensure_page(page)
    record.append_record(_report(), page)  # the page's first row sets its suite
    with pytest.raises(UsageError, match=r"differs in corpus, seed.*--allow-off-suite"):
        record.append_record(_report(corpus="cd", seed=5), page)
    row = record.append_record(_report(corpus="cd", seed=5), page, allow_off_suite=True)
    assert row["differs in"] == "corpus, seed"
    text = page.read_text()
    assert "## Off-suite runs" in text and len(record.read_record(page)) == 1  # not among the comparable rows


def test_a_record_from_before_cohorts_gains_the_column(tmp_path):
    page = tmp_path / "old.md"
    old = [c for c in record.RECORD_COLUMNS if c != "cohort"]
    row = [
        "2026-11-29",
        "`ab`",
        "1",
        "embedded",
        "e1",
        "sqlite",
        "3",
        "1",
        "0",
        "0",
        "0",
        "0",
        "100.0% (1/1)",
        "n/a",
        "n/a",
        "provisional",
    ]
    page.write_text(
        f"{docs.RECORD_START}\n| {' | '.join(old)} |\n|{'|'.join('---' for _ in old)}|\n"
        f"| {' | '.join(row)} |\n{docs.RECORD_END}\n"
    )
    [upgraded] = record.read_record(page)
    assert upgraded["cohort"] == record.PRE_COHORT and upgraded["model"] == "e1"
    record.append_record(_report(), page, suite=None)
    assert [r["cohort"] for r in record.read_record(page)] == ["-", "c1"]


def test_a_model_name_is_text_on_the_record_page_and_reads_back_as_written(tmp_path):
    page = tmp_path / "own.md"
    record.ensure_page(page)
    hostile = '<img src=x onerror="alert(1)"> *big* `x`'
    record.append_record(_report(model=hostile), page)
    text = page.read_text()
    assert re.search(r"(?<!\\)<img", text) is None and "\\<img src=x onerror=" in text
    [row] = record.read_record(page)
    assert row["model"] == hostile


def _record_one(page: str, i: int) -> None:
    from eval.sql.records.recording import record_accuracy

    record_accuracy(_report(model=f"m{i}"), Path(page), builtin=False, allow_off_suite=False)


def test_runs_recording_at_once_lose_no_row(tmp_path):
    """Eight runs record into one page at the same moment: eight rows, eight trend lines."""
    import multiprocessing

    page = tmp_path / "own.md"
    with multiprocessing.get_context("fork").Pool(8) as pool:
        pool.starmap(_record_one, [(str(page), i) for i in range(8)])
    assert sorted(r["model"] for r in record.read_record(page)) == [f"m{i}" for i in range(8)]
    assert len(page.with_suffix(".jsonl").read_text().splitlines()) == 8
