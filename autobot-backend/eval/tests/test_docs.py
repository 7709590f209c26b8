"""The docs pages agree with the files: stamps on the methodology page, the accuracy record's digest."""

import re

from eval.sql import docs
from eval.sql.corpus import load_corpus

CORPUS = load_corpus()


def test_methodology_stamps_match_the_corpus_files():
    assert docs.stamps_on_page() == docs.render_stamps(CORPUS).strip(), (
        "docs/eval/sql-methodology.md has stale corpus stamps: run "
        "`python -m eval.sql.docs --update-stamps` from autobot-backend/ and commit the page"
    )


def test_accuracy_record_has_a_row_and_its_latest_names_the_current_corpus():
    rows = docs.read_record()
    assert rows, "docs/eval/sql-accuracy.md has no measured row; add one with --record-accuracy"
    latest = rows[-1]
    assert latest["corpus digest"] == CORPUS.digest[: docs.DIGEST_CHARS], (
        "the latest accuracy row was measured on another corpus: re-run with --record-accuracy"
    )
    assert latest["questions"] == str(CORPUS.size)


def test_accuracy_rows_are_dated_and_labelled():
    for row in docs.read_record():
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["date"])
        assert row["status"] == "provisional" or row["status"].startswith("confirmed (agrees with ")
        assert row["candidate"] in {"reference", "embedded", "llm", "recorded"}


def test_record_row_round_trips_through_the_page(tmp_path):
    from eval.sql.outcome import SQLOutcome, Verdict
    from eval.sql.report import SQLReport

    page = tmp_path / "acc.md"
    page.write_text(f"# x\n\n{docs.RECORD_START}\n{docs.RECORD_END}\n")
    report = SQLReport(
        outcomes=[SQLOutcome("a", "answer", "s", Verdict.PASS)],
        candidate_path="embedded",
        model="embedded-v1",
        corpus={"digest": "ab" * 32, "size": 1, "files": []},
        run={"engine": "sqlite", "rotations": 3, "seed": 0},
    )
    first = docs.append_record(report, page)
    second = docs.append_record(report, page)
    rows = docs.read_record(page)
    assert [r["status"] for r in rows] == ["provisional", f"confirmed (agrees with {first['date']})"]
    assert rows[0]["pass rate"] == "100.0% (1/1)" and second["corpus digest"] == "ab" * 8


def test_strata_block_is_appended_with_the_row_identity_and_escaped_names(tmp_path):
    from eval.sql.outcome import SQLOutcome, Verdict
    from eval.sql.report import SQLReport

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
    report = SQLReport(
        outcomes=outcomes,
        candidate_path="embedded",
        model="embedded-v9",
        corpus={"digest": "cd" * 32, "size": 6, "files": []},
        run={"engine": "sqlite", "rotations": 3, "seed": 0},
    )
    row = docs.append_record(report, page)
    docs.append_strata(report, row, page)
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

    from eval.sql.report import SQLReport

    page = tmp_path / "acc.md"
    page.write_text("# no markers\n")
    report = SQLReport(
        outcomes=[],
        candidate_path="embedded",
        model="m",
        corpus={"digest": "0" * 64, "size": 0},
        run={"engine": "sqlite", "rotations": 1},
    )
    with pytest.raises(docs.DocsError, match="accuracy-strata:start"):
        docs.append_strata(report, {"date": "2026-11-29"}, page)
