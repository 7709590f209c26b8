"""A starter corpus written from a real database (``python -m eval.sql.init``): a first file to edit, not questions.

From the database's own tables (read through the service's read-only schema inspection) it writes one
example question per shape a corpus needs: a scalar count, a list of rows, an ordered top-N, and a
must-refuse case. Each is ``draft: true``: a machine picked the table and wrote the words, so nobody has
checked that the question says what its SQL computes. A draft is never asked and is ``unmeasured`` in a
run (so a gate on it cannot pass), and ``python -m eval.sql.check`` names every one, until a person edits
it and deletes the key. The answers template holds one line per question that declines: graded as it
is, it passes nothing, so a template left unfilled can never read as a working system.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml
from sqlglot import exp

from eval.core.errors import UsageError
from eval.sql.corpus.json_schema import SCHEMA_PATH
from services.schema_context import ColumnInfo, SchemaContext, TableInfo

CORPUS_NAME = "questions.yaml"
ANSWERS_NAME = "answers.jsonl"
TOP_N = 3
"""Rows the ordered example asks for (fewer when the table has fewer)."""
TEMPLATE_MODEL = "your-model-name"
"""The ``model`` of the answers template: the name a baseline is kept under, to be replaced."""
_NUMERIC = re.compile(r"INT|REAL|NUM|DEC|FLOAT|DOUBLE|MONEY", re.IGNORECASE)
_ID = re.compile(r"(^|_)id$", re.IGNORECASE)


@dataclass(frozen=True)
class Example:
    """One starter question: the corpus keys, and the comment that says what a person must check."""

    keys: dict[str, Any]
    check: str


def _ident(name: str, dialect: str) -> str:
    """A table or column name as SQL: quoted when it needs to be (a space, a keyword, a capital)."""
    return exp.to_identifier(name).sql(dialect=dialect)


MAX_NAME_CHARS = 1000
"""A table or column whose name is longer is not asked about: its SQL could pass the guard's 100,000 bytes."""
NAME_WORDS = 24
"""A name's words in a starter question, at most: a 300-character table name made every question of the
starter nearly the same text (the near-duplicate lint of its own check) and a megabyte one a question past
its 2,000 characters; the SQL keeps the whole name."""


def _words(name: str) -> str:
    words = re.sub(r"[_\s]+", " ", name).strip()
    return words if len(words) <= NAME_WORDS else words[: NAME_WORDS - 1].rstrip() + "…"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:24] or "mine"


def _grouping_column(table: TableInfo) -> ColumnInfo | None:
    """A text column with a few repeated values: the best key for a per-group count."""
    candidates = [c for c in table.columns if not c.primary_key and c.values and (c.distinct_count or 0) >= 2]
    return min(candidates, key=lambda c: (c.distinct_count or 0, c.name), default=None)


def _measure_column(table: TableInfo) -> ColumnInfo | None:
    """A numeric column that measures something: not a key, not a reference to one, decimals before integers."""
    keys = {name for fk in table.foreign_keys for name in fk.columns}
    measures = [
        c
        for c in table.columns
        if _NUMERIC.search(c.type) and not c.primary_key and c.name not in keys and not _ID.search(c.name)
    ]
    return min(measures, key=lambda c: (c.type.upper().startswith("INT"), table.columns.index(c)), default=None)


def _label_column(table: TableInfo) -> ColumnInfo:
    """What names a row in a ranking: its key, else its first column."""
    return next((c for c in table.columns if c.primary_key), table.columns[0])


