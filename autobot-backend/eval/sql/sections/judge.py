"""``--judge``: the model judge against the execution verdicts (agreement per stratum, Cohen's kappa), every judge
error by id. Untrusted text (ids, reasons, explanations, the judge's name) is escaped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import figures as fig
from eval.core import markdown as md
from eval.sql.model.judge import Agreement, JudgedAnswer
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Block, Line, Place, Property, Section, TerminalView, placed

_COLUMNS = ("good/good", "good/partial", "good/poor", "bad/good", "bad/partial", "bad/poor")
"""The cells of :attr:`Agreement.cells`, in its order: execution's verdict / the judge's band."""


def line(run: SQLRun) -> str | None:
    """The judge in one line: agreement with the execution verdicts, judge errors, kappa."""
    j = run.judge
    if j is None:
        return None
    a = j.agreement
    kappa = "n/a" if j.kappa is None else f"{j.kappa:g}"
    return (
        f"model judge: agrees with execution on {fig.of(a.agree, a.compared)} answers; "
        f"{a.judge_errors} judge error(s), {a.too_harsh} too harsh; Cohen's kappa {kappa}"
    )


def _row(name: str, c: Agreement) -> list[str]:
    return [
        name,
        str(c.compared),
        *(str(n) for n in c.cells),
        f"{c.agree}/{c.compared}",
        str(c.judge_errors),
        str(c.not_compared),
    ]


def _entry(e: JudgedAnswer) -> str:
    composite = "n/a" if e.composite is None else f"{e.composite:g}"
    return (
        f"- **{md.escape(e.turn_id)}** ({md.escape(e.verdict)}"
        + (f", {md.escape(e.reason)}" if e.reason else "")
        + f"): composite {composite}: {md.escape(e.explanation, limit=300)}"
    )


class Judge(Section):
    name = "judge"
    places = placed(markdown=Place.CLOSING, terminal=Place.FINDINGS, html=Place.FINDINGS)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        j = run.judge
        if j is None:
            return []
        who, s = j.judge, j.summary
        out = [
            "## The model judge against the execution verdicts",
            "",
            f"Judge **{md.escape(who.model)}**, rubric **{md.escape(who.rubric_version)}**: every answer "
            f"judged as a captured turn with no reference; {s.scored} scored, {s.unmeasured} unmeasured. Rows: "
            "execution good (a pass, or a correct refusal) or bad; columns: the composite's band. A band of good on an "
            "answer execution found bad is a judge error.",
            "",
            md.table(
                [
                    "stratum",
                    "compared",
                    *(f"exec {c.replace('/', ', judge ')}" for c in _COLUMNS),
                    "agree",
                    "judge errors",
                    "not compared",
                ],
                [_row(md.escape(name), c) for name, c in j.strata.items()] + [_row("**all**", j.agreement)],
            ),
            "",
            f"Cohen's kappa, execution good against judge good: {'n/a' if j.kappa is None else j.kappa}.",
            "",
        ]
        for title, items in (
            ("Judge errors (band good, execution bad)", j.judge_errors),
            ("Too harsh (band poor, execution good)", j.too_harsh),
        ):
            out += [f"### {title}: {len(items)}", ""]
            out += [_entry(e) for e in items] or ["None."]
            out.append("")
        if j.unmeasured:
            shown = [f"{md.escape(u.turn_id)} ({md.escape(u.reason, limit=200)})" for u in j.unmeasured]
            out += ["Unmeasured by the judge: " + "; ".join(shown), ""]
        return out

    def summary(self, run: SQLRun, at: Place) -> list[str]:
        """The judge in one line: the full report has the table and every judge error by id."""
        found = line(run)
        if found is None:
            return []
        return [
            "## The model judge",
            "",
            f"{found[0].upper()}{found[1:]} (the full report has every judge error by id).",
            "",
        ]

    def terminal(self, run: SQLRun, view: TerminalView, at: Place) -> list[Block]:
        found = line(run)
        if found is None:
            return []
        where = (
            f"every judge error by id in {view.full_report}"
            if view.full_report
            else "every judge error by id with --markdown"
        )
        return [Line.of(f"{found} ({where})")]

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        found = line(run)
        return [] if found is None else [("judge", found)]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        return {"line": line(run)}
