"""Secrets out of anything shown: database URLs, endpoint URLs, and text that may echo them.

One place for what counts as a secret (a password in the user info, a user name standing alone before
an endpoint's host, a query value whose key looks like a credential, a fragment) and how it is masked
(``***``), so a database URL, a model endpoint and an error message that quotes either are redacted
alike. A string that does not parse as a URL, or has no ``scheme://`` (``sk-...@host/v1``), is masked
by pattern, never echoed as it is: nothing marks which part of it is the secret.

A known secret (an API key, a password) is scrubbed from free text only where it stands as a whole
token (:func:`scrub_secrets`): a key ``a`` masks the word ``a``, never every letter a.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Mapping

__all__ = [
    "ENV_SECRET_NAME_PARTS",
    "KEY_CHARS",
    "SECRET_KEY_PARTS",
    "environment_secrets",
    "is_secret_key",
    "redact_http_url",
    "redact_text",
    "redact_traceback",
    "redact_url",
    "scrub_secrets",
    "url_secrets",
]

SECRET_KEY_PARTS = ("password", "passwd", "pwd", "token", "secret", "key", "auth", "credential", "sig")
"""A query parameter whose name contains one of these holds a secret (``api-key``, ``sslpassword``...)."""
ENV_SECRET_NAME_PARTS = ("key", "token", "secret", "password", "passwd", "credential")
"""An environment variable whose name contains one of these holds a secret. Narrower than the query's
list: ``PWD`` and ``XAUTHORITY`` hold paths, and masking them would blank every path in a traceback."""
KEY_CHARS = "A-Za-z0-9_-"
"""What API keys and tokens are made of: a secret next to one of these is part of a longer token, not it."""
MIN_TOKEN_CHARS = 4
"""A user name, a fragment or an environment value shorter than this is not taken for a secret: masking
``a`` or ``ro`` as a token would blank common words and say nothing a reader could use."""

_SECRET_VALUE = re.compile(r"(?i)\b([\w.-]*(?:" + "|".join(SECRET_KEY_PARTS) + r")[\w.-]*=)[^&\s]*")
_USERINFO = re.compile(r"((?:\b[A-Za-z][\w+.-]*://)?)[^\s@'\"()]+@")
"""User info to mask, keeping a ``scheme://`` before it: ``http://sk-...@host`` is shown ``http://***@host``."""
_FRAGMENT = re.compile(r"#.*\Z", re.DOTALL)
_BARE_USERINFO = re.compile(r"\A(?:[A-Za-z][\w+.-]*:/*)?([^\s@/'\"()]+)@")
"""The user info of a URL written without ``//`` (``sk-...@host/v1``): in its first segment only, so an
``@`` further along a path (``sqlite:///a/with@b``) is not taken for one."""


def is_secret_key(key: str) -> bool:
    return any(part in key.lower() for part in SECRET_KEY_PARTS)


def redact_text(text: str) -> str:
    """Mask, in text that does not parse as a URL, everything before an ``@`` (where user info and a
    password would be) and the values of ``secret=value`` pairs.

    Example:
        >>> redact_text("postgresql//bob:hunter2@db/x?token=abc")
        '***@db/x?token=***'
    """
    return _SECRET_VALUE.sub(r"\1***", _USERINFO.sub(r"\1***@", text))


