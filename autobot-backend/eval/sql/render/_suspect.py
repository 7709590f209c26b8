"""Suspect references (:mod:`eval.sql.oracle.suspect`) as every output shows them: apart, in a section of their
own, each finding beside its question's verdict; its question graded as usual. Text only here (no ``rich``):
the terminal's table is :mod:`eval.sql.render._terminal`'s."""

from __future__ import annotations

from dataclasses import dataclass

from eval.core import markdown as md
from eval.sql.model.run import SQLRun

TITLE = "Suspect references"
MEANING = (
    "each reference (or alternative) below has a shape that makes it likely wrong; its question is graded as "
    "usual, so a wrong verdict there may be the reference's fault: check the reference before the answer"
)


def sentence() -> str:
    return MEANING[0].upper() + MEANING[1:] + "."


@dataclass(frozen=True)
class Row:
    """One finding beside its question's verdict."""

    id: str
    verdict: str
    kind: str
    detail: str
    failing: bool


def rows(report: SQLRun) -> list[Row]:
    """One row per finding: the question, its verdict, the kind and the detail, in the report's question order."""
    verdicts = {o.question_id: o.verdict.value for o in report.outcomes}
    failing = {o.question_id for o in report.failing}
    return [
        Row(s.question_id, verdicts.get(s.question_id, "?"), s.kind, s.detail, s.question_id in failing)
        for s in report.suspect_references
    ]


def title(report: SQLRun) -> str:
    questions = len({s.question_id for s in report.suspect_references})
    return f"{TITLE} ({questions} question(s), {len(report.suspect_references)} finding(s))"


def line(r: Row) -> str:
    """One finding as a line of text (untrusted: escape it where it is rendered)."""
    return f"{r.id} ({r.verdict}): suspect reference, {r.kind}: {r.detail}"


def markdown_section(report: SQLRun) -> list[str]:
    if not report.suspect_references:
        return []
    table = md.table(
        ["question", "verdict", "kind", "why"],
        [
            [f"**{md.escape(r.id)}**", md.escape(r.verdict), md.escape(r.kind), md.escape(r.detail, 400)]
            for r in rows(report)
        ],
    )
    return [f"## {title(report)}", "", sentence(), "", table, ""]


def markdown_flags(report: SQLRun, question_id: str) -> list[str]:
    """The lines under a failing question's heading: its reference is suspect, and why."""
    return [
        f"Suspect reference ({md.escape(s.kind)}): {md.escape(s.detail, limit=400)}  "
        for s in report.suspects_of(question_id)
    ]


def junit_properties(report: SQLRun) -> list[tuple[str, str]]:
    return [(f"suspect_reference.{i}", line(r)) for i, r in enumerate(rows(report), 1)]


def html_context(report: SQLRun) -> dict[str, object]:
    return {"title": title(report), "meaning": sentence(), "rows": rows(report)}
