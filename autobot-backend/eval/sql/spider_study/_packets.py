"""What a labeller sees of one drawn answer: the question, the database's schema and file, both SQL texts and
what each returns on the database, read straight from the file with :mod:`sqlite3` (never through the
grader, and never the grader's reason or the diagnosis: the labels must be independent of both)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval.core.errors import UsageError
from eval.core.jsonl import json_file
from eval.sql.bench.importer import gold_is_ordered
from eval.sql.spider_study._draw import Item
from eval.sql.spider_study._sets import SpiderDev

ROWS_SHOWN = 15
"""Rows of each result a packet shows (the counts are always given)."""


def packet(spider: SpiderDev, item: Item, question: dict[str, Any], predicted: str) -> str:
    """One item as Markdown."""
    db = spider.databases / item.database / f"{item.database}.sqlite"
    gold = str(question["query"])
    lines = [
        f"# {item.key}",
        "",
        f"**Question:** {question['question']}",
        "",
        f"**Database:** `{item.database}` (`{db}`; open it read-only, e.g. `sqlite3 'file:{db}?mode=ro' -uri`)",
        "",
        "## Reference SQL (the benchmark's gold)",
        "",
        "```sql",
        gold,
        "```",
        "",
        "## Candidate SQL (the model's answer)",
        "",
        "```sql",
        predicted,
        "```",
        "",
        f"**Order of rows matters:** {_ordered(gold)}",
        "",
        "## What the reference returns",
        "",
        *result_lines(db, gold),
        "",
        "## What the candidate returns",
        "",
        *result_lines(db, predicted),
        "",
        "## Schema",
        "",
        "```sql",
        *_schema(db),
        "```",
        "",
    ]
    return "\n".join(lines)


def _ordered(gold: str) -> str:
    return "yes (the reference has an outermost ORDER BY)" if gold_is_ordered(gold) else "no"


def _connect(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def result_lines(db: Path, sql: str) -> list[str]:
    try:
        with _connect(db) as con:
            cur = con.execute(sql)
            columns = [d[0] for d in cur.description or ()]
            rows = cur.fetchall()
    except sqlite3.Error as exc:
        return [f"It does not run: `{type(exc).__name__}: {exc}`"]
    shown = rows[:ROWS_SHOWN]
    out = [f"{len(rows)} row(s), {len(columns)} column(s): {', '.join(columns)}", ""]
    out += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in shown]
    if len(rows) > ROWS_SHOWN:
        out.append(f"... and {len(rows) - ROWS_SHOWN} more row(s)")
    return out


def _cell(v: object) -> str:
    return repr(v).replace("|", "\\|")


def _schema(db: Path) -> list[str]:
    with _connect(db) as con:
        rows = con.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL").fetchall()
    return [str(r[0]).strip() + ";" for r in rows]


def write_packets(spider: SpiderDev, items: Sequence[Item], out: Path) -> Path:
    """One Markdown file per item under ``out``, and ``index.jsonl`` listing them."""
    dev = json_file(spider.questions, UsageError, missing="missing", unreadable="not Spider's dev.json")
    predictions = {name: _lines(spider.predictions(name)) for name in {it.set for it in items}}
    out.mkdir(parents=True, exist_ok=True)
    index = []
    for n, it in enumerate(items, 1):
        name = f"{n:03d}.md"
        (out / name).write_text(packet(spider, it, dev[it.dev_index], predictions[it.set][it.dev_index]), "utf-8")
        index.append(json.dumps({"item": it.key, "file": name}))
    (out / "index.jsonl").write_text("\n".join(index) + "\n", "utf-8")
    return out


def _lines(path: Path) -> list[str]:
    """Predictions as Spider's evaluator reads them: non-blank lines, stripped, the SQL before the first TAB."""
    with path.open(encoding="utf-8") as f:
        return [line.strip().split("\t")[0] for line in f.readlines() if line.strip()]
