"""SQL candidates: each question asked of ``NLDatabaseService``, on its fixture's first rotation.

A SQL candidate is an async callable ``Question -> Answer`` (:data:`SQLCandidate`), replayed by
the harness's runner like any candidate. Every candidate path goes through the same service
call and differs only in where the SQL comes from:

* ``embedded`` and ``llm``: the generator the service holds writes it from the question's text (the
  model is asked as a coroutine, so many questions can wait on it at once);
* ``reference`` and ``recorded``: it was written beforehand, and is looked up by question id
  (never by the question's text); the service then takes it down the path a generated answer
  takes (guard, read-only execution, audit).

The service's :class:`~services.nl_database_service.Answer` is returned as it is, rows included:
the grader reads them for the first rotation instead of running the SQL again, and maps the
service's error kinds to verdicts in one place (``eval.sql.grading.grade``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from eval.core.runner import CandidateUnavailable
from eval.sql.corpus.dialects import TranspileError
from eval.sql.corpus.questions import Question
from services.generation.protocol import Generation, GeneratorUnavailable
from services.nl_database_service import Answer, NLDatabaseService
from services.schema_context import SchemaContext

SQLCandidate = Callable[[Question], Awaitable[Answer]]
"""The SQL suite's candidate contract."""


class AsyncGenerator(Protocol):
    """A generator that can also be asked as a coroutine (the model-backed one)."""

    def session(self) -> Any: ...

    async def agenerate(self, question: str, schema: SchemaContext, session: Any = None) -> Generation: ...


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


class ModelCandidate:
    """Ask a model each question as a coroutine (many at once; a cancelled call stops), then take its
    answer down the service's path (guard, read-only execution, audit) in a thread.

    One HTTP session serves the whole run (connections and TLS set-up made once); :meth:`aclose`
    ends it, in the event loop the run used.
    """

    def __init__(self, service: NLDatabaseService, urls: Mapping[str | None, str], generator: AsyncGenerator) -> None:
        self.service, self.urls, self.generator = service, urls, generator
        self._session: Any = None

    async def __call__(self, q: Question) -> Answer:
        url = _url(self.urls, q)
        try:
            schema = await asyncio.to_thread(self.service.schema, url)
        except Exception as exc:  # the executor's ExecutionError: the database, not the model
            raise CandidateUnavailable(f"cannot read the schema of {q.fixture or 'the database'}: {exc}") from None
        if self._session is None:
            self._session = self.generator.session()
        try:
            generation = await self.generator.agenerate(q.question, schema, self._session)
        except GeneratorUnavailable as exc:
            raise CandidateUnavailable(str(exc)) from None
        return await asyncio.to_thread(
            self.service.answer, q.question, url, q.fixture or q.database or "user-db", "eval", generation=generation
        )

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.aclose()
            self._session = None


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
    """Each answerable question's reference SQL for ``dialect``, as the reference candidate's answers
    (a reference sqlglot cannot transpile has none: the self-check names it as an oracle defect)."""
    answers = {}
    for q in questions:
        if q.expect != "answer":
            continue
        try:
            sql = q.reference_sql(dialect)
        except TranspileError:
            continue
        if sql:
            answers[q.id] = Generation(sql=sql)
    return answers
