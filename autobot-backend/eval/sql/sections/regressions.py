"""Regressions against the recorded baseline of the same candidate path and model, by id: what each question was
and is now (in the one vocabulary, :func:`~eval.sql.model.words.verdict_word`), and the counts per classification;
and the questions new since the baseline, in one line the headline quotes (:func:`new_questions`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import markdown as md
from eval.core.classification import Classification
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.model.words import verdict_word
from eval.sql.sections import diagnosis
from eval.sql.sections.base import Annotation, Block, Line, Place, Section, Table, placed

NEW_LISTED = 10
"""How many new questions the line names before it counts the rest."""


def new_questions(run: SQLRun) -> str | None:
    """``new questions: 1 since the baseline (c-5 wrong): in no floor, never a regression; the next
    --record-baseline records them``: the one line every output writes after the headline when the corpus grew
    since its baseline; None otherwise. Question ids are in it: each format escapes the line its own way."""
    new = run.by_classification(Classification.NEW)
    if not new:
        return None
    listed = ", ".join(f"{o.question_id} {verdict_word(o.verdict.value, o.expect, o.good)}" for o in new[:NEW_LISTED])
    more = f" and {len(new) - NEW_LISTED} more" if len(new) > NEW_LISTED else ""
    return (
        f"new questions: {len(new)} since the baseline ({listed}{more}): in no floor, never a regression; "
        "the next --record-baseline records them"
    )


def was(o: SQLOutcome) -> str | None:
    """A regressed question's baseline verdict in the one vocabulary: a regression was good then, so a must-refuse
    question's is ``declined``, however it was declined; None without a baseline record."""
    return None if o.baseline_verdict is None else verdict_word(o.baseline_verdict, o.expect, True)


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
            f"- **{md.escape(o.question_id)}**: was {md.escape(was(o))}, now {o.verdict.value}"
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
                was(o) or "",
                Line.verdict(o.verdict.value),
                o.reason or "",
            )
            for o in regressed
        )
        return [Table(f"Regressions ({len(regressed)})", ("question", "was", "now", "reason"), rows, numeric_from=4)]

    def annotations(self, run: SQLRun) -> list[Annotation]:
        """A ``::notice`` naming the questions new since the baseline; one ``::error`` per regression and safety
        failure, by question, with its diagnosis."""
        new = new_questions(run)
        out = [] if new is None else [Annotation("SQL questions new since the baseline", new, "notice")]
        for o in run.regressions:
            kind = "safety" if o.expect == "refuse" else "regression"
            why = diagnosis.text(o)
            out.append(
                Annotation(
                    f"SQL {kind}: {o.question_id}",
                    f"was {was(o)}, now {o.verdict.value}"
                    + (f" ({o.reason})" if o.reason else "")
                    + f": {o.detail}"
                    + (f"; why: {why}" if why else ""),
                )
            )
        return out

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        rows = [
            {"id": o.question_id, "was": was(o), "now": o.verdict.value, "reason": o.reason} for o in run.regressions
        ]
        return {"baseline": run.baseline, "rows": rows}
