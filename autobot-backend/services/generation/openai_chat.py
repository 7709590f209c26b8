"""An OpenAI-compatible ``/chat/completions`` client: httpx for the transport, tenacity for retries.

OpenAI, vLLM, Ollama and a llama.cpp server accept the same request. The SQL generator and the
judge both call them through :class:`ChatClient`, synchronously (:meth:`ChatClient.complete`, for
the service's own ``query`` path) or as a coroutine (:meth:`ChatClient.acomplete`, for the eval's
concurrent runs, where a cancelled call really stops).

What a call may cost is bounded (:class:`ChatPolicy`):

* one attempt has a total deadline, headers and the whole body together, checked as the body
  arrives: a server that trickles its reply a byte at a time cannot hold a call past it;
* a reply body larger than ``max_reply_bytes`` is abandoned, never read into memory: on the wire and
  decoded both (:mod:`services.generation.reply_body`: the client decodes gzip and deflate itself, a
  chunk at a time with ``zlib``'s ``max_length``, so a decompression bomb stops at the limit);
* 429, 502, 503, 504 and a dropped connection are retried, with exponential backoff and full
  jitter, honouring ``Retry-After``, within ``max_attempts`` attempts and a total ``budget_s`` (no
  wait that would end past it is started); 400, 401, 403, 404, any other answer, a refused
  connection and an attempt past its deadline are not (a hung server would cost a full deadline per
  retry; the eval stops asking a dead endpoint after a few in a row instead).

Credentials never reach a message: an API key is sent only as a header, and a key in the base
URL's query (``?api-key=``) or user info (``user:secret@``) is masked wherever the URL is shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
    wait_random_exponential,
)

from services.generation.chat_terms import (
    RETRYABLE_STATUS,
    ChatPolicy,
    ChatReply,
    ChatUnavailable,
    Names,
    chat_endpoint,
    count,
    error_text,
    first_line,
    http_error_message,
    retry_after,
)
from services.generation.reply_body import ACCEPT_ENCODING, BoundedBody, ReplyTooLarge, check_length
from services.redaction import redact_http_url, scrub_secrets, url_secrets

if TYPE_CHECKING:  # httpx is imported where a request is made: an offline run never loads it
    import httpx

_LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


class _Wait:
    """Honour ``Retry-After`` when the server sent one; otherwise exponential backoff with full jitter."""

    def __init__(self, policy: ChatPolicy) -> None:
        self.jitter = wait_random_exponential(multiplier=policy.backoff_s, max=policy.backoff_max_s)

    def __call__(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome is not None else None
        after = getattr(error, "retry_after_s", None)
        return float(after) if after is not None else float(self.jitter(state))


class _ScrubSecrets(logging.Filter):
    """Masks every endpoint secret in the HTTP libraries' own log records: httpx logs each request's
    full URL at INFO, user info and ``?api-key=`` included."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            record.msg, record.args = scrub_secrets(record.getMessage(), self.secrets), ()
        return True


_LOG_SCRUB = _ScrubSecrets()
logging.getLogger("httpx").addFilter(_LOG_SCRUB)  # httpcore logs no URLs


