"""The Markdown of what a run cost and how a repeated run varied (beside the verdicts, never in them)."""

from __future__ import annotations

from eval.core import figures as fig
from eval.core import markdown as md
from eval.sql.model.run import SQLRun
from eval.sql.render import _facts as facts


def repeats_section(report: SQLRun) -> list[str]:
    r = report.repeats
    if r is None:
        return []
    k = r.k
    out = [
        f"## Repeats ({k} asks per question, over {r.questions} measured answerable questions)",
        "",
        md.table(
            ["majority pass rate", fig.BOOTSTRAP, f"pass@{k}", f"pass^{k}", "flaky questions"],
            [
                [
                    fig.pct(r.majority_pass_rate),
                    fig.interval(r.majority_pass_rate_ci),
                    fig.pct(r.pass_at),
                    fig.pct(r.pass_hat),
                    str(len(r.flaky)),
                ]
            ],
        ),
        "",
        f"*{md.escape(fig.BOOTSTRAP_NOTE)}.*",
        "",
    ]
    if r.flaky:
        out += [
            "Flaky (their verdicts differ across asks; the gate judges the majority and does not fail on "
            "them): " + ", ".join(f"**{md.escape(q)}**" for q in r.flaky),
            "",
        ]
    return out


def costs_section(report: SQLRun) -> list[str]:
    """Latency and tokens over the same asks (all K of each question with ``--repeats K``), and efficiency."""
    lines = facts.cost_lines(report)
    if not lines:
        return []
    return ["## Time and cost", "", *(f"{line[0].upper()}{line[1:]}.  " for line in lines), ""]


def transcripts_line(report: SQLRun) -> list[str]:
    """Whether the JSON and HTML reports hold the model's transcripts (``--no-transcripts``: they do not)."""
    line = facts.transcripts(report)
    return [] if line is None else [f"{md.escape(line[0].upper() + line[1:])}.", ""]


def cohort_line(report: SQLRun) -> list[str]:
    if report.cohort is None:
        return []
    return [f"Cohort `{md.escape(report.cohort.fingerprint)}` (numbers compare only within one cohort)", ""]
