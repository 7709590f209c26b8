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

import html
import json
import re
import urllib.parse
from collections.abc import Iterable, Mapping

__all__ = [
    "ENV_SECRET_NAME_PARTS",
    "KEY_CHARS",
    "SECRET_KEY_NAMES",
    "SECRET_KEY_PARTS",
    "SecretMask",
    "environment_secrets",
    "is_secret_key",
    "looks_like_token",
    "redact_http_url",
    "redact_text",
    "redact_traceback",
    "redact_url",
    "redact_urls_in_text",
    "scrub_secrets",
    "secret_forms",
    "url_secrets",
]

SECRET_KEY_PARTS = ("password", "passwd", "pwd", "token", "secret", "key", "auth", "credential", "sig")
"""A query parameter whose name contains one of these holds a secret (``api-key``, ``sslpassword``...)."""
SECRET_KEY_NAMES = frozenset(
    {"code", "jsessionid", "phpsessid", "aspsessionid", "sessionid", "session_id", "sid", "skoid", "sktid"}
)
"""Parameters that hold a secret under a name too common to match as a part: an OAuth ``code``, a session
id (``;jsessionid=`` in a path, ``?sid=``), an Azure SAS's signing key object and tenant (``skoid``, ``sktid``)."""
ENV_SECRET_NAME_PARTS = ("key", "token", "secret", "password", "passwd", "credential", "signature", "cookie")
"""An environment variable whose name contains one of these holds a secret. Narrower than the query's
list: ``PWD`` and ``XAUTHORITY`` hold paths, and masking them would blank every path in a traceback."""
KEY_CHARS = "A-Za-z0-9_-"
"""What API keys and tokens are made of: a secret next to one of these is part of a longer token, not it."""
UNPARSEABLE_DATABASE_URL = "<a database URL that does not parse>"
MIN_TOKEN_CHARS = 4
"""A user name, a fragment or an environment value shorter than this is not taken for a secret: masking
``a`` or ``ro`` as a token would blank common words and say nothing a reader could use."""

NOT_SECRET_VALUES = frozenset({"true", "false", "null", "none", "yes", "no", "on", "off"})
"""Settings' words, never taken for a secret: masked as tokens they would blank a JSON report's literals."""
_SECRET_VALUE = re.compile(
    r"(?i)\b([\w.-]*(?:"
    + "|".join(SECRET_KEY_PARTS)
    + r")[\w.-]*=|(?<![\w.-])(?:"
    + "|".join(sorted(SECRET_KEY_NAMES))
    + r")=)[^&\s]*"
)
_TOKEN_SHAPE = re.compile(
    r"(?:sk|rk|pk)[-_](?:[A-Za-z]+[-_])?[A-Za-z0-9_-]{12,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}"
    r"|glpat-[\w-]{20,}|xox[abeprs]-[\w-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[\w-]{30,}|hf_[A-Za-z0-9]{20,}"
    r"|npm_[A-Za-z0-9]{30,}|pypi-[\w-]{20,}|ya29\.[\w-]{20,}|eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*"
)
"""Credentials by their issuers' own prefixes (OpenAI and Stripe ``sk-``, GitHub ``ghp_``, GitLab, Slack, AWS
access key ids, Google, Hugging Face, npm, PyPI, a JWT): such a value is a secret whatever it is called."""
_RANDOM_SEGMENT = re.compile(r"[A-Za-z0-9_:-]{20,}")
_USERINFO = re.compile(r"((?:\b[A-Za-z][\w+.-]*://)?)[^\s@'\"()]+@")
"""User info to mask, keeping a ``scheme://`` before it: ``http://sk-...@host`` is shown ``http://***@host``."""
_FRAGMENT = re.compile(r"#.*\Z", re.DOTALL)
_ROLE_NAME = re.compile(r"[A-Za-z_]+")
"""A database user name of letters alone: a role (``postgres``), not a token."""
_BARE_USERINFO = re.compile(r"\A(?:[A-Za-z][\w+.-]*:/*)?([^\s@/'\"()]+)@")
"""The user info of a URL written without ``//`` (``sk-...@host/v1``): in its first segment only, so an
``@`` further along a path (``sqlite:///a/with@b``) is not taken for one."""