class ChatClient:
    """Calls one OpenAI-compatible endpoint under a :class:`ChatPolicy`.

    Args:
        base_url: the API root (``http://localhost:11434/v1``) or the full ``.../chat/completions``.
        api_key: sent as ``Authorization: Bearer``; optional for local servers.
        label: how messages name the caller (``openai-chat``, ``judge``).
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        policy: ChatPolicy | None = None,
        label: str = "chat endpoint",
        names: Names | None = None,
    ) -> None:
        self.endpoint = chat_endpoint(base_url)
        self.shown = redact_http_url(self.endpoint)
        self.policy = policy or ChatPolicy()
        self.label = label
        self.names = names or Names()
        self._secrets = url_secrets(base_url) | ({api_key} if api_key else set())
        _LOG_SCRUB.secrets |= self._secrets
        self._headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Accept-Encoding": ACCEPT_ENCODING,  # what BoundedBody decodes under its limit
        }
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        # A local server (Ollama, llama.cpp) is never reached through a proxy from the environment.
        self._trust_env = urllib.parse.urlsplit(self.endpoint).hostname not in _LOOPBACK_HOSTS

    def scrub(self, text: str) -> str:
        """``text`` with this endpoint's secrets masked where each stands as a whole token."""
        return scrub_secrets(text, self._secrets)

    def _timeout(self, remaining: float) -> httpx.Timeout:
        import httpx

        return httpx.Timeout(
            max(0.01, min(self.policy.timeout_s, remaining)),
            connect=max(0.01, min(self.policy.connect_timeout_s, remaining)),
        )

    def _retrying_args(self) -> dict[str, Any]:
        p = self.policy
        return {
            "stop": stop_after_attempt(p.max_attempts) | stop_before_delay(p.budget_s),
            "wait": _Wait(p),
            "retry": retry_if_exception(lambda e: isinstance(e, ChatUnavailable) and e.retryable),
            "reraise": True,
        }

    def complete(self, body: dict[str, Any]) -> ChatReply:
        """One chat completion, retried under the policy; raises :class:`ChatUnavailable`."""
        call = _Call(self, body)
        import httpx

        with httpx.Client(trust_env=self._trust_env) as client:

            def attempt() -> _Read:
                deadline, request = call.begin()
                try:
                    with client.stream(**request) as response:
                        reply = self._body(response)
                        for chunk in response.iter_raw():
                            self._grow(reply, chunk, deadline)
                        return call.read(response, reply)
                except httpx.HTTPError as exc:
                    raise self._transport_error(exc) from None

            with call.counted():
                status, data, _ = Retrying(**self._retrying_args())(lambda: self._checked(attempt()))
        return self._reply(status, data, call.started, call.attempts)

    def session(self) -> httpx.AsyncClient:
        """An HTTP session many :meth:`acomplete` calls of one run can share (its connections and TLS set-up
        are made once); the caller closes it (``await session.aclose()``) in the loop that made it."""
        import httpx

        return httpx.AsyncClient(trust_env=self._trust_env)

    async def acomplete(self, body: dict[str, Any], session: httpx.AsyncClient | None = None) -> ChatReply:
        """:meth:`complete` as a coroutine; cancelling it closes the connection.

        Args:
            session: from :meth:`session`, shared by a run's calls; None: a session of this call's own.
        """
        if session is None:
            async with self.session() as own:
                return await self.acomplete(body, own)
        call = _Call(self, body)
        import httpx

        async def attempt() -> _Read:
            deadline, request = call.begin()
            try:
                async with asyncio.timeout(max(0.01, deadline - time.monotonic())):
                    async with session.stream(**request) as response:
                        reply = self._body(response)
                        async for chunk in response.aiter_raw():
                            self._grow(reply, chunk, deadline)
                        return call.read(response, reply)
            except TimeoutError:
                raise self._slow() from None
            except httpx.HTTPError as exc:
                raise self._transport_error(exc) from None

        async def checked() -> _Read:
            return self._checked(await attempt())

        with call.counted():
            status, data, _ = await _aretry(self._retrying_args(), checked)
        return self._reply(status, data, call.started, call.attempts)

    # --- one attempt's outcome -------------------------------------------------------------

    def _body(self, response: httpx.Response) -> BoundedBody:
        """The reply's body to read off the wire, its limit checked on the declared length first."""
        try:
            check_length(response.headers.get("content-length"), self.policy.max_reply_bytes)
            return BoundedBody(response.headers.get("content-encoding"), self.policy.max_reply_bytes)
        except ReplyTooLarge as exc:
            raise self._too_large(exc) from None
        except ValueError as exc:
            raise self._error(f"{exc}; abandoned") from None

    def _grow(self, body: BoundedBody, chunk: bytes, deadline: float) -> None:
        try:
            body.feed(chunk)
        except ReplyTooLarge as exc:
            raise self._too_large(exc) from None
        except ValueError as exc:
            raise self._error(f"{exc}; abandoned") from None
        if time.monotonic() > deadline:
            raise self._slow()

    def _too_large(self, exc: ReplyTooLarge) -> ChatUnavailable:
        return self._error(f"{exc}; abandoned (is this a chat completion endpoint?)")

    def _slow(self) -> ChatUnavailable:
        return self._error(
            f"no answer within {self.policy.timeout_s:g} s (none, or too slow in coming): the server may be "
            f"overloaded or the model still loading: raise {self.names.timeout} or retry"
        )

    def _transport_error(self, exc: httpx.HTTPError) -> ChatUnavailable:
        import httpx

        if isinstance(exc, httpx.TimeoutException):
            return self._slow()
        if isinstance(exc, httpx.ConnectError):
            what = "connection refused" if "refused" in str(exc).lower() else f"cannot connect ({first_line(exc)})"
            return self._error(f"{what}: is the server running? check {self.names.base_url}")
        if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
            return self._error(f"the connection dropped ({type(exc).__name__})", retryable=True)
        return self._error(f"the request failed ({type(exc).__name__}: {first_line(exc)})")

    def _checked(self, result: _Read) -> _Read:
        status, data, after = result
        if status >= 400:
            raise self._error(
                http_error_message(status, data, self.names),
                retryable=status in RETRYABLE_STATUS,
                status=status,
                retry_after_s=retry_after(after) if status in RETRYABLE_STATUS else None,
            )
        return result

    def _error(self, message: str, **kw: Any) -> ChatUnavailable:
        return ChatUnavailable(self.scrub(f"{self.label} at {self.shown}: {message}"), **kw)

    def _reply(self, status: int, data: bytes, started: float, attempts: int) -> ChatReply:
        try:
            payload = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):  # RecursionError: nested too deep
            snippet = data[:80].decode("utf-8", "replace")
            raise self._error(
                f"the reply is not JSON (starts with {snippet!r}); check that {self.names.base_url} is the API "
                "root (for Ollama it ends in /v1)"
            ) from None
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            content = None
        if not isinstance(content, str):
            error = payload.get("error") if isinstance(payload, dict) else None
            hint = f" (the server says: {error_text(error)})" if error else ""
            raise self._error(
                f"the reply has no choices[0].message.content{hint}; is this an OpenAI-compatible "
                "/chat/completions endpoint?"
            )
        usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
        return ChatReply(
            content,
            count(usage.get("prompt_tokens")),
            count(usage.get("completion_tokens")),
            round((time.monotonic() - started) * 1000, 3),
            attempts,
        )


