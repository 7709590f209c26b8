"""SQL candidates: each question asked of ``NLDatabaseService``, on its fixture's first rotation.

A SQL candidate is an async callable ``Question -> Answer`` (:data:`SQLCandidate`), replayed by
the harness's runner like any candidate. Every candidate path goes through the same service
call and differs only in where the SQL comes from:

* ``embedded`` and ``llm``: the generator the service holds writes it from the question's text;
* ``reference`` and ``recorded``: it was written beforehand, and is looked up by question id
  (never by the question's text); the service then takes it down the path a generated answer
  takes (guard, read-only execution, audit).

The service's :class:`~services.nl_database_service.Answer` is returned as it is, rows included:
the grader reads them for the first rotation instead of running the SQL again, and maps the
service's error kinds to verdicts in one place (``eval.sql.grade``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping

from eval.runner import CandidateUnavailable
from eval.sql.corpus import Question
from services.nl_database_service import Answer, NLDatabaseService
from services.sql_generation import Generation

SQLCandidate = Callable[[Question], Awaitable[Answer]]
"""The SQL suite's candidate contract."""


def _url(urls: Mapping[str | None, str], q: Question) -> str:
    if q.target not in urls:
        raise CandidateUnavailable(f"no database for {q.target!r}")
    return urls[q.target]


def service_candidate(service: NLDatabaseService, urls: Mapping[str | None, str]) -> SQLCandidate:
    """Ask ``service``'s generator each question against its fixture's first rotation.

    Args:
        service: the service, holding the generator of the candidate path.
        urls: ``Question.target`` (``None`` for a ``--db-url`` run) -> URL of the first rotation.
    """

    async def run(q: Question) -> Answer:
        url = _url(urls, q)
        return await asyncio.to_thread(service.answer, q.question, url, q.fixture or q.database or "user-db", "eval")

    return run


def recorded_candidate(
    service: NLDatabaseService, urls: Mapping[str | None, str], answers: Mapping[str, Generation]
) -> SQLCandidate:
    """Take each question's answer from ``answers`` (by id) down the service's path.

    A question with no answer is not asked: the caller grades it ``unmeasured`` (``no answer
    recorded``); asking it here anyway is :class:`CandidateUnavailable`.
    """

    async def run(q: Question) -> Answer:
        url = _url(urls, q)
        generation = answers.get(q.id)
        if generation is None:
            raise CandidateUnavailable("no answer recorded")
        return await asyncio.to_thread(
            service.answer, q.question, url, q.fixture or q.database or "user-db", "eval", generation=generation
        )

    return run


def reference_answers(questions: list[Question], dialect: str) -> dict[str, Generation]:
    """Each answerable question's reference SQL for ``dialect``, as the reference candidate's answers."""
    return {q.id: Generation(sql=sql) for q in questions if q.expect == "answer" and (sql := q.reference_sql(dialect))}