def scrub_secrets(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each secret replaced by ``***`` where it stands as a whole token: not next to a
    letter, digit, ``_`` or ``-`` (:data:`KEY_CHARS`) on a side where the secret itself has one, and
    after a percent-escape (``%3D``) too. Longer secrets first, so one holding another is masked whole.

    Example:
        >>> scrub_secrets("a key a in a_b, Bearer a.", {"a"})
        '*** key *** in a_b, Bearer ***.'
    """
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = _token(secret).sub("***", text)
    return text


def _token(secret: str) -> re.Pattern[str]:
    key_char = re.compile(f"[{KEY_CHARS}]")
    before = rf"(?:(?<![{KEY_CHARS}])|(?<=%[0-9A-Fa-f]{{2}}))" if key_char.match(secret[0]) else ""
    after = rf"(?![{KEY_CHARS}])" if key_char.match(secret[-1]) else ""
    return re.compile(before + re.escape(secret) + after)


def redact_url(url: str) -> str:
    """A database URL with its password, secret-looking query parameters and anything after a ``#`` in
    its path replaced by ``***``.

    Example:
        >>> redact_url("postgresql://bob:hunter2@db:5432/shop?sslmode=require&token=abc")
        'postgresql://bob:***@db:5432/shop?sslmode=require&token=***'
    """
    import sqlalchemy as sa  # here, not at import: a crash's traceback is redacted even without it
    from sqlalchemy.engine import make_url

    raw = str(url)
    fragment = raw.find("#", raw.rfind("@") + 1)  # after the user info: a password may hold a '#'
    if fragment >= 0:
        raw = raw[:fragment]
    try:
        parsed = make_url(raw)
    except (sa.exc.ArgumentError, ValueError, TypeError):
        return redact_text(raw) + ("#***" if fragment >= 0 else "")
    if parsed.database and "#" in parsed.database:  # a URL object's text writes it %23
        parsed = parsed.set(database=parsed.database.split("#", 1)[0])
        fragment = max(fragment, 0)
    text = parsed.set(query={}).render_as_string(hide_password=True)
    pairs = []
    for key, value in parsed.query.items():
        for item in value if isinstance(value, tuple) else (value,):
            pairs.append(f"{key}={'***' if is_secret_key(key) else item}")
    text = _SECRET_VALUE.sub(r"\1***", text + ("?" + "&".join(pairs) if pairs else ""))
    return text + ("#***" if fragment >= 0 else "")


def redact_http_url(url: str) -> str:
    """An HTTP URL with a password in its user info, a user name standing alone (an endpoint's token, as in
    ``https://sk-...@host``), secret-looking query values and any fragment replaced by ``***``. Without
    ``scheme://`` there is no user info to find by parsing: everything before an ``@`` is masked.

    Example:
        >>> redact_http_url("https://bob:hunter2@api.example.com/v1?api-key=abc&region=eu")
        'https://bob:***@api.example.com/v1?api-key=***&region=eu'
        >>> redact_http_url("https://sk-abc123@api.example.com/v1?sig=xyz#token")
        'https://***@api.example.com/v1?sig=***#***'
        >>> redact_http_url("sk-abc123@api.example.com/v1")
        '***@api.example.com/v1'
    """
    try:
        parts = urllib.parse.urlsplit(url)
        if not parts.netloc:
            return _FRAGMENT.sub("#***", redact_text(url))
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
    """The password, a user name standing alone, secret query values and the fragment in ``url`` (as
    written and unquoted), to scrub from any text that may echo them; a URL without ``scheme://``, or one
    that does not parse (``http://[::1/v1?key=...``), by pattern."""
    query = url.split("#", 1)[0].split("?", 1)[1] if "?" in url.split("#", 1)[0] else ""
    found = {v for k, v in urllib.parse.parse_qsl(query) if v and is_secret_key(k)}
    try:
        parts = urllib.parse.urlsplit(url)
        user, password = parts.username, parts.password
        fragment = parts.fragment
    except (ValueError, TypeError):
        user, password, fragment = None, None, url.split("#", 1)[1] if "#" in url else ""
        parts = None
    if parts is None or not parts.netloc:  # sk-...@host/v1: the user info is read as the path
        bare = _BARE_USERINFO.match(url.split("?", 1)[0].split("#", 1)[0])
        if bare:
            name, colon, secret = bare.group(1).partition(":")
            user, password = name, (secret if colon else None)
    if password:
        found.add(password)
    if user and password is None and len(user) >= MIN_TOKEN_CHARS:
        found.add(user)  # a user name standing alone is a token (a letter or two is not)
    if len(fragment) >= MIN_TOKEN_CHARS:
        found.add(fragment)
    return {s for s in found if s} | {urllib.parse.unquote(s) for s in found if s}


def environment_secrets(environ: Mapping[str, str], argv: Iterable[str] = ()) -> set[str]:
    """What a crash's traceback may echo that is secret: the values of variables named like credentials
    (:data:`ENV_SECRET_NAME_PARTS`), and the secrets in every URL-like value of the environment and of
    the command line (``NL_SQL_LLM_BASE_URL``, ``--db-url``)."""
    found: set[str] = set()
    for name, value in environ.items():
        value = value.strip()
        if len(value) >= MIN_TOKEN_CHARS and any(p in name.lower() for p in ENV_SECRET_NAME_PARTS):
            found.add(value)
        if "@" in value or "://" in value or "?" in value:
            found |= url_secrets(value)
    for arg in argv:
        if "@" in arg or "://" in arg or "?" in arg:
            found |= url_secrets(arg.split("=", 1)[1] if arg.startswith("--") and "=" in arg else arg)
    return found


def redact_traceback(text: str, environ: Mapping[str, str], argv: Iterable[str] = ()) -> str:
    """A traceback fit to print: every secret of the environment and the command line scrubbed
    (:func:`environment_secrets`), then user info and ``secret=value`` pairs masked by pattern."""
    return redact_text(scrub_secrets(text, environment_secrets(environ, argv)))
