"""SQL from a model behind any OpenAI-compatible ``/chat/completions`` endpoint.

Works with OpenAI, vLLM, Ollama (``http://localhost:11434/v1``) and a llama.cpp server: all of
them accept the same request. The HTTP, its timeouts and its retries are
:class:`services.generation.openai_chat.ChatClient`'s (httpx and tenacity).

Configuration comes from the environment (:meth:`OpenAIChatGenerator.from_env`):

===============================  ====================================================================
``NL_SQL_LLM_BASE_URL``          endpoint root, e.g. ``http://localhost:11434/v1`` (required)
``NL_SQL_LLM_MODEL``             model name the endpoint serves (required)
``NL_SQL_LLM_API_KEY``           sent as ``Authorization: Bearer``; optional for local servers
``NL_SQL_LLM_TIMEOUT_S``         seconds one attempt may take, headers and whole body (default 60)
``NL_SQL_LLM_TEMPERATURE``       sampling temperature sent with every request (default 0)
``NL_SQL_LLM_MAX_ATTEMPTS``      attempts per question, retries included (default 4)
``NL_SQL_LLM_RETRY_BUDGET_S``    seconds all attempts of one question may take together (default 180)
``NL_SQL_LLM_SAMPLE_VALUES``     ``0`` (or ``false``): send no value sampled from the database (default ``1``)
===============================  ====================================================================

What a request carries: the rules and refusal protocol, the SQL dialect, the schema (tables, columns, types,
keys, comments) with a few stored values of each text column unless ``sample_values`` is off, and the
question. Nothing else: no few-shot examples, no rows, no earlier turns.

Three outcomes, kept apart (see :mod:`services.generation.protocol`): SQL; a refusal (the model
said ``REFUSE: <reason>``, or its reply held no SQL); :class:`GeneratorUnavailable` when the
endpoint could not be asked or answered with something that is not a chat completion.
Missing configuration is a :class:`GeneratorConfigError` at construction, never an empty answer.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import logging
import math
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from services.generation.chat_terms import ChatPolicy, ChatReply, ChatUnavailable, Names
from services.generation.endpoint import api_key_problem, base_url_problem
from services.generation.openai_chat import ChatClient
from services.generation.protocol import Generation, GeneratorUnavailable
from services.generation.settings import API_KEY_ENV as API_KEY_ENV  # re-exported: the client's names
from services.generation.settings import BASE_URL_ENV as BASE_URL_ENV
from services.generation.settings import MODEL_ENV as MODEL_ENV
from services.generation.settings import GeneratorConfigError as GeneratorConfigError
from services.redaction import redact_http_url
from services.schema_context import SchemaContext
from services.schema_text import LEFT_OUT, prompt_text

if TYPE_CHECKING:  # httpx is imported where a request is made: an offline run never loads it
    import httpx

log = logging.getLogger(__name__)

TIMEOUT_ENV = "NL_SQL_LLM_TIMEOUT_S"
TEMPERATURE_ENV = "NL_SQL_LLM_TEMPERATURE"
ATTEMPTS_ENV = "NL_SQL_LLM_MAX_ATTEMPTS"
BUDGET_ENV = "NL_SQL_LLM_RETRY_BUDGET_S"
SCHEMA_CHARS_ENV = "NL_SQL_MAX_SCHEMA_CHARS"
SAMPLE_VALUES_ENV = "NL_SQL_LLM_SAMPLE_VALUES"
DEFAULT_TIMEOUT_S = 60.0
MAX_SCHEMA_CHARS = 100_000
"""The schema a prompt tells the model, at most (a 5,000-table database sent 942,472 characters per question):
past it, tables are left out and the prompt says which (:func:`services.schema_text.prompt_text`)."""

NO_SQL_REASON = "no SQL in the model's reply"


SYSTEM_PROMPT = """\
You translate questions about a {dialect} database into SQL.

