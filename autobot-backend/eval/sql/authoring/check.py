"""The check of a corpus before any run (``python -m eval.sql.check``): every problem, nothing graded.

It loads the files (every loader problem, by file, line and question id) and runs the self-check of every
reference on the database the corpus will run on: the user's own (``db_url``, one database, written in its
dialect as a run takes it), the databases of ``database:`` questions (``db_dir``), or the built-in
fixtures on SQLite with their rotations. Then it lists what a run would find, from the run's own source
(:func:`eval.sql.oracle.findings.corpus_findings`): the lints (:mod:`eval.sql.model.lints`), the oracle
defects and the suspect references. No candidate, no model, no baseline.

Problems, which make the check exit 2: what does not load, a ``draft`` (a run never asks it), an oracle
defect (a run makes its question ``unmeasured``, or refuses to start on the built-in corpus), a
near-duplicate (a run counts it twice). Warnings, listed but not problems: an unstated order (a heuristic
reading of the words) and a suspect reference (a run grades its question).
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from eval.core.errors import UsageError
from eval.sql.corpus.db_dir import database_targets
from eval.sql.corpus.questions import Corpus, CorpusError, Question, load_corpus
from eval.sql.fixtures.seeded import FIXTURE_NAMES, build_rotations
from eval.sql.model.defaults import DEFAULT_ROTATIONS, DEFAULT_SEED
from eval.sql.model.lints import UNSTATED_ORDER
from eval.sql.oracle.findings import Findings, corpus_findings
from eval.sql.oracle.selfcheck import is_builtin, run_self_check
from services.readonly.execute import ReadOnlySQL
from services.redaction import redact_url

WARNING_KINDS = (UNSTATED_ORDER,)
"""Lints the check lists without counting them a problem."""


@dataclass(frozen=True)
class Checked:
    corpus: Corpus | None
    """None when the corpus does not load."""
    problems: list[str] = field(default_factory=list)
    """One line each, in file order: what makes the check exit 2."""
    warnings: list[str] = field(default_factory=list)
    """Lints that are not problems (unstated orders), one line each, in file order."""
    suspects: list[str] = field(default_factory=list)
    """Each suspect reference's finding, one line each, in file order."""
    findings: Findings | None = None
    """What the run would report (the same source as the run's)."""


def _where(q: Question) -> str:
    return f"{q.source}:{q.line}: question {q.id!r}"


def check_corpus(
    paths: Sequence[Path],
    *,
    db_url: str | None = None,
    db_dir: Path | None = None,
    fixtures: Collection[str] = FIXTURE_NAMES,
) -> Checked:
    """The corpus and everything found in it, each one line.

    Raises:
        UsageError: the database cannot be opened, or has no tables (nothing can be checked on it).
    """
    try:
        corpus = load_corpus(paths, fixtures=None if db_url else fixtures)
    except CorpusError as exc:
        return Checked(None, list(exc.problems))
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
    found = corpus_findings(questions, result)
    index = {q.id: i for i, q in enumerate(questions)}
    problems = [(index[lint.question_id], lint.line()) for lint in found.lints if lint.kind not in WARNING_KINDS]
    problems += [
        (index[d.question_id], f"{_where(questions[index[d.question_id]])}: {d.kind}: {d.detail}")
        for d in found.defects
    ]
    suspects = found.suspects
    return Checked(
        corpus,
        [line for _, line in sorted(problems, key=lambda item: item[0])],
        [lint.line() for lint in found.lints if lint.kind in WARNING_KINDS],
        [f"{_where(questions[index[s.question_id]])}: suspect reference ({s.kind}): {s.detail}" for s in suspects],
        found,
    )


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
