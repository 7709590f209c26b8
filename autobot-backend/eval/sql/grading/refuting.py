"""A pass put to the counterexample search (``--counterexamples``), and the grader's grade on one database.

After the asking, :func:`search_passes` searches every pass for a neighbour of the question's graded databases
on which it would be wrong (:mod:`eval.sql.counterexample`) and keeps what it found on the outcome, whose verdict
stays ``pass``. Each neighbour is judged by :func:`grade_on`: the same
grader, on that one database, with the reference's result and ties learned there, so the comparison is the
grader's own (its tolerance, ties, stated order, columns rules and alternatives), without the diagnosis.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from eval.core.forked import Spread
from eval.sql.corpus.questions import Question
from eval.sql.grading.grade import KIND_VERDICTS, Grader
from eval.sql.model.counterexample import Search
from eval.sql.model.outcome import SQLOutcome, Verdict
from eval.sql.rows import Ties
from services.readonly.execute import ErrorKind, Execution

if TYPE_CHECKING:  # the search's modules load only in a run that searches (``pipeline.databases.make_searcher``)
    from eval.sql.counterexample.judging import Database
    from eval.sql.counterexample.search import Searcher


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
        diagnose=False,
    )
    got = one.capped(q, database.run_readonly(sql, url))
    if not got.ok:
        kind = got.error_kind or ErrorKind.INTERNAL
        return one.outcome(q, KIND_VERDICTS[kind], kind.value, got.reason or "", sql)
    return one._grade_answer(q, sql, got)


def search_passes(
    grader: Grader,
    searcher: Searcher,
    questions: Sequence[Question],
    graded: Sequence[SQLOutcome],
    progress: Callable[[int, int], None] | None = None,
    spread: Spread | None = None,
) -> list[SQLOutcome]:
    """``graded`` (one outcome per ``questions``' ask, in order) with every pass searched: once per (question,
    SQL), after the asking, so the search never counts against a candidate's time limit and never changes a
    verdict (a search that fails is noted on the pass, not raised). ``spread``: the searches over forked
    processes (each search is seeded by its own question and SQL, so how they are spread changes nothing)."""
    todo = [i for i, o in enumerate(graded) if o.verdict is Verdict.PASS and o.sql]
    keys: dict[tuple[str, str], int] = {}
    for i in todo:
        sql = graded[i].sql
        assert sql is not None
        keys.setdefault((questions[i].id, hashlib.sha256(sql.encode("utf-8", "surrogatepass")).hexdigest()), i)
    firsts = list(keys.values())

    def one(i: int) -> Search:
        sql = graded[i].sql
        assert sql is not None
        return search_one(grader, searcher, questions[i], sql)

    for i in firsts:  # each graded database read here once, before a fork, not once in every process
        for url in grader.urls.get(questions[i].target) or ():
            searcher.base(url)
    found = (spread or Spread()).map(one, firsts)
    done = dict(zip(keys, found, strict=True))
    out = list(graded)
    for n, i in enumerate(todo, 1):
        sql = graded[i].sql
        assert sql is not None
        key = (questions[i].id, hashlib.sha256(sql.encode("utf-8", "surrogatepass")).hexdigest())
        out[i] = dataclasses.replace(graded[i], search=done[key])
        if progress is not None:
            progress(n, len(todo))
    return out


def search_one(grader: Grader, searcher: Searcher, q: Question, sql: str) -> Search:
    """The search on ``sql`` as ``q``'s answer, on the grader's databases for it (a pass there)."""
    urls = grader.urls.get(q.target) or ()
    refs = grader.reference.get(q.id) or ()
    alternatives = grader.also.get(q.id) or ()
    references = [refs[0].sql, *(alt[0].sql for alt in alternatives if alt)]

    grade = functools.partial(grade_on, grader)  # the GradeOn the search calls, bound to this grader

    try:
        return searcher.search(q, sql, list(urls), references, list(refs), grade)
    except Exception as exc:
        return Search(searcher.budget.label, 0, note=f"not searched: {type(exc).__name__}: {exc}"[:400])
