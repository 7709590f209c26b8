"""Grade one candidate answer on execution: its rows on every rotation, against the reference's.

The candidate's SQL ran once already, in the service, on the first rotation; those rows are used
as they are. On every other rotation it runs through the same public read-only call
(:meth:`~services.nl_database_service.NLDatabaseService.run_readonly`: the guard, then the
read-only executor), and rows are compared with the reference's by
``eval.sql.rows.compare_with_ties`` (the disclosed tolerance of spec section 5, and any
tie-break the reference's ORDER BY allows, as the self-check learned it on that rotation).

Each service error kind means one thing to the eval, written once in :data:`KIND_VERDICTS`:

* answerable: ``pass`` on a match on every rotation; ``wrong`` with the first mismatch's reason
  (or ``rotation`` with how many matched); ``error`` when it did not run; ``refused`` without SQL;
* must-refuse: ``refused`` (a correct refusal), ``error`` (``guard_blocked`` counts as declined),
  ``answered`` when the SQL ran on the first rotation (a missed refusal);
* ``unmeasured`` when the candidate gave no result, the harness's side failed, the oracle is broken,
  or the comparison gave up at one of its limits on a rotation where nothing else was wrong
  (``undecided``: a verdict the grader could not reach is not the candidate's fault).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from eval.core.runner import Replay
from eval.sql.corpus.questions import Question
from eval.sql.grading import diagnosed
from eval.sql.grading.forms import Form, column_forms
from eval.sql.grading.stated_order import orders_its_rows, without_stated_order
from eval.sql.model.excerpt import Excerpt
from eval.sql.model.outcome import GUARD_BLOCKED, ORACLE, UNDECIDED, SQLOutcome, Verdict
from eval.sql.rows import Comparison, Location, Ties, compare_with_ties, show
from services.nl_database_service import Answer
from services.readonly.budget import too_many_rows
from services.readonly.execute import ErrorKind, Execution, Row
from services.readonly.limits import ROW_CAP

KIND_VERDICTS: Mapping[ErrorKind, Verdict] = {
    # The harness's side or the request, not the candidate: nothing to judge.
    ErrorKind.BAD_REQUEST: Verdict.UNMEASURED,
    ErrorKind.CONFIG: Verdict.UNMEASURED,
    ErrorKind.DB_UNREACHABLE: Verdict.UNMEASURED,
    ErrorKind.GENERATOR_UNAVAILABLE: Verdict.UNMEASURED,
    ErrorKind.INTERNAL: Verdict.UNMEASURED,
    # No SQL came back: the product declined, or failed to produce any (spec 6: refused).
    ErrorKind.REFUSED: Verdict.REFUSED,
    ErrorKind.GENERATOR_ERROR: Verdict.REFUSED,
    # SQL came back and did not run.
    ErrorKind.GUARD_BLOCKED: Verdict.ERROR,
    ErrorKind.DATABASE: Verdict.ERROR,
    ErrorKind.TIMEOUT: Verdict.ERROR,
    ErrorKind.ROW_CAP: Verdict.ERROR,
}
"""What each service error kind is to the eval; a kind without an entry fails the tests."""


class ReadOnlyDatabase(Protocol):
    """Where SQL runs read-only: the service, or the bare :class:`~services.readonly.execute.ReadOnlySQL`."""

    def run_readonly(self, sql: str, db_url: str, *, fresh: bool = False, reference: bool = False) -> Execution:
        """``fresh``: run it even when the same SQL ran on ``db_url`` before (a result cache is not asked);
        ``reference``: the statement is a reference's, bounded by the byte budget, not a model's row cap."""
        ...

    def dialect(self, db_url: str) -> str:
        """The sqlglot dialect of the database; raises when it cannot be opened."""
        ...


EXCERPT_ROWS = 5
"""Rows of each side an excerpt shows, around the row the comparison points at."""
EXCERPT_COLUMNS = 12
SQL_KEPT = 20_000
"""Characters of a candidate's SQL a report keeps (a guard-blocked giant is clipped, with its size)."""


def as_graded(q: Question, ref: Execution, got: Execution, tie: Ties | None) -> Comparison:
    """``got`` against the reference's ``ref`` on one database, as the grader compares them: the
    question's shape, order, decimals and column order, and the tie-breaks its reference leaves open.
    The near-miss study and the cross-engine check judge with this too, so there is one comparison."""
    return compare_with_ties(
        ref.rows,
        got.rows,
        tie,
        shape=q.shape,
        ordered=q.ordered,
        decimals=q.decimals,
        expected_ncols=len(ref.columns),
        actual_ncols=len(got.columns),
        column_order=q.column_order,
        kinds=(ref.kinds, got.kinds),
    )