def is_secret_key(key: str) -> bool:
    lowered = key.lower()
    return lowered in SECRET_KEY_NAMES or any(part in lowered for part in SECRET_KEY_PARTS)


def looks_like_token(value: str, *, random: bool = False) -> bool:
    """Whether ``value`` is a credential by its shape: an issuer's prefix (:data:`_TOKEN_SHAPE`), or with
    ``random`` (a URL's path segment) 20 or more letters, digits, ``_``, ``-`` or ``:`` mixing upper case,
    lower case and digits, as generated tokens do and words, ids and model names rarely do.

    Example:
        >>> looks_like_token("ghp_" + "a1B2" * 9), looks_like_token("gpt-4o-2024-08-06", random=True)
        (True, False)
    """
    if _TOKEN_SHAPE.fullmatch(value):
        return True
    return (
        random
        and _RANDOM_SEGMENT.fullmatch(value) is not None
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


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
    """A database URL with its password, a user name standing alone (it may be a token; a letter or three is
    shown), secret-looking query parameters and anything after a ``#`` in its path replaced by ``***``; one
    that does not parse is not shown at all (nothing marks which part of it is the secret).

    Example:
        >>> redact_url("postgresql://bob:hunter2@db:5432/shop?sslmode=require&token=abc")
        'postgresql://bob:***@db:5432/shop?sslmode=require&token=***'
        >>> redact_url("postgresql://svc-7f3a9c@db/shop"), redact_url("notaurl hunter2")
        ('postgresql://***@db/shop', '<a database URL that does not parse>')
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
        return UNPARSEABLE_DATABASE_URL
    if parsed.database and "#" in parsed.database:  # a URL object's text writes it %23
        parsed = parsed.set(database=parsed.database.split("#", 1)[0])
        fragment = max(fragment, 0)
    if parsed.username and parsed.password is None and len(parsed.username) >= MIN_TOKEN_CHARS:
        parsed = parsed.set(username="***")
    text = parsed.set(query={}).render_as_string(hide_password=True).replace("%2A%2A%2A@", "***@", 1)
    pairs = []
    for key, value in parsed.query.items():
        for item in value if isinstance(value, tuple) else (value,):
            pairs.append(f"{key}={'***' if is_secret_key(key) else item}")
    text = _SECRET_VALUE.sub(r"\1***", text + ("?" + "&".join(pairs) if pairs else ""))
    return text + ("#***" if fragment >= 0 else "")


def redact_http_url(url: str) -> str:
    """An HTTP URL with a password in its user info, a user name standing alone (an endpoint's token, as in
    ``https://sk-...@host``), secret-looking query values and path parameters (``;jsessionid=``), a path
    segment shaped like a token (:func:`looks_like_token`) and any fragment replaced by ``***``. Without
    ``scheme://`` there is no user info to find by parsing: everything before an ``@`` is masked.

    Example:
        >>> redact_http_url("https://bob:hunter2@api.example.com/v1?api-key=abc&region=eu")
        'https://bob:***@api.example.com/v1?api-key=***&region=eu'
        >>> redact_http_url("https://sk-abc123@api.example.com/v1?sig=xyz#token")
        'https://***@api.example.com/v1?sig=***#***'
        >>> redact_http_url("sk-abc123@api.example.com/v1")
        '***@api.example.com/v1'
        >>> redact_http_url("https://h.example.com/T0AB/B0CD/xZ81kQ2mN7pL4rT6vW9yA3bC;jsessionid=F00D")
        'https://h.example.com/T0AB/B0CD/***;jsessionid=***'
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
        return urllib.parse.urlunsplit((parts.scheme, netloc, _masked_path(parts.path), query, fragment))
    except ValueError:
        return "<an endpoint URL that does not parse>"


def _path_pieces(path: str) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """Each ``/`` segment of a path as its name and its ``;key=value`` parameters."""
    pieces = []
    for segment in path.split("/"):
        head, *params = segment.split(";")
        pieces.append((head, [p.partition("=") for p in params]))
    return pieces


def _masked_path(path: str) -> str:
    segments = []
    for head, params in _path_pieces(path):
        shown = "***" if head and looks_like_token(urllib.parse.unquote(head), random=True) else head
        kept = [f"{k}={'***' if eq and is_secret_key(k) else v}" if eq else k for k, eq, v in params]
        segments.append(";".join([shown, *kept]))
    return "/".join(segments)


def _path_secrets(path: str) -> set[str]:
    found = set()
    for head, params in _path_pieces(path):
        if head and looks_like_token(urllib.parse.unquote(head), random=True):
            found.add(head)
        found |= {v for k, eq, v in params if eq and v and is_secret_key(k)}
    return found


def url_secrets(url: str) -> set[str]:
    """The password, a user name standing alone, secret query values and path parameters, a path segment
    shaped like a token and the fragment in ``url`` (as written and unquoted), to scrub from any text that
    may echo them; a URL without ``scheme://``, or one that does not parse (``http://[::1/v1?key=...``), by
    pattern. A database URL's user standing alone is one when it looks like a token (a digit in it, or an
    issuer's prefix): a role name (``postgres``, ``reader``) is masked in the URL shown, never as a word."""
    query = url.split("#", 1)[0].split("?", 1)[1] if "?" in url.split("#", 1)[0] else ""
    found = {v for k, v in urllib.parse.parse_qsl(query) if v and is_secret_key(k)}
    try:
        parts = urllib.parse.urlsplit(url)
        user, password = parts.username, parts.password
        fragment = parts.fragment
        found |= _path_secrets(parts.path)
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
    endpoint = parts is None or not parts.netloc or parts.scheme.lower() in ("http", "https")
    token_user = endpoint or not _ROLE_NAME.fullmatch(user or "")
    if user and password is None and len(user) >= MIN_TOKEN_CHARS and token_user:
        found.add(user)  # a user name standing alone is a token (a letter or two is not)
    if len(fragment) >= MIN_TOKEN_CHARS:
        found.add(fragment)
    return {s for s in found if s} | {urllib.parse.unquote(s) for s in found if s}


def environment_secrets(environ: Mapping[str, str], argv: Iterable[str] = ()) -> set[str]:
    """What a crash's traceback, or any output, may echo that is secret: the values of variables named like
    credentials (:data:`ENV_SECRET_NAME_PARTS`; not a number or a setting's word such as ``false``), any
    value shaped like an issuer's credential (:func:`looks_like_token`), and the secrets in every URL-like
    value of the environment and of the command line (``NL_SQL_LLM_BASE_URL``, ``--db-url``)."""
    found: set[str] = set()
    for name, value in environ.items():
        value = value.strip()
        if _secret_value(value) and any(p in name.lower() for p in ENV_SECRET_NAME_PARTS):
            found.add(value)
        if looks_like_token(value):
            found.add(value)
        if "@" in value or "://" in value or "?" in value:
            found |= url_secrets(value)
    for arg in argv:
        value = arg.split("=", 1)[1] if arg.startswith("--") and "=" in arg else arg
        if "@" in value or "://" in value or "?" in value:
            found |= url_secrets(value)
        if looks_like_token(value):
            found.add(value)
    return found


def _secret_value(value: str) -> bool:
    """Long enough to be told from a word, and not a number or a setting's word (masked as a token, ``false``
    or ``4096`` would blank a report's literals)."""
    if len(value) < MIN_TOKEN_CHARS or value.lower() in NOT_SECRET_VALUES:
        return False
    return not re.fullmatch(r"[\d\s.,:+-]*", value)


def redact_traceback(text: str, environ: Mapping[str, str], argv: Iterable[str] = ()) -> str:
    """A traceback fit to print: every secret of the environment and the command line scrubbed
    (:func:`environment_secrets`), then user info and ``secret=value`` pairs masked by pattern."""
    return redact_text(scrub_secrets(text, environment_secrets(environ, argv)))


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|!~&$])")
CLIPPED_PREFIX_CHARS = 4
"""A secret cut short where a message clips a long text (``sk-live-7f...``) still shows its beginning: a
prefix of this many characters or more, right before an ellipsis, is masked too."""


