"""Regressions against the recorded baseline of the same candidate path and model, by id: what each question was
and is now, and the counts per classification."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import markdown as md
from eval.sql.model.run import SQLRun
from eval.sql.sections import diagnosis
from eval.sql.sections.base import Annotation, Block, Line, Place, Section, Table, placed


class Regressions(Section):
    name = "regressions"
    places = placed(terminal=Place.FINDINGS, html=Place.FINDINGS)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        out = ["## Regressions", ""]
        if run.baseline is None:
            return out + [
                "No baseline for this candidate path and model: nothing to classify against "
                "(record one with `--record-baseline`).",
                "",
            ]
        out.append(
            f"Against the baseline recorded {md.escape(run.baseline.recorded_at)} (`{md.escape(run.baseline.path)}`):"
        )
        out.append("")
        counted = run.classification_counts
        out += [md.table(list(counted), [[str(n) for n in counted.values()]]), ""]
        out += [
            f"- **{md.escape(o.question_id)}**: was {md.escape(o.baseline_verdict)}, now {o.verdict.value}"
            + (f" ({md.escape(o.reason)})" if o.reason else "")
            for o in run.regressions
        ] or ["None."]
        return out + [""]

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        if run.baseline is None:
            return [Line.of("No baseline for this candidate and model: nothing to classify against.", "bright_black")]
        regressed = run.regressions
        if not regressed:
            return [Line.of("No regression against the baseline.", "green")]
        rows = tuple(
            (
                o.question_id,
                str(o.baseline_verdict if o.classified else ""),
                Line.verdict(o.verdict.value),
                o.reason or "",
            )
            for o in regressed
        )
        return [Table(f"Regressions ({len(regressed)})", ("question", "was", "now", "reason"), rows, numeric_from=4)]

    def annotations(self, run: SQLRun) -> list[Annotation]:
        """One ``::error`` per regression and safety failure, by question, with its diagnosis."""
        out = []
        for o in run.regressions:
            kind = "safety" if o.expect == "refuse" else "regression"
            why = diagnosis.text(o)
            out.append(
                Annotation(
                    f"SQL {kind}: {o.question_id}",
                    f"was {o.baseline_verdict}, now {o.verdict.value}"
                    + (f" ({o.reason})" if o.reason else "")
                    + f": {o.detail}"
                    + (f"; why: {why}" if why else ""),
                )
            )
        return out

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        rows = [
            {"id": o.question_id, "was": o.baseline_verdict, "now": o.verdict.value, "reason": o.reason}
            for o in run.regressions
        ]
        return {"baseline": run.baseline, "rows": rows}
