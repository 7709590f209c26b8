"""The schema a prompt tells a model, under a cap that says what it left out.

A 5,000-table database sent 942,472 characters of schema per question. :func:`prompt_text` renders each
table as :meth:`services.schema_context.SchemaContext.describe` does (its lines are that method's, table by
table, so under the cap the text is exactly ``describe()``'s), with a sampled value shown to
:data:`VALUE_CHARS` characters; past the cap, whole tables are left out from the end (of a first table too
big alone, its last lines), and a last line names what was left out, so a model knows the schema it sees is
not all of it. ``describe`` itself is unchanged: its module is part of the fixtures' version.
"""

from __future__ import annotations

import dataclasses

from services.schema_context import SchemaContext, TableInfo

VALUE_CHARS = 200
"""A sampled value's characters in a prompt: a value of a megabyte is no help to a model."""
LEFT_OUT = "-- left out to keep the schema under"
"""How the last line of a capped schema begins."""


def short(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters, its end marked ``…``."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _lines(table: TableInfo, dialect: str) -> list[str]:
    """``table`` as ``describe`` writes it, its sampled values cut to :data:`VALUE_CHARS`."""
    columns = tuple(
        dataclasses.replace(c, values=tuple(short(v, VALUE_CHARS) for v in c.values)) if c.values else c
        for c in table.columns
    )
    return SchemaContext(dialect, (dataclasses.replace(table, columns=columns),)).describe().split("\n")


def _fit(block: list[str], room: int) -> list[str]:
    """The first lines of ``block`` that fit in ``room`` characters (each with its line end)."""
    kept, used = [], 0
    for line in block:
        if used + len(line) + 1 > room:
            break
        kept.append(line)
        used += len(line) + 1
    return kept


def prompt_text(schema: SchemaContext, max_chars: int) -> str:
    """At most ``max_chars`` characters of schema, then, when something was left out, one line saying what.

    Example:
        >>> from services.schema_context import ColumnInfo
        >>> one = TableInfo("t", (ColumnInfo("a", "INTEGER", True, True),))
        >>> print(prompt_text(SchemaContext("sqlite", (one, TableInfo("u", one.columns))), 40))
        TABLE t
          a INTEGER PRIMARY KEY
        -- left out to keep the schema under 40 characters: 1 of 2 tables (u)
    """
    blocks = [_lines(t, schema.dialect) for t in schema.tables]
    if sum(len(line) + 1 for b in blocks for line in b) <= max_chars:
        return "\n".join(line for b in blocks for line in b)
    lines: list[str] = []
    left: list[str] = []
    cut = ""
    for table, block in zip(schema.tables, blocks):
        used = sum(len(line) + 1 for line in lines)
        if not left and used + sum(len(line) + 1 for line in block) <= max_chars:
            lines += block
        elif not lines:  # the first table alone is too big: as many of its lines as fit
            lines = _fit(block, max_chars)
            cut = f"; of table {short(table.name)}, the last {len(block) - len(lines)} of its {len(block)} lines"
        else:
            left.append(table.name)
    named = ", ".join(short(n) for n in left[:10]) + (f" and {len(left) - 10} more" if len(left) > 10 else "")
    tables = f"{len(left)} of {len(schema.tables)} tables ({named})" if left else "no table"
    return "\n".join([*lines, f"{LEFT_OUT} {max_chars:,} characters: {tables}{cut}"])
