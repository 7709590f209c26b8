"""The check of a corpus before any run (``python -m eval.sql.check``): every problem, nothing graded.

It loads the files (every loader problem, by file, line and question id), names every ``draft`` question
and every pair of near-duplicate questions (the built-in corpus's rule: rapidfuzz ``token_sort_ratio`` of
at least :data:`~eval.sql.corpus.composition.NEAR_DUPLICATE_THRESHOLD`), and runs the self-check of every
reference on the database the corpus will run on: the user's own (``db_url``, one database, written in its
dialect as a run takes it), the databases of ``database:`` questions (``db_dir``), or the built-in
fixtures on SQLite with their rotations. No candidate, no model, no baseline: what it finds is what a run
would report as ``unmeasured``, refuse to start on, or (near-duplicates) count twice. The references the
self-check finds suspect (:mod:`eval.sql.oracle.suspect`) are listed apart: not problems, since a run grades
their questions, but what to look at first (:func:`check_corpus_and_suspects`).
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from eval.core.errors import UsageError
from eval.sql.corpus.composition import NEAR_DUPLICATE_THRESHOLD, near_duplicates
from eval.sql.corpus.db_dir import database_targets
from eval.sql.corpus.questions import Corpus, CorpusError, Question, load_corpus
from eval.sql.fixtures.seeded import FIXTURE_NAMES, build_rotations
from eval.sql.model.defaults import DEFAULT_ROTATIONS, DEFAULT_SEED
from eval.sql.oracle.selfcheck import is_builtin, run_self_check
from eval.sql.pipeline import DRAFT, DRAFT_DETAIL
from services.readonly.execute import ReadOnlySQL
from services.redaction import redact_url


def _where(q: Question) -> str:
    return f"{q.source}:{q.line}: question {q.id!r}"


def check_corpus(
    paths: Sequence[Path],
    *,
    db_url: str | None = None,
    db_dir: Path | None = None,
    fixtures: Collection[str] = FIXTURE_NAMES,
) -> tuple[Corpus | None, list[str]]:
    """The corpus (None when it does not load) and every problem found, one line each, in file order.

    Raises:
        UsageError: the database cannot be opened, or has no tables (nothing can be checked on it).
    """
    corpus, problems, _ = check_corpus_and_suspects(paths, db_url=db_url, db_dir=db_dir, fixtures=fixtures)
    return corpus, problems


def check_corpus_and_suspects(
    paths: Sequence[Path],
    *,
    db_url: str | None = None,
    db_dir: Path | None = None,
    fixtures: Collection[str] = FIXTURE_NAMES,
) -> tuple[Corpus | None, list[str], list[str]]:
    """:func:`check_corpus`, and each suspect reference's finding, one line each, in file order."""
    try:
        corpus = load_corpus(paths, fixtures=None if db_url else fixtures)
    except CorpusError as exc:
        return None, list(exc.problems), []
    with tempfile.TemporaryDirectory(prefix="sql-check-") as tmp, ReadOnlySQL() as database:
        questions = list(corpus.questions)
        if db_url:
            dialect = _open(database, db_url)
            questions = [
                q if is_builtin(q) else dataclasses.replace(q, fixture=None, database=None).written_for(dialect)
                for q in questions
            ]
            targets: Mapping[str | None, list[str]] = {None: [db_url]}
        else:
            targets = _fixture_targets(questions, Path(tmp), db_dir)
        result = run_self_check(
            database,
            dataclasses.replace(corpus, questions=tuple(questions)),
            targets,
            lint_rotations=db_url is None,
            snapshot_dir=None,
        )
    index = {q.id: i for i, q in enumerate(questions)}
    found = [(i, f"{_where(q)}: {DRAFT}: {DRAFT_DETAIL}") for i, q in enumerate(questions) if q.draft]
    found += [
        (index[d.question_id], f"{_where(questions[index[d.question_id]])}: {d.kind}: {d.detail}")
        for d in result.defects
    ]
    for first, second, score in near_duplicates(questions):
        a, b = questions[index[first]], questions[index[second]]
        found.append(
            (
                index[second],
                f"{_where(b)}: near-duplicate of {a.id!r} ({a.source}:{a.line}; similarity {score:.0f}, threshold "
                f"{NEAR_DUPLICATE_THRESHOLD:.0f}): one question asked twice counts twice; ask something else or "
                "delete one",
            )
        )
    suspects = [
        f"{_where(q)}: suspect reference ({s.kind}): {s.detail}"
        for q in questions
        for s in result.suspects.get(q.id, [])
    ]
    return corpus, [line for _, line in sorted(found, key=lambda item: item[0])], suspects


def _open(database: ReadOnlySQL, url: str) -> str:
    try:
        dialect = database.dialect(url)
    except Exception as exc:  # the executor's ExecutionError, or a URL it cannot parse
        raise UsageError(f"cannot open the database {redact_url(url)}: {getattr(exc, 'message', exc)}") from None
    if not database.structure(url):
        raise UsageError(
            f"the database {redact_url(url)} has no tables: check the URL or the file "
            "(a 0-byte .sqlite file is an empty database)"
        )
    return dialect


def _fixture_targets(questions: list[Question], tmp: Path, db_dir: Path | None) -> dict[str | None, list[str]]:
    names = sorted({q.fixture for q in questions if q.fixture and not q.database})
    built: dict[str | None, list[str]] = {
        f: build_rotations(f, tmp, seed=DEFAULT_SEED, rotations=DEFAULT_ROTATIONS) for f in names
    }
    return built | database_targets(questions, db_dir)
