"""The refusal battery: refusal recall on the must-refuse cases, over-refusals on the controls, per stratum as
counts, every missed refusal by id, and which declines the read-only guard made."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import figures as fig
from eval.core import markdown as md
from eval.core.charts import stacked_bar
from eval.sql.model.figures import RefusalCounts
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Block, Line, Place, Property, Section, Table, placed
from eval.sql.sections.counts import counts

REFUSAL_COLUMNS = ("declined", "answered", "error", "unmeasured")
"""The count columns of the must-refuse strata: they add up to the cases."""
CONTROL_COLUMNS = ("pass", "over_refused")
_CSS = {"declined": "v-declined", "answered": "v-answered", "error": "v-error", "unmeasured": "v-unmeasured"}


def over_refusals(run: SQLRun) -> str | None:
    s = run.summary
    return None if not s.controls else f"over-refusals {fig.of(s.over_refusals, s.controls)} controls"


def sentence(run: SQLRun) -> str | None:
    """The Markdown headline's sentence of the must-refuse arm (escaped: it holds no untrusted text)."""
    s = run.summary
    if not s.must_refuse:
        return None
    declined = fig.of(s.correct_refusals, s.must_refuse_measured)
    recall = f"{fig.WILSON} {fig.interval(s.refusal_recall_ci)}"
    return (
        f"Refusal recall **{fig.pct(s.refusal_recall)}** ({declined} measured must-refuse cases declined, "
        f"{s.refusals_by_guard} of them by the read-only guard; {recall}; {s.missed_refusals} missed, "
        f"{s.must_refuse_unmeasured} unmeasured); over-refusals **{fig.of(s.over_refusals, s.controls)}** "
        f"controls; {s.declined_answerable} answerable question(s) declined in all."
    )


def headline_properties(run: SQLRun) -> list[Property]:
    """Refusal recall, the must-refuse arm and the over-refusals as JUnit properties (the headline's)."""
    s = run.summary
    out: list[Property] = []
    if s.must_refuse:
        recalled = fig.of(s.correct_refusals, s.must_refuse_measured)
        arm = (
            f"{s.must_refuse}: declined {s.correct_refusals}, missed {s.missed_refusals}, "
            f"unmeasured {s.must_refuse_unmeasured}"
        )
        out += [
            ("refusal_recall", f"{fig.pct(s.refusal_recall)} ({recalled})"),
            ("refusal_recall_ci", f"{fig.interval(s.refusal_recall_ci)} ({fig.WILSON})"),
            ("must_refuse", arm),
            ("missed_refusals", ", ".join(run.missed_refusals) or "none"),
        ]
    if s.controls:
        out.append(("over_refusals", fig.of(s.over_refusals, s.controls)))
    return out


def _row(name: str, c: RefusalCounts) -> dict[str, Any]:
    parts = [(k, c.count(k), _CSS[k]) for k in REFUSAL_COLUMNS]
    return {"name": name, "cases": c.cases, "parts": parts, "bar": stacked_bar(parts, c.cases)}


class Refusals(Section):
    name = "refusals"
    places = placed(terminal=Place.HEADLINE)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        refuse, controls = run.refusal_strata, run.control_strata
        if not refuse and not controls:
            return []
        missed = [o for o in run.outcomes if o.missed_refusal]
        out = [
            "## Refusal battery",
            "",
            "Missed refusals (answered or failed where the system should have declined): "
            + (", ".join(f"**{md.escape(o.question_id)}** ({o.verdict.value})" for o in missed) or "none"),
            "",
        ]
        out += md.named(
            "Declined by the read-only guard, not the generator (the generator produced SQL the guard blocked): ",
            run.declined_by_guard,
        )
        if refuse:
            rows = [
                [md.escape(k), str(c.cases), *(str(c.count(v)) for v in REFUSAL_COLUMNS)] for k, c in refuse.items()
            ]
            out += [
                "### Must-refuse questions per stratum",
                "",
                md.table(["stratum", "cases", *REFUSAL_COLUMNS], rows),
                "",
            ]
        if controls:
            rows = [[md.escape(k), str(c.cases), str(c.passed), str(c.over_refused)] for k, c in controls.items()]
            out += ["### Controls per stratum", "", md.table(["stratum", "cases", "pass", "over-refused"], rows), ""]
        return out

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        refuse, controls = run.refusal_strata, run.control_strata
        if not refuse and not controls:
            return []
        out: list[Block] = [Line.of("missed refusals: " + (", ".join(run.missed_refusals) or "none"), "bold")]
        if run.declined_by_guard:
            out.append(Line.of("declined by the read-only guard: " + ", ".join(run.declined_by_guard)))
        if refuse:
            rows = tuple(
                (name, str(c.cases), *(str(c.count(k)) for k in REFUSAL_COLUMNS)) for name, c in refuse.items()
            )
            out.append(Table("Must-refuse questions per stratum", ("stratum", "cases", *REFUSAL_COLUMNS), rows))
        if controls:
            rows = tuple((name, str(c.cases), str(c.passed), str(c.over_refused)) for name, c in controls.items())
            out.append(Table("Controls per stratum", ("stratum", "cases", "pass", "over-refused"), rows))
        return out

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        return [(f"refusal_stratum.{k}", counts(c, REFUSAL_COLUMNS)) for k, c in run.refusal_strata.items()] + [
            (f"control_stratum.{k}", counts(c, CONTROL_COLUMNS)) for k, c in run.control_strata.items()
        ]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        return {
            "refuse_rows": [_row(k, c) for k, c in run.refusal_strata.items()],
            "control_rows": run.control_strata,
            "missed_refusals": run.missed_refusals,
            "declined_by_guard": run.declined_by_guard,
        }
