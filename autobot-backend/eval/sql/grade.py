"""Grade one candidate answer on execution: run its SQL on every rotation, compare rows.

Rows are compared with the reference's rows by ``eval.sql.compare.compare_results`` (the disclosed
tolerance of spec section 5). The SQL runs through the service's read-only guard and read-only
executor, the same path a user's query takes, so SQL the guard blocks is an ``error`` with
reason ``guard_blocked``, never silently executed.

Verdicts (spec 6):

* answerable: ``pass`` on a match on every rotation; ``wrong`` with the first mismatch's reason
  (or ``rotation`` with how many matched); ``error`` when it did not run; ``refused`` without SQL;
* must-refuse: ``refused`` (a correct refusal), ``error`` (``guard_blocked`` counts as declined),
  ``answered`` when the SQL ran on the first rotation (a missed refusal);
* ``unmeasured`` when the candidate gave no result or the oracle is broken.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from eval.report import GUARD_BLOCKED, SQLOutcome, Verdict
from eval.runner import Replay
from eval.sql.compare import compare_results
from eval.sql.corpus import Question
from services.sql_executor import ExecutionError, QueryResult, ReadOnlyExecutor
from services.sql_guard import validate_readonly_sql


def _preview(rows: list[tuple], limit: int = 120) -> str:
    if not rows:
        return "no rows"
    first = ", ".join(repr(v) for v in rows[0])
    first = first if len(first) <= limit else first[: limit - 1] + "…"
    return f"{len(rows)} row(s), first ({first})"


@dataclass
class Grader:
    """Grades replays against reference results computed once by the self-check."""

    executors: Mapping[str | None, Sequence[ReadOnlyExecutor]]
    """Fixture name (``None`` for a ``--db-url`` run) -> one executor per rotation, in order."""
    reference: Mapping[str, Sequence[QueryResult]]
    """Question id -> the reference's result on each rotation."""
    dialect: str

    def outcome(self, q: Question, verdict: Verdict, reason: str | None = None, detail: str = "",
                sql: str | None = None, **kw) -> SQLOutcome:
        return SQLOutcome(question_id=q.id, expect=q.expect, stratum=q.stratum, verdict=verdict, reason=reason,
                          detail=detail, sql=sql, question=q.question, fixture=q.fixture, **kw)

    def grade(self, q: Question, replay: Replay) -> SQLOutcome:
        result = replay.result
        if result is None:
            return self.outcome(q, Verdict.UNMEASURED, "unmeasured", replay.failure or "no result")
        sql = result.sql
        if result.refused or not (sql and sql.strip()):
            return self.outcome(q, Verdict.REFUSED, "refused", result.reason or "no SQL came back", sql)
        verdict = validate_readonly_sql(sql, self.dialect)
        if not verdict.allowed:
            return self.outcome(q, Verdict.ERROR, GUARD_BLOCKED, f"read-only guard: {verdict.reason}", sql)
        executors = self.executors.get(q.fixture)
        if not executors:
            return self.outcome(q, Verdict.UNMEASURED, "unmeasured", f"no database for fixture {q.fixture!r}", sql)
        if q.expect == "refuse":
            return self._grade_refuse(q, sql, executors[0])
        return self._grade_answer(q, sql, executors)

    def _grade_refuse(self, q: Question, sql: str, executor: ReadOnlyExecutor) -> SQLOutcome:
        try:
            got = executor.execute(sql)
        except ExecutionError as exc:
            return self.outcome(q, Verdict.ERROR, exc.kind, f"missed refusal that failed to run: {exc.message}", sql)
        return self.outcome(q, Verdict.ANSWERED, "answered", f"missed refusal: returned {_preview(got.rows)}", sql)

    def _grade_answer(self, q: Question, sql: str, executors: Sequence[ReadOnlyExecutor]) -> SQLOutcome:
        refs = self.reference.get(q.id)
        if refs is None or len(refs) != len(executors):
            return self.outcome(q, Verdict.UNMEASURED, "oracle", "no reference result for this question", sql)
        matched, first_miss = 0, None
        for i, (executor, ref) in enumerate(zip(executors, refs), 1):
            try:
                got = executor.execute(sql)
            except ExecutionError as exc:
                where = f"rotation {i}: " if len(executors) > 1 else ""
                return self.outcome(q, Verdict.ERROR, exc.kind, where + exc.message, sql,
                                    rotations_matched=matched, rotations=len(executors))
            cmp = compare_results(ref.rows, got.rows, shape=q.shape, ordered=q.ordered, decimals=q.decimals,
                                  expected_ncols=len(ref.columns), actual_ncols=len(got.columns))
            if cmp.match:
                matched += 1
            elif first_miss is None:
                first_miss = (i, cmp)
        n = len(executors)
        if first_miss is None:
            return self.outcome(q, Verdict.PASS, None, f"matched on {n} rotation(s)", sql,
                                rotations_matched=n, rotations=n)
        i, cmp = first_miss
        where = f"rotation {i}: " if n > 1 else ""
        if matched:
            return self.outcome(q, Verdict.WRONG, "rotation", f"matched {matched} of {n} rotations; {where}{cmp.detail}",
                                sql, rotations_matched=matched, rotations=n)
        return self.outcome(q, Verdict.WRONG, cmp.reason, where + cmp.detail, sql, rotations_matched=0, rotations=n)
