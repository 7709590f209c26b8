"""Run every mutant on every rotation and judge it as the suite judges an answer.

The references run first, through the self-check (the suite's own: it learns what each reference's
ORDER BY leaves open, the ties). A mutant then runs on each rotation through the same read-only
path (:class:`~services.readonly.execute.ReadOnlySQL`), and its rows are compared with the reference's
by ``compare_with_ties`` with the question's shape, order, decimals and column order: the grader's
rule. It is *killed* when that comparison fails on at least one rotation; it *did not run* when the
database refused it on some rotation (an ``error`` verdict: caught, but not a plausible near miss,
so it counts neither way); otherwise it *survives*.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import sqlglot

from eval.sql.corpus.questions import Corpus, Question
from eval.sql.fixtures.seeded import SPECS, build_rotations
from eval.sql.grading import diagnosed
from eval.sql.grading.grade import as_graded
from eval.sql.model.defaults import DEFAULT_ROTATIONS
from eval.sql.model.diagnosis import Diagnosis
from eval.sql.near_miss._mutant import DIALECT, Mutant, Periods
from eval.sql.near_miss._mutate import mutants
from eval.sql.oracle.selfcheck import SelfCheckResult, run_self_check
from eval.sql.rows import Ties
from services.readonly.execute import Execution, ReadOnlySQL

KILLED, SURVIVED, DID_NOT_RUN = "killed", "survived", "did_not_run"


@dataclass(frozen=True)
class Judged:
    mutant: Mutant
    stratum: str
    outcome: str
    """``killed``, ``survived`` or ``did_not_run``."""
    detail: str
    """How it was killed (rotation and the comparison's detail), or why it did not run."""
    diagnosis: Diagnosis | None = None
    """A killed mutant's diagnosis, as a wrong answer gets it (``eval.sql.diagnosis``)."""


@dataclass(frozen=True)
class Study:
    judged: list[Judged]
    rotations: int
    seed: int
    corpus_digest: str
    broken: list[str]
    """Questions whose reference the study could not use (a failed self-check, a round trip that changed it)."""


def run_study(
    corpus: Corpus,
    *,
    rotations: int = DEFAULT_ROTATIONS,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Study:
    """Mutate every answerable question's reference of ``corpus`` and judge each mutant on every rotation."""
    questions = _on_fixtures(corpus)
    with checked_references(corpus, seed=seed, rotations=rotations, prefix="near-miss-") as (
        _,
        database,
        targets,
        check,
    ):
        broken = sorted({d.question_id for d in check.defects})
        judged: list[Judged] = []
        for i, q in enumerate(questions, 1):
            if progress is not None:
                progress(i, len(questions))
            if q.id in broken or q.id not in check.reference:
                continue
            sql = q.reference_sql(DIALECT) or ""
            if not _round_trip_holds(q, sql, database, targets[q.target], check):
                broken.append(q.id)
                continue
            for m in mutants(q.id, sql, ordered=q.ordered, periods=periods(q.fixture)):
                judged.append(_judge(q, m, database, targets[q.target], check))
    return Study(judged, rotations, seed, corpus.digest, sorted(set(broken)))


Targets = dict[str | None, list[str]]
"""Each fixture's rotations, as the self-check and the grader take them."""


@contextmanager
def checked_references(
    corpus: Corpus, *, seed: int, rotations: int, prefix: str
) -> Iterator[tuple[Path, ReadOnlySQL, Targets, SelfCheckResult]]:
    """The rotations of every fixture the answerable questions of ``corpus`` use, built in a temporary folder
    (named ``prefix``...), and the self-check of its references on them: what the study and the counterexample
    search of its survivors both start from. Yields the folder, the database, the rotations and the check."""
    fixtures = sorted({q.fixture for q in _on_fixtures(corpus) if q.fixture})
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp, ReadOnlySQL() as database:
        targets: Targets = {f: build_rotations(f, Path(tmp), seed=seed, rotations=rotations) for f in fixtures}
        yield Path(tmp), database, targets, run_self_check(database, corpus, targets, snapshot_dir=None)


def _on_fixtures(corpus: Corpus) -> list[Question]:
    return [q for q in corpus.questions if q.expect == "answer" and q.fixture]


def periods(fixture: str | None) -> Periods:
    """The days a built-in fixture's rows may hold, per date column (the build checks them): the period,
    and for orders and signups the day after it, which holds rows placed just outside on purpose."""
    spec = SPECS.get(fixture or "")
    if spec is None:
        return {}
    outside = (spec.order_end + timedelta(days=1)).isoformat()
    return {
        "order_date": (spec.order_start.isoformat(), outside),
        "shipped_date": (spec.order_start.isoformat(), spec.order_end.isoformat()),
        "signup_date": (spec.signup_start.isoformat(), outside),
    }


def _round_trip_holds(
    q: Question, sql: str, database: ReadOnlySQL, urls: Sequence[str], check: SelfCheckResult
) -> bool:
    """The reference as sqlglot writes it back gives the reference's rows: mutants differ only by their mistake."""
    again = sqlglot.parse_one(sql, read=DIALECT).sql(dialect=DIALECT)
    return _run(q, again, database, urls, check)[0] == SURVIVED


def _judge(q: Question, m: Mutant, database: ReadOnlySQL, urls: Sequence[str], check: SelfCheckResult) -> Judged:
    outcome, detail, pair = _run(q, m.sql, database, urls, check)
    if pair is None:
        return Judged(m, q.stratum, outcome, detail)
    ref, got, url, tie = pair
    # The diagnoser sees what a wrong answer's grader has (both SQL texts, both results, the question's declared
    # order, decimals and column order, the database, edits judged by the grader's comparison), never the
    # mutation's kind: the grader's own call.
    found = diagnosed.of_wrong(
        q,
        m.sql,
        ref,
        got,
        DIALECT,
        database=database,
        url=url,
        judge=lambda done: done.ok and as_graded(q, ref, done, tie).match,
    )
    return Judged(m, q.stratum, outcome, detail, found)


def _run(
    q: Question, sql: str, database: ReadOnlySQL, urls: Sequence[str], check: SelfCheckResult
) -> tuple[str, str, tuple[Execution, Execution, str, Ties | None] | None]:
    """``killed``, ``survived`` or ``did_not_run``, how, and for a killed one the reference's and its result
    on the rotation that killed it, that rotation's database and the ties its reference leaves open, for
    ``sql`` asked as ``q``'s answer."""
    refs: list[Execution] = check.reference[q.id]
    ties = check.ties.get(q.id) or [None] * len(urls)
    for i, (url, ref, tie) in enumerate(zip(urls, refs, ties), 1):
        got = database.run_readonly(sql, url)
        if not got.ok:
            return DID_NOT_RUN, f"rotation {i}: {got.error_kind}: {got.reason}", None
        cmp = as_graded(q, ref, got, tie)
        if not cmp.match:
            return KILLED, f"rotation {i}: {cmp.reason}: {cmp.detail}", (ref, got, url, tie)
    return SURVIVED, f"matched on {len(urls)} rotation(s)", None
