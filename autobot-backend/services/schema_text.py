"""The schema told to a model, as text: one table's lines, and what fits under a cap
(:meth:`services.schema_context.SchemaContext.describe` puts them together)."""

from __future__ import annotations

from typing import Any

VALUE_CHARS = 200
"""A sampled value's characters in a prompt: a value of a megabyte is no help to a model."""


def short(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters, its end marked ``…``."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fit(block: list[str], room: int) -> list[str]:
    """The first lines of ``block`` that fit in ``room`` characters (each with its line end)."""
    kept, used = [], 0
    for line in block:
        if used + len(line) + 1 > room:
            break
        kept.append(line)
        used += len(line) + 1
    return kept


def table_lines(t: Any) -> list[str]:
    """A :class:`~services.schema_context.TableInfo`'s lines (typed loosely: this module is imported by that one)."""
    lines = [f"TABLE {t.name}" + (f"  -- {t.comment}" if t.comment else "")]
    for c in t.columns:
        flags = " PRIMARY KEY" if c.primary_key else ("" if c.nullable else " NOT NULL")
        note = f"  -- {c.comment}" if c.comment else ""
        if c.values:
            shown = ", ".join(repr(short(v, VALUE_CHARS)) for v in c.values)
            note += f" [values: {shown}]" if c.values_complete else f" [e.g. {shown}]"
        elif c.values_skipped:
            note += f" [values not sampled: {c.values_skipped}]"
        lines.append(f"  {c.name} {c.type}{flags}{note}")
    for fk in t.foreign_keys:
        lines.append(f"  FOREIGN KEY ({', '.join(fk.columns)}) REFERENCES {fk.ref_table} ({', '.join(fk.ref_columns)})")
    return lines
