"""The judge: a model at any OpenAI-compatible endpoint scores one captured turn under the rubric.

Configuration (:meth:`Judge.from_env`):

=============================  ==================================================================
``NL_SQL_JUDGE_BASE_URL``      endpoint root, e.g. ``http://localhost:11434/v1`` (required)
``NL_SQL_JUDGE_MODEL``         the judge model (required)
``NL_SQL_JUDGE_API_KEY``       required unless the endpoint is on this machine
``NL_SQL_JUDGE_TIMEOUT_S``     one attempt's deadline in seconds (default 60)
=============================  ==================================================================

The reply is constrained by a JSON schema (``response_format``) where the endpoint supports it;
an endpoint that rejects the request for it (HTTP 400 or 422) is asked again without it, and is
not asked with it again. Either way every reply is validated strictly (:func:`validate_reply`):
a reply that fails is retried once, telling the judge what was wrong, and a second failure leaves
the turn ``unmeasured``, never scored. The HTTP (timeouts, 429/5xx retries) is
:class:`services.generation.openai_chat.ChatClient`'s.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from eval.core.errors import UsageError
from eval.turns.format import Turn
from eval.turns.prompt import MAX_EXPLANATION, PROMPT_SHA256, build_messages, response_format
from eval.turns.rubric import BANDS, DIMENSIONS, RUBRIC_VERSION, Arithmetic, Band, caps_for, compose
from services.generation.chat_terms import ChatPolicy, ChatUnavailable, Names, on_this_machine
from services.generation.endpoint import api_key_problem, base_url_problem
from services.generation.llm import without_thinking
from services.generation.openai_chat import ChatClient

if TYPE_CHECKING:  # httpx is imported where a request is made: an offline run never loads it
    import httpx

BASE_URL_ENV = "NL_SQL_JUDGE_BASE_URL"
MODEL_ENV = "NL_SQL_JUDGE_MODEL"
API_KEY_ENV = "NL_SQL_JUDGE_API_KEY"
TIMEOUT_ENV = "NL_SQL_JUDGE_TIMEOUT_S"
SCHEMA_REJECTED = frozenset({400, 422})
"""Statuses that mean "this endpoint does not take ``response_format: json_schema``"."""
MAX_REPLY_CHARS = 20_000

OutputMode = Literal["json_schema", "prompt"]
_FENCED = re.compile(r"\A```(?:json)?[ \t]*\n(?P<body>.*)\n```\Z", re.DOTALL | re.IGNORECASE)


class JudgeConfigError(UsageError):
    """The judge's configuration is missing or invalid; the message names the variable."""


class InvalidReply(ValueError):
    """A judge reply that fails validation; the message says what is wrong."""


@dataclass(frozen=True)
class JudgeReply:
    """A validated reply: four subscores (faithfulness None without answer text), a band, an explanation."""

    intent: int
    sql_quality: int
    result_relevance: int
    answer_faithfulness: int | None
    band: Band
    explanation: str

    def subscores(self) -> dict[str, int | None]:
        return {name: getattr(self, name) for name in DIMENSIONS}


