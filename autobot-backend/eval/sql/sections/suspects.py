"""Suspect references (:mod:`eval.sql.oracle.suspect`): apart, in a section of their own, each finding beside its
question's verdict, and a flag on the question; its question graded as usual."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from eval.core import markdown as md
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import (
    Annotation,
    Block,
    Line,
    Place,
    Property,
    QuestionLines,
    Section,
    Table,
    placed,
)

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


def rows(run: SQLRun) -> list[Row]:
    """One row per finding: the question, its verdict, the kind and the detail, in the report's question order."""
    verdicts = {o.question_id: o.verdict.value for o in run.outcomes}
    failing = {o.question_id for o in run.failing}
    return [
        Row(s.question_id, verdicts.get(s.question_id, "?"), s.kind, s.detail, s.question_id in failing)
        for s in run.suspect_references
    ]


def title(run: SQLRun) -> str:
    questions = len({s.question_id for s in run.suspect_references})
    return f"{TITLE} ({questions} question(s), {len(run.suspect_references)} finding(s))"


def line(r: Row) -> str:
    """One finding as a line of text (untrusted: escape it where it is rendered)."""
    return f"{r.id} ({r.verdict}): suspect reference, {r.kind}: {r.detail}"


class Suspects(Section):
    name = "suspects"
    places = placed(terminal=Place.FINDINGS, junit=Place.END, html=Place.FINDINGS)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        if not run.suspect_references:
            return []
        table = md.table(
            ["question", "verdict", "kind", "why"],
            [
                [f"**{md.escape(r.id)}**", md.escape(r.verdict), md.escape(r.kind), md.escape(r.detail, 400)]
                for r in rows(run)
            ],
        )
        return [f"## {title(run)}", "", sentence(), "", table, ""]

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        found = rows(run)
        if not found:
            return []
        table = Table(
            title(run),
            ("question", "verdict", "kind", "why"),
            tuple((r.id, Line.verdict(r.verdict), r.kind, r.detail[:160]) for r in found),
            numeric_from=4,
        )
        return [table, Line.of(sentence(), "bright_black")]

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        return [(f"suspect_reference.{i}", line(r)) for i, r in enumerate(rows(run), 1)]

    def annotations(self, run: SQLRun) -> list[Annotation]:
        """One ``::notice`` per finding (its question graded as usual)."""
        return [Annotation(f"SQL suspect reference: {r.id}", line(r), "notice") for r in rows(run)]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        return {"title": title(run), "meaning": sentence(), "rows": rows(run)}

    def markdown_question(self, run: SQLRun, o: SQLOutcome) -> QuestionLines:
        """The lines under a failing question's heading: its reference is suspect, and why."""
        return QuestionLines(
            meta=[
                f"Suspect reference ({md.escape(s.kind)}): {md.escape(s.detail, limit=400)}  "
                for s in run.suspects_of(o.question_id)
            ]
        )

    def terminal_question(self, run: SQLRun, o: SQLOutcome) -> tuple[Line | None, str | None]:
        badge = Line(((" suspect reference", "yellow"),))
        return (badge if run.suspects_of(o.question_id) else None), None

    def junit_question(self, run: SQLRun, o: SQLOutcome) -> tuple[str, list[str]]:
        return "", [f"-- suspect reference ({s.kind}): {s.detail}" for s in run.suspects_of(o.question_id)]

    def html_question(self, run: SQLRun, o: SQLOutcome) -> str:
        return "; ".join(f"{f.kind}: {f.detail}" for f in run.suspects_of(o.question_id))
