"""Why the wrong and error answers are wrong (issue 25): the counts by primary category (all, and per stratum) from
:attr:`SQLRun.diagnosis_counts`, and each failing question's diagnosis. The line quotes untrusted SQL: each format
escapes it as it escapes any SQL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import markdown as md
from eval.sql.model.diagnosis import CATEGORIES, Diagnosis
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Block, Place, Property, QuestionLines, Section, Table, placed

TITLE = "Why they are wrong: wrong and error answers by primary category"


def table(run: SQLRun) -> tuple[list[str], list[list[str]]]:
    """(header, rows): a row for all answers and one per stratum, a column per category that occurs."""
    counted = run.diagnosis_counts
    if not counted.overall:
        return [], []
    shown = [c.value for c in CATEGORIES if c.value in counted.overall]
    rows = [["all", *(str(counted.overall.get(c, 0)) for c in shown)]]
    rows += [[s, *(str(per.get(c, 0)) for c in shown)] for s, per in counted.strata.items()]
    return ["", *shown], rows


def text(o: SQLOutcome) -> str | None:
    """``primary: line`` (plain, unescaped), or None without a diagnosis."""
    return None if o.diagnosis is None else f"{o.diagnosis.primary.value}: {o.diagnosis.line}"


def markdown_why(o: SQLOutcome) -> str:
    if o.diagnosis is None:
        return ""
    also = [t.value for t in o.diagnosis.tags if t is not o.diagnosis.primary]
    more = f" (also {', '.join(also)})" if also else ""
    return f"**{o.diagnosis.primary.value}**{more}: {md.escape(o.diagnosis.line)}"


class Why(Section):
    name = "diagnosis"
    places = placed(terminal=Place.FINDINGS, html=Place.FINDINGS)
    question_column = "why (diagnosis)"

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        header, rows = table(run)
        if not rows:
            return []
        return [f"## {TITLE}", "", md.table(header, [[md.escape(r[0]), *r[1:]] for r in rows]), ""]

    def summary(self, run: SQLRun, at: Place) -> list[str]:
        """The counts, and every diagnosed question's line (the job summary has no per-question sections)."""
        out = self.markdown(run, at)
        if out:
            out += [f"- **{md.escape(o.question_id)}** {markdown_why(o)}" for o in run.diagnosed] + [""]
        return out

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        header, rows = table(run)
        if not rows:
            return []
        return [
            Table("Why they are wrong", ("wrong and error answers, by stratum", *header[1:]), tuple(map(tuple, rows)))
        ]

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        return [(f"diagnosis.{c}", str(n)) for c, n in run.diagnosis_counts.overall.items()]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        header, rows = table(run)
        return {"header": header, "rows": rows}

    def markdown_question(self, run: SQLRun, o: SQLOutcome) -> QuestionLines:
        return QuestionLines(body=[] if o.diagnosis is None else [f"Why: {markdown_why(o)}", ""])

    def terminal_question(self, run: SQLRun, o: SQLOutcome) -> tuple[None, str]:
        return None, text(o) or ""

    def junit_question(self, run: SQLRun, o: SQLOutcome) -> tuple[str, list[str]]:
        why = text(o)
        return ("" if why is None else f"; why: {why}"), []

    def html_question(self, run: SQLRun, o: SQLOutcome) -> Diagnosis | None:
        return o.diagnosis
