"""``python -m eval.trend``: pass rate and refusal recall over time, per candidate and model.

``--record-accuracy`` appends each run as one JSON line beside the accuracy record
(``docs/eval/sql-accuracy.jsonl`` for the built-in one): the cohort fingerprint, the figures with
their 95% intervals, and the git commit the run was measured at (with ``dirty`` when the working
tree had uncommitted changes). The Markdown record stays the dated table people read; the JSON
Lines file is what can be plotted. ``--backfill PAGE`` converts the rows of a record written before
the trend existed (no commit, intervals computed from the row's counts, marked
``"source": "record row"``), once.

Exit codes: 0 shown; 2 the file is missing or a line does not read.
"""

from __future__ import annotations

import json
from pathlib import Path

from eval.core import markdown as md
from eval.core.errors import HarnessError, UsageError
from eval.core.figures import interval, pct
from eval.core.html import render
from eval.core.jsonl import json_lines, read_bounded
from eval.core.output import write_atomically
from eval.sql.records.trend_file import TrendPoint, from_record_row
from eval.tools.trend_chart import FIGURES, cohorts, svg_chart


class TrendError(HarnessError):
    """A trend file that cannot be read; the message names the file and line."""


def load(path: Path) -> list[TrendPoint]:
    """Every run in a trend file, typed; a bad line is named by path and line number."""
    lines = json_lines(
        path,
        TrendError,
        missing="no trend file; --record-accuracy writes one beside the record",
        unreadable="cannot read it",
    )
    runs = []
    for line in lines:
        where, item = line.where, line.value
        if line.error is not None:
            raise TrendError(f"{where}: not a JSON line ({line.error.msg}); fix or delete that line")
        try:
            if not isinstance(item, dict):
                raise KeyError(", ".join(TrendPoint.REQUIRED))
            runs.append(TrendPoint.from_json(item))
        except KeyError as exc:
            raise TrendError(f"{where}: missing {exc.args[0]}; each line is one run of --record-accuracy") from None
        except ValueError as exc:
            raise TrendError(
                f"{where}: {exc}; each line is one run of --record-accuracy: fix or delete that line"
            ) from None
    return runs


def backfill(page: Path, path: Path) -> int:
    """Lines for the rows of a record written before the trend existed; refuses to run twice."""
    from eval.sql.records.accuracy_page import read_record

    if path.exists() and any(r.source == "record row" for r in load(path)):
        raise UsageError(f"{path}: already backfilled from a record; nothing was added")
    lines = []
    for row in read_record(page):
        try:
            lines.append(from_record_row(row))
        except (KeyError, ValueError) as exc:
            raise UsageError(
                f"{page}: the row of {row.get('date', '?')} ({row.get('candidate', '?')}/{row.get('model', '?')}) "
                f"does not read as a run ({exc}); fix that row: nothing was added"
            ) from None
    existing = read_bounded(path, TrendError, missing="", unreadable="cannot read it") if path.exists() else ""
    write_atomically(path, "".join(json.dumps(x.to_json(), sort_keys=True) + "\n" for x in lines) + existing)
    return len(lines)


def series(runs: list[TrendPoint]) -> dict[tuple[str, str], list[TrendPoint]]:
    """Runs grouped by (candidate, model), oldest first (the file's order within a date)."""
    out: dict[tuple[str, str], list[TrendPoint]] = {}
    for r in sorted(runs, key=lambda r: r.date):
        out.setdefault((r.candidate, r.model), []).append(r)
    return out


def to_markdown(runs: list[TrendPoint]) -> str:
    out = ["# SQL accuracy over time", ""]
    for (candidate, model), items in series(runs).items():
        out += [f"## {md.escape(candidate)} / {md.escape(model)}", ""]
        rows = [
            [
                md.escape(r.date),
                (f"`{r.commit[:10]}`" if r.commit else "-") + (" (dirty)" if r.dirty else ""),
                f"`{md.escape(r.corpus_digest or '-')}`",
                md.escape(r.engine or "-"),
                f"{pct(r.pass_rate)} ({interval(r.pass_rate_ci)})",
                f"{pct(r.refusal_recall)} ({interval(r.refusal_recall_ci)})",
                md.escape(r.counts),
                md.escape(r.status or ""),
            ]
            for r in items
        ]
        out += [
            md.table(
                [
                    "date",
                    "commit",
                    "corpus",
                    "engine",
                    "pass rate (95% CI)",
                    "refusal recall (95% CI)",
                    "verdicts",
                    "status",
                ],
                rows,
            ),
            "",
        ]
    return "\n".join(out)


def to_html(runs: list[TrendPoint]) -> str:
    """The page: one chart per headline figure (series by cohort), then each candidate and model's runs."""
    from markupsafe import Markup

    charts = [
        {"key": key, "title": title, "svg": Markup(svg_chart(key, runs))}  # matplotlib's SVG, its text escaped
        for key, title in FIGURES.items()
        if any(getattr(r, key) is not None for r in runs)
    ]
    groups = [{"candidate": c, "model": m, "runs": items} for (c, m), items in series(runs).items()]
    return render("trend.html.j2", charts=charts, groups=groups, series=len(cohorts(runs)))
