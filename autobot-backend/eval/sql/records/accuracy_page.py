"""The dated accuracy record: one row per measured run, kept in cohorts, never typed.

``docs/eval/sql-accuracy.md`` (the built-in corpus) or a user's own page (``--record-accuracy
PATH``) gains a row only through ``--record-accuracy``, and with it a block of that run's
per-stratum counts. Rows of one cohort (``eval.sql.grading.identity``) stay together: a new row goes right
after the last row of its cohort. A row is ``provisional`` until a later run of the same cohort and
model agrees with it on every figure; that later row says ``confirmed``.

A run measured on another suite (another corpus digest, fixture generator, seed, rotation count,
column-order policy or comparison policy than the page's: :data:`SUITE_KEYS`, compared by
:func:`eval.sql.model.cohort.cohort_differences`) is not the same measurement: it is refused unless
``--allow-off-suite``, and then goes to a separate "off-suite" table with the keys that differ named.
The built-in page's suite is the built-in corpus on the default fixtures; a user's page's is its first
row's (kept in the page; a page written before a key existed has it unknown, which differs).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from eval.core import markdown as md
from eval.core.errors import UsageError
from eval.core.figures import of, pct
from eval.core.jsonl import read_bounded
from eval.core.output import write_atomically
from eval.sql.model.cohort import UNKNOWN, cohort_differences
from eval.sql.model.figures import Summary
from eval.sql.model.outcome import ANSWERABLE_VERDICTS, Verdict
from eval.sql.model.run import SQLRun
from eval.sql.records.docs import (
    ACCURACY_PAGE,
    DIGEST_CHARS,
    RECORD_END,
    RECORD_START,
    STRATA_END,
    STRATA_START,
    DocsError,
    block,
)

OFF_START, OFF_END = "<!-- accuracy-off-suite:start -->", "<!-- accuracy-off-suite:end -->"
SUITE_MARK = re.compile(r"<!-- accuracy-suite: (\{.*?\}) -->")
SUITE_KEYS = ("corpus", "fixtures", "seed", "rotations", "column_order", "comparison_policy")
"""The keys of a cohort that define the suite measured and how it is graded (the rest name the system, the
engine and how it was asked: the rows show them)."""

VERDICT_COLUMNS = [v.value for v in ANSWERABLE_VERDICTS]
"""A count per answerable verdict, in report order: a new verdict is a new column (older rows read it as ``-``)."""
RECORD_COLUMNS = [
    "date",
    "corpus digest",
    "questions",
    "candidate",
    "model",
    "engine",
    "rotations",
    "cohort",
    *VERDICT_COLUMNS,
    "pass rate",
    "refusal recall",
    "over-refusals",
    "status",
]
OFF_SUITE_COLUMNS = [*RECORD_COLUMNS, "differs in"]
# Columns that must agree for a second run to confirm a first.
_IDENTITY = ("corpus digest", "questions", "candidate", "model", "engine", "rotations", "cohort")
_FIGURES = (*VERDICT_COLUMNS, "pass rate", "refusal recall", "over-refusals")
PRE_COHORT = "-"
"""The cohort cell of a row recorded before runs had a cohort (and any cell of a column added since its row)."""


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


_UNESCAPE = re.compile(r"\\(.)")


def _uncoded(cell: str) -> str:
    """A cell without the backticks of a code span (the corpus digest's); an escaped backtick is text."""
    return cell[1:-1] if len(cell) >= 2 and cell[0] == cell[-1] == "`" and not cell.endswith("\\`") else cell


def _table_rows(text: str, columns: list[str], page: Path) -> list[dict[str, str]]:
    rows = []
    for line in text.splitlines():
        if not line.strip().startswith("|") or set(line.replace("|", "").strip()) <= {"-", " "}:
            continue
        cells = _cells(line)
        if cells == columns:
            continue
        if len(cells) != len(columns):
            raise DocsError(f"{page}: record row has {len(cells)} cells, expected {len(columns)}: {line.strip()}")
        rows.append(dict(zip(columns, (_UNESCAPE.sub(r"\1", _uncoded(c)) for c in cells))))
    return rows


def _upgrade(text: str) -> str:
    """Each table of the page laid out in today's columns: a column added since its rows were written (the cohort,
    a new verdict) is filled with ``-`` in them, read from the table's own header."""
    lines = []
    columns: list[str] | None = None
    target: list[str] = RECORD_COLUMNS
    for line in text.splitlines(keepends=True):
        cells = _cells(line) if line.strip().startswith("|") else None
        if cells is None:
            columns = None
        elif cells[0] == "date":
            columns, target = cells, OFF_SUITE_COLUMNS if "differs in" in cells else RECORD_COLUMNS
            line = "| " + " | ".join(target) + " |\n"
        elif columns is not None and columns != target:
            if set("".join(cells)) <= {"-"}:
                line = "|" + "|".join("---" for _ in target) + "|\n"
            elif len(cells) == len(columns):
                found = dict(zip(columns, cells))
                line = "| " + " | ".join(found.get(c, PRE_COHORT) for c in target) + " |\n"
        lines.append(line)
    return "".join(lines)


def _read(page: Path) -> str:
    """The page's text, bounded like every input (:func:`eval.core.jsonl.read_bounded`)."""
    return read_bounded(page, DocsError, missing="no such accuracy record", unreadable="cannot read the record")


def read_record(page: Path = ACCURACY_PAGE) -> list[dict[str, str]]:
    """The record's rows (the on-suite table), oldest first."""
    text = _upgrade(_read(page))
    a, b = block(text, RECORD_START, RECORD_END, page)
    return _table_rows(text[a:b], RECORD_COLUMNS, page)


def all_rows(page: Path) -> list[dict[str, str]]:
    """Every row of the record, its on-suite table's and then its off-suite table's (none without a page)."""
    if not page.exists():
        return []
    text = _upgrade(_read(page))
    a, b = block(text, RECORD_START, RECORD_END, page)
    rows = _table_rows(text[a:b], RECORD_COLUMNS, page)
    if OFF_START in text:
        c, d = block(text, OFF_START, OFF_END, page)
        rows += _table_rows(text[c:d], OFF_SUITE_COLUMNS, page)
    return rows


def _verdict_cells(s: Summary) -> dict[str, str]:
    """A cell per answerable verdict; ``unmeasured`` counts the must-refuse questions not measured too."""
    unmeasured = {Verdict.UNMEASURED.value: s.must_refuse_unmeasured}
    return {v: str(s.count(v) + unmeasured.get(v, 0)) for v in VERDICT_COLUMNS}


def record_row(report: SQLRun) -> dict[str, str]:
    s = report.summary
    return {
        "date": report.generated_at[:10],
        "corpus digest": report.corpus.digest[:DIGEST_CHARS],
        "questions": str(report.corpus.size),
        "candidate": report.candidate_path,
        "model": report.model,
        "engine": str(report.run.engine),
        "rotations": str(report.run.rotations),
        "cohort": report.cohort.fingerprint if report.cohort else PRE_COHORT,
        **_verdict_cells(s),
        "pass rate": f"{pct(s.pass_rate)} ({of(s.passed, s.measured)})",
        "refusal recall": "n/a"
        if not s.must_refuse
        else f"{pct(s.refusal_recall)} ({of(s.correct_refusals, s.must_refuse_measured)})",
        "over-refusals": "n/a" if not s.controls else of(s.over_refusals, s.controls),
        "status": "provisional",
    }


NEW_PAGE = f"""# SQL accuracy record

Dated figures of runs recorded with `--record-accuracy`, measured by the suite, never typed.

{RECORD_START}
{RECORD_END}

## Per stratum

{STRATA_START}
{STRATA_END}
"""


def ensure_page(page: Path) -> None:
    """A user's own record starts as an empty page with the markers the suite keeps it between."""
    if not page.exists():
        write_atomically(page, NEW_PAGE)


def suite_of(report: SQLRun) -> dict[str, Any]:
    keys = report.cohort.keys if report.cohort else {}
    return {k: keys[k] for k in SUITE_KEYS if k in keys}


_UNTRUSTED_CELLS = ("candidate", "model", "engine", "differs in")
"""Cells whose text a user or a model chose: written as inert Markdown (a model named ``<img onerror=...>``
is text on the page, not HTML), read back unescaped."""


def _line(row: dict[str, str], columns: list[str]) -> str:
    cells = [
        f"`{row[c]}`"
        if c == "corpus digest"
        else md.escape(row[c].replace("|", "/"))
        if c in _UNTRUSTED_CELLS
        else row[c].replace("|", "/")
        for c in columns
    ]
    return "| " + " | ".join(cells) + " |\n"


def _header(columns: list[str]) -> str:
    return "| " + " | ".join(columns) + " |\n|" + "|".join("---" for _ in columns) + "|\n"


def append_record(
    report: SQLRun, page: Path = ACCURACY_PAGE, *, suite: dict[str, Any] | None = None, allow_off_suite: bool = False
) -> dict[str, str]:
    """Add this run's row beside its cohort; ``suite``: the page's suite (None: the page's own, or this run's
    when the page has none yet). Another suite's run goes to the off-suite table, only when allowed."""
    text = _upgrade(_read(page))
    row = record_row(report)
    mine = suite_of(report)
    mark = SUITE_MARK.search(text)
    reference = suite if suite is not None else (json.loads(mark.group(1)) if mark else None)
    differences = [] if reference is None else cohort_differences(reference, mine, only=SUITE_KEYS)
    differs = list(dict.fromkeys(d.top for d in differences))
    if differs and not allow_off_suite:
        predates = [d.key for d in differences if d.a is UNKNOWN]
        raise UsageError(
            f"{page}: this run measured another suite than the record's (it differs in "
            f"{', '.join(differs)}: record vs this run: {'; '.join(map(str, differences))}): its numbers are "
            "not comparable with the record's rows; pass --allow-off-suite to keep it in the record's off-suite "
            "table"
            + (
                f" (the record's suite predates {', '.join(predates)}: if every row of it was measured so, add "
                "that to the page's accuracy-suite comment)"
                if predates
                else ""
            )
        )
    if differs:
        return _append_off_suite(text, page, row, differs)
    a, end = block(text, RECORD_START, RECORD_END, page)
    rows = _table_rows(text[a:end], RECORD_COLUMNS, page)
    same = [r for r in rows if all(r[k] == row[k] for k in _IDENTITY)]
    if same and all(same[-1][k] == row[k] for k in _FIGURES):
        row["status"] = f"confirmed (agrees with {same[-1]['date']})"
    lines = [line for line in text[a:end].strip("\n").splitlines() if line.strip()]
    if not rows:
        lines = _header(RECORD_COLUMNS).splitlines()
    new = _line(row, RECORD_COLUMNS).rstrip("\n")
    cohort_at = [i for i, line in enumerate(lines) if row["cohort"] != PRE_COHORT and f"| {row['cohort']} |" in line]
    lines.insert(cohort_at[-1] + 1 if cohort_at else len(lines), new)
    prefix = text[:a]
    if suite is None and mark is None:  # a page's first row: its suite is the page's from now on
        at = prefix.rindex(RECORD_START)
        prefix = prefix[:at] + f"<!-- accuracy-suite: {json.dumps(mine, sort_keys=True)} -->\n" + prefix[at:]
    write_atomically(page, prefix + "\n" + "\n".join(lines) + "\n" + text[end:])
    return row


def _append_off_suite(text: str, page: Path, row: dict[str, str], differs: list[str]) -> dict[str, str]:
    row = {**row, "differs in": ", ".join(differs)}
    if OFF_START not in text:
        text = text.rstrip("\n") + (
            "\n\n## Off-suite runs\n\nRuns of another suite than the record's (another corpus, "
            "fixtures, seed, rotations, column-order or comparison policy): not comparable with the rows above.\n\n"
            f"{OFF_START}\n{_header(OFF_SUITE_COLUMNS)}{OFF_END}\n"
        )
    _, end = block(text, OFF_START, OFF_END, page)
    write_atomically(page, text[:end] + _line(row, OFF_SUITE_COLUMNS) + text[end:])
    return row


def render_strata(report: SQLRun, row: dict[str, str]) -> str:
    """One run's per-stratum counts (counts, not rates: a stratum may be two cases wide)."""
    head = (
        f"#### {row['date']} · {md.escape(row['candidate'])} / {md.escape(row['model'])} · corpus "
        f"`{row['corpus digest']}` · {md.escape(row['engine'])}, {row['rotations']} rotation(s) · {row['status']}"
    )
    refusing, controls = report.refusal_strata, report.control_strata
    refuse = [
        [md.escape(name), *(str(n) for n in (c.cases, c.declined, c.answered, c.error, c.unmeasured))]
        for name, c in refusing.items()
    ]
    answer = [
        [md.escape(name), "control" if name in controls else "answer", str(c.cases)]
        + [str(c.count(v.value)) for v in ANSWERABLE_VERDICTS]
        for name, c in report.answerable_strata.items()
        if name not in refusing
    ]
    parts = [head, ""]
    if answer:
        parts += [md.table(["stratum", "arm", "cases", *VERDICT_COLUMNS], answer), ""]
    if refuse:
        parts += [
            md.table(
                ["must-refuse stratum", "cases", "declined", "answered", "error (not the guard)", "unmeasured"], refuse
            ),
            "",
        ]
    return "\n".join(parts)


def append_strata(report: SQLRun, row: dict[str, str], page: Path = ACCURACY_PAGE) -> None:
    """Append this run's per-stratum block, headed by its record row's identity and status."""
    text = _read(page)
    _, end = block(text, STRATA_START, STRATA_END, page)
    body = text[:end].rstrip("\n") + "\n\n" + render_strata(report, row)
    write_atomically(page, body.rstrip("\n") + "\n\n" + text[end:])
