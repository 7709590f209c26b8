"""What the executor reads from drivers and URLs: error messages, timeout codes, secrets, statements that stream."""

from __future__ import annotations

import sqlalchemy as sa
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import TokenType  # type: ignore[attr-defined]  # sqlglot 30 re-exports it from tokenizer_core

from services.redaction import is_secret_key

__all__ = ["driver_message", "is_timeout", "query_secrets", "streamable"]

_TIMEOUT_CODES = {"57014", 3024, 1969}  # PostgreSQL query_canceled; MySQL 3024; MariaDB 1969

_STREAMABLE_FIRST = frozenset({TokenType.SELECT, TokenType.WITH, TokenType.VALUES, TokenType.L_PAREN})


def streamable(sql: str, dialect: str) -> bool:
    """Whether a server-side cursor can hold this statement: a query, not EXPLAIN or SHOW."""
    try:
        tokens = Dialect.get_or_raise(dialect).tokenize(sql)
    except Exception:
        return False
    return bool(tokens) and tokens[0].token_type in _STREAMABLE_FIRST


def query_secrets(parsed: sa.URL) -> list[str]:
    values: list[str] = []
    for key, value in parsed.query.items():
        if is_secret_key(key):
            values.extend(value if isinstance(value, tuple) else (value,))
    return values


def driver_message(error: BaseException) -> str:
    orig = getattr(error, "orig", None) or error
    text = str(orig).strip() or type(orig).__name__
    return " ".join(text.split())


def is_timeout(error: BaseException) -> bool:
    orig = getattr(error, "orig", None) or error
    code = getattr(orig, "pgcode", None) or getattr(orig, "sqlstate", None)
    if code is None and getattr(orig, "args", None):
        code = orig.args[0]
    return isinstance(code, (str, int)) and code in _TIMEOUT_CODES
