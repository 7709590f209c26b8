"""Secrets out of anything shown: database URLs, endpoint URLs, and text that may echo them.

One place for what counts as a secret (a password in the user info, a query value whose key looks
like a credential) and how it is masked (``***``), so a database URL, a model endpoint and an error
message that quotes either are redacted alike. A string that does not parse as a URL is masked by
pattern, never echoed as it is: nothing marks which part of it is the secret.
"""

from __future__ import annotations

import re
import urllib.parse

import sqlalchemy as sa
from sqlalchemy.engine import make_url

__all__ = ["SECRET_KEY_PARTS", "is_secret_key", "redact_http_url", "redact_text", "redact_url", "url_secrets"]

SECRET_KEY_PARTS = ("password", "passwd", "pwd", "token", "secret", "key", "auth", "credential", "sig")
"""A query parameter whose name contains one of these holds a secret (``api-key``, ``sslpassword``...)."""

_SECRET_VALUE = re.compile(r"(?i)\b([\w.-]*(?:" + "|".join(SECRET_KEY_PARTS) + r")[\w.-]*=)[^&\s]*")
_USERINFO = re.compile(r"[^\s@'\"()]+@")


def is_secret_key(key: str) -> bool:
    return any(part in key.lower() for part in SECRET_KEY_PARTS)


def redact_text(text: str) -> str:
    """Mask, in text that does not parse as a URL, everything before an ``@`` (where user info and a
    password would be) and the values of ``secret=value`` pairs.

    Example:
        >>> redact_text("postgresql//bob:hunter2@db/x?token=abc")
        '***@db/x?token=***'
    """
    return _SECRET_VALUE.sub(r"\1***", _USERINFO.sub("***@", text))


def redact_url(url: str) -> str:
    """A database URL with its password and secret-looking query parameters replaced by ``***``.

    Example:
        >>> redact_url("postgresql://bob:hunter2@db:5432/shop?sslmode=require&token=abc")
        'postgresql://bob:***@db:5432/shop?sslmode=require&token=***'
    """
    try:
        parsed = make_url(url)
    except (sa.exc.ArgumentError, ValueError, TypeError):
        return redact_text(str(url))
    text = parsed.set(query={}).render_as_string(hide_password=True)
    pairs = []
    for key, value in parsed.query.items():
        for item in value if isinstance(value, tuple) else (value,):
            pairs.append(f"{key}={'***' if is_secret_key(key) else item}")
    return _SECRET_VALUE.sub(r"\1***", text + ("?" + "&".join(pairs) if pairs else ""))


def redact_http_url(url: str) -> str:
    """An HTTP URL with a password in its user info, a user name standing alone (an endpoint's token, as in
    ``https://sk-...@host``), secret-looking query values and any fragment replaced by ``***``.

    Example:
        >>> redact_http_url("https://bob:hunter2@api.example.com/v1?api-key=abc&region=eu")
        'https://bob:***@api.example.com/v1?api-key=***&region=eu'
        >>> redact_http_url("https://sk-abc123@api.example.com/v1?sig=xyz#token")
        'https://***@api.example.com/v1?sig=***#***'
    """
    try:
        parts = urllib.parse.urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, host = netloc.rsplit("@", 1)
            user = userinfo.split(":", 1)[0]
            netloc = f"{user}:***@{host}" if ":" in userinfo else f"***@{host}"
        pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        query = "&".join(f"{k}={'***' if is_secret_key(k) else v}" for k, v in pairs)
        fragment = "***" if parts.fragment else ""
        return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, fragment))
    except ValueError:
        return "<an endpoint URL that does not parse>"


def url_secrets(url: str) -> set[str]:
    """The password and secret query values in ``url`` (as written and unquoted), to scrub from any text
    that may echo them."""
    try:
        parts = urllib.parse.urlsplit(url)
        found = {parts.password} if parts.password else set()
        if parts.username and parts.password is None and len(parts.username) >= 4:
            found.add(parts.username)  # a user name standing alone is a token (a letter or two is not)
        if len(parts.fragment) >= 4:
            found.add(parts.fragment)
        found |= {v for k, v in urllib.parse.parse_qsl(parts.query) if v and is_secret_key(k)}
    except (ValueError, TypeError):
        return set()
    return {s for s in found if s} | {urllib.parse.unquote(s) for s in found if s}
