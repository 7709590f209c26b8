"""The self-check (spec 9): the harness grades its own oracle before any candidate is called.

Every answerable question's reference query runs on every rotation of its fixture through the
service's public read-only call (the path the grader uses: the guard, then the read-only
executor); on the first rotation it runs twice (the second run never from the run's result cache:
``fresh=True``) and the two results are compared by
``compare_results(..., decimals=None)``: zero tolerance. Nondeterminism is a property of the
query (``random()``, a clock, a LIMIT without a total order), so a second run on every rotation
would find nothing the first rotation's does not; and where the second run cannot differ (SQLite, no
function of chance or of the clock: :mod:`eval.sql.oracle.determinism`) it is not made. Then the lints.
Each defect names the question and its kind:

==========================================  ====================================================
``oracle: reference failed to run``         the query errored (or its fixture has no database)
``oracle: not a scalar``                    ``shape: scalar`` but not exactly one row and column
``oracle: not deterministic``               two runs on one database gave different answers
``oracle: empty result``                    no rows: an empty answer cannot tell right from wrong
``oracle: identical on every rotation``     not ``static``, yet every rotation matches rotation 0
                                            at the question's ``decimals``: a hard-coded answer
                                            would pass
``oracle: information lost at N decimals``  see :func:`eval.sql.oracle.information.information_lost`
``oracle: ties in ordering key``            ties the grader cannot resolve, and parts
                                            whose result is arbitrary (see
                                            :mod:`eval.sql.oracle.inner`,
                                            :func:`eval.sql.oracle.lints.tie_structure`); also
                                            an ``ordered`` question without ``ORDER BY``, or an
                                            ORDER BY the check cannot read
``oracle: snapshot differs``                rotation 0 no longer gives the committed answer, or
                                            the question is not in the snapshot yet
``oracle: columns rule does not fit``       ``columns:`` names a column the reference does not
                                            return (or an ambiguous name)
==========================================  ====================================================

Each ``also:`` alternative runs through the same checks (but the rotation lint: an alternative
matches the reference, so it is as static as the question); its defects name it, e.g.
``alternative 2 (also[0]): ...``, and a question with a defect in any form is not asked.

The tie check runs for ``ordered`` questions, and for any query with ORDER BY ... LIMIT (a tie
at the cut changes which rows come back even when order does not matter). Ties it can resolve
are not defects: it learns the tie groups on every rotation (:attr:`SelfCheckResult.ties`) and
the grader accepts any tie-break of them. Which rows tie is the engine's answer, not Python's
``==``: the peer probe (:mod:`eval.sql.oracle.peers`) reads them under the ORDER BY's collation,
and keys equal up to float noise tie too; a tie group at the cut past ``MAX_TIED_ROWS`` (the
grader's limit as well) is a defect. The snapshot
(:mod:`eval.sql.corpus.snapshot`) covers the questions of the built-in corpus files and is compared at
the question's ``decimals``, not at zero tolerance: the summation order of floats may change
with the engine version, which is not a changed answer, while any change a grade could see is.
Callers pass ``snapshot_dir=None`` unless rotation 0 was built from seed 0.

Command line (from ``autobot-backend/``)::

    python -m eval.cli.selfcheck                    # build the fixtures, check, print defects; exit 0 or 2
    python -m eval.cli.selfcheck --update-snapshot  # record rotation 0's answers, then check
    python -m eval.cli.selfcheck --engines sqlite,postgresql,duckdb   # check on each engine, and compare
                                                    # the engines' answers (eval.sql.oracle.crossengine)

Other engines than SQLite get each reference in their dialect (:meth:`Question.reference_sql`: the
question's ``sql_<dialect>``, else its SQLite reference transpiled by sqlglot); one that sqlglot
cannot transpile is ``oracle: reference failed to run``, naming the override to write.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath

from eval.core.forked import Spread
from eval.sql.corpus.dialects import TranspileError
from eval.sql.corpus.questions import CORPUS_DIR, Corpus, Question, stamp_path
from eval.sql.corpus.snapshot import (
    SNAPSHOT_DIR,
    SNAPSHOT_SEED,
    UPDATE_COMMAND,
    Answer,
    load_snapshot,
    write_snapshot,
)
from eval.sql.grading.grade import ReadOnlyDatabase
from eval.sql.model.findings import OracleDefect
from eval.sql.oracle.alternatives import check_forms
from eval.sql.oracle.determinism import may_differ
from eval.sql.oracle.information import information_lost
from eval.sql.oracle.kept import Kept, KeptChecks
from eval.sql.oracle.suspect import Suspect, SuspectCheck
from eval.sql.oracle.tie_check import inner_tie_reason, reference_ties
from eval.sql.rows import Comparison, Ties, compare_results
from services.readonly.execute import Execution

__all__ = ["SNAPSHOT_DIR", "OracleDefect", "SelfCheckResult", "run_self_check", "update_snapshots"]

FAILED, NOT_SCALAR, NOT_DETERMINISTIC = (
    "oracle: reference failed to run",
    "oracle: not a scalar",
    "oracle: not deterministic",
)
EMPTY, IDENTICAL, TIES, SNAPSHOT = (
    "oracle: empty result",
    "oracle: identical on every rotation",
    "oracle: ties in ordering key",
    "oracle: snapshot differs",
)


WORKERS = min(4, (os.cpu_count() or 1) + 1)
"""Questions checked side by side; results are kept in corpus order whatever the count."""


def information_lost_kind(decimals: int) -> str:
    return f"oracle: information lost at {decimals} decimals"


@dataclass
class SelfCheckResult:
    defects: list[OracleDefect] = field(default_factory=list)
    reference: dict[str, list[Execution]] = field(default_factory=dict)
    """Question id -> the reference's result on each rotation, in order (questions that ran everywhere)."""
    ties: dict[str, list[Ties | None]] = field(default_factory=dict)
    """Question id -> what the reference's order leaves open on each rotation (questions with ties only)."""
    also: dict[str, list[list[Execution]]] = field(default_factory=dict)
    """Question id -> each ``also:`` alternative's result on each rotation (questions whose alternatives all ran)."""
    also_ties: dict[str, list[list[Ties | None]]] = field(default_factory=dict)
    """Question id -> each alternative's ties on each rotation."""
    suspects: dict[str, list[Suspect]] = field(default_factory=dict)
    """Question id -> what makes its reference or an alternative likely wrong (:mod:`eval.sql.oracle.suspect`);
    questions with a finding only. Not defects: the question is still graded."""

    @property
    def ok(self) -> bool:
        return not self.defects


