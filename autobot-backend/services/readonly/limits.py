"""The service's size limits, from the environment: how long SQL may be, how big a result, how many rows.

The byte limits have defaults far above real use and far below what turns a query into an attack (a
50 MB statement, a 1.2 GB row). The row cap (``NL_SQL_ROW_CAP``, default 10,000) bounds a model's
answer; a reference's rows are bounded by the byte budget alone (:data:`REFERENCE_ROW_BYTES`). An
operator can move each, and a value that is not a whole number > 0 is an error, never a silent fall
back to the default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from services.readonly.executor import MAX_RESULT_BYTES
from services.readonly.guard import MAX_SQL_BYTES

__all__ = [
    "MAX_RESULT_BYTES_ENV",
    "MAX_SQL_BYTES_ENV",
    "REFERENCE_ROW_BYTES",
    "ROW_CAP",
    "ROW_CAP_ENV",
    "byte_limit",
    "reference_row_cap",
    "result_bytes",
    "row_cap",
    "sql_bytes",
]

MAX_SQL_BYTES_ENV = "NL_SQL_MAX_SQL_BYTES"
MAX_RESULT_BYTES_ENV = "NL_SQL_MAX_RESULT_BYTES"
ROW_CAP_ENV = "NL_SQL_ROW_CAP"
ROW_CAP = 10_000
"""The default row cap of a model's answer: the most rows a statement may return (more is ``row_cap``)."""
REFERENCE_ROW_BYTES = 16
"""A reference's statement may return ``max_result_bytes // 16`` rows (4,194,304 under the default 64 MiB):
the row cap its byte budget implies when every row is counted as at least one value, so that rows of
NULLs, which count no bytes, are still bounded."""


def byte_limit(name: str, default: int, environ: Mapping[str, str] | None = None, unit: str = "bytes") -> int:
    """``name``'s value when set, else ``default``.

    Raises:
        ValueError: set, but not a whole number > 0 (the message names the variable and an example).
    """
    raw = ((os.environ if environ is None else environ).get(name) or "").strip().replace("_", "")
    if not raw:
        return default
    if not raw.isdigit() or int(raw) <= 0:
        raise ValueError(f"{name}={raw!r}: expected a whole number of {unit} > 0, e.g. {default}")
    return int(raw)


def row_cap(environ: Mapping[str, str] | None = None) -> int:
    """The row cap of a model's answer: ``NL_SQL_ROW_CAP`` when set, else :data:`ROW_CAP`."""
    return byte_limit(ROW_CAP_ENV, ROW_CAP, environ, unit="rows")


def sql_bytes(environ: Mapping[str, str] | None = None) -> int:
    return byte_limit(MAX_SQL_BYTES_ENV, MAX_SQL_BYTES, environ)


def result_bytes(environ: Mapping[str, str] | None = None) -> int:
    return byte_limit(MAX_RESULT_BYTES_ENV, MAX_RESULT_BYTES, environ)


def reference_row_cap(max_result_bytes: int) -> int:
    """The most rows a reference's statement may return: what its byte budget allows, not a model's row cap."""
    return max(1, max_result_bytes // REFERENCE_ROW_BYTES)
