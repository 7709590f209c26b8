"""Several right answers to one question (issue 24 point 5): ``also:`` and ``columns:``.

``also:`` is a list of further reference queries, each a right answer in its own right (written like
``sql``: SQLite, transpiled for another engine, or as written on a user's own database; an
alternative has no ``sql_<dialect>`` overrides). ``columns:`` names which of the main reference's
output columns an answer must return (``required``) and which it may (``optional``), by name or by
1-based position. A candidate passes when it matches the reference, any alternative, or the
reference projected onto the required columns plus any subset of the optional ones.

Bounds (each a whole-corpus-file problem when exceeded): at most :data:`MAX_ALSO` alternatives and
:data:`MAX_OPTIONAL` optional columns (``2**6 = 64`` projected forms at most, each one comparison).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_ALSO = 8
"""Alternatives a question may list: each is run and self-checked on every rotation like ``sql``."""
MAX_OPTIONAL = 6
"""Optional columns a ``columns:`` rule may name: the grader tries every subset (2**6 = 64 forms)."""

ColumnRef = str | int
"""A reference output column: its name, or its 1-based position."""


@dataclass(frozen=True)
class ColumnRule:
    """Which of the reference's output columns an answer must return, and which it may."""

    required: tuple[ColumnRef, ...]
    optional: tuple[ColumnRef, ...] = ()


ALSO_SCHEMA: dict[str, Any] = {
    "type": "array",
    "minItems": 1,
    "maxItems": MAX_ALSO,
    "items": {"type": "string", "pattern": r"\S"},
}
_COLUMN_LIST = {
    "type": "array",
    "items": {"anyOf": [{"type": "string", "pattern": r"\S"}, {"type": "integer", "minimum": 1}]},
    "uniqueItems": True,
}
COLUMNS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"required": _COLUMN_LIST, "optional": {**_COLUMN_LIST, "maxItems": MAX_OPTIONAL}},
    "additionalProperties": False,
    "anyOf": [{"required": [k], "properties": {k: {"minItems": 1}}} for k in ("required", "optional")],
}
"""JSON Schema of ``columns`` (the loader's checks, for the generated corpus schema)."""


def check_also(value: Any) -> str | None:
    """Why ``also`` is not a usable list of SQL strings, or None."""
    if not isinstance(value, list) or not value:
        return "must be a non-empty list of SQL strings (alternative references)"
    if len(value) > MAX_ALSO:
        return f"lists {len(value)} alternatives; at most {MAX_ALSO}"
    bad = [i for i, v in enumerate(value) if not (isinstance(v, str) and v.strip())]
    if bad:
        return f"must hold non-empty SQL strings (also[{bad[0]}] is not one)"
    return None


def _column_ref(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    return (isinstance(v, str) and bool(v.strip())) or (isinstance(v, int) and v >= 1)


def check_columns(value: Any) -> str | None:
    """Why ``columns`` is not a ``{required: [...], optional: [...]}`` rule, or None."""
    if not isinstance(value, dict) or set(value) - {"required", "optional"}:
        return "must be a mapping with 'required' and 'optional' (lists of column names or 1-based positions)"
    if not value.get("required") and not value.get("optional"):
        return "names no column (list the reference's columns an answer returns)"
    for key in ("required", "optional"):
        items = value.get(key, [])
        if not isinstance(items, list) or not all(_column_ref(v) for v in items):
            return f"'{key}' must be a list of column names or 1-based positions"
        if len(items) != len({(type(v), v) for v in items}):
            return f"'{key}' names a column twice"
    if len(value.get("optional", [])) > MAX_OPTIONAL:
        return f"names {len(value['optional'])} optional columns; at most {MAX_OPTIONAL}"
    if set(value.get("required", [])) & set(value.get("optional", [])):
        return "names a column both required and optional"
    return None


def build_also(value: Any) -> tuple[str, ...]:
    return tuple(v.strip() for v in value) if value else ()


def build_columns(value: Any) -> ColumnRule | None:
    if not value:
        return None
    return ColumnRule(tuple(value.get("required", [])), tuple(value.get("optional", [])))