def examples(schema: SchemaContext, prefix: str) -> list[Example]:
    """One question per shape, over the tables that have rows (an empty result cannot grade anything)."""
    tables = [
        replace(t, columns=tuple(c for c in t.columns if len(c.name) <= MAX_NAME_CHARS))
        for t in schema.tables
        if (t.row_count or 0) > 0 and len(t.name) <= MAX_NAME_CHARS
    ]
    tables = [t for t in tables if t.columns]
    if not tables:
        raise UsageError(
            "the database has no table with rows (and a name under "
            f"{MAX_NAME_CHARS:,} characters): a starter corpus needs data to ask about"
        )
    d = schema.dialect
    biggest = max(tables, key=lambda t: (t.row_count or 0, t.name))
    found: list[Example] = [
        Example(
            {
                "id": f"{prefix}-scalar-001",
                "question": f"How many {_words(biggest.name)} are there?",
                "stratum": "scalar",
                "shape": "scalar",
                "sql": f"SELECT COUNT(*) FROM {_ident(biggest.name, d)}",
            },
            "one number; does the question mean every row, or only some (active, this year)?",
        )
    ]
    grouped = next(((t, c) for t in tables if (c := _grouping_column(t)) is not None), None)
    if grouped is not None:
        t, c = grouped
        col = _ident(c.name, d)
        found.append(
            Example(
                {
                    "id": f"{prefix}-rows-001",
                    "question": f"How many {_words(t.name)} are there per {_words(c.name)}? "
                    f"Give each {_words(c.name)} and its count.",
                    "stratum": "group_by",
                    "sql": f"SELECT {col}, COUNT(*) AS n FROM {_ident(t.name, d)} GROUP BY {col}",
                },
                "a list of rows in any order; are NULL groups wanted? is the column the one people mean?",
            )
        )
    ranked = next(((t, m) for t in tables if (m := _measure_column(t)) is not None and (t.row_count or 0) > 1), None)
    if ranked is not None:
        t, m = ranked
        label, n = _label_column(t), min(TOP_N, t.row_count or TOP_N)
        lab, mea = _ident(label.name, d), _ident(m.name, d)
        found.append(
            Example(
                {
                    "id": f"{prefix}-top-001",
                    "question": f"Which {n} {_words(t.name)} have the highest {_words(m.name)}? "
                    f"Give each one's {_words(label.name)} and {_words(m.name)}, highest first.",
                    "stratum": "ranking",
                    "ordered": True,
                    "sql": f"SELECT {lab}, {mea} FROM {_ident(t.name, d)} ORDER BY {mea} DESC, {lab} LIMIT {n}",
                },
                "an ordered top-N: the text must state the order; ties at the cut need a tie-break the "
                "question states, or the self-check reports them",
            )
        )
    found.append(
        Example(
            {
                "id": f"{prefix}-refuse-001",
                "question": f"How many {_words(biggest.name)} will there be next year?",
                "expect": "refuse",
                "stratum": "refusal",
                "why": "a forecast: the database holds no future rows, so any number would be invented",
            },
            "a must-refuse case: the database cannot answer it, so answering is fabrication; write the "
            "ones your users really ask",
        )
    )
    return found


def _comment(text: str, indent: str = "") -> str:
    """``text`` as YAML comment lines: a table's name cannot end a comment and start a key."""
    return "".join(f"{indent}# {line}\n" for line in text.splitlines() or [""])


def _schema_ref(out_dir: Path) -> str:
    try:
        return Path(os.path.relpath(SCHEMA_PATH, out_dir.resolve())).as_posix()
    except ValueError:  # another drive (Windows)
        return SCHEMA_PATH.as_posix()


def corpus_text(found: list[Example], out_dir: Path, db_url_shown: str, out_shown: str) -> str:
    corpus_path = f"{out_shown.rstrip('/')}/{CORPUS_NAME}"
    head = (
        f"# yaml-language-server: $schema={_schema_ref(out_dir)}\n"
        + _comment(
            f"A starter corpus for {db_url_shown}, written by python -m eval.sql.init.\n"
            "Every question is a draft: a machine chose the tables and wrote the words. For each one, check that\n"
            "the question says exactly what its SQL computes, edit both, then delete its 'draft: true' line.\n"
            "A draft is never asked and never counted as measured. Add the questions your users ask.\n"
            "Check the corpus (lint and the self-check of every reference on the database, nothing graded):\n"
            f"  python -m eval.sql.check {corpus_path} --db-url {db_url_shown}\n"
            "Guide: docs/eval/writing-a-corpus.md; every key: docs/eval/sql-corpus.schema.json"
        )
        + "version: 1\nquestions:\n"
    )
    items = []
    for ex in found:
        keys = {**ex.keys, "draft": True}
        body = yaml.safe_dump([keys], sort_keys=False, allow_unicode=True, width=110)
        items.append(_comment(textwrap.fill(f"CHECK: {ex.check}", 100), "  ") + _indent(body))
    return head + "\n".join(items)


def _indent(text: str) -> str:
    return "".join(f"  {line}\n" for line in text.splitlines())


def answers_text(found: list[Example]) -> str:
    """One line per question, each a refusal to be replaced by the system's answer."""
    lines = []
    for ex in found:
        lines.append(
            {
                "id": ex.keys["id"],
                "model": TEMPLATE_MODEL,
                "refused": True,
                "reason": 'template: replace this line with the system\'s answer, {"id", "sql"}',
            }
        )
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def write_starter(
    schema: SchemaContext, out_dir: Path, prefix: str, db_url_shown: str, out_shown: str | None = None
) -> list[Path]:
    """Write the starter corpus and the answers template into ``out_dir``; never over an existing file."""
    targets = [out_dir / CORPUS_NAME, out_dir / ANSWERS_NAME]
    existing = [str(p) for p in targets if p.exists()]
    if existing:
        raise UsageError(
            f"refusing to overwrite {', '.join(existing)}: choose another --out folder, or move the file(s) away"
        )
    found = examples(schema, _slug(prefix))
    out_dir.mkdir(parents=True, exist_ok=True)
    texts = [corpus_text(found, out_dir, db_url_shown, out_shown or str(out_dir)), answers_text(found)]
    for path, text in zip(targets, texts):
        with path.open("x", encoding="utf-8") as fh:  # "x": a file that appeared meanwhile is not overwritten
            fh.write(text)
    return targets
