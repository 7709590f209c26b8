"""The NL database service: a question in, read-only SQL and its rows out.

:meth:`NLDatabaseService.query` runs one question through a fixed pipeline and never raises:

1. the question is checked (a non-empty string of sane length)       -> ``bad_request``
2. the database URL is resolved (``db_url``, else the local default)
3. a :class:`~services.readonly.executor.ReadOnlyExecutor` is opened,      -> ``config`` / ``db_unreachable``
   one per URL, cached
4. the schema context is read from the live database, cached per URL  -> ``db_unreachable``
   (for the generator's prompt: not for an answer produced elsewhere, a recorded run's, which no generator reads)
5. the generator answers: SQL, or a refusal       -> ``generator_unavailable`` / ``generator_error`` / ``refused``
6. the read-only guard checks the SQL                                 -> ``guard_blocked``
7. the executor runs it on a read-only connection                     -> ``database`` / ``timeout`` / ``row_cap``

Steps 3, 6 and 7 are :class:`~services.readonly.execute.ReadOnlySQL`, the one public way to run SQL
read-only, which the service also offers as :meth:`NLDatabaseService.run_readonly`. A failure of
the service's own code is ``internal``, never a database error. :meth:`NLDatabaseService.answer`
gives the outcome typed (:class:`Answer`); :meth:`NLDatabaseService.query` gives it as the
response dict callers have always read. :meth:`NLDatabaseService.aanswer` is ``answer`` as a
coroutine, for many questions at once: the same steps (:mod:`services.nl_steps`), the generator
awaited when it can be, the database in a thread.

Every query, whatever its outcome, is appended to :attr:`NLDatabaseService.history` and logged
to the ``autobot.nl_sql.audit`` logger with its status and reason. Reasons never contain a URL
password or an API key. With ``NL_SQL_CAPTURE_DIR`` set (off by default), every answered question is
also appended there as a captured turn (:mod:`services.turn_capture`), for judging without a reference.

The local database is the SQLAlchemy URL in ``NL_SQL_LOCAL_DB_URL``, else the SQLite file
``autobot-backend/data/local.db``. It is opened read-only and never created: when it is missing,
the response says so and how to point the service at a database.

The guard's names are re-exported here, where callers have always imported them from.
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from services.generation.protocol import Generation, SQLGenerator
from services.generation.settings import API_KEY_ENV, BASE_URL_ENV, MODEL_ENV, GeneratorConfigError
from services.nl_answer import ERROR_KINDS, Answer, QueryRecord, Status
from services.nl_steps import (
    MAX_QUESTION_CHARS,
    Ask,
    StepFailed,
    Steps,
    adrive,
    ask_async,
    ask_sync,
    audit,
    blocking,
    check_question,
    checked_generation,
    drive,
    generator_failed,
    scrub,
    sentence,
)
from services.readonly import limits
from services.readonly.execute import ErrorKind, Execution, ReadOnlySQL
from services.readonly.executor import ExecutionError, ReadOnlyExecutor
from services.readonly.guard import (
    _DANGEROUS_KEYWORDS,
    _SAFE_SQL_PREFIXES,
    GuardVerdict,
    _validate_readonly_sql,
    validate_readonly_sql,
)
from services.readonly.result_cache import ResultCache
from services.redaction import redact_url, url_secrets
from services.schema_context import SchemaContext
from services.turn_capture import TurnCapture

__all__ = [
    "DEFAULT_LOCAL_DB",
    "ERROR_KINDS",
    "LOCAL_DB_ENV",
    "MAX_QUESTION_CHARS",
    "_DANGEROUS_KEYWORDS",
    "_SAFE_SQL_PREFIXES",
    "Answer",
    "ErrorKind",
    "Execution",
    "GeneratorConfigError",
    "GuardVerdict",
    "NLDatabaseService",
    "QueryRecord",
    "_validate_readonly_sql",
    "default_generator",
    "redact_url",
    "validate_readonly_sql",
]

LOCAL_DB_ENV = "NL_SQL_LOCAL_DB_URL"
DEFAULT_LOCAL_DB = Path(__file__).resolve().parent.parent / "data" / "local.db"

log = logging.getLogger(__name__)


def default_generator(environ: Mapping[str, str] | None = None) -> SQLGenerator:
    """The generator the environment asks for.

    Both ``NL_SQL_LLM_BASE_URL`` and ``NL_SQL_LLM_MODEL`` set: an :class:`OpenAIChatGenerator`;
    neither: the built-in offline generator; only one: :class:`GeneratorConfigError` naming the
    missing variable (half a configuration must not silently fall back).
    """
    env = os.environ if environ is None else environ
    base_url, model = (env.get(BASE_URL_ENV) or "").strip(), (env.get(MODEL_ENV) or "").strip()
    if base_url and model:  # the client is imported only here: a run that asks no model never loads it
        from services.generation.llm import OpenAIChatGenerator

        return OpenAIChatGenerator.from_env(env)
    from services.embedded import NAME, EmbeddedGenerator

    if not base_url and not model:
        return EmbeddedGenerator()
    present, missing = (BASE_URL_ENV, MODEL_ENV) if base_url else (MODEL_ENV, BASE_URL_ENV)
    raise GeneratorConfigError(
        f"{present} is set but {missing} is not: set {missing} too to use an OpenAI-compatible endpoint, "
        f"or unset {present} to use the built-in {NAME} generator"
    )


class NLDatabaseService:
    """Questions in natural language, answered by read-only SQL over a SQLAlchemy database.

    Args:
        generator: who writes the SQL; ``None`` means :func:`default_generator` (which raises
            :class:`GeneratorConfigError` on half a configuration: the service is not built).
        local_db_url: the database for ``query(db_url=None)``; ``None`` means ``NL_SQL_LOCAL_DB_URL``,
            else the SQLite file :data:`DEFAULT_LOCAL_DB`.
        row_cap: most rows a query may return; more is an error, never a silent truncation; ``None``:
            ``NL_SQL_ROW_CAP``, else 10,000.
        timeout_s: time limit of one query on the database.
        history_limit: how many queries :attr:`history` keeps (oldest dropped first).
        max_sql_bytes: longer SQL is ``guard_blocked`` unread; ``None``: ``NL_SQL_MAX_SQL_BYTES``, else 100,000.
        max_result_bytes: a bigger result is ``row_cap``; ``None``: ``NL_SQL_MAX_RESULT_BYTES``, else 64 MiB.
        results: statements that ran, reused when the same SQL is asked of the same URL again
            (:mod:`services.readonly.result_cache`; an eval run's, whose databases do not change); None: none.

    Raises:
        ValueError: a limit (or its variable) that is not a number > 0.
    """

    def __init__(
        self,
        generator: SQLGenerator | None = None,
        *,
        local_db_url: str | None = None,
        row_cap: int | None = None,
        timeout_s: float = 10.0,
        history_limit: int = 1000,
        max_sql_bytes: int | None = None,
        max_result_bytes: int | None = None,
        results: ResultCache[Execution] | None = None,
    ) -> None:
        row_cap = limits.row_cap() if row_cap is None else row_cap
        if row_cap < 1 or not timeout_s > 0 or history_limit < 0:
            raise ValueError(
                f"row_cap must be >= 1, timeout_s > 0 and history_limit >= 0; got {row_cap}, "
                f"{timeout_s}, {history_limit}"
            )
        self.generator = default_generator() if generator is None else generator
        if not isinstance(self.generator, SQLGenerator):
            raise TypeError(f"{type(self.generator).__name__} is not an SQLGenerator (name, model, generate())")
        self.local_db_url = local_db_url or os.environ.get(LOCAL_DB_ENV, "").strip() or f"sqlite:///{DEFAULT_LOCAL_DB}"
        self.row_cap, self.timeout_s = row_cap, timeout_s
        self.history: deque[QueryRecord] = deque(maxlen=history_limit)
        """Every query, oldest first: ok, refused and failed alike."""
        self.sql = ReadOnlySQL(
            row_cap=row_cap,
            timeout_s=timeout_s,
            max_sql_bytes=limits.sql_bytes() if max_sql_bytes is None else max_sql_bytes,
            max_result_bytes=limits.result_bytes() if max_result_bytes is None else max_result_bytes,
            results=results,
        )
        """The guard and the read-only executors, one per database URL."""
        self.capture = TurnCapture.from_env()
        """Writes every answered question as a captured turn when ``NL_SQL_CAPTURE_DIR`` is set; None: off."""

    @property
    def generator_name(self) -> str:
        return str(getattr(self.generator, "name", type(self.generator).__name__))

    @property
    def model_name(self) -> str:
        return str(getattr(self.generator, "model", "unknown"))

    # --- databases ------------------------------------------------------------------------

    def executor(self, db_url: str | None = None) -> ReadOnlyExecutor:
        """The cached read-only executor for ``db_url`` (the local database by default).

        Raises:
            ExecutionError: the URL cannot be used (kind ``config``) or reached (``connect``).
        """
        return self.sql.executor(db_url or self.local_db_url)

    def schema(self, db_url: str | None = None) -> SchemaContext:
        """The schema context of ``db_url``, inspected once per URL and then cached."""
        return self.sql.schema(db_url or self.local_db_url)

    def bare_schema(self, db_url: str | None = None) -> SchemaContext:
        """The schema context of ``db_url`` without sampled values (names, types, keys), cached per URL."""
        return self.sql.bare_schema(db_url or self.local_db_url)

    def structure(self, db_url: str | None = None) -> list[Any]:
        """The schema of ``db_url`` without its data, for telling whether it changed."""
        return self.sql.structure(db_url or self.local_db_url)

    def unique_keys(self, db_url: str | None = None) -> dict[str, tuple[tuple[str, ...], ...]]:
        """Each table's UNIQUE column sets of ``db_url`` (the primary key left out)."""
        return self.sql.unique_keys(db_url or self.local_db_url)

    def dialect(self, db_url: str | None = None) -> str:
        """The sqlglot dialect of ``db_url``'s engine; raises :class:`ExecutionError` like :meth:`executor`."""
        return self.sql.dialect(db_url or self.local_db_url)

    def run_readonly(
        self, sql: str, db_url: str | None = None, *, fresh: bool = False, reference: bool = False
    ) -> Execution:
        """Guard ``sql``, then run it read-only on ``db_url``: rows, or the kind of failure. Never raises.

        No generator is involved and nothing is written to the history: this is the execution step
        of :meth:`query` on its own, for SQL that comes from elsewhere (an eval's reference query, with
        ``reference``: bounded by the byte budget, not the row cap).
        """
        return self.sql.run_readonly(sql, db_url or self.local_db_url, fresh=fresh, reference=reference)

    def forget(self, db_url: str | None = None) -> None:
        """Drop the cached executor and schema of one URL (after its schema changed, say)."""
        self.sql.forget(db_url or self.local_db_url)

    def close(self) -> None:
        self.sql.close()

    def __enter__(self) -> NLDatabaseService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the pipeline ---------------------------------------------------------------------

    def query(
        self, question: str, db_url: str | None = None, db_id: str = "local", user_id: str | None = None
    ) -> dict[str, Any]:
        """Answer one question; never raises. See the module docstring for the response's fields."""
        return self.answer(question, db_url, db_id, user_id).response()

    def answer(
        self,
        question: str,
        db_url: str | None = None,
        db_id: str = "local",
        user_id: str | None = None,
        *,
        generation: Generation | None = None,
    ) -> Answer:
        """Answer one question, typed; never raises.

        Args:
            generation: an answer produced elsewhere (a recorded run); when given, the generator is
                not asked and this SQL (or refusal) takes the path a generated one would: guard,
                read-only execution, history and audit.
        """
        steps = self._steps(question, db_url, db_id, user_id, generation)
        return drive(steps, partial(ask_sync, self.generator))

    async def aanswer(
        self,
        question: str,
        db_url: str | None = None,
        db_id: str = "local",
        user_id: str | None = None,
        *,
        generation: Generation | None = None,
        session: Any = None,
        answered: Callable[[], None] | None = None,
    ) -> Answer:
        """:meth:`answer` as a coroutine: the same steps and outcome; never raises (but can be cancelled).

        The generator is awaited when it has a coroutine ``agenerate`` (a model: many questions can
        wait on it at once, and a cancelled one stops), else its ``generate`` runs in a thread; the
        database steps run in a thread.

        Args:
            session: handed to ``agenerate`` (an HTTP session a run's calls share, so connections are
                made once); ``None``: the generator's own per call. Unused by a generator without one.
            answered: called once the generator has answered, before the guard and the database: a
                caller bounding the model calls in flight frees a place there. Not when it failed: the
                caller's place is then freed when the answer is, after it has counted the failure
                (``--stop-after-unavailable`` stops after N failures in a row, not N + 1).
        """
        steps = self._steps(question, db_url, db_id, user_id, generation)
        ask = partial(ask_async, self.generator, session=session)
        if answered is None:
            return await adrive(steps, ask)

        async def ask_then_say(step: Ask) -> object:
            reply = await ask(step)
            answered()
            return reply

        return await adrive(steps, ask_then_say)

    def _steps(
        self, question: object, db_url: object, db_id: str, user_id: str | None, generation: Generation | None
    ) -> Steps:
        """The pipeline of the module docstring, once; :func:`~services.nl_steps.drive` or ``adrive`` runs it."""
        started = time.perf_counter()
        received = datetime.now(UTC).isoformat(timespec="milliseconds")
        secrets = self._secrets(db_url)
        sql: str | None = None
        execution: Execution | None = None
        generation_ms: float | None = None
        kind: ErrorKind | None
        status: Status
        try:
            text = check_question(question)
            if db_url is not None and (not isinstance(db_url, str) or not db_url.strip()):
                raise StepFailed(
                    ErrorKind.BAD_REQUEST,
                    "db_url must be a non-empty SQLAlchemy URL string, or None for the local database.",
                )
            url = db_url.strip() if db_url else self.local_db_url
            if generation is not None:  # no generator reads the schema: the database is opened, not inspected
                if not self.sql.is_open(url):
                    yield from blocking(partial(self._connect, url, db_id))
            else:
                # An open database's schema is taken here: a thread for it would queue behind other answers' SQL.
                schema = self.sql.cached_schema(url) or (yield from blocking(partial(self._open, url, db_id)))
                asked = time.perf_counter()
                try:
                    reply = yield Ask(text, schema)
                except Exception as exc:
                    raise generator_failed(self.generator_name, exc) from None
                generation = checked_generation(self.generator_name, reply)
                generation_ms = round((time.perf_counter() - asked) * 1000, 3)
            if generation.refused:
                status, kind, reason = "refused", ErrorKind.REFUSED, generation.refusal
            else:
                sql = generation.sql or ""
                execution = yield from blocking(partial(self.sql.run_readonly, sql, url))
                status, kind, reason = (
                    ("ok", None, None) if execution.ok else ("error", execution.error_kind, execution.reason)
                )
        except StepFailed as failed:
            status, kind, reason = "error", failed.kind, failed.reason
        except Exception as exc:  # a bug here must still not escape, and is not a database error
            log.exception("nl_sql: unexpected failure")
            status, kind, reason = "error", ErrorKind.INTERNAL, f"internal error: {type(exc).__name__}: {exc}"
        if reason is not None:
            reason = scrub(reason, secrets)
        answer = Answer(
            question=question if isinstance(question, str) else None,
            db_id=db_id,
            user_id=user_id,
            status=status,
            error_kind=kind,
            reason=reason,
            sql=sql,
            generator=self.generator_name,
            model=self.model_name,
            received=received,
            elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
            generation_ms=generation_ms,
            execution=execution,
            generation=generation,
        )
        yield from blocking(partial(self._keep, answer))
        return answer

    def _keep(self, answer: Answer) -> None:
        """History, audit and (when on) the captured turn: a failed query is kept as much as a good one."""
        record = QueryRecord.of(answer, MAX_QUESTION_CHARS)
        self.history.append(record)
        audit(record)
        if self.capture is not None:
            self.capture.write(answer)

    def _secrets(self, db_url: object) -> set[str]:
        secrets = url_secrets(self.local_db_url)
        if isinstance(db_url, str):
            secrets |= url_secrets(db_url)
        for key in (os.environ.get(API_KEY_ENV), getattr(self.generator, "api_key", None)):
            if isinstance(key, str) and key.strip():
                secrets.add(key.strip())
        for endpoint in (os.environ.get(BASE_URL_ENV), getattr(self.generator, "base_url", None)):
            if isinstance(endpoint, str):  # a model may echo its URL's signature or token in a refusal
                secrets |= url_secrets(endpoint.strip())
        return secrets

    def _hint(self, url: str) -> str:
        if url == self.local_db_url:
            return f" To use another local database, set {LOCAL_DB_ENV} to its SQLAlchemy URL."
        return ""

    def _connect(self, url: str, db_id: str) -> None:
        """Open ``url``'s executor, or :class:`StepFailed` saying why it cannot be opened."""
        # The executor's messages name the (redacted) URL when it parses; an unparseable one is not echoed.
        where, hint = f"database {db_id!r}", self._hint(url)
        try:
            self.sql.executor(url)
        except ExecutionError as exc:
            kind = ErrorKind.CONFIG if exc.kind == "config" else ErrorKind.DB_UNREACHABLE
            raise StepFailed(kind, f"Cannot open {where}: {sentence(exc.message)}{hint}") from None
        except Exception as exc:  # a URL or driver the executor did not anticipate
            raise StepFailed(ErrorKind.CONFIG, f"Cannot open {where}: {type(exc).__name__}: {exc}") from None

    def _open(self, url: str, db_id: str) -> SchemaContext:
        """Open ``url`` and read its schema (for the generator's prompt), or :class:`StepFailed` saying why not."""
        self._connect(url, db_id)
        where, hint = f"database {db_id!r}", self._hint(url)
        try:
            return self.sql.schema(url)
        except ExecutionError as exc:
            self.forget(url)
            kind = ErrorKind.CONFIG if exc.kind == "config" else ErrorKind.DB_UNREACHABLE
            raise StepFailed(kind, f"Cannot read {where}: {sentence(exc.message)}{hint}") from None
        except Exception as exc:
            self.forget(url)
            lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
            detail = lines[0] if lines else ""
            raise StepFailed(
                ErrorKind.DB_UNREACHABLE,
                f"Cannot read the schema of {where} ({redact_url(url)}): "
                f"{type(exc).__name__}: {sentence(detail)}{hint}",
            ) from None
