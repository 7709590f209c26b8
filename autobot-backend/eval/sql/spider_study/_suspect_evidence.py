"""What a person judging a sampled suspect flag sees: the question, the gold SQL, the finding, and what the
database holds that bears on it, read straight from the file with :mod:`sqlite3` (never through the checks
being judged):

* every flag: what the gold returns (its columns and first rows);
* ``unmatched_literal``, ``narrow_literal``: for each string the gold compares a column with, the stored values
  of that column holding it up to case and spaces, each with its row count (``repr``, so spaces show);
* ``join_without_condition``: the row count of each table the gold reads;
* ``ungrouped_column``: per group of the gold's GROUP BY, how many different values each of its plain output
  columns takes (more than one: the gold returns one of them);
* ``limit_tie``: the gold without its outermost LIMIT (what the cut chose from);
* ``output_columns``: the gold's columns, in the result above.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

from eval.core.errors import UsageError
from eval.core.jsonl import json_file
from eval.sql.spider_study._graded import dev_index
from eval.sql.spider_study._packets import result_lines
from eval.sql.spider_study._sets import SpiderDev
from eval.sql.spider_study._suspects import SEED, Flag

VALUES_SHOWN = 12
"""Stored values shown per compared string."""


def write_sample(spider: SpiderDev, drawn: Sequence[Flag], out: Path) -> Path:
    """One Markdown file holding every drawn flag with its evidence."""
    dev = json_file(spider.questions, UsageError, missing="missing", unreadable="not Spider's dev.json")
    parts = [
        "# Suspect references: the hand-checked sample",
        "",
        f"{len(drawn)} flags drawn by `python -m eval.sql.spider_study suspects` (seed {SEED}, taken across the kinds "
        "in turns). Judge each `right` (the gold has the defect the finding names, or the question really is "
        "ambiguous in the flagged way) or `wrong`, with a one-line reason, in `judgements.yaml`.",
        "",
    ]
    for n, flag in enumerate(drawn, 1):
        parts += item(spider, n, flag, dev[dev_index(flag.question_id)])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return out


def item(spider: SpiderDev, n: int, flag: Flag, question: dict[str, Any]) -> list[str]:
    name = str(question["db_id"])
    db = spider.databases / name / f"{name}.sqlite"
    gold = str(question["query"])
    lines = [
        f"## {n}. `{flag.key}`",
        "",
        f"**Question:** {question['question']}",
        "",
        f"**Database:** `{name}`",
        "",
        "```sql",
        gold,
        "```",
        "",
        "**Finding:**",
        "",
        *[f"- {f}" for f in flag.findings],
        "",
        "**What the gold returns:** " + "\n".join(result_lines(db, gold)[:12]),
        "",
    ]
    more = _EVIDENCE.get(flag.kind)
    if more is not None:
        try:
            lines += more(db, gold)
        except (sqlite3.Error, sqlglot.errors.SqlglotError) as exc:
            lines += [f"(the evidence could not be read: {type(exc).__name__}: {exc})", ""]
    return lines


def _connect(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def _tree(gold: str) -> exp.Expr:
    return sqlglot.parse_one(gold, read="sqlite")


def _aliases(select: exp.Select) -> dict[str, str]:
    """Alias (lower case) -> table name, for the select's own FROM and JOINs."""
    out = {}
    for t in [select.args.get("from") or select.args.get("from_"), *(select.args.get("joins") or [])]:
        table = t.this if t is not None else None
        if isinstance(table, exp.Table):
            out[table.alias_or_name.lower()] = table.name
    return out


def _literals(db: Path, gold: str) -> list[str]:
    tree = _tree(gold)
    lines = ["**Stored values holding each compared string** (up to case and spaces; value: rows):", ""]
    seen = set()
    for node in tree.find_all(exp.EQ, exp.NEQ, exp.In, exp.Like):
        select = node.find_ancestor(exp.Select)
        if select is None:
            continue
        aliases = _aliases(select)
        others = node.expressions if isinstance(node, exp.In) else [node.expression]
        for column, literal in [(node.this, o) for o in others] + [(node.expression, node.this)]:
            if not isinstance(column, exp.Column):
                continue
            text = literal.this if isinstance(literal, exp.Literal) and literal.is_string else None
            if text is None and isinstance(literal, exp.Column) and literal.this.quoted:
                text = literal.name  # SQLite reads a double-quoted word naming no column as a string
            table = aliases.get(column.table.lower()) if column.table else (next(iter(aliases.values()), None))
            if text is None or table is None or (table, column.name, text) in seen:
                continue
            seen.add((table, column.name, text))
            wanted = text.strip().lower().replace("%", "")
            sql = (
                f'SELECT "{column.name}", COUNT(*) FROM "{table}" WHERE INSTR(LOWER(TRIM("{column.name}")), ?) > 0 '
                f'GROUP BY "{column.name}" ORDER BY COUNT(*) DESC LIMIT {VALUES_SHOWN}'
            )
            with _connect(db) as con:
                rows = con.execute(sql, (wanted,)).fetchall()
            shown = ", ".join(f"{v!r}: {c}" for v, c in rows) or "none"
            lines.append(f"- `{table}.{column.name}` vs {text!r}: {shown}")
    return [*lines, ""]


def _tables(db: Path, gold: str) -> list[str]:
    names = sorted({t.name for t in _tree(gold).find_all(exp.Table)})
    with _connect(db) as con:
        counts = [f"`{n}` {con.execute(_count(n)).fetchone()[0]} rows" for n in names]
    return ["**Tables read:** " + ", ".join(counts), ""]


def _count(table: str) -> str:
    return f"SELECT COUNT(*) FROM {exp.to_identifier(table, quoted=True).sql('sqlite')}"


def _groups(db: Path, gold: str) -> list[str]:
    lines = ["**Different values per group of each plain output column:**", ""]
    for select in _tree(gold).find_all(exp.Select):
        group = select.args.get("group")
        plain = [p for p in select.expressions if isinstance(p, exp.Column)]
        if not plain:
            continue
        keys = list(group.expressions) if group else []
        probe = select.copy()
        counted = [exp.Count(this=exp.Distinct(expressions=[c.copy()])).as_(f"values_of_{c.name}") for c in plain]
        probe.set("expressions", [k.copy() for k in keys] + counted)
        for arg in ("order", "limit", "having"):
            probe.set(arg, None)
        sql = probe.sql("sqlite") + f" ORDER BY {len(keys) + 1} DESC LIMIT 8"
        lines += [f"`{sql}`", "", *result_lines(db, sql)[:10], ""]
    return lines


def _unlimited(db: Path, gold: str) -> list[str]:
    """The gold without its outermost LIMIT, its ORDER BY keys returned too (where the ties show)."""
    tree = _tree(gold)
    tree.set("limit", None)
    order = tree.args.get("order")
    if isinstance(tree, exp.Select) and order is not None:
        keys = [o.this.copy().as_(f"order_key_{i}") for i, o in enumerate(order.expressions, 1)]
        tree.set("expressions", [*tree.expressions, *keys])
    sql = tree.sql("sqlite")
    return ["**The gold without its LIMIT, with its ORDER BY keys:**", "", *result_lines(db, sql)[:14], ""]


_EVIDENCE = {
    "unmatched_literal": _literals,
    "narrow_literal": _literals,
    "join_without_condition": _tables,
    "ungrouped_column": _groups,
    "limit_tie": _unlimited,
}
