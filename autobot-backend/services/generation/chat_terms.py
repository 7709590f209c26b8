"""What a chat call is, apart from how it is made: what it may cost (:class:`ChatPolicy`), what it returns
(:class:`ChatReply`), how it fails (:class:`ChatUnavailable`, and an HTTP error phrased for a person), and where it
goes (the endpoint's URL, and whether it stays on this machine). :mod:`services.generation.openai_chat` makes the
call; callers that only configure or phrase one need not load it."""

from __future__ import annotations

import email.utils
import ipaddress
import json
import urllib.parse
from dataclasses import dataclass
from datetime import UTC, datetime

RETRYABLE_STATUS = frozenset({429, 502, 503, 504})
"""HTTP statuses a later attempt may get past: rate limits and gateways. 500 is the server's own failure."""
_SNIPPET = 200


@dataclass(frozen=True)
class ChatPolicy:
    """What one call may cost."""

    timeout_s: float = 60.0
    """One attempt: connecting, the headers and the whole body, in seconds."""
    connect_timeout_s: float = 10.0
    max_attempts: int = 4
    budget_s: float = 180.0
    """Every attempt and every wait between them, together."""
    backoff_s: float = 1.0
    """The scale of the first wait between attempts; it doubles per attempt, with full jitter."""
    backoff_max_s: float = 30.0
    max_reply_bytes: int = 4_000_000


class ChatUnavailable(Exception):
    """The endpoint could not be asked, or did not answer with a chat completion; already phrased."""

    def __init__(
        self, message: str, *, retryable: bool = False, status: int | None = None, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message)
        self.retryable, self.status, self.retry_after_s = retryable, status, retry_after_s
        self.attempts = 1


@dataclass(frozen=True)
class Names:
    """How messages name the settings a user can change (the caller's environment variables)."""

    base_url: str = "the base URL"
    api_key: str = "the API key"
    model: str = "the model name"
    timeout: str = "the timeout"


@dataclass(frozen=True)
class ChatReply:
    content: str
    """``choices[0].message.content``."""
    prompt_tokens: int | None
    """From the reply's ``usage``; None when the endpoint does not report it."""
    completion_tokens: int | None
    latency_ms: float
    """The whole call, retries and waits included."""
    attempts: int


def chat_endpoint(base_url: str) -> str:
    """``base_url`` with ``/chat/completions`` appended to its path (never after its query string)."""
    parts = urllib.parse.urlsplit(base_url.strip())
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))


def on_this_machine(base_url: str) -> bool:
    """Whether the endpoint is local (``localhost`` or a loopback address): the only kind a caller may
    use without an API key, since nothing it is sent leaves the machine."""
    try:
        host = urllib.parse.urlsplit(base_url).hostname or ""
    except ValueError:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def error_text(error: object) -> str:
    if isinstance(error, dict):
        error = error.get("message") or error
    return str(error)[:_SNIPPET]


def http_error_message(status: int, body: bytes, names: Names) -> str:
    text = body[:4096].decode("utf-8", "replace")
    try:
        detail = error_text(json.loads(text).get("error") or text)
    except (json.JSONDecodeError, AttributeError):
        detail = text.strip()[:_SNIPPET]
    said = f" (the server says: {detail})" if detail else ""
    if status in (401, 403):
        advice = f"the endpoint rejected the credentials: check {names.api_key}"
    elif status == 404:
        advice = f"not found: check {names.base_url} (the API root, e.g. ending in /v1) and {names.model}"
    elif status == 429:
        advice = "rate limited or out of quota: retried, still limited; retry later or check the account"
    elif status >= 500:
        advice = "the server failed; check its logs or retry"
    else:
        advice = f"the request was rejected; check {names.model} and the server's API"
    return f"HTTP {status}: {advice}{said}"
