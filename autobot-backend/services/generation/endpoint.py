"""An endpoint's settings checked before the first question: its base URL and its API key.

The SQL generator (``NL_SQL_LLM_*``) and the judge (``NL_SQL_JUDGE_*``) read the same two settings,
and a bad one must stop a run at once, as a configuration error naming the variable, rather than
become a crash on the first question or a run of unavailable answers. Neither check repeats the
value it refuses: a base URL may carry a token (``sk-...@host``, ``?key=``) and a key is one, so the
message says what is wrong in words.
"""

from __future__ import annotations

import re
import urllib.parse

__all__ = ["MIN_API_KEY_CHARS", "api_key_problem", "base_url_problem"]

MIN_API_KEY_CHARS = 8
"""A shorter key is refused: it is masked in messages as a whole token, and a key of a letter or two
(``a``, ``ok``) would blank those words wherever they appear, while keeping out nothing worth keeping.
Real keys are far longer (OpenAI's are over 40 characters); a server on this machine needs none."""
_HEADER_SAFE = re.compile(r"[\x21-\x7e]+")
"""What a key sent as ``Authorization: Bearer <key>`` may hold: visible ASCII, no space."""


def base_url_problem(base_url: str) -> str | None:
    """What is wrong with ``base_url`` as an endpoint root, in words and without its value; None if nothing.

    Example:
        >>> base_url_problem("sk-abc123@api.example.com/v1")
        'is not an http(s) URL: it must begin with http:// or https://'
        >>> base_url_problem("http://localhost:99999/v1")
        'has a port outside 1..65535'
    """
    try:
        parts = urllib.parse.urlsplit(base_url)
    except ValueError:
        return "does not parse as a URL (a bracket or a character a URL cannot hold)"
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return "is not an http(s) URL: it must begin with http:// or https://"
    if not parts.hostname:
        return "names no host"
    try:
        port = parts.port
    except ValueError:
        return "has a port outside 1..65535"
    if port == 0:
        return "has a port outside 1..65535"
    return None


def api_key_problem(key: str) -> str | None:
    """What is wrong with ``key`` as an API key, in words and without its value; None if nothing."""
    if len(key) < MIN_API_KEY_CHARS:
        return (
            f"is {len(key)} character(s) long, shorter than the {MIN_API_KEY_CHARS} a key must have to be masked "
            "in messages without blanking ordinary words; set the endpoint's real key, or unset it for a server "
            "on this machine that needs none"
        )
    if not _HEADER_SAFE.fullmatch(key):
        return (
            "holds a space, a control character or a non-ASCII character, which an HTTP header cannot carry; "
            "check that only the key was copied"
        )
    return None