def is_builtin(question: Question) -> bool:
    return PurePosixPath(question.source).parent == PurePosixPath(stamp_path(CORPUS_DIR))


# Complexity (radon E or F), kept as one function: the self-check's steps per fixture and rotation, each optional by a
# setting, in the one order the snapshots are written.
def run_self_check(
    database: ReadOnlyDatabase,
    corpus: Corpus,
    targets: Mapping[str | None, Sequence[str]],
    *,
    lint_rotations: bool = True,
    snapshot_dir: Path | None = SNAPSHOT_DIR,
    spread: Spread | None = None,
    kept: KeptChecks | None = None,
    need_rows: bool = True,
) -> SelfCheckResult:
    """Run and lint every answerable question's reference on every rotation of its fixture.

    Args:
        database: where the references run (the service of the run, or a bare ``ReadOnlySQL``).
        corpus: the questions; ``expect: refuse`` ones are skipped.
        targets: ``Question.target`` -> rotation URLs (rotation 0 first); the key ``None`` is the single
            ``--db-url`` database every question runs on (then no rotation lint, no snapshot).
        lint_rotations: flag answers identical on every rotation.
        snapshot_dir: where the seed-0 snapshots live; None to skip the snapshot check.
        spread: forked processes to check the questions in (SQLite only: no connection is shared across a
            fork); one worker or None: threads in this process. The result is the same either way, in
            corpus order. Its ``while_waiting`` runs in this thread while the questions are checked.
        kept: the findings kept by content (:mod:`eval.sql.oracle.kept`): a question's suspect findings are
            taken from there when kept, and what is found is kept.
        need_rows: False when only the findings are wanted (the import's count): a question whose findings
            are kept is not run at all, and has no results nor ties in the result.
    """
    suspects = SuspectCheck(database)  # its probes are small, and it reads the schema of the database itself
    database = _References(database)
    single = None in targets
    lint_rotations = lint_rotations and not single
    snapshot_dir = None if single else snapshot_dir
    result = SelfCheckResult()
    snapshots: dict[str, dict[str, Answer]] = {}
    dialects = _Dialects(database)
    answerable = [q for q in corpus.questions if q.expect == "answer"]
    for url in {u for urls in targets.values() for u in urls}:
        dialects.get(url)  # asked once, before the questions run side by side
    urls_of = lambda q: targets.get(None if single else q.target) or []  # noqa: E731
    where = {} if kept is None else kept.places(answerable, urls_of, dialects.get, lint_rotations)
    hits = {} if kept is None else kept.found(where)

    def check(q: Question) -> _Checked:
        hit = hits.get(q.id)
        if hit is not None and not need_rows:
            return _defects(q, hit), None, [], None, _suspects(q, hit)
        urls = targets.get(None if single else q.target)
        if not urls:
            what = f"database {q.database!r}" if q.database else f"fixture {q.fixture!r}"
            return [OracleDefect(q.id, FAILED, f"no database for {what} in this run")], None, [], None, []
        rotations = [(u, dialects.get(u)) for u in urls]
        defects, results, ties = _check_question(q, rotations, lint_rotations, database=database)
        forms = None
        alt_ties: list[list[Ties | None]] = []
        if results is not None and (q.also or q.columns):
            more, alts, alt_ties = check_forms(q, rotations, results, partial(_check_question, database=database))
            defects += [OracleDefect(q.id, kind, detail) for kind, detail in more]
            forms = (alts, alt_ties) if alts is not None else None
        found: list[Suspect] = []
        if results is not None and isinstance(rotations[0][1], str):
            found = _suspects(q, hit) if hit else suspects.question(q, rotations[0][0], rotations[0][1], ties, alt_ties)
        return defects, results, ties, forms, found

    if spread is not None and spread.workers > 1:  # forked processes: every core, whatever holds the lock
        chunk, same_sql = max(1, len(answerable) // (8 * spread.workers)), lambda q: (q.target, q.sql)
        checked = spread.map(check, answerable, chunk=chunk, key=same_sql)  # one child runs a repeated reference
    else:  # SQLite and the servers run a statement without holding the interpreter's lock
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            running = pool.map(check, answerable)
            if spread is not None and spread.while_waiting is not None:
                spread.while_waiting()
            checked = list(running)
    for q, (defects, results, ties, forms, found) in zip(answerable, checked):
        if kept is not None and q.id in where and q.id not in hits:
            kept.put(where[q.id], [(d.kind, d.detail) for d in defects], [(s.kind, s.detail) for s in found])
        if found:
            result.suspects[q.id] = found
        if forms is not None:
            result.also[q.id], result.also_ties[q.id] = forms
        if results is not None:
            result.reference[q.id] = results
            if any(t is not None for t in ties):
                result.ties[q.id] = ties
            if snapshot_dir is not None and is_builtin(q) and q.fixture is not None:
                if q.fixture not in snapshots:
                    snapshots[q.fixture] = load_snapshot(q.fixture, snapshot_dir)
                defects += _snapshot_defects(q, results[0], snapshots[q.fixture])
        result.defects += defects
    if kept is not None:
        kept.save()
    return result


def _defects(q: Question, kept: Kept) -> list[OracleDefect]:
    return [OracleDefect(q.id, kind, detail) for kind, detail in kept.defects]


def _suspects(q: Question, kept: Kept) -> list[Suspect]:
    return [Suspect(q.id, kind, detail) for kind, detail in kept.suspects]


_Checked = tuple[
    list[OracleDefect],
    list[Execution] | None,
    list[Ties | None],
    tuple[list[list[Execution]], list[list[Ties | None]]] | None,
    list[Suspect],
]
"""One question checked: its defects, its results and ties per rotation, its ``also:`` forms' (or None), what
makes its reference suspect (returned, not stored, so a forked child's findings reach the run)."""


class _References:
    """``database`` for the references: every statement run as a reference's, whose rows the byte budget
    bounds rather than the row cap of a model's answer (issue 27: a 100k-row reference is gradeable)."""

    def __init__(self, database: ReadOnlyDatabase) -> None:
        self.database = database

    def run_readonly(self, sql: str, db_url: str, *, fresh: bool = False, reference: bool = True) -> Execution:
        return self.database.run_readonly(sql, db_url, fresh=fresh, reference=True)

    def dialect(self, db_url: str) -> str:
        return self.database.dialect(db_url)


class _Dialects:
    """Each URL's dialect, or why its database cannot be opened; asked once per URL."""

    def __init__(self, database: ReadOnlyDatabase) -> None:
        self.database = database
        self.known: dict[str, str | Exception] = {}

    def get(self, url: str) -> str | Exception:
        if url not in self.known:
            try:
                self.known[url] = self.database.dialect(url)
            except Exception as exc:  # the executor's ExecutionError, or a URL it cannot parse
                self.known[url] = exc
        return self.known[url]


def _check_question(
    q: Question, rotations: list[tuple[str, str | Exception]], lint_rotations: bool, *, database: ReadOnlyDatabase
) -> tuple[list[OracleDefect], list[Execution] | None, list[Ties | None]]:
    defects: dict[str, OracleDefect] = {}

    def add(kind: str, detail: str, rotation: int | None = None) -> None:
        where = f"rotation {rotation + 1}: " if rotation is not None and len(rotations) > 1 else ""
        defects.setdefault(kind, OracleDefect(q.id, kind, where + detail))

    results: list[Execution] = []
    ties: list[Ties | None] = []
    for i, (url, dialect) in enumerate(rotations):
        if isinstance(dialect, Exception):
            add(
                FAILED,
                f"cannot open the database ({getattr(dialect, 'kind', type(dialect).__name__)}): "
                f"{getattr(dialect, 'message', dialect)}",
                i,
            )
            return list(defects.values()), None, []
        try:
            sql = q.reference_sql(dialect) or ""
        except TranspileError as exc:
            add(FAILED, str(exc))
            return list(defects.values()), None, []
        first = database.run_readonly(sql, url)
        twice = first.ok and i == 0 and may_differ(sql, dialect)
        second = database.run_readonly(sql, url, fresh=True) if twice else first
        if not (first.ok and second.ok):
            bad = first if not first.ok else second
            add(FAILED, f"{bad.error_kind}: {bad.reason}", i)
            return list(defects.values()), None, []
        results.append(first)
        ties.append(None)
        if q.shape == "scalar" and (len(first.columns) != 1 or len(first.rows) != 1):
            add(
                NOT_SCALAR,
                f"shape: scalar, but the reference returns {len(first.rows)} row(s) of {len(first.columns)} column(s)",
                i,
            )
        elif twice and not (same := _same_twice(q, first, second)).match:
            add(NOT_DETERMINISTIC, f"two runs differ ({same.reason}): {same.detail}", i)
        if not first.rows:
            add(EMPTY, "the reference returns no rows; an empty answer cannot tell a right query from a wrong one", i)
            continue
        lost = information_lost(first.rows, q.decimals, first.kinds)
        if lost:
            add(information_lost_kind(q.decimals), f"{lost}; raise the question's decimals", i)
        tie = reference_ties(q, sql, database, url, dialect, first)
        if isinstance(tie, str):
            add(TIES, tie, i)
        else:
            ties[-1] = tie
        inner = inner_tie_reason(sql, database, url, dialect)
        if inner:
            add(TIES, inner, i)
    if lint_rotations and not q.static and len(results) > 1:
        same_everywhere = all(
            compare_results(
                results[0].rows,
                r.rows,
                shape=q.shape,
                ordered=q.ordered,
                decimals=q.decimals,
                expected_ncols=len(results[0].columns),
                actual_ncols=len(r.columns),
            ).match
            for r in results[1:]
        )
        if same_everywhere and results[0].rows:
            add(
                IDENTICAL,
                f"all {len(results)} rotations give the same answer at {q.decimals} decimals, so a "
                "hard-coded answer would pass; ask something the data decides, or mark it static: true",
            )
    return list(defects.values()), results, ties


def _same_twice(q: Question, first: Execution, second: Execution) -> Comparison:
    """The determinism check: two runs of one reference compared at zero tolerance."""
    return compare_results(
        first.rows,
        second.rows,
        shape=q.shape,
        ordered=q.ordered,
        decimals=None,
        expected_ncols=len(first.columns),
        actual_ncols=len(second.columns),
    )


def _snapshot_defects(q: Question, result: Execution, snapshot: dict[str, Answer]) -> list[OracleDefect]:
    answer = snapshot.get(q.id)
    if answer is None:
        return [
            OracleDefect(
                q.id,
                SNAPSHOT,
                f"not in the {q.fixture} snapshot yet; check the reference's answer, "
                f"then record it with `{UPDATE_COMMAND}`",
            )
        ]
    cmp = compare_results(
        answer.rows,
        result.rows,
        shape="rows",
        ordered=q.ordered,
        decimals=q.decimals,
        expected_ncols=len(answer.columns),
        actual_ncols=len(result.columns),
    )
    if cmp.match:
        return []
    return [
        OracleDefect(
            q.id,
            SNAPSHOT,
            f"rotation 1 (seed {SNAPSHOT_SEED}) no longer gives the recorded answer "
            f"({cmp.reason}): {cmp.detail} (expected = snapshot). If the change is "
            f"intended, record it with `{UPDATE_COMMAND}`",
        )
    ]


def update_snapshots(
    database: ReadOnlyDatabase,
    corpus: Corpus,
    targets: Mapping[str | None, Sequence[str]],
    snapshot_dir: Path = SNAPSHOT_DIR,
) -> list[Path]:
    """Record rotation 0's answer of every built-in answerable question that runs, one file per fixture."""
    by_fixture: dict[str, dict[str, Answer]] = {}
    database = _References(database)
    dialects = _Dialects(database)
    for q in corpus.questions:
        if q.expect != "answer" or not is_builtin(q) or q.fixture is None or not targets.get(q.fixture):
            continue
        url = targets[q.fixture][0]
        dialect = dialects.get(url)
        if isinstance(dialect, Exception):
            continue
        try:
            got = database.run_readonly(q.reference_sql(dialect) or "", url)
        except TranspileError:
            continue  # the self-check reports it
        if got.ok:  # otherwise the self-check reports it
            by_fixture.setdefault(q.fixture, {})[q.id] = Answer(got.columns, list(got.rows))
    return [write_snapshot(fixture, answers, snapshot_dir) for fixture, answers in sorted(by_fixture.items())]