_Read = tuple[int, bytes, str | None]
"""One attempt's status, body and Retry-After header."""


class _Call:
    """One completion's clock, attempt count and request, shared by :meth:`ChatClient.complete` and
    :meth:`ChatClient.acomplete`, so the two differ only in how they wait for bytes."""

    def __init__(self, chat: ChatClient, body: dict[str, Any]) -> None:
        self.chat = chat
        self.body = body
        self.started = time.monotonic()
        self.budget_end = self.started + chat.policy.budget_s
        self.attempts = 0

    def begin(self) -> tuple[float, dict[str, Any]]:
        """A new attempt: its deadline (its own timeout, within the call's budget) and the request to stream."""
        self.attempts += 1
        deadline = min(time.monotonic() + self.chat.policy.timeout_s, self.budget_end)
        request = {
            "method": "POST",
            "url": self.chat.endpoint,
            "json": self.body,
            "headers": self.chat._headers,
            "timeout": self.chat._timeout(deadline - time.monotonic()),
        }
        return deadline, request

    @staticmethod
    def read(response: httpx.Response, reply: BoundedBody) -> _Read:
        return response.status_code, reply.finish(), response.headers.get("retry-after")

    @contextlib.contextmanager
    def counted(self) -> Iterator[None]:
        """The attempts made so far stamped on a failure that ends the call."""
        try:
            yield
        except ChatUnavailable as exc:
            exc.attempts = self.attempts
            raise


async def _aretry(args: dict[str, Any], call: Callable[[], Awaitable[Any]]) -> Any:
    async for attempt in AsyncRetrying(**args):
        with attempt:
            return await call()
    raise AssertionError("unreachable: tenacity reraises the last error")  # pragma: no cover
