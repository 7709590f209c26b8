"""Judging one neighbour exactly as the grader judges an answer.

The reference runs first, through the read-only executor with its limits. A neighbour on which it fails,
returns nothing, or is arbitrary (its order leaves a tie at a LIMIT cut, or a tie inside it decides the
answer: what the self-check learns on every rotation, learned again here) cannot judge anything and is set
aside, counted by why. Otherwise the grader itself grades the answer there (its tolerance, its ties, the
question's stated order, its other acceptable forms): a neighbour on which that grade is ``wrong`` refutes the
pass. One on which the answer does not run (``error``) or the comparison gives up (``unmeasured``) is set aside:
a refuted pass is a wrong answer on possible data, nothing less. Nor is an answer wrong where its own order leaves
a tie at its LIMIT cut and one way of breaking it gives the reference's rows: the engine's choice, not the answer,
would decide (the two are graded the other way round, the answer's tie learned as a reference's is).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from eval.sql.corpus.questions import Question
from eval.sql.model.outcome import SQLOutcome, Verdict
from eval.sql.rows import Ties
from services.readonly.execute import Execution

REFUTES, AGREES = "refutes", "agrees"
REFERENCE_FAILED = "the reference failed"
REFERENCE_EMPTY = "the reference returned nothing"
REFERENCE_ARBITRARY = "the reference was arbitrary (a tie it cannot break)"
ANSWER_ARBITRARY = "the answer was arbitrary (a tie at its cut, one side of which is the reference's)"
ANSWER_FAILED = "the answer did not run"
UNDECIDED = "the comparison gave up"


class Database(Protocol):
    """Where a neighbour's statements run: read-only, guarded, with the executor's limits."""

    def run_readonly(self, sql: str, db_url: str, *, fresh: bool = False, reference: bool = False) -> Execution: ...

    def dialect(self, db_url: str) -> str: ...


LearnTies = Callable[[Question, str, Database, str, str, Execution], "Ties | str | None"]
"""What a reference's order leaves open on one database, or why it is arbitrary there (the self-check's)."""


class GradeOn(Protocol):
    """The grader's grade of ``sql`` on one database, given the reference's result and ties there, and each
    alternative's (``also``); never diagnosed."""

    def __call__(
        self,
        q: Question,
        sql: str,
        url: str,
        reference: Execution,
        ties: Ties | None,
        also: Sequence[tuple[Execution, Ties | None]],
        database: Database,
    ) -> SQLOutcome: ...


@dataclass(frozen=True)
class Judged:
    outcome: str
    """:data:`REFUTES`, :data:`AGREES`, or why the neighbour was set aside."""
    graded: SQLOutcome | None = None
    reference: Execution | None = None


def judge(
    q: Question,
    sql: str,
    references: Sequence[str],
    url: str,
    database: Database,
    learn: LearnTies,
    grade: GradeOn,
) -> Judged:
    """``sql`` as ``q``'s answer on the neighbour at ``url``; ``references``: the reference's SQL as graded, then
    each ``also:`` alternative's."""
    dialect = database.dialect(url)
    ref = database.run_readonly(references[0], url, reference=True)
    if not ref.ok:
        return Judged(REFERENCE_FAILED)
    if not ref.rows:
        return Judged(REFERENCE_EMPTY, reference=ref)
    ties = learn(q, references[0], database, url, dialect, ref)
    if isinstance(ties, str):
        return Judged(REFERENCE_ARBITRARY, reference=ref)
    also: list[tuple[Execution, Ties | None]] = []
    for alternative in references[1:]:  # an alternative that cannot judge here makes the neighbour unusable
        alt = database.run_readonly(alternative, url, reference=True)
        if not alt.ok or not alt.rows:
            return Judged(REFERENCE_FAILED if not alt.ok else REFERENCE_EMPTY, reference=ref)
        alt_ties = learn(q, alternative, database, url, dialect, alt)
        if isinstance(alt_ties, str):
            return Judged(REFERENCE_ARBITRARY, reference=ref)
        also.append((alt, alt_ties))
    graded = grade(q, sql, url, ref, ties, also, database)
    if graded.verdict is Verdict.WRONG:
        if _could_agree(q, sql, references[0], url, database, learn, grade, dialect):
            return Judged(ANSWER_ARBITRARY, graded, ref)
        return Judged(REFUTES, graded, ref)
    if graded.verdict is Verdict.PASS:
        return Judged(AGREES, graded, ref)
    if graded.verdict is Verdict.UNMEASURED:
        return Judged(UNDECIDED, graded, ref)
    return Judged(ANSWER_FAILED, graded, ref)


def _could_agree(
    q: Question, sql: str, reference: str, url: str, database: Database, learn: LearnTies, grade: GradeOn, dialect: str
) -> bool:
    """Whether the answer's order leaves a tie at its cut here that the reference's rows are one way of breaking:
    the reference graded against the answer, the answer's ties learned as a reference's are."""
    got = database.run_readonly(sql, url)
    if not got.ok or not got.rows:
        return False
    ties = learn(q, sql, database, url, dialect, got)
    if not isinstance(ties, Ties) or not ties.cut:
        return False
    return grade(q, reference, url, got, ties, (), database).verdict is Verdict.PASS
