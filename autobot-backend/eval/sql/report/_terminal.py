"""The report for a terminal: tables and colour (``rich``), no Markdown escapes, failures capped.

Used when stdout is a terminal; piped or redirected, the run prints Markdown as before. Untrusted
text goes into ``rich.text.Text`` objects, never into markup strings, so a question holding
``[bold]`` is shown as written. Past the first :data:`SHOWN_FAILURES` failing questions the rest
are counted, with where the full report is.
"""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from eval.core.classification import Classification
from eval.core.figures import interval, pct
from eval.sql.model.outcome import ANSWERABLE_VERDICTS, strata, two_by_two
from eval.sql.model.run import SQLRun

SHOWN_FAILURES = 10
STYLES = {
    "pass": "green",
    "wrong": "red",
    "error": "dark_orange",
    "refused": "magenta",
    "answered": "red",
    "unmeasured": "bright_black",
    "passed": "green",
    "failed": "bold red",
    "indeterminate": "yellow",
    "not_evaluated": "yellow",
}


def _verdict(value: str) -> Text:
    return Text(value, style=STYLES.get(value, ""))


def _headline(report: SQLRun) -> list[RenderableType]:
    s, run = report.summary, report.run
    where = f"engine {run.get('engine')}"
    if run.get("fixtures"):
        where += (
            f", fixtures {', '.join(run['fixtures'])}, {run.get('rotations')} rotation(s) from seed {run.get('seed')}"
        )
    title = Text.assemble(
        ("SQL answer accuracy  ", "bold"),
        (report.candidate_path, "bold cyan"),
        " / ",
        (report.model, "bold cyan"),
        f"  ·  {where}  ·  corpus {str(report.corpus.get('digest', ''))[:16]}  ·  {report.generated_at}",
    )
    out: list[RenderableType] = [title]
    out += [Text(w, style="yellow") for w in report.warnings]
    line = Text.assemble(
        ("pass rate ", "bold"),
        (pct(s["pass_rate"]), "bold green"),
        f" ({s['pass']}/{s['answerable'] - s['unmeasured']}, 95% CI {interval(s['pass_rate_ci'])})",
    )
    if s["must_refuse"]:
        line.append_text(
            Text.assemble(
                "   ",
                ("refusal recall ", "bold"),
                (pct(s["refusal_recall"]), "bold"),
                f" (95% CI {interval(s['refusal_recall_ci'])})   over-refusals {s['over_refusals']}/{s['controls']}",
            )
        )
    status = "not_evaluated" if report.gate is None else report.gate.status
    line.append_text(Text.assemble("   gate ", (status, STYLES.get(status, "")), " (enforced)" if report.gated else ""))
    return [*out, line]


def _grid(report: SQLRun) -> Table:
    grid = two_by_two(report.outcomes)
    table = Table(title="The 2x2", title_justify="left")
    table.add_column("")
    for name in ("returned a number", "declined", "error (no number)", "unmeasured"):
        table.add_column(name, justify="right")
    for key, label in (("answerable", "answerable"), ("must_refuse", "must refuse")):
        table.add_row(label, *(str(v) for v in grid[key].values()))
    return table


def _strata(report: SQLRun) -> Table:
    table = Table(title="Answerable questions per stratum", title_justify="left")
    table.add_column("stratum")
    table.add_column("cases", justify="right")
    for v in ANSWERABLE_VERDICTS:
        table.add_column(Text(v.value, style=STYLES[v.value]), justify="right")
    for name, c in strata(report.outcomes).items():
        if "correct_refusals" not in c:
            table.add_row(Text(name), str(c["cases"]), *(str(c.get(v.value, 0)) for v in ANSWERABLE_VERDICTS))
    return table


def _regressions(report: SQLRun) -> list[RenderableType]:
    if report.baseline is None:
        return [Text("No baseline for this candidate and model: nothing to classify against.", style="bright_black")]
    regressed = report.by_classification(Classification.REGRESSION)
    if not regressed:
        return [Text("No regression against the baseline.", style="green")]
    table = Table(title=f"Regressions ({len(regressed)})", title_justify="left", title_style="bold red")
    for name in ("question", "was", "now", "reason"):
        table.add_column(name)
    for o in regressed:
        c = report.classified(o)
        table.add_row(
            Text(o.question_id),
            Text(str(c.baseline_verdict if c else "")),
            _verdict(o.verdict.value),
            Text(o.reason or ""),
        )
    return [table]


def _failures(report: SQLRun, full_report: str | None) -> list[RenderableType]:
    failing = report.failing
    if not failing:
        return [Text("No failing question.", style="green")]
    table = Table(title=f"Failing questions ({len(failing)})", title_justify="left")
    for name in ("question", "verdict", "stratum", "detail"):
        table.add_column(name, overflow="fold")
    for o in failing[:SHOWN_FAILURES]:
        detail = (o.reason + ": " if o.reason else "") + o.detail
        table.add_row(Text(o.question_id), _verdict(o.verdict.value), Text(o.stratum), Text(detail[:160]))
    out: list[RenderableType] = [table]
    more = len(failing) - SHOWN_FAILURES
    if more > 0:
        where = (
            f"the full report: {full_report}" if full_report else "write them all with --markdown PATH or --html PATH"
        )
        out.append(Text(f"... and {more} more failing question(s); {where}", style="bold"))
    return out


def render_terminal(report: SQLRun, console: Console, full_report: str | None = None) -> None:
    """Print the report for reading; ``full_report`` is where the whole of it was written, if anywhere."""
    gate: list[RenderableType] = []
    if report.gate is not None and report.gate.failed:
        gate = [Text(f"gate check failed: {c.name}: {c.detail}", style="red") for c in report.gate.failed]
    console.print(
        Group(
            *_headline(report),
            Text(""),
            _grid(report),
            _strata(report),
            *_regressions(report),
            *gate,
            Text(""),
            *_failures(report, full_report),
        )
    )
