"""SQL candidates: each question asked of ``NLDatabaseService``, on its fixture's first rotation.

A SQL candidate is an async callable ``Question -> Answer`` (:data:`SQLCandidate`), replayed by
the harness's runner like any candidate. Every candidate path is the same call,
:meth:`~services.nl_database_service.NLDatabaseService.aanswer`, and differs only in where the
SQL comes from:

* ``embedded`` and ``llm``: the generator the service holds writes it from the question's text (a
  model is awaited as a coroutine, so many questions can wait on it at once; the built-in
  generator runs in a thread);
* ``reference`` and ``recorded``: it was written beforehand, and is looked up by question id
  (never by the question's text) and handed to the service, which takes it down the path a
  generated answer takes (guard, read-only execution, audit).

The eval repeats none of the service's steps: no schema reading, no generator call, no mapping of
a generator's exceptions. The service's error kinds become verdicts in one place
(``eval.sql.grading.grade``); the one thing decided here, from the :class:`Answer` and alike on every
path, is that a generator the service could not ask (``generator_unavailable``: an endpoint down)
is the candidate being unavailable, so the run can stop asking a dead endpoint.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from eval.core.runner import CandidateUnavailable, release_slot
from eval.sql.corpus.dialects import TranspileError
from eval.sql.corpus.questions import Question
from eval.sql.model.outcome import NO_ANSWER
from services.generation.protocol import Generation, GeneratorUnavailable
from services.nl_database_service import Answer, NLDatabaseService
from services.readonly.execute import ErrorKind
from services.schema_context import SchemaContext

SQLCandidate = Callable[[Question], Awaitable[Answer]]
"""The SQL suite's candidate contract."""


def judgeable(answer: Answer) -> Answer:
    """``answer`` to grade, or :class:`CandidateUnavailable` when the service could not ask its
    generator (``generator_unavailable``): nothing about the candidate is known, so the question is
    unmeasured, and a run of them stops the run (``--stop-after-unavailable``). A generator that
    failed (``generator_error``) is graded: no SQL came back from the system under test."""
    if answer.error_kind is ErrorKind.GENERATOR_UNAVAILABLE:
        raise CandidateUnavailable(answer.reason or "the generator could not be asked")
    return answer


class ServiceCandidate:
    """Every candidate path: ask the service each question on its fixture's first rotation.

    Args:
        service: the service, holding the generator of the candidate path.
        urls: ``Question.target`` (``None`` for a ``--db-url`` run) -> URL of the first rotation.
        answers: question id -> answer, for ``reference`` and ``recorded``; ``None``: the service's
            generator answers from the text.

    A generator with an HTTP session (``session()``: the model's) gets one for the whole run, so
    connections and TLS set-up are made once; :meth:`aclose` ends it, in the event loop the run used.
    """

    def __init__(
        self,
        service: NLDatabaseService,
        urls: Mapping[str | None, str],
        answers: Mapping[str, Generation] | None = None,
    ) -> None:
        self.service, self.urls, self.answers = service, urls, answers
        self._session: Any = None

    def prepare(self) -> None:
        """Open now what the first ask would wait for (while the self-check runs): the generator's HTTP session
        (importing the client, loading the certificates) and each database's schema, which the prompt shows.
        Answers looked up by id (recorded, reference) need neither: no generator reads a schema."""
        if self.answers is not None:
            return
        if self._session is None:
            opener = getattr(self.service.generator, "session", None)
            self._session = opener() if callable(opener) else None
        for url in self.urls.values():
            with contextlib.suppress(Exception):  # a database that cannot be read says so at its first ask
                self.service.schema(url)

    async def __call__(self, q: Question) -> Answer:
        url, db_id, generation = self._asked(q)
        if self._session is None and self.answers is None:
            opener = getattr(self.service.generator, "session", None)
            self._session = opener() if callable(opener) else None
        answer = await self.service.aanswer(
            q.question,
            url,
            db_id,
            "eval",
            generation=generation,
            session=self._session,
            answered=release_slot,  # --concurrency bounds the model calls: the next goes out before this one runs
        )
        return judgeable(answer)

    def answer_now(self, q: Question) -> Answer:
        """:meth:`__call__` in this thread, for an offline generator (no HTTP session): the same service call,
        :meth:`~services.nl_database_service.NLDatabaseService.answer`, with no event loop or thread hop."""
        url, db_id, generation = self._asked(q)
        return judgeable(self.service.answer(q.question, url, db_id, "eval", generation=generation))

    def _asked(self, q: Question) -> tuple[str, str, Generation | None]:
        """Where ``q`` is asked (its database's URL and name) and its recorded answer, if the run has answers."""
        if q.target not in self.urls:
            raise CandidateUnavailable(f"no database for {q.target!r}")
        generation = None if self.answers is None else self.answers.get(q.id)
        return self.urls[q.target], q.fixture or q.database or "user-db", generation

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.aclose()
            self._session = None


class AnswersById:
    """The generator a ``reference`` or ``recorded`` run's service holds: it names the system, and
    its answers go to the service by question id. Asked by text it has none, which is
    ``generator_unavailable`` (unmeasured, like a missing line), never a refusal that would count."""

    def __init__(self, name: str, model: str) -> None:
        self.name, self.model = name, model

    def generate(self, question: str, schema: SchemaContext) -> Generation:
        raise GeneratorUnavailable(f"{NO_ANSWER} for this question ({self.name} answers are looked up by id)")


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
