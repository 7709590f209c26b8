"""The NL database service's pipeline, written once for its sync and async entry points.

:meth:`~services.nl_database_service.NLDatabaseService.answer` and ``aanswer`` run the same
steps in the same order with the same error mapping; they differ only in how they wait. So the
pipeline is a generator that *yields* the two kinds of step that wait (:class:`Blocking`: the
database or the disk; :class:`Ask`: the generator) and is driven by :func:`drive` (calls them
in place) or :func:`adrive` (a thread for the blocking ones, the generator's coroutine for
:class:`Ask`). A step's exception is thrown back into the pipeline where it yielded, so every
failure is mapped by the pipeline's own ``except`` clauses, whichever driver ran the step.

The pieces every step shares are here too: the question check, the mapping of a generator's
exceptions to error kinds, scrubbing secrets from reasons, and the audit log's line.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Generator
from dataclasses import asdict, dataclass
from typing import TypeVar, cast

from services.generation.protocol import Generation, GeneratorUnavailable, SQLGenerator
from services.generation.settings import GeneratorConfigError
from services.nl_answer import Answer, QueryRecord
from services.readonly.execute import ErrorKind
from services.redaction import scrub_secrets
from services.schema_context import SchemaContext

MAX_QUESTION_CHARS = 2000

log = logging.getLogger("services.nl_database_service")  # where the service has always logged
audit_log = logging.getLogger("autobot.nl_sql.audit")
T = TypeVar("T")


class StepFailed(Exception):
    """A pipeline step's failure, already phrased for the user."""

    def __init__(self, kind: ErrorKind, reason: str) -> None:
        super().__init__(reason)
        self.kind, self.reason = kind, reason


@dataclass(frozen=True)
class Blocking:
    """A step that waits on the database or the disk: ``aanswer`` runs it in a thread."""

    call: Callable[[], object]


@dataclass(frozen=True)
class Ask:
    """The generation step: ``aanswer`` awaits the generator's ``agenerate`` when it has one."""

    question: str
    schema: SchemaContext


Step = Blocking | Ask
Steps = Generator[Step, object, Answer]


def blocking(call: Callable[[], T]) -> Generator[Step, object, T]:
    """``yield from blocking(f)`` in the pipeline: ``f()``'s value, however the driver ran it."""
    return cast(T, (yield Blocking(call)))


def drive(steps: Steps, ask: Callable[[Ask], object]) -> Answer:
    """Run the pipeline in this thread: each step called in place."""
    step: Step | Answer = next(steps)
    while not isinstance(step, Answer):
        failure: Exception | None = None
        try:
            result = step.call() if isinstance(step, Blocking) else ask(step)
        except Exception as exc:  # thrown back into the pipeline, which maps it
            result, failure = None, exc
        step = _resume(steps, result, failure)
    return step


async def adrive(steps: Steps, ask: Callable[[Ask], Awaitable[object]]) -> Answer:
    """Run the pipeline in the event loop: blocking steps in a thread, the generator awaited."""
    step: Step | Answer = next(steps)
    while not isinstance(step, Answer):
        failure: Exception | None = None
        try:
            result = await asyncio.to_thread(step.call) if isinstance(step, Blocking) else await ask(step)
        except Exception as exc:
            result, failure = None, exc
        step = _resume(steps, result, failure)
    return step


def _resume(steps: Steps, result: object, failure: Exception | None) -> Step | Answer:
    """The pipeline given a step's result (or its exception, raised where it yielded): its next step or answer."""
    try:
        return steps.send(result) if failure is None else steps.throw(failure)
    except StopIteration as done:
        return cast(Answer, done.value)


def ask_sync(generator: SQLGenerator, ask: Ask) -> object:
    return generator.generate(ask.question, ask.schema)


async def ask_async(generator: SQLGenerator, ask: Ask, session: object = None) -> object:
    """The generator's coroutine ``agenerate`` awaited (with ``session`` when given), else its
    ``generate`` in a thread."""
    agenerate = getattr(generator, "agenerate", None)
    if agenerate is None or not inspect.iscoroutinefunction(agenerate):
        return await asyncio.to_thread(generator.generate, ask.question, ask.schema)
    if session is None:
        return await agenerate(ask.question, ask.schema)
    return await agenerate(ask.question, ask.schema, session)


def check_question(question: object) -> str:
    """The question stripped, or :class:`StepFailed` (``bad_request``) saying what is wrong with it."""
    if not isinstance(question, str):
        raise StepFailed(ErrorKind.BAD_REQUEST, f"The question must be a string, got {type(question).__name__}.")
    if not question.strip():
        raise StepFailed(ErrorKind.BAD_REQUEST, "The question is empty: ask a question about the data.")
    if len(question) > MAX_QUESTION_CHARS:
        raise StepFailed(
            ErrorKind.BAD_REQUEST,
            f"The question is {len(question)} characters long; the limit is {MAX_QUESTION_CHARS}: shorten it.",
        )
    return question.strip()


def generator_failed(name: str, exc: Exception) -> StepFailed:
    """What a generator's exception means: it could not be asked (``generator_unavailable``: no verdict
    about it), it is misconfigured (``config``), or it failed (``generator_error``: no SQL came back)."""
    if isinstance(exc, GeneratorUnavailable):
        message = str(exc) if name in str(exc) else f"Generator {name} is unavailable: {exc}"
        return StepFailed(ErrorKind.GENERATOR_UNAVAILABLE, message)
    if isinstance(exc, GeneratorConfigError):
        return StepFailed(ErrorKind.CONFIG, f"Generator {name} is misconfigured: {exc}")
    log.error("nl_sql: generator %s failed", name, exc_info=exc)
    return StepFailed(ErrorKind.GENERATOR_ERROR, f"Generator {name} failed: {type(exc).__name__}: {exc}")


def checked_generation(name: str, reply: object) -> Generation:
    if not isinstance(reply, Generation):
        raise StepFailed(
            ErrorKind.GENERATOR_ERROR, f"Generator {name} returned a {type(reply).__name__}, not a Generation."
        )
    return reply


def sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def scrub(text: str, secrets: set[str]) -> str:
    """``text`` with each secret masked where it stands as a whole token (:func:`services.redaction.scrub_secrets`)."""
    return scrub_secrets(text, secrets)


def clip(text: str | None, limit: int = 300) -> str | None:
    return text if text is None or len(text) <= limit else text[:limit] + "..."


def _one_line(value: object) -> str:
    """Text for one log line: a newline or a control character in it (an endpoint's error message, a
    refusal's reason) is written as its escape, so it cannot start a forged line of the log."""
    return repr(str(value))[1:-1]


def audit(record: QueryRecord) -> None:
    """One line of the ``autobot.nl_sql.audit`` log per query, whatever its outcome (a warning on an error)."""
    level = logging.WARNING if record.status == "error" else logging.INFO
    audit_log.log(
        level,
        "nl_sql %s db_id=%s user_id=%s generator=%s model=%s kind=%s rows=%d reason=%s question=%r sql=%r",
        record.status,
        _one_line(record.db_id),
        _one_line(record.user_id),
        _one_line(record.generator),
        _one_line(record.model),
        record.error_kind,
        record.row_count,
        _one_line(record.reason),
        clip(record.question),
        clip(record.sql),
        extra={"nl_sql": asdict(record)},
    )
