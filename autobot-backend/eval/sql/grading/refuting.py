"""A pass put to the counterexample search (``--counterexamples``), and the grader's grade on one database.

The grader calls :func:`searching`'s hook on every pass (:attr:`~eval.sql.grading.grade.Grader.after_pass`);
it searches neighbours of the question's graded databases (:mod:`eval.sql.counterexample`) and keeps what it
found on the outcome, whose verdict stays ``pass``. Each neighbour is judged by :func:`grade_on`: the same
grader, on that one database, with the reference's result and ties learned there, so the comparison is the
grader's own (its tolerance, ties, stated order, columns rules and alternatives), without the diagnosis.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Sequence

from eval.sql.corpus.questions import Question
from eval.sql.counterexample.judging import Database
from eval.sql.counterexample.search import Searcher
from eval.sql.grading.grade import KIND_VERDICTS, Grader
from eval.sql.model.counterexample import Search
from eval.sql.model.outcome import SQLOutcome, Verdict
from eval.sql.rows import Ties
from services.readonly.execute import ErrorKind, Execution

AfterPass = Callable[[Grader, Question, str, SQLOutcome], SQLOutcome]


def grade_on(
    grader: Grader,
    q: Question,
    sql: str,
    url: str,
    reference: Execution,
    ties: Ties | None,
    also: Sequence[tuple[Execution, Ties | None]],
    database: Database,
) -> SQLOutcome:
    """``sql`` graded as ``q``'s answer on the one database at ``url``, by ``grader``'s rules."""
    one = dataclasses.replace(
        grader,
        database=database,
        urls={q.target: [url]},
        reference={q.id: [reference]},
        ties={q.id: [ties]},
        also={q.id: [[alt] for alt, _ in also]},
        also_ties={q.id: [[t] for _, t in also]},
        after_pass=None,
        diagnose=False,
    )
    got = one.capped(q, database.run_readonly(sql, url))
    if not got.ok:
        kind = got.error_kind or ErrorKind.INTERNAL
        return one.outcome(q, KIND_VERDICTS[kind], kind.value, got.reason or "", sql)
    return one._grade_answer(q, sql, got)


def searching(searcher: Searcher) -> AfterPass:
    """The grader's hook that searches every pass once per (question, SQL) in this process and keeps the search
    on the outcome."""
    done: dict[tuple[str, str], Search] = {}

    def after_pass(grader: Grader, q: Question, sql: str, outcome: SQLOutcome) -> SQLOutcome:
        key = (q.id, hashlib.sha256(sql.encode("utf-8", "surrogatepass")).hexdigest())
        found = done.get(key)
        if found is None:
            urls = grader.urls.get(q.target) or ()
            refs = grader.reference.get(q.id) or ()
            alternatives = grader.also.get(q.id) or ()
            references = [refs[0].sql, *(alt[0].sql for alt in alternatives if alt)]

            def grade(
                q: Question,
                sql: str,
                url: str,
                reference: Execution,
                ties: Ties | None,
                also: Sequence[tuple[Execution, Ties | None]],
                database: Database,
            ) -> SQLOutcome:
                return grade_on(grader, q, sql, url, reference, ties, also, database)

            found = done[key] = searcher.search(q, sql, list(urls), references, list(refs), grade)
        return dataclasses.replace(outcome, search=found) if outcome.verdict is Verdict.PASS else outcome

    return after_pass