def validate_reply(content: str, turn: Turn) -> JudgeReply:
    """Parse and check a judge's reply for ``turn``; anything off is :class:`InvalidReply`.

    One JSON object (a ``<think>`` block before it, or one json fence around it, is tolerated), with
    exactly the six keys; subscores are JSON integers 0..10 (not 7.0, not "7", not true); faithfulness
    is null exactly when the turn has no answer text; the band is good/partial/poor; the explanation is
    non-empty text of at most 1200 characters.
    """
    if len(content) > MAX_REPLY_CHARS:
        raise InvalidReply(f"the reply is {len(content):,} characters long; a judgement is one short JSON object")
    text = without_thinking(content).strip()
    fenced = _FENCED.match(text)
    text = fenced.group("body").strip() if fenced else text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidReply(f"not a JSON object ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise InvalidReply(f"the reply is a JSON {type(data).__name__}, not an object")
    expected = {*DIMENSIONS, "band", "explanation"}
    missing, extra = sorted(expected - set(data)), sorted(set(data) - expected)
    if missing or extra:
        said = [f"missing {', '.join(missing)}"] if missing else []
        said += [f"unexpected {', '.join(extra)}"] if extra else []
        raise InvalidReply("; ".join(said))
    scores: dict[str, int | None] = {}
    for name in DIMENSIONS:
        value = data[name]
        if name == "answer_faithfulness" and turn.answer is None:
            if value is not None:
                raise InvalidReply("answer_faithfulness must be null: the turn has no answer text")
            scores[name] = None
            continue
        if type(value) is not int:  # bool is an int subclass; 7.0 and "7" are not integers either
            raise InvalidReply(f"{name} must be an integer 0..10, got {json.dumps(value)}")
        if not 0 <= value <= 10:
            raise InvalidReply(f"{name} is {value}, outside 0..10")
        scores[name] = value
    band = data["band"]
    if band not in BANDS:
        raise InvalidReply(f"band must be one of {', '.join(BANDS)}, got {json.dumps(band)[:40]}")
    explanation = data["explanation"]
    if not isinstance(explanation, str) or not explanation.strip():
        raise InvalidReply("explanation must be non-empty text")
    if len(explanation) > MAX_EXPLANATION:
        raise InvalidReply(f"explanation is {len(explanation)} characters; at most {MAX_EXPLANATION}")
    return JudgeReply(
        intent=int(scores["intent"] or 0),
        sql_quality=int(scores["sql_quality"] or 0),
        result_relevance=int(scores["result_relevance"] or 0),
        answer_faithfulness=scores["answer_faithfulness"],
        band=band,
        explanation=explanation.strip(),
    )


@dataclass(frozen=True)
class Judgement:
    """One turn judged: scored (a valid reply and its arithmetic) or unmeasured (and why)."""

    turn: Turn
    reply: JudgeReply | None = None
    arithmetic: Arithmetic | None = None
    reason: str | None = None
    """Why the turn is unmeasured; None when scored."""
    attempts: int = 0
    """Replies asked for (1, or 2 after an invalid one)."""
    output_mode: OutputMode | None = None
    """How the reply that counted was constrained: ``json_schema`` or ``prompt`` (validation only)."""
    unavailable: bool = False
    """The endpoint could not be asked (as opposed to answering invalidly)."""
    invalid_replies: tuple[str, ...] = field(default=())
    """What was wrong with each invalid reply."""

    @property
    def scored(self) -> bool:
        return self.arithmetic is not None


class Judge:
    """Asks one judge model about captured turns; the same instance keeps what it learned of the endpoint."""

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, timeout_s: float = 60.0) -> None:
        problem = base_url_problem(base_url.strip())
        if problem is not None:
            raise JudgeConfigError(
                f"{BASE_URL_ENV} {problem} (its value is not shown: it may hold a credential); set it to the "
                "endpoint root, e.g. http://localhost:11434/v1. Nothing was judged"
            )
        problem = api_key_problem(api_key) if api_key else None
        if problem is not None:
            raise JudgeConfigError(f"{API_KEY_ENV} {problem}. Nothing was judged")
        if not (timeout_s > 0 and math.isfinite(timeout_s)):
            raise JudgeConfigError(f"{TIMEOUT_ENV} must be a positive number of seconds. Nothing was judged")
        self.model = model.strip()
        self.client = ChatClient(
            base_url.strip(),
            api_key=api_key,
            policy=ChatPolicy(timeout_s=timeout_s),
            label=f"judge (model {self.model!r})",
            names=Names(BASE_URL_ENV, API_KEY_ENV, MODEL_ENV, TIMEOUT_ENV),
        )
        self.output_mode: OutputMode = "json_schema"
        self.schema_note: str | None = None
        """Set when the endpoint rejected the schema-constrained request: why replies are prompt-only."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Judge:
        """The judge the ``NL_SQL_JUDGE_*`` variables name; :class:`JudgeConfigError` names what is missing."""
        env = os.environ if environ is None else environ
        base, model, key = ((env.get(n) or "").strip() for n in (BASE_URL_ENV, MODEL_ENV, API_KEY_ENV))
        missing = [n for n, v in ((BASE_URL_ENV, base), (MODEL_ENV, model)) if not v]
        if not missing and not key and base_url_problem(base) is None and not on_this_machine(base):
            missing.append(f"{API_KEY_ENV} (required for an endpoint not on this machine)")
        if missing:
            raise JudgeConfigError(
                f"the judge is not configured; not set: {', '.join(missing)}. Nothing was judged. Point "
                f"{BASE_URL_ENV} and {MODEL_ENV} at an OpenAI-compatible endpoint (e.g. Ollama, vLLM, OpenAI)"
            )
        raw = (env.get(TIMEOUT_ENV) or "").strip()
        try:
            timeout = float(raw) if raw else 60.0
        except ValueError:
            timeout = -1.0
        if not (timeout > 0 and math.isfinite(timeout)):
            raise JudgeConfigError(f"{TIMEOUT_ENV}={raw!r} must be a positive number of seconds")
        return cls(base, model, api_key=key or None, timeout_s=timeout)

    def identity(self) -> dict[str, Any]:
        """Who judged: scores of two identities are never aggregated together."""
        return {"model": self.model, "rubric_version": RUBRIC_VERSION, "prompt_sha256": PROMPT_SHA256}

    def describe(self) -> dict[str, Any]:
        return self.identity() | {
            "endpoint": self.client.shown,
            "output_mode": self.output_mode,
            "schema_note": self.schema_note,
        }

    def session(self) -> httpx.AsyncClient:
        return self.client.session()

    async def _ask(self, body: dict[str, Any], turn: Turn, session: httpx.AsyncClient | None) -> tuple[str, OutputMode]:
        mode = self.output_mode
        if mode == "json_schema":
            try:
                reply = await self.client.acomplete(body | {"response_format": response_format(turn)}, session)
                return reply.content, "json_schema"
            except ChatUnavailable as exc:
                if exc.status not in SCHEMA_REJECTED:
                    raise
                self.output_mode = "prompt"  # not asked with a schema again: every turn would pay a 400
                self.schema_note = f"the endpoint rejected response_format json_schema ({exc}); validated only"
        reply = await self.client.acomplete(body, session)
        return reply.content, "prompt"

    async def ajudge(self, turn: Turn, session: httpx.AsyncClient | None = None) -> Judgement:
        """Judge one turn: a valid reply within two, or unmeasured. Never raises for the endpoint's sake."""
        messages = build_messages(turn)
        problems: list[str] = []
        mode: OutputMode | None = None
        for attempt in (1, 2):
            body = {"model": self.model, "messages": messages, "temperature": 0, "stream": False}
            try:
                content, mode = await self._ask(body, turn, session)
            except ChatUnavailable as exc:
                return Judgement(
                    turn,
                    reason=f"judge unavailable: {exc}",
                    attempts=attempt,
                    unavailable=True,
                    invalid_replies=tuple(problems),
                )
            try:  # what the endpoint said is shown: an endpoint that echoes its key or its URL's token shows ***
                reply = validate_reply(content, turn)
                reply = replace(reply, explanation=self.client.scrub(reply.explanation))
            except InvalidReply as exc:
                problems.append(self.client.scrub(str(exc)))
                messages = [
                    *messages,
                    {"role": "assistant", "content": content[:2000]},
                    {
                        "role": "user",
                        "content": f"That reply is not valid: {exc}. Reply again with the JSON object only, "
                        "exactly as the instructions say.",
                    },
                ]
                continue
            arithmetic = compose(reply.subscores(), reply.band, caps_for(turn))
            return Judgement(turn, reply, arithmetic, None, attempt, mode, invalid_replies=tuple(problems))
        return Judgement(
            turn,
            reason="the judge's reply was invalid twice: " + "; then: ".join(problems),
            attempts=2,
            output_mode=mode,
            invalid_replies=tuple(problems),
        )

    def judge(self, turn: Turn) -> Judgement:
        """:meth:`ajudge` for callers outside an event loop (the trajectory suite's evaluator)."""
        return asyncio.run(self.ajudge(turn))