Rules:
- Answer with exactly one read-only {dialect} query: a SELECT (WITH ... SELECT is fine), in a ```sql fenced block, \
and nothing else.
- Never write or change anything: no INSERT, UPDATE, DELETE, MERGE, CREATE, DROP, ALTER, ATTACH, PRAGMA or similar, \
and never more than one statement.
- Use only the tables and columns listed in the schema; never invent a table or a column.
- Business definitions (what a metric such as revenue means, which rows count) come from the column comments: \
follow them exactly.
- Return only the columns the question asks for, in the order it names them: a "how many" or "how much" \
question returns one number; a breakdown returns the dimension first, then the measures; an entity by its name.
- Label periods as text: months 'YYYY-MM', quarters 'YYYY-Qn' (e.g. '2024-Q3'), years 'YYYY'. Do not round money.

Refusal protocol: if the question cannot be answered from this schema, asks to change data, is not about the data, \
or is too ambiguous to answer with one query, reply with exactly one line and nothing else:
REFUSE: <reason>"""

USER_PROMPT = """\
SQL dialect: {dialect}

Schema (one line per column; comments after --, known values in brackets):
{schema}

Question: {question}"""


@functools.lru_cache(maxsize=16)
def without_values(schema: SchemaContext) -> SchemaContext:
    """``schema`` with no value read from the database: every column's sampled values (and why some were not
    sampled) and every table's row count dropped, the structure and the comments kept; made once per
    schema, as its prompt text is (:func:`prompt_schema`), not once per question."""
    return dataclasses.replace(
        schema,
        tables=tuple(
            dataclasses.replace(
                t,
                row_count=None,
                columns=tuple(
                    dataclasses.replace(c, values=(), values_complete=False, distinct_count=None, values_skipped="")
                    for c in t.columns
                ),
            )
            for t in schema.tables
        ),
    )


def build_messages(
    question: str, schema: SchemaContext, max_schema_chars: int = MAX_SCHEMA_CHARS, *, sample_values: bool = True
) -> list[dict[str, str]]:
    """The chat messages for one question: the rules and refusal protocol, then schema and question; with
    ``sample_values`` off, the schema carries no value read from the database (:func:`without_values`)."""
    text = prompt_schema(schema if sample_values else without_values(schema), max_schema_chars)
    return [
        {"role": "system", "content": SYSTEM_PROMPT.format(dialect=schema.dialect)},
        {"role": "user", "content": USER_PROMPT.format(dialect=schema.dialect, schema=text, question=question.strip())},
    ]


@functools.lru_cache(maxsize=16)
def prompt_schema(schema: SchemaContext, max_chars: int) -> str:
    """The schema as a prompt tells it, made once per schema; when the cap left something out, the person
    running is told once, on stderr (a warning), as the model is in the prompt."""
    text = prompt_text(schema, max_chars)
    last = text.rsplit("\n", 1)[-1]
    if last.startswith(LEFT_OUT):
        log.warning("the schema told to the model %s (%s raises the cap)", last.removeprefix("-- "), SCHEMA_CHARS_ENV)
    return text


_THINKING = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)


def without_thinking(text: str) -> str:
    """``text`` without its ``<think>`` blocks of reasoning, an unclosed one to the end (a reply cut off while the
    model was still thinking holds no answer): the one reading of them, for a generator's reply and a judge's."""
    return _THINKING.sub("", text)


_FENCE = re.compile(r"```[ \t]*(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)(?:```|\Z)", re.DOTALL)
_REFUSE = re.compile(r"^[ \t>*_`]*REFUSE[*_`]*[ \t]*:(?P<reason>.*)$", re.IGNORECASE | re.MULTILINE)
_SQL_AT_LINE_START = re.compile(r"^[ \t]*(?:SELECT|WITH)\b", re.IGNORECASE | re.MULTILINE)
_SQL_UPPERCASE = re.compile(r"\b(?:SELECT|WITH)\b")
_SQL_FENCE_LANGS = frozenset({"sql", "sqlite", "postgres", "postgresql", "mysql", "tsql", "duckdb"})


def _tidy(sql: str) -> str:
    return sql.strip().strip("`").strip().rstrip(";").strip()


def _fenced_sql(text: str) -> str | None:
    blocks = [(m.group("lang").lower(), m.group("body")) for m in _FENCE.finditer(text)]
    if not blocks:
        return None
    preferred = [body for lang, body in blocks if lang in _SQL_FENCE_LANGS]
    return _tidy(preferred[0] if preferred else blocks[0][1])


def _unfenced_sql(text: str) -> str | None:
    # Prefer a line that starts with SELECT/WITH; prose uses "with" and "select" as plain words.
    match = _SQL_AT_LINE_START.search(text) or _SQL_UPPERCASE.search(text)
    if match is None:
        return None
    sql = text[match.start() :]
    # A blank line ends the statement: what follows is the model explaining itself.
    sql = re.split(r"\n[ \t]*\n", sql, maxsplit=1)[0]
    return _tidy(sql) or None


def parse_reply(text: str) -> Generation:
    """Turn a model's reply into SQL or a refusal.

    Order of precedence: a ``REFUSE:`` line (the protocol answer; declining is the safe reading
    of a reply that both refuses and shows SQL), then a fenced block (```` ```sql ```` before any
    other fence), then unfenced SQL with the prose before the first SELECT/WITH removed. A reply
    with none of these is refused with :data:`NO_SQL_REASON`. ``<think>`` blocks of reasoning
    models are ignored.

    Example:
        >>> parse_reply("Here you go:\\n```sql\\nSELECT 1;\\n```\\nHope it helps.").sql
        'SELECT 1'
        >>> parse_reply("REFUSE: no salary column").refusal
        'no salary column'
    """
    visible = without_thinking(text)
    refusal = _REFUSE.search(visible)
    if refusal is not None:
        reason = refusal.group("reason").strip().strip("*_`").strip()
        return Generation.refuse(reason or "the model refused without giving a reason", raw=text)
    sql = _fenced_sql(visible)
    if sql is None:
        sql = _unfenced_sql(visible)
    if not sql:
        return Generation.refuse(NO_SQL_REASON, raw=text)
    return Generation(sql=sql, raw=text)


def _check_endpoint(base_url: str, api_key: str | None) -> None:
    """A bad base URL or key refused before the first question, named but never repeated (it may be a secret)."""
    problem = base_url_problem(base_url)
    if problem is not None:
        raise GeneratorConfigError(
            f"{BASE_URL_ENV} {problem} (its value is not shown: it may hold a credential); set it to the endpoint "
            f"root, e.g. http://localhost:11434/v1 (Ollama) or https://api.openai.com/v1"
        )
    problem = api_key_problem(api_key) if api_key else None
    if problem is not None:
        raise GeneratorConfigError(f"{API_KEY_ENV} {problem}")


def _positive(raw: str, env: str, integer: bool = False) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (value > 0 and math.isfinite(value)) or (integer and value != int(value)):
        kind = "a positive whole number" if integer else "a positive number of seconds"
        raise GeneratorConfigError(f"{env}={raw!r} must be {kind}")
    return value


def _switch(raw: str, env: str) -> bool:
    """An on/off variable: ``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off``, any case."""
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise GeneratorConfigError(f"{env}={raw!r} must be 1 or 0 (true or false)")


def _temperature(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 2:
        raise GeneratorConfigError(f"{TEMPERATURE_ENV}={raw!r} must be a number from 0 to 2")
    return value


PROMPT_HASH = hashlib.sha256((SYSTEM_PROMPT + "\n" + USER_PROMPT).encode()).hexdigest()[:16]
"""The prompt template's identity: two runs are comparable only on the same one (part of the run's cohort)."""


class OpenAIChatGenerator:
    """:class:`~services.generation.protocol.SQLGenerator` backed by an OpenAI-compatible chat endpoint."""

    name = "openai-chat"
    prompt_hash = PROMPT_HASH

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        temperature: float = 0.0,
        policy: ChatPolicy | None = None,
        max_schema_chars: int = MAX_SCHEMA_CHARS,
        sample_values: bool = True,
    ) -> None:
        if not base_url or not base_url.strip():
            raise GeneratorConfigError(
                f"{BASE_URL_ENV} is not set: set it to the endpoint root, e.g. http://localhost:11434/v1"
            )
        if not model or not model.strip():
            raise GeneratorConfigError(f"{MODEL_ENV} is not set: set it to a model the endpoint serves")
        _check_endpoint(base_url.strip(), api_key)
        if not timeout_s > 0:
            raise GeneratorConfigError(f"timeout must be positive, got {timeout_s!r} ({TIMEOUT_ENV})")
        self.base_url = base_url.strip()
        self.model = model.strip()
        self.api_key = api_key or None
        self.timeout_s = float(timeout_s)
        self.temperature = float(temperature)
        self.max_schema_chars = int(max_schema_chars)
        if self.max_schema_chars != MAX_SCHEMA_CHARS:  # another cap tells big schemas otherwise: another prompt
            self.prompt_hash = hashlib.sha256(f"{PROMPT_HASH}:{self.max_schema_chars}".encode()).hexdigest()[:16]
        self.sample_values = bool(sample_values)
        """Whether the schema sent carries values sampled from the database (a cohort key when off)."""
        policy = policy or ChatPolicy()
        self.client = ChatClient(
            self.base_url,
            api_key=self.api_key,
            label=f"{self.name} (model {self.model!r})",
            policy=dataclasses.replace(policy, timeout_s=self.timeout_s),
            names=Names(BASE_URL_ENV, API_KEY_ENV, MODEL_ENV, TIMEOUT_ENV),
        )
        self.endpoint = self.client.shown
        """The endpoint as shown in messages: credentials in the URL masked."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, sample_values: bool = True) -> OpenAIChatGenerator:
        """Read the ``NL_SQL_LLM_*`` variables; a missing or bad one is a :class:`GeneratorConfigError`. Sampled
        values are sent only when ``sample_values`` and ``NL_SQL_LLM_SAMPLE_VALUES`` both allow it: any one
        setting that says no keeps them on the machine."""
        env = os.environ if environ is None else environ

        def get(name: str) -> str:
            return (env.get(name) or "").strip()

        policy = ChatPolicy()
        if get(ATTEMPTS_ENV):
            policy = dataclasses.replace(policy, max_attempts=int(_positive(get(ATTEMPTS_ENV), ATTEMPTS_ENV, True)))
        if get(BUDGET_ENV):
            policy = dataclasses.replace(policy, budget_s=_positive(get(BUDGET_ENV), BUDGET_ENV))
        return cls(
            get(BASE_URL_ENV),
            get(MODEL_ENV),
            api_key=get(API_KEY_ENV) or None,
            timeout_s=_positive(get(TIMEOUT_ENV), TIMEOUT_ENV) if get(TIMEOUT_ENV) else DEFAULT_TIMEOUT_S,
            temperature=_temperature(get(TEMPERATURE_ENV)) if get(TEMPERATURE_ENV) else 0.0,
            policy=policy,
            max_schema_chars=(
                int(_positive(get(SCHEMA_CHARS_ENV), SCHEMA_CHARS_ENV, True))
                if get(SCHEMA_CHARS_ENV)
                else MAX_SCHEMA_CHARS
            ),
            sample_values=sample_values
            and (not get(SAMPLE_VALUES_ENV) or _switch(get(SAMPLE_VALUES_ENV), SAMPLE_VALUES_ENV)),
        )

    def __repr__(self) -> str:  # never shows the key or a secret in the URL
        return f"OpenAIChatGenerator(base_url={redact_http_url(self.base_url)!r}, model={self.model!r})"

    def _body(self, question: str, schema: SchemaContext) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": build_messages(question, schema, self.max_schema_chars, sample_values=self.sample_values),
            "temperature": self.temperature,
            "stream": False,
        }

    def generate(self, question: str, schema: SchemaContext) -> Generation:
        body = self._body(question, schema)
        try:
            reply = self.client.complete(body)
        except ChatUnavailable as exc:
            raise GeneratorUnavailable(str(exc)) from None
        return _generation(reply, body["messages"])

    def session(self) -> httpx.AsyncClient:
        """An HTTP session a run's :meth:`agenerate` calls share (see :meth:`ChatClient.session`)."""
        return self.client.session()

    async def agenerate(
        self, question: str, schema: SchemaContext, session: httpx.AsyncClient | None = None
    ) -> Generation:
        """:meth:`generate` as a coroutine: many questions at once, and a cancelled one really stops."""
        body = self._body(question, schema)
        try:
            reply = await self.client.acomplete(body, session)
        except ChatUnavailable as exc:
            raise GeneratorUnavailable(str(exc)) from None
        return _generation(reply, body["messages"])


def _generation(reply: ChatReply, messages: list[dict[str, str]]) -> Generation:
    """The parsed reply with what it cost and the messages that asked for it (a transcript's)."""
    return dataclasses.replace(
        parse_reply(reply.content),
        messages=tuple((m["role"], m["content"]) for m in messages),
        latency_ms=reply.latency_ms,
        prompt_tokens=reply.prompt_tokens,
        completion_tokens=reply.completion_tokens,
        attempts=reply.attempts,
    )
