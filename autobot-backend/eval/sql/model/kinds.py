"""The kind of a column's values from its SQLAlchemy type, one table for every reader of reflected types.

The counterexample search names kinds (``int``, ``decimal``, ...) and the Spark host writes Spark types
from the same classes; each keeps its own answer for a type outside the table.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

_KINDS: tuple[tuple[type[sa.types.TypeEngine[Any]], str], ...] = (
    (sa.Boolean, "bool"),
    (sa.Integer, "int"),
    (sa.Float, "real"),  # before Numeric: a Float is a Numeric
    (sa.Numeric, "decimal"),
    (sa.DateTime, "datetime"),
    (sa.Date, "date"),
    (sa.String, "text"),
)


def type_kind(column_type: sa.types.TypeEngine[object]) -> str | None:
    """``bool``, ``int``, ``real``, ``decimal``, ``datetime``, ``date`` or ``text`` by the type's class; None
    for any other type (the caller's fallback decides)."""
    return next((kind for cls, kind in _KINDS if isinstance(column_type, cls)), None)
