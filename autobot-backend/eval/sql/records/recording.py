"""Recording a run in the dated accuracy record (``--record-accuracy``): the Markdown row and the trend line."""

from __future__ import annotations

import fcntl
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from eval.core.output import print_warning
from eval.sql.corpus.questions import builtin_corpus_files, load_corpus
from eval.sql.fixtures import cache as fixture_cache
from eval.sql.fixtures.seeded import FIXTURES
from eval.sql.gate.baseline import display_path
from eval.sql.grading.identity import column_order_of
from eval.sql.model.defaults import DEFAULT_ROTATIONS, DEFAULT_SEED
from eval.sql.model.run import SQLRun
from eval.sql.records import accuracy_page as record
from eval.sql.records import trend_file as trend
from eval.sql.rows import POLICY_VERSION


def builtin_suite(report: SQLRun) -> dict[str, Any]:
    """The suite the built-in record keeps: the built-in corpus on the default built-in fixtures."""
    corpus = load_corpus()
    names = sorted({q.fixture for q in corpus.questions if q.fixture})
    measured = report.cohort.keys.get("fixtures", {}) if report.cohort else {}
    fixtures = {
        n: {
            "generator": fixture_cache.code_digest(FIXTURES[n].sources)[:16],
            "schema": measured.get(n, {}).get("schema"),
        }
        for n in names
    }
    return {
        "corpus": corpus.digest,
        "fixtures": fixtures,
        "seed": DEFAULT_SEED,
        "rotations": DEFAULT_ROTATIONS,
        "column_order": column_order_of(corpus.questions),
        "comparison_policy": POLICY_VERSION,
    }


@contextmanager
def locked(page: Path) -> Iterator[None]:
    """Hold the record of ``page`` alone: a row is read, added and written back whole, so two runs recording
    at once would otherwise each write back the page without the other's row. The lock is taken on the
    page's folder (the page itself is replaced by a rename, which a lock on it would not survive): every
    writer of the page finds it, whatever its ``TMPDIR`` (a lock among the temporary files was not shared by
    two writers with different ones, and rows were lost), and it leaves no file behind."""
    page.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(page.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def record_accuracy(
    report: SQLRun, page: Path, *, builtin: bool, allow_off_suite: bool, corpus_files: list[Path] | None = None
) -> None:
    """Append the run to the record ``page`` and its trend file, stamped with the commit of the repository that
    holds the corpus (``corpus_files``, the built-in corpus when None), or with none when it is in no repository."""
    suite = builtin_suite(report) if builtin else None
    commit, dirty = trend.corpus_commit(corpus_files or builtin_corpus_files())
    path = trend.trend_path(page)
    with locked(page):
        points = trend.existing_points(path)  # a file that is not a trend is refused before anything is written
        missing = trend.missing_lines(record.all_rows(page), points)
        record.ensure_page(page)
        row = record.append_record(report, page, suite=suite, allow_off_suite=allow_off_suite)
        if "differs in" not in row:
            record.append_strata(report, row, page)
        trend.append_lines(path, [*missing, trend.trend_line(report.summary, row, commit=commit, dirty=dirty)])
    if missing:
        print_warning(
            f"{display_path(page)} had {len(missing)} row(s) with no line in {display_path(path)} (a record "
            "interrupted between its two files): their lines were added from the rows, marked 'record row'"
        )
    print(
        f"accuracy record: appended {row['date']} {row['candidate']}/{row['model']} ({row['status']}) to "
        f"{display_path(page)} and {display_path(path)}",
        file=sys.stderr,
    )
