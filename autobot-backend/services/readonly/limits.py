"""The service's size limits, from the environment: how long SQL may be, how big a result.

Both have defaults far above real use and far below what turns a query into an attack (a 50 MB
statement, a 1.2 GB row); an operator can move them, and a value that is not a whole number of
bytes > 0 is an error, never a silent fall back to the default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from services.readonly.executor import MAX_RESULT_BYTES
from services.readonly.guard import MAX_SQL_BYTES

__all__ = ["MAX_RESULT_BYTES_ENV", "MAX_SQL_BYTES_ENV", "byte_limit", "result_bytes", "sql_bytes"]

MAX_SQL_BYTES_ENV = "NL_SQL_MAX_SQL_BYTES"
MAX_RESULT_BYTES_ENV = "NL_SQL_MAX_RESULT_BYTES"


def byte_limit(name: str, default: int, environ: Mapping[str, str] | None = None) -> int:
    """``name``'s value when set, else ``default``.

    Raises:
        ValueError: set, but not a whole number > 0 (the message names the variable and an example).
    """
    raw = ((os.environ if environ is None else environ).get(name) or "").strip().replace("_", "")
    if not raw:
        return default
    if not raw.isdigit() or int(raw) <= 0:
        raise ValueError(f"{name}={raw!r}: expected a whole number of bytes > 0, e.g. {default}")
    return int(raw)


def sql_bytes(environ: Mapping[str, str] | None = None) -> int:
    return byte_limit(MAX_SQL_BYTES_ENV, MAX_SQL_BYTES, environ)


def result_bytes(environ: Mapping[str, str] | None = None) -> int:
    return byte_limit(MAX_RESULT_BYTES_ENV, MAX_RESULT_BYTES, environ)
