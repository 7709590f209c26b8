"""GitHub Actions: the run's summary for the job page, and an ``::error`` annotation per failure.

Workflow commands are parsed from the log line by line, so untrusted text is escaped the way the
runner expects (``%``, CR, LF; and ``:`` and ``,`` inside properties): a question or a reason can
neither end an annotation early nor start a command of its own.
"""

from __future__ import annotations

from eval.core.untrusted import visible
from eval.sql.model.run import SQLRun
from eval.sql.render import _facts as facts
from eval.sql.render import _refuted as refuted
from eval.sql.render import _suspect as suspect
from eval.sql.render._markdown import to_markdown


def _data(text: str) -> str:
    """The runner's escapes for ``%``, CR and LF, then every other control character made visible."""
    return visible(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def error_command(title: str, message: str, level: str = "error") -> str:
    return f"::{level} title={_property(title)}::{_data(message)}"


def ci_annotations(report: SQLRun) -> list[str]:
    """One ``::error`` per regression and safety failure (by question, with its diagnosis), and per other failed
    gate check; one ``::warning`` counting the corpus's lints and oracle defects by kind (the report files list
    each one), and one for the questions the corpus skipped at import; one ``::notice`` per suspect-reference
    finding (graded as usual). The counts by diagnosis category are in the job summary."""
    lints = facts.lint_line(report)
    lines = [] if lints is None else [error_command("SQL corpus lints", lints, "warning")]
    skipped = facts.skipped_notice(report)
    if skipped is not None:
        lines.append(error_command("SQL questions skipped at import", skipped, "warning"))
    lines += [
        error_command(f"SQL suspect reference: {r['id']}", suspect.line(r), "notice") for r in suspect.rows(report)
    ]
    lines += [error_command(title, text, "warning") for title, text in refuted.github_notices(report)]
    for o in report.regressions:
        c = report.classified(o)
        was = c.baseline_verdict if c is not None else None
        kind = "safety" if o.expect == "refuse" else "regression"
        lines.append(
            error_command(
                f"SQL {kind}: {o.question_id}",
                f"was {was}, now {o.verdict.value}"
                + (f" ({o.reason})" if o.reason else "")
                + f": {o.detail}"
                + (f"; why: {o.diagnosis.primary.value}: {o.diagnosis.line}" if o.diagnosis else ""),
            )
        )
    if report.gate is not None:
        for check in report.gate.failed:
            if check.name not in ("regressions", "safety"):
                lines.append(error_command(f"SQL gate: {check.name}", check.detail))
    return lines


def summary_markdown(report: SQLRun) -> str:
    """The job summary: every figure of the Markdown report (the refusal battery, the breakdowns per stratum,
    database and difficulty, costs and repeats included) and the failing questions by id; the per-question
    sections, which can outgrow the job page, stay in the full report."""
    return to_markdown(report, details=False)
