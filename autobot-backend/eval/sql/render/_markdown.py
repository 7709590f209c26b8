"""The Markdown report and the GitHub job summary: each section of :data:`eval.sql.sections.REGISTRY` in its place,
and the failing questions, each with what every section shows of it. Untrusted text (ids, questions, SQL, details)
goes through :mod:`eval.core.markdown`."""

from __future__ import annotations

from collections.abc import Iterator

from eval.core import markdown as md
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.sections import REGISTRY, laid_out
from eval.sql.sections.base import Format, Place

REPORT = (Place.LEAD, Place.HEADLINE, Place.BODY, Place.QUESTIONS, Place.CLOSING, Place.END)
"""The Markdown report: the figures, every failing question in full, then time and cost, the judge, the corpus."""
SUMMARY = (Place.LEAD, Place.HEADLINE, Place.BODY, Place.CLOSING, Place.QUESTIONS)
"""The job summary: the same figures, then the failing questions by id (their sections can outgrow the page)."""


def _question(run: SQLRun, o: SQLOutcome) -> list[str]:
    """One failing question: its heading and facts, each section's lines under them and after them, the SQL."""
    head = f"### {md.escape(o.question_id)}: {o.verdict.value}"
    if o.reason:
        head += f" ({md.escape(o.reason)})"
    out = [head, ""]
    if o.question:
        out.append(f"Question: {md.escape(o.question, limit=400)}  ")
    meta = f"Stratum {md.escape(o.stratum)}, expect {o.expect}"
    if o.classified is not None:
        meta += f", {o.classified.classification.value}"
    out.append(meta + "  ")
    if o.detail:
        out.append(f"Detail: {md.escape(o.detail, limit=600)}")
    parts = [p for p in (s.markdown_question(run, o) for s in REGISTRY) if p is not None]
    out += [line for p in parts for line in p.meta]
    out.append("")
    out += [line for p in parts for line in p.body]
    if o.sql:
        out += ["Candidate's SQL:", "", md.code_block(o.sql, "sql"), ""]
    if o.reference_sql:
        out += ["Reference SQL:", "", md.code_block(o.reference_sql, "sql"), ""]
    return out


def failing(run: SQLRun) -> list[str]:
    """Every failing question in full (the Markdown report)."""
    return [line for block in _failing_blocks(run) for line in block]


def _failing_blocks(run: SQLRun) -> Iterator[list[str]]:
    yield [f"## Failing questions ({len(run.failing)})", ""]
    for o in run.failing:
        yield _question(run, o)


def failing_ids(run: SQLRun) -> list[str]:
    """Every failing question by id on one line (the job summary's list: the full sections may not fit it)."""
    found = run.failing
    ids = ", ".join(f"**{md.escape(o.question_id)}** ({o.verdict.value})" for o in found)
    where = "The full report (--markdown or --html) has each one's question, detail, SQL and the reference's."
    return [f"## Failing questions ({len(found)})", "", ids or "None.", "", *([where, ""] if found else [])]


def to_markdown(report: SQLRun, *, details: bool = True) -> str:
    """What a developer acts on first: the 2x2, verdicts, regressions, the gate; then every failure.

    ``details=False``: the job summary (:func:`summary_markdown`).
    """
    return "\n".join(markdown_lines(report, details=details))


def markdown_lines(report: SQLRun, *, details: bool = True) -> list[str]:
    """:func:`to_markdown`'s text as its lines, before they are joined."""
    return list(markdown_stream(report, details=details))


def markdown_stream(report: SQLRun, *, details: bool = True) -> Iterator[str]:
    """The Markdown report's lines as they are made, a section (or a failing question) at a time: what stdout
    prints a block at a time, never holding the whole report (6.5 million characters for 10,000 questions)."""
    return (line for block in markdown_blocks(report, details=details) for line in block)


def markdown_blocks(report: SQLRun, *, details: bool = True) -> Iterator[list[str]]:
    """The report's lines in order, a section or a failing question at a time."""
    fmt, places = (Format.MARKDOWN, REPORT) if details else (Format.SUMMARY, SUMMARY)
    for place in places:
        if place is Place.QUESTIONS:
            yield from _failing_blocks(report) if details else [failing_ids(report)]
        for at, section in laid_out(fmt, (place,)):
            yield section.markdown(report, at) if details else section.summary(report, at)


def summary_markdown(report: SQLRun) -> str:
    """The job summary: every figure of the Markdown report (the refusal battery, the breakdowns per stratum,
    database and difficulty, costs and repeats included) and the failing questions by id; the per-question
    sections, which can outgrow the job page, stay in the full report."""
    return to_markdown(report, details=False)