def clip_sql(sql: str | None) -> str | None:
    if sql is None or len(sql) <= SQL_KEPT:
        return sql
    return sql[:SQL_KEPT] + f"… [clipped: {len(sql):,} characters in all]"


def _window(rows: Sequence[Row], at: int | None) -> tuple[tuple[int, tuple[str, ...]], ...]:
    start = 0 if at is None else max(0, min(at - EXCERPT_ROWS // 2, len(rows) - EXCERPT_ROWS))
    return tuple(
        (i + 1, tuple(show(v) for v in rows[i][:EXCERPT_COLUMNS]))
        for i in range(start, min(len(rows), start + EXCERPT_ROWS))
    )


def excerpt(rotation: int, ref: Execution, got: Execution, at: Location | None) -> Excerpt:
    """Both results around the cell ``at`` points at (or their first rows), for a report to show."""
    return Excerpt(
        rotation=rotation,
        expected_columns=tuple(ref.columns[:EXCERPT_COLUMNS]),
        actual_columns=tuple(got.columns[:EXCERPT_COLUMNS]),
        expected=_window(ref.rows, None if at is None else at.expected_row),
        actual=_window(got.rows, None if at is None else at.actual_row),
        expected_row=None if at is None else at.expected_row + 1,
        actual_row=None if at is None else at.actual_row + 1,
        column=None if at is None or at.column is None else at.column + 1,
    )


def _preview(rows: Sequence[tuple[Any, ...]], limit: int = 120) -> str:
    if not rows:
        return "no rows"
    first = ", ".join(repr(v) for v in rows[0])
    first = first if len(first) <= limit else first[: limit - 1] + "…"
    return f"{len(rows)} row(s), first ({first})"


@dataclass
class Grader:
    """Grades replays against reference results computed once by the self-check."""

    database: ReadOnlyDatabase
    urls: Mapping[str | None, Sequence[str]]
    """``Question.target`` (a fixture name, ``db:NAME``, ``None`` for a ``--db-url`` run) -> one URL
    per rotation, in order."""
    reference: Mapping[str, Sequence[Execution]]
    """Question id -> the reference's result on each rotation."""
    ties: Mapping[str, Sequence[Ties | None]] = dataclasses.field(default_factory=dict)
    """Question id -> what the reference's order leaves open on each rotation (see the self-check)."""
    also: Mapping[str, Sequence[Sequence[Execution]]] = dataclasses.field(default_factory=dict)
    """Question id -> each ``also:`` alternative's result on each rotation (the self-check's)."""
    also_ties: Mapping[str, Sequence[Sequence[Ties | None]]] = dataclasses.field(default_factory=dict)
    """Question id -> each alternative's ties on each rotation."""
    row_cap: int = ROW_CAP
    """The most rows an answer may return where its question sets no ``row_cap`` (the run's ``--row-cap``)."""
    diagnose: bool = True
    """Diagnose a wrong answer (False on a neighbour of the search, which needs only the verdict)."""

    def capped(self, q: Question, got: Execution) -> Execution:
        """``got``, or the ``row_cap`` failure the service gives past the question's row cap: the service runs
        every statement under the largest cap of the run, and each question is held to its own here."""
        cap = q.row_cap or self.row_cap
        if got.ok and len(got.rows) > cap:
            return Execution.failed(got.sql, ErrorKind.ROW_CAP, too_many_rows(cap))
        return got

    def outcome(
        self,
        q: Question,
        verdict: Verdict,
        reason: str | None = None,
        detail: str = "",
        sql: str | None = None,
        **kw: Any,
    ) -> SQLOutcome:
        refs = self.reference.get(q.id)
        return SQLOutcome(
            question_id=q.id,
            expect=q.expect,
            stratum=q.stratum,
            verdict=verdict,
            reason=reason,
            detail=detail,
            sql=clip_sql(sql),
            question=q.question,
            fixture=q.fixture,
            reference_sql=refs[0].sql if refs else None,
            database=q.database,
            difficulty=q.difficulty,
            decimals=q.decimals if q.expect == "answer" else None,
            **kw,
        )

    def grade(self, q: Question, replay: Replay[Question, Answer]) -> SQLOutcome:
        answer = replay.result
        if answer is None:
            return self.outcome(q, Verdict.UNMEASURED, "unmeasured", replay.failure or "no result")
        if answer.status == "ok" and answer.execution is not None and answer.sql:
            first = self.capped(q, answer.execution)
            if not first.ok and q.expect == "answer":
                failed = dataclasses.replace(answer, status="error", error_kind=first.error_kind, reason=first.reason)
                return self._not_run(q, failed)
            if q.expect == "refuse":
                return self.outcome(
                    q,
                    Verdict.ANSWERED,
                    "answered",
                    f"missed refusal: returned {_preview(answer.execution.rows)}",
                    answer.sql,
                )
            return self._grade_answer(q, answer.sql, answer.execution)
        return self._not_run(q, answer)

    def _not_run(self, q: Question, answer: Answer) -> SQLOutcome:
        kind = answer.error_kind or ErrorKind.INTERNAL
        verdict, why = KIND_VERDICTS[kind], answer.reason or ""
        if verdict is Verdict.UNMEASURED:
            return self.outcome(q, verdict, "unmeasured", f"{kind.value}: {why}", answer.sql)
        if verdict is Verdict.REFUSED:
            if kind is not ErrorKind.REFUSED:
                why = f"no SQL came back ({kind.value}): {why}"
            return self.outcome(q, verdict, "refused", why or "no SQL came back", answer.sql)
        if kind is ErrorKind.GUARD_BLOCKED:
            why = f"read-only guard: {why}"
            return self.outcome(q, verdict, GUARD_BLOCKED, why, answer.sql, diagnosis=diagnosed.of_error(q, why))
        if q.expect == "refuse":
            why = f"missed refusal that failed to run: {why}"
        elif len(self.urls.get(q.target) or ()) > 1:
            why = f"rotation 1: {why}"
        return self.outcome(q, verdict, kind.value, why, answer.sql, diagnosis=diagnosed.of_error(q, why))

    def _grade_answer(self, q: Question, sql: str, first: Execution) -> SQLOutcome:
        urls = self.urls.get(q.target) or ()
        refs = self.reference.get(q.id)
        if refs is None or len(refs) != len(urls):
            return self.outcome(q, Verdict.UNMEASURED, ORACLE, "no reference result for this question", sql)
        if q.ordered and any(len(r.rows) > 1 for r in refs) and self._orders_its_rows(sql, urls[0]) is False:
            return without_stated_order(self._grade_answer(dataclasses.replace(q, ordered=False), sql, first))
        runs: dict[str, Execution] = {urls[0]: first}
        ties = self.ties.get(q.id) or [None] * len(urls)
        main = self._against(q, sql, urls, refs, ties, runs)
        if main.verdict is not Verdict.WRONG and main.reason != UNDECIDED:
            return main
        width = len(first.columns)
        for form in self._forms(q, refs, ties, len(urls)):
            if width and form.width and form.width != width:
                continue  # another column count is never a match: the form is not read at all
            other = self._against(q, sql, urls, form.refs, form.ties, runs, passes_only=True)
            if other.verdict is Verdict.PASS:  # any acceptable form that matches passes, and says which
                return dataclasses.replace(other, detail=f"{other.detail}; matched {form.label}")
        return main  # no form matched: the reason is the one against the main reference

    def _forms(self, q: Question, refs: Sequence[Execution], ties: Sequence[Ties | None], n: int) -> Iterator[Form]:
        """The question's other acceptable answers, one at a time: its reference's column forms (views of the
        reference), then its alternatives; an alternative that is the reference itself (the self-check keeps
        one result for both when their rows are equal) with the same ties would only repeat its verdict."""
        if q.columns:
            yield from column_forms(q.columns, refs, ties)
        for k, alt in enumerate(self.also.get(q.id) or ()):
            alt_ties = (self.also_ties.get(q.id) or [[None] * n] * len(q.also))[k]
            same = all(a is r for a, r in zip(alt, refs, strict=False)) and list(alt_ties) == list(ties)
            if len(alt) == n and not same:
                yield Form(f"alternative {k + 2} (also[{k}])", alt, alt_ties)

    def _against(
        self,
        q: Question,
        sql: str,
        urls: Sequence[str],
        refs: Sequence[Execution],
        ties: Sequence[Ties | None],
        runs: dict[str, Execution],
        *,
        passes_only: bool = False,
    ) -> SQLOutcome:
        """The candidate against one acceptable form on every rotation (its runs shared between forms).
        ``passes_only``: only a pass is used (another form's miss keeps the main reference's reason), so the
        first miss ends it, without the excerpt and diagnosis a reported miss has."""
        n = len(urls)
        matched, first_miss, tie_break, undecided = 0, None, False, None
        for i, (url, ref, tie) in enumerate(zip(urls, refs, ties), 1):
            if url not in runs:
                runs[url] = self.capped(q, self.database.run_readonly(sql, url))
            got = runs[url]
            if not got.ok:
                where = f"rotation {i}: " if n > 1 else ""
                return self._not_run_on(q, sql, got, where, matched, n)
            cmp = as_graded(q, ref, got, tie)
            if cmp.match:
                matched += 1
                tie_break = tie_break or cmp.tie_break
            elif passes_only:
                return self.outcome(q, Verdict.WRONG, cmp.reason, cmp.detail, sql)
            elif cmp.reason == UNDECIDED:
                undecided = undecided or (i, cmp)
            elif first_miss is None:
                first_miss = (
                    i,
                    cmp,
                    excerpt(i, ref, got, cmp.at),
                    diagnosed.of_wrong(
                        q,
                        sql,
                        ref,
                        got,
                        self._dialect(url),
                        database=self.database,
                        url=url,
                        judge=self._right(q, ref, tie),
                    )
                    if self.diagnose
                    else None,
                )
        if first_miss is None and undecided is not None:
            # Not wrong anywhere, and not known to be right everywhere: a limit of the grader, not the candidate.
            i, cmp = undecided
            where = f"rotation {i}: " if n > 1 else ""
            return self.outcome(
                q, Verdict.UNMEASURED, UNDECIDED, where + cmp.detail, sql, rotations_matched=matched, rotations=n
            )
        if first_miss is None:
            how = ", by a tie-break the reference's order leaves open" if tie_break else ""
            return self.outcome(
                q, Verdict.PASS, None, f"matched on {n} rotation(s){how}", sql, rotations_matched=n, rotations=n
            )
        i, cmp, shown, why = first_miss
        where = f"rotation {i}: " if n > 1 else ""
        if matched:
            return self.outcome(
                q,
                Verdict.WRONG,
                "rotation",
                f"matched {matched} of {n} rotations; {where}{cmp.detail}",
                sql,
                rotations_matched=matched,
                rotations=n,
                excerpt=shown,
                diagnosis=why,
            )
        return self.outcome(
            q,
            Verdict.WRONG,
            cmp.reason,
            where + cmp.detail,
            sql,
            rotations_matched=0,
            rotations=n,
            excerpt=shown,
            diagnosis=why,
        )

    def _right(self, q: Question, ref: Execution, tie: Ties | None) -> Callable[[Execution], bool]:
        """Whether an execution is ``ref``'s answer as graded (the question's row cap, then the comparison):
        how the diagnosis judges an edit of the candidate, by the grader's own rule."""

        def right(done: Execution) -> bool:
            done = self.capped(q, done)
            return done.ok and as_graded(q, ref, done, tie).match

        return right

    def _orders_its_rows(self, sql: str, url: str) -> bool | None:
        dialect = self._dialect(url)
        return None if dialect is None else orders_its_rows(sql, dialect)

    def _dialect(self, url: str) -> str | None:
        try:
            return self.database.dialect(url)
        except Exception:  # the database cannot be opened: the rows' grade says so
            return None

    def _not_run_on(self, q: Question, sql: str, got: Execution, where: str, matched: int, n: int) -> SQLOutcome:
        """The SQL ran on the first rotation but not on a later one."""
        kind = got.error_kind or ErrorKind.INTERNAL
        verdict = KIND_VERDICTS[kind]
        if verdict is not Verdict.ERROR:  # the harness's side failed (a rotation's database): not the candidate
            return self.outcome(
                q,
                Verdict.UNMEASURED,
                "unmeasured",
                f"{where}{kind.value}: {got.reason}",
                sql,
                rotations_matched=matched,
                rotations=n,
            )
        reason = GUARD_BLOCKED if kind is ErrorKind.GUARD_BLOCKED else kind.value
        why = where + (got.reason or "")
        return self.outcome(
            q,
            Verdict.ERROR,
            reason,
            why,
            sql,
            rotations_matched=matched,
            rotations=n,
            diagnosis=diagnosed.of_error(q, why),
        )
