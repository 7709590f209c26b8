"""The headline: what a reader acts on first. The pass rate with its interval and the counts per verdict are its
own; it quotes the first-screen line of the sections it sums up (refusal recall and over-refusals, the gate, the
lints, repeats) in their words, and says which interval is which."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import figures as fig
from eval.core import markdown as md
from eval.sql.model.run import SQLRun
from eval.sql.sections import gate, lints, refusals, repeats
from eval.sql.sections.base import STYLES, Block, Line, Place, Property, Section, placed
from eval.sql.sections.counts import ANSWERABLE_COLUMNS


def not_gradeable(run: SQLRun) -> str:
    """``; 2 not gradeable (oracle defects)`` or nothing: the questions the pass rate's denominator leaves out
    because their reference cannot grade them; and ``; 2 skipped at import`` when the corpus left some out."""
    n = len(run.oracle_defects)
    skipped = len(run.corpus.skipped)
    return (f"; {n} not gradeable (oracle defects)" if n else "") + (
        f"; {skipped} skipped at import" if skipped else ""
    )


def basis(run: SQLRun) -> str:
    """``(64/108; 95% Wilson CI 49.8-68.0%)``, and ``; 2 not gradeable`` when references could not grade some
    questions: the denominator is shown beside the rate, and what it leaves out."""
    s = run.summary
    return f"({fig.of(s.passed, s.measured)}; {fig.WILSON} {fig.interval(s.pass_rate_ci)}{not_gradeable(run)})"


def pass_rate(run: SQLRun) -> str:
    """``59.3% (64/108; 95% Wilson CI 49.8-68.0%)``."""
    return f"{fig.pct(run.summary.pass_rate)} {basis(run)}"


def verdict_counts(run: SQLRun) -> str:
    """``answerable 108: pass 64, wrong 37, error 0, refused 7, unmeasured 0``, then the must-refuse arm's."""
    s = run.summary
    text = f"answerable {s.answerable}: " + ", ".join(f"{v} {s.count(v)}" for v in ANSWERABLE_COLUMNS)
    if s.must_refuse:
        text += (
            f"; must refuse {s.must_refuse}: declined {s.correct_refusals}, missed {s.missed_refusals}, "
            f"unmeasured {s.must_refuse_unmeasured}"
        )
    return text


def interval_notes(run: SQLRun) -> list[str]:
    """Which interval is which, and why a bootstrap interval at 0% is a point: each one the run shows."""
    return [fig.WILSON_NOTE] + ([fig.BOOTSTRAP_NOTE] if run.repeats is not None else [])


class Headline(Section):
    name = "headline"
    places = placed(
        markdown=Place.HEADLINE, terminal=Place.HEADLINE, junit=(Place.HEADLINE, Place.END), html=Place.HEADLINE
    )

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        s = run.summary
        out = [
            "## Verdicts",
            "",
            md.table(
                [*ANSWERABLE_COLUMNS, "pass rate"], [[*(str(s.count(v)) for v in ANSWERABLE_COLUMNS), pass_rate(run)]]
            ),
            "",
        ]
        line = lints.line(run)
        if line is not None:
            out += [f"**{md.escape(line)}**", ""]
        sentence = refusals.sentence(run)
        if sentence is not None:
            out += [sentence, ""]
        return out + [f"*{md.escape(note)}.*" for note in interval_notes(run)[:1]] + [""]

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        s = run.summary
        line = Line(
            (
                ("pass rate ", "bold"),
                (fig.pct(s.pass_rate), "bold green"),
                (f" {basis(run)}", ""),
            )
        )
        if s.must_refuse:
            line = Line(
                (
                    *line.spans,
                    ("   ", ""),
                    ("refusal recall ", "bold"),
                    (fig.pct(s.refusal_recall), "bold"),
                    (
                        f" ({fig.of(s.correct_refusals, s.must_refuse_measured)}; "
                        f"{fig.WILSON} {fig.interval(s.refusal_recall_ci)})",
                        "",
                    ),
                )
            )
        if s.controls:
            line = line.plus(f"   {refusals.over_refusals(run)}")
        out: list[Block] = [
            line,
            Line.of(gate.line(run), STYLES.get(run.gate_view.status, "")),
            Line.of(verdict_counts(run)),
        ]
        lints_line = lints.line(run)
        if lints_line is not None:
            out.append(Line.of(lints_line, "yellow"))
        repeated = repeats.line(run)
        if repeated is not None and run.repeats is not None:
            flaky = run.repeats.flaky
            out.append(Line.of("repeats: " + repeated + (": " + ", ".join(flaky) if flaky else "")))
        return out + [Line.of(note, "bright_black") for note in interval_notes(run)] + [Line.of("")]

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        if at is Place.END:
            return [(f"note.{i}", note) for i, note in enumerate(interval_notes(run), 1)]
        s = run.summary
        out = [
            ("pass_rate", f"{fig.pct(s.pass_rate)} ({fig.of(s.passed, s.measured)}{not_gradeable(run)})"),
            ("pass_rate_ci", f"{fig.interval(s.pass_rate_ci)} ({fig.WILSON})"),
            *((f"verdict.{v}", str(s.count(v))) for v in ANSWERABLE_COLUMNS),
            *((("lints", line),) if (line := lints.line(run)) is not None else ()),
        ]
        return out + refusals.headline_properties(run)

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        s = run.summary
        return {
            "report": run,
            "summary": s,
            "gate": run.gate_view,
            "gate_line": gate.line(run),
            "verdict_columns": ANSWERABLE_COLUMNS,
            "pass_rate_label": f"{fig.of(s.passed, s.measured)} measured{not_gradeable(run)}; {fig.WILSON}",
            "recall_label": f"{fig.of(s.correct_refusals, s.must_refuse_measured)} measured declined; {fig.WILSON}",
            "lint_line": lints.line(run),
            "repeats_line": repeats.line(run),
            "interval_notes": interval_notes(run),
        }
