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

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eval.core import markdown as md
from eval.core.charts import line_chart
from eval.core.errors import HarnessError, UsageError
from eval.core.figures import interval, pct
from eval.core.html import render
from eval.core.jsonl import json_lines
from eval.core.output import resolve_input, write_atomically, write_text
from eval.core.stats import wilson

REPO_ROOT = Path(__file__).resolve().parents[3]
TREND_FILE = REPO_ROOT / "docs" / "eval" / "sql-accuracy.jsonl"
EXIT_OK, EXIT_CANNOT_JUDGE = 0, 2


class TrendError(HarnessError):
    """A trend file that cannot be read; the message names the file and line."""


def trend_path(page: Path) -> Path:
    """The JSON Lines file beside an accuracy record page."""
    return page.with_suffix(".jsonl")


def git_commit(cwd: Path = REPO_ROOT) -> tuple[str | None, bool | None]:
    """The commit checked out, and whether tracked files differ from it; (None, None) outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10)
        if head.returncode:
            return None, None
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None, None
    return head.stdout.strip(), bool(status.stdout.strip()) if status.returncode == 0 else None


def _interval(successes: int, trials: int) -> list[float] | None:
    found = wilson(successes, trials)
    return None if found is None else [round(found[0], 4), round(found[1], 4)]


def trend_line(
    summary: Mapping[str, Any], row: Mapping[str, str], *, commit: str | None, dirty: bool | None
) -> dict[str, Any]:
    """One run as the trend keeps it: the record row's identity and status, the summary's figures."""
    measured = summary["answerable"] - summary["unmeasured"]
    refusals = summary["must_refuse"] - summary["must_refuse_unmeasured"]
    return {
        "date": row["date"],
        "candidate": row["candidate"],
        "model": row["model"],
        "engine": row["engine"],
        "corpus_digest": row["corpus digest"],
        "questions": int(row["questions"]),
        "rotations": row["rotations"],
        "cohort": row.get("cohort"),
        "suite": "off" if "differs in" in row else "on",
        "status": row["status"],
        "pass": summary["pass"],
        "measured": measured,
        "pass_rate": summary["pass_rate"],
        "pass_rate_ci": summary["pass_rate_ci"],
        "correct_refusals": summary["correct_refusals"],
        "must_refuse_measured": refusals,
        "refusal_recall": summary["refusal_recall"],
        "refusal_recall_ci": summary["refusal_recall_ci"],
        "over_refusals": summary["over_refusals"],
        "controls": summary["controls"],
        "commit": commit,
        "dirty": dirty,
        "source": "run",
    }


def append_line(path: Path, line: dict[str, Any]) -> None:
    """Append one run (the file rewritten through a rename: a reader never sees half a line)."""
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    if before and not before.endswith("\n"):
        before += "\n"
    write_atomically(path, before + json.dumps(line, sort_keys=True) + "\n")


_REQUIRED = ("date", "candidate", "model", "pass_rate")
"""What every line of a trend file has (``python -m eval.trend`` plots them)."""


def load(path: Path) -> list[dict[str, Any]]:
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
        missing = [k for k in _REQUIRED if not isinstance(item, dict) or k not in item]
        if missing:
            raise TrendError(f"{where}: missing {', '.join(missing)}; each line is one run of --record-accuracy")
        runs.append(item)
    return runs


_FRACTION = re.compile(r"\((\d+)/(\d+)\)")


def _counts(cell: str) -> tuple[int, int] | None:
    found = _FRACTION.search(cell)
    return (int(found.group(1)), int(found.group(2))) if found else None


def backfill(page: Path, path: Path) -> int:
    """Lines for the rows of a record written before the trend existed; refuses to run twice."""
    from eval.sql.records.accuracy_page import read_record

    if path.exists() and any(r.get("source") == "record row" for r in load(path)):
        raise UsageError(f"{path}: already backfilled from a record; nothing was added")
    lines = []
    for row in read_record(page):
        passed, refused = _counts(row["pass rate"]), _counts(row["refusal recall"])
        over = row["over-refusals"].split("/") if "/" in row["over-refusals"] else None
        lines.append(
            {
                "date": row["date"],
                "candidate": row["candidate"],
                "model": row["model"],
                "engine": row["engine"],
                "corpus_digest": row["corpus digest"].strip("`"),
                "questions": int(row["questions"]),
                "rotations": row["rotations"],
                "cohort": None if row.get("cohort") in (None, "-") else row["cohort"],
                "suite": "on",
                "status": row["status"],
                "pass": passed[0] if passed else None,
                "measured": passed[1] if passed else None,
                "pass_rate": passed[0] / passed[1] if passed and passed[1] else None,
                "pass_rate_ci": _interval(*passed) if passed else None,
                "correct_refusals": refused[0] if refused else None,
                "must_refuse_measured": refused[1] if refused else None,
                "refusal_recall": refused[0] / refused[1] if refused and refused[1] else None,
                "refusal_recall_ci": _interval(*refused) if refused else None,
                "over_refusals": int(over[0]) if over else None,
                "controls": int(over[1]) if over else None,
                "commit": None,
                "dirty": None,
                "source": "record row",
            }
        )
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    write_atomically(path, "".join(json.dumps(x, sort_keys=True) + "\n" for x in lines) + existing)
    return len(lines)


def series(runs: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Runs grouped by (candidate, model), oldest first (the file's order within a date)."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in sorted(runs, key=lambda r: r["date"]):
        out.setdefault((r["candidate"], r["model"]), []).append(r)
    return out


def to_markdown(runs: list[dict[str, Any]]) -> str:
    out = ["# SQL accuracy over time", ""]
    for (candidate, model), items in series(runs).items():
        out += [f"## {md.escape(candidate)} / {md.escape(model)}", ""]
        rows = [
            [
                md.escape(r["date"]),
                (f"`{r['commit'][:10]}`" if r.get("commit") else "-") + (" (dirty)" if r.get("dirty") else ""),
                f"`{md.escape(r.get('corpus_digest') or '-')}`",
                md.escape(r.get("engine") or "-"),
                f"{pct(r['pass_rate'])} ({interval(r.get('pass_rate_ci'))})",
                f"{pct(r.get('refusal_recall'))} ({interval(r.get('refusal_recall_ci'))})",
                md.escape(r.get("status") or ""),
            ]
            for r in items
        ]
        out += [
            md.table(
                ["date", "commit", "corpus", "engine", "pass rate (95% CI)", "refusal recall (95% CI)", "status"], rows
            ),
            "",
        ]
    return "\n".join(out)


def to_html(runs: list[dict[str, Any]]) -> str:
    groups = []
    for (candidate, model), items in series(runs).items():
        charts = {}
        for key in ("pass_rate", "refusal_recall"):
            values = [
                (f"{r['date']} {(r.get('commit') or '')[:7]}".strip(), r[key], r.get(f"{key}_ci"))
                for r in items
                if r.get(key) is not None
            ]
            charts[key] = line_chart(values) if values else None
        groups.append({"candidate": candidate, "model": model, "runs": items, "charts": charts})
    return render("trend.html.j2", groups=groups)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m eval.trend", description=__doc__.splitlines()[0])
    p.add_argument("--file", type=Path, help=f"the JSON Lines trend (default {TREND_FILE.relative_to(REPO_ROOT)})")
    p.add_argument("--html", metavar="PATH", help="also write the trend as one self-contained HTML page")
    p.add_argument("--markdown", metavar="PATH", help="also write the Markdown")
    p.add_argument("--backfill", metavar="PAGE", type=Path, help="add the rows of an accuracy record page, once")
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    path = resolve_input(args.file) if args.file else TREND_FILE
    try:
        if args.backfill:
            n = backfill(resolve_input(args.backfill), path)
            print(f"backfilled {n} run(s) from {args.backfill} into {path}", file=sys.stderr)
        runs = load(path)
        text = to_markdown(runs)
        print(text)
        if args.markdown:
            write_text(args.markdown, text + "\n")
        if args.html:
            write_text(args.html, to_html(runs))
        return EXIT_OK
    except (HarnessError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CANNOT_JUDGE


if __name__ == "__main__":
    sys.exit(main())
