"""A SQLite reference carried into another engine's dialect (:func:`services.generation.transpile.from_sqlite`).

A corpus question's ``sql`` is SQLite; on another engine it runs as :func:`transpile_reference`
makes it, unless the question gives that engine its own ``sql_<dialect>`` (for where the
transpiled query would not mean the same: the cross-engine self-check finds those).
"""

from __future__ import annotations

from sqlglot.errors import SqlglotError

from eval.core.errors import HarnessError
from services.dialects import sqlglot_name
from services.generation.transpile import from_sqlite

__all__ = ["TranspileError", "sqlglot_name", "transpile_reference"]


class TranspileError(HarnessError):
    """sqlglot cannot carry a SQLite reference into another dialect: the question needs a ``sql_<dialect>``."""


def transpile_reference(sql: str, dialect: str) -> str:
    """``sql`` (SQLite) in ``dialect`` (SQLAlchemy or sqlglot name); :class:`TranspileError` when sqlglot cannot."""
    try:
        return from_sqlite(sql, dialect)
    except SqlglotError as exc:
        raise TranspileError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