def secret_forms(secret: str) -> set[str]:
    """``secret`` as every output of the harness may write it: as it is, JSON-escaped (ASCII or not), HTML-
    and XML-escaped (both quote styles, Jinja's numeric ones and ``&apos;``), percent-encoded (``quote`` and
    ``quote_plus``) and Markdown-escaped. A report written in any of these formats holds no form unmasked.

    Example:
        >>> {'p\\\\"w<1', 'p&#34;w&lt;1', 'p%22w%3C1'} <= secret_forms('p"w<1')
        True
    """
    forms = {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        html.escape(secret, quote=False),
        html.escape(secret),
        html.escape(secret, quote=False).replace('"', "&#34;").replace("'", "&#39;"),
        html.escape(secret, quote=False).replace('"', "&quot;").replace("'", "&apos;"),
        urllib.parse.quote(secret, safe=""),
        urllib.parse.quote_plus(secret, safe=""),
        _MARKDOWN_SPECIAL.sub(r"\\\1", secret),
    }
    return {f for f in forms if f}


def _token_source(form: str, *, clipped: bool = False) -> str:
    key_char = re.compile(f"[{KEY_CHARS}]")
    before = rf"(?:(?<![{KEY_CHARS}])|(?<=%[0-9A-Fa-f]{{2}}))" if key_char.match(form[0]) else ""
    if not clipped:
        after = rf"(?![{KEY_CHARS}])" if key_char.match(form[-1]) else ""
        return before + re.escape(form) + after
    head, rest = form[:CLIPPED_PREFIX_CHARS], form[CLIPPED_PREFIX_CHARS:-1]
    nested = ""
    for ch in reversed(rest):  # each further character optional, in order: any prefix of the secret
        nested = f"(?:{re.escape(ch)}{nested})?"
    return before + re.escape(head) + nested + r"(?=…|\.\.\.)"


