"""Why the wrong and error answers are wrong (issue 25), as every renderer shows it: the counts by primary
category (all, and per stratum) from :attr:`SQLRun.diagnosis_counts`, and each failing question's
diagnosis line. The line quotes untrusted SQL: each renderer escapes it as it escapes any SQL."""

from __future__ import annotations

from eval.core import markdown as md
from eval.sql.model.diagnosis import CATEGORIES
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun

TITLE = "Why they are wrong: wrong and error answers by primary category"


def table(report: SQLRun) -> tuple[list[str], list[list[str]]]:
    """(header, rows): a row for all answers and one per stratum, a column per category that occurs."""
    counts = report.diagnosis_counts
    if not counts.overall:
        return [], []
    shown = [c.value for c in CATEGORIES if c.value in counts.overall]
    rows = [["all", *(str(counts.overall.get(c, 0)) for c in shown)]]
    rows += [[s, *(str(per.get(c, 0)) for c in shown)] for s, per in counts.strata.items()]
    return ["", *shown], rows


def text(o: SQLOutcome) -> str | None:
    """``primary: line`` (plain, unescaped), or None without a diagnosis."""
    return None if o.diagnosis is None else f"{o.diagnosis.primary.value}: {o.diagnosis.line}"


def markdown_section(report: SQLRun, *, lines: bool = False) -> list[str]:
    """The counts table; with ``lines``, every diagnosed question's line too (the job summary, which has
    no per-question sections)."""
    header, rows = table(report)
    if not rows:
        return []
    out = [f"## {TITLE}", "", md.table(header, [[md.escape(r[0]), *r[1:]] for r in rows]), ""]
    if lines:
        out += [f"- **{md.escape(o.question_id)}** {markdown_why(o)}" for o in report.diagnosed] + [""]
    return out


def markdown_why(o: SQLOutcome) -> str:
    if o.diagnosis is None:
        return ""
    also = [t.value for t in o.diagnosis.tags if t is not o.diagnosis.primary]
    more = f" (also {', '.join(also)})" if also else ""
    return f"**{o.diagnosis.primary.value}**{more}: {md.escape(o.diagnosis.line)}"


def markdown_lines(o: SQLOutcome) -> list[str]:
    """The line of a failing question's section."""
    return [] if o.diagnosis is None else [f"Why: {markdown_why(o)}", ""]
