"""SQL from a model behind any OpenAI-compatible ``/chat/completions`` endpoint.

Works with OpenAI, vLLM, Ollama (``http://localhost:11434/v1``) and a llama.cpp server: all of
them accept the same request. The standard library does the HTTP so the backend gains no
dependency.

Configuration comes from the environment (:meth:`OpenAIChatGenerator.from_env`):

=========================  ==========================================================
``NL_SQL_LLM_BASE_URL``    endpoint root, e.g. ``http://localhost:11434/v1`` (required)
``NL_SQL_LLM_MODEL``       model name the endpoint serves (required)
``NL_SQL_LLM_API_KEY``     sent as ``Authorization: Bearer``; optional for local servers
``NL_SQL_LLM_TIMEOUT_S``   seconds to wait for the endpoint (default 60)
=========================  ==========================================================

Three outcomes, kept apart (see :mod:`services.sql_generation`): SQL; a refusal (the model
said ``REFUSE: <reason>``, or its reply held no SQL); :class:`GeneratorUnavailable` when the
endpoint could not be asked or answered with something that is not a chat completion.
Missing configuration is a :class:`GeneratorConfigError` at construction, never an empty answer.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from services.schema_context import SchemaContext
from services.sql_generation import Generation, GeneratorUnavailable

BASE_URL_ENV = "NL_SQL_LLM_BASE_URL"
MODEL_ENV = "NL_SQL_LLM_MODEL"
API_KEY_ENV = "NL_SQL_LLM_API_KEY"
TIMEOUT_ENV = "NL_SQL_LLM_TIMEOUT_S"
DEFAULT_TIMEOUT_S = 60.0

NO_SQL_REASON = "no SQL in the model's reply"
_LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
_ERROR_SNIPPET_CHARS = 200


class GeneratorConfigError(ValueError):
    """The generator's configuration is missing or invalid; the message names the variable to set."""


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


