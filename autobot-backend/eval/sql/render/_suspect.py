"""Suspect references (:mod:`eval.sql.oracle.suspect`) as every output shows them: apart, in a section of their
own, each finding beside its question's verdict; its question graded as usual. Text only here (no ``rich``):
the terminal's table is :mod:`eval.sql.render._terminal`'s."""

from __future__ import annotations

from typing import Any

from eval.core import markdown as md
from eval.sql.model.run import SQLRun

TITLE = "Suspect references"
MEANING = (
    "each reference (or alternative) below has a shape that makes it likely wrong; its question is graded as "
    "usual, so a wrong verdict there may be the reference's fault: check the reference before the answer"
)


def sentence() -> str:
    return MEANING[0].upper() + MEANING[1:] + "."


def rows(report: SQLRun) -> list[dict[str, Any]]:
    """One row per finding: the question, its verdict, the kind and the detail, in the report's question order."""
    verdicts = {o.question_id: o.verdict.value for o in report.outcomes}
    failing = {o.question_id for o in report.failing}
    return [
        {
            "id": s.get("question_id", ""),
            "verdict": verdicts.get(s.get("question_id", ""), "?"),
            "kind": s.get("kind", ""),
            "detail": s.get("detail", ""),
            "failing": s.get("question_id") in failing,
        }
        for s in report.suspect_references
    ]


def title(report: SQLRun) -> str:
    questions = len({s.get("question_id") for s in report.suspect_references})
    return f"{TITLE} ({questions} question(s), {len(report.suspect_references)} finding(s))"


def line(s: dict[str, Any]) -> str:
    """One finding as a line of text (untrusted: escape it where it is rendered)."""
    return f"{s['id']} ({s['verdict']}): suspect reference, {s['kind']}: {s['detail']}"


def markdown_section(report: SQLRun) -> list[str]:
    if not report.suspect_references:
        return []
    table = md.table(
        ["question", "verdict", "kind", "why"],
        [
            [f"**{md.escape(r['id'])}**", md.escape(r["verdict"]), md.escape(r["kind"]), md.escape(r["detail"], 400)]
            for r in rows(report)
        ],
    )
    return [f"## {title(report)}", "", sentence(), "", table, ""]


def markdown_flags(report: SQLRun, question_id: str) -> list[str]:
    """The lines under a failing question's heading: its reference is suspect, and why."""
    return [
        f"Suspect reference ({md.escape(s.get('kind'))}): {md.escape(s.get('detail'), limit=400)}  "
        for s in report.suspects_of(question_id)
    ]


def junit_properties(report: SQLRun) -> list[tuple[str, str]]:
    return [(f"suspect_reference.{i}", line(r)) for i, r in enumerate(rows(report), 1)]


def html_context(report: SQLRun) -> dict[str, Any]:
    return {"title": title(report), "meaning": sentence(), "rows": rows(report)}