class SecretMask:
    """Every secret of a set, in each of its :func:`secret_forms`, masked ``***`` where it stands as a whole
    token, and a prefix of one cut short by an ellipsis; one compiled pattern for the lot, longest first.

    Example:
        >>> SecretMask({"sk-live-abc123"})('said "sk-live-abc123" then sk-live-a...')
        'said "***" then ***...'
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        forms = sorted({f for s in secrets if s for f in secret_forms(s)}, key=len, reverse=True)
        sources = [_token_source(f) for f in forms]
        sources += [_token_source(f, clipped=True) for f in forms if len(f) > 2 * CLIPPED_PREFIX_CHARS]
        self.pattern = re.compile("|".join(sources)) if sources else None

    def __call__(self, text: str) -> str:
        return text if self.pattern is None else self.pattern.sub("***", text)


_URL_IN_TEXT = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s'\"<>()\[\]{}`|\\]+")
_NETLOC = re.compile(r"\A([a-z][a-z0-9+.-]*://)([^/?#@]*)@", re.I)
_PARAM = re.compile(r"([?&;])([^=&;#/?]+)=([^&;#]+)")


def redact_urls_in_text(text: str) -> str:
    """Every ``scheme://`` URL in free text (a model's SQL, a database's message) with its password, a user
    name standing alone, secret query values and path parameters (``;jsessionid=``, ``code=``, ``skoid=``)
    and a path segment shaped like a token masked, in place: the rest of the URL is left as written.

    Example:
        >>> redact_urls_in_text("SELECT 'https://b.s3.example.com/x?X-Amz-Signature=abc&v=1' AS u")
        "SELECT 'https://b.s3.example.com/x?X-Amz-Signature=***&v=1' AS u"
    """
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda m: _masked_in_place(m.group()), text)


def _masked_in_place(url: str) -> str:
    def userinfo(m: re.Match[str]) -> str:
        user, colon, _ = m.group(2).partition(":")
        if colon:
            return f"{m.group(1)}{user}:***@"
        return f"{m.group(1)}***@" if len(user) >= MIN_TOKEN_CHARS else m.group()

    url = _NETLOC.sub(userinfo, url, count=1)
    url = _PARAM.sub(
        lambda m: f"{m.group(1)}{m.group(2)}=***" if is_secret_key(m.group(2)) and m.group(3) != "***" else m.group(),
        url,
    )
    scheme, sep, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    if not slash:
        return url
    query_at = min((i for i in (path.find("?"), path.find("#")) if i >= 0), default=len(path))
    segments = [
        "***" if looks_like_token(urllib.parse.unquote(seg.split(";", 1)[0]), random=True) else seg
        for seg in path[:query_at].split("/")
    ]
    return f"{scheme}{sep}{host}/{'/'.join(segments)}{path[query_at:]}"