def build_messages(question: str, schema: SchemaContext) -> list[dict[str, str]]:
    """The chat messages for one question: the rules and refusal protocol, then schema and question."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT.format(dialect=schema.dialect)},
        {
            "role": "user",
            "content": USER_PROMPT.format(dialect=schema.dialect, schema=schema.describe(), question=question.strip()),
        },
    ]


_THINKING = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
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
    visible = _THINKING.sub("", text)
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


def _endpoint(base_url: str) -> str:
    base = base_url.rstrip("/")
    return base if base.endswith("/chat/completions") else base + "/chat/completions"


def _check_base_url(base_url: str) -> None:
    parts = urllib.parse.urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise GeneratorConfigError(
            f"{BASE_URL_ENV}={base_url!r} is not an http(s) URL; set it to the endpoint root, "
            f"e.g. http://localhost:11434/v1 (Ollama) or https://api.openai.com/v1"
        )


def _parse_timeout(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value > 0:
        raise GeneratorConfigError(f"{TIMEOUT_ENV}={raw!r} must be a positive number of seconds")
    return value


class OpenAIChatGenerator:
    """:class:`~services.sql_generation.SQLGenerator` backed by an OpenAI-compatible chat endpoint."""

    name = "openai-chat"

    def __init__(
        self, base_url: str, model: str, *, api_key: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        if not base_url or not base_url.strip():
            raise GeneratorConfigError(
                f"{BASE_URL_ENV} is not set: set it to the endpoint root, e.g. http://localhost:11434/v1"
            )
        if not model or not model.strip():
            raise GeneratorConfigError(f"{MODEL_ENV} is not set: set it to a model the endpoint serves")
        _check_base_url(base_url.strip())
        if not timeout_s > 0:
            raise GeneratorConfigError(f"timeout must be positive, got {timeout_s!r} ({TIMEOUT_ENV})")
        self.base_url = base_url.strip()
        self.model = model.strip()
        self.api_key = api_key or None
        self.timeout_s = float(timeout_s)
        self.endpoint = _endpoint(self.base_url)
        # A local server (Ollama, llama.cpp) is never reached through an HTTP proxy from the environment.
        local = urllib.parse.urlsplit(self.base_url).hostname in _LOOPBACK_HOSTS
        self._opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}) if local else urllib.request.ProxyHandler()
        )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> OpenAIChatGenerator:
        """Read the ``NL_SQL_LLM_*`` variables; a missing one is a :class:`GeneratorConfigError`."""
        env = os.environ if environ is None else environ
        raw_timeout = (env.get(TIMEOUT_ENV) or "").strip()
        return cls(
            (env.get(BASE_URL_ENV) or "").strip(),
            (env.get(MODEL_ENV) or "").strip(),
            api_key=(env.get(API_KEY_ENV) or "").strip() or None,
            timeout_s=_parse_timeout(raw_timeout) if raw_timeout else DEFAULT_TIMEOUT_S,
        )

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIChatGenerator(base_url={self.base_url!r}, model={self.model!r})"

    def generate(self, question: str, schema: SchemaContext) -> Generation:
        body = {"model": self.model, "messages": build_messages(question, schema), "temperature": 0, "stream": False}
        return parse_reply(self._content(self._post(body)))

    def _scrub(self, text: str) -> str:
        return text.replace(self.api_key, "***") if self.api_key else text

    def _unavailable(self, message: str) -> GeneratorUnavailable:
        return GeneratorUnavailable(self._scrub(f"{self.name} at {self.endpoint} (model {self.model!r}): {message}"))

    def _post(self, body: dict[str, Any]) -> bytes:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.endpoint, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with self._opener.open(request, timeout=self.timeout_s) as response:
                reply: bytes = response.read()
                return reply
        except urllib.error.HTTPError as exc:
            with exc:
                detail = exc.read(4096).decode("utf-8", "replace")
            raise self._unavailable(_http_error_message(exc.code, detail)) from None
        except urllib.error.URLError as exc:
            raise self._unavailable(self._network_message(exc.reason)) from None
        except TimeoutError as exc:
            raise self._unavailable(self._network_message(exc)) from None
        except (http.client.HTTPException, OSError) as exc:
            raise self._unavailable(
                f"the connection failed ({type(exc).__name__}: {exc}); "
                f"check that {BASE_URL_ENV} points at an OpenAI-compatible server"
            ) from None

    def _network_message(self, reason: object) -> str:
        if isinstance(reason, (TimeoutError, socket.timeout)) or "timed out" in str(reason):
            return (
                f"no answer within {self.timeout_s:g} s; the server may be overloaded or the model still "
                f"loading: raise {TIMEOUT_ENV} or retry"
            )
        if isinstance(reason, ConnectionRefusedError):
            return f"connection refused: is the server running? check {BASE_URL_ENV}"
        if isinstance(reason, socket.gaierror):
            return f"cannot resolve the host name ({reason}); check {BASE_URL_ENV}"
        return f"cannot connect ({reason}); check {BASE_URL_ENV} and that the server is running"

    def _content(self, payload: bytes) -> str:
        try:
            data = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError):
            snippet = payload[:80].decode("utf-8", "replace")
            raise self._unavailable(
                f"the reply is not JSON (starts with {snippet!r}); check that {BASE_URL_ENV} "
                f"is the API root (for Ollama it ends in /v1)"
            ) from None
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            content = None
        if not isinstance(content, str):
            error = data.get("error") if isinstance(data, dict) else None
            hint = f" (the server says: {_error_text(error)})" if error else ""
            raise self._unavailable(
                f"the reply has no choices[0].message.content{hint}; "
                f"is this an OpenAI-compatible /chat/completions endpoint?"
            )
        return content


def _error_text(error: object) -> str:
    if isinstance(error, dict):
        error = error.get("message") or error
    return str(error)[:_ERROR_SNIPPET_CHARS]


def _http_error_message(status: int, body: str) -> str:
    try:
        detail = _error_text(json.loads(body).get("error") or body)
    except (json.JSONDecodeError, AttributeError):
        detail = body.strip()[:_ERROR_SNIPPET_CHARS]
    said = f" (the server says: {detail})" if detail else ""
    if status in (401, 403):
        advice = f"the endpoint rejected the credentials: check {API_KEY_ENV}"
    elif status == 404:
        advice = f"not found: check {BASE_URL_ENV} (the API root, e.g. ending in /v1) and {MODEL_ENV}"
    elif status == 429:
        advice = "rate limited or out of quota: retry later or check the account"
    elif status >= 500:
        advice = "the server failed; check its logs or retry"
    else:
        advice = f"the request was rejected; check {MODEL_ENV} and the server's API"
    return f"HTTP {status}: {advice}{said}"
