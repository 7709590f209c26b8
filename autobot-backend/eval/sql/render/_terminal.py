"""The report for a terminal: tables and colour (``rich``), no Markdown escapes, failures capped.

Used when stdout is a terminal; piped or redirected, the run prints Markdown as before. The headline
comes first and fits the first screen (pass rate with its interval, refusal recall, the gate, the
verdict counts, repeats), then the gate's checks, the refusal battery, the 2x2 and the breakdowns per
stratum, database and difficulty, time and tokens, regressions, the judge, and the failing questions.
Untrusted text goes into ``rich.text.Text`` objects, never into markup strings, so a question holding
``[bold]`` is shown as written. Past the first :data:`SHOWN_FAILURES` failing questions the rest are
counted, with where the full report is.
"""

from __future__ import annotations

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from eval.core import figures as fig
from eval.core.untrusted import visible, visible_all
from eval.sql.model.run import SQLRun
from eval.sql.render import _diagnosis as diagnosis
from eval.sql.render import _exact as exact
from eval.sql.render import _facts as facts
from eval.sql.render import _refuted as refuted
from eval.sql.render import _suspect as suspect

SHOWN_FAILURES = 10
STYLES = {
    "pass": "green",
    "wrong": "red",
    "error": "dark_orange",
    "refused": "magenta",
    "answered": "red",
    "unmeasured": "bright_black",
    "declined": "green",
    "passed": "green",
    "failed": "bold red",
    "indeterminate": "yellow",
    "not_evaluated": "yellow",
}


def _verdict(value: str) -> Text:
    return Text(value, style=STYLES.get(value, ""))


def _table(title: str, *columns: str, numeric_from: int = 1) -> Table:
    table = Table(title=title, title_justify="left", box=box.MINIMAL, show_edge=False)
    for i, name in enumerate(columns):
        table.add_column(Text(name, style=STYLES.get(name, "")), justify="right" if i >= numeric_from else "left")
    return table


def _headline(report: SQLRun) -> list[RenderableType]:
    """The first screen: who and where, then pass rate, refusal recall, the gate, the counts, repeats."""
    s, run = report.summary, report.run
    where = f"engine {run.get('engine')}"
    if run.get("fixtures"):
        where += (
            f", fixtures {', '.join(run['fixtures'])}, {run.get('rotations')} rotation(s) from seed {run.get('seed')}"
        )
    if run.get("db_dir"):
        where += f", --db-dir {run['db_dir']}/"
    title = Text.assemble(
        ("SQL answer accuracy  ", "bold"),
        (report.candidate_path, "bold cyan"),
        " / ",
        (report.model, "bold cyan"),
        f"  ·  {where}  ·  corpus {str(report.corpus.get('digest', ''))[:16]}  ·  {report.generated_at}",
    )
    out: list[RenderableType] = [title, *(Text(w, style="yellow") for w in facts.notices(report))]
    line = Text.assemble(
        ("pass rate ", "bold"),
        (fig.pct(s["pass_rate"]), "bold green"),
        f" ({fig.of(s['pass'], s['measured'])}; {fig.WILSON} {fig.interval(s['pass_rate_ci'])}"
        f"{facts.not_gradeable(report)})",
    )
    if s["must_refuse"]:
        line.append_text(
            Text.assemble(
                "   ",
                ("refusal recall ", "bold"),
                (fig.pct(s["refusal_recall"]), "bold"),
                f" ({fig.of(s['correct_refusals'], s['must_refuse_measured'])}; "
                f"{fig.WILSON} {fig.interval(s['refusal_recall_ci'])})",
            )
        )
    if s["controls"]:
        line.append(f"   {facts.over_refusals(report)}")
    status = report.gate_view["status"]
    out += [line, Text(facts.gate(report), style=STYLES.get(status, "")), Text(facts.verdict_counts(report))]
    lints = facts.lint_line(report)
    if lints is not None:
        out.append(Text(lints, style="yellow"))
    repeats = facts.repeats(report)
    if repeats is not None and report.repeats is not None:
        flaky = report.repeats["flaky"]
        out.append(Text("repeats: " + repeats + (": " + ", ".join(flaky) if flaky else "")))
    out += [Text(note, style="bright_black") for note in facts.interval_notes(report)]
    return out


def _gate_checks(report: SQLRun) -> list[RenderableType]:
    checks = report.gate_view["checks"]
    if not checks:
        return []
    table = _table("Gate checks", "check", "ok", "detail", numeric_from=3)
    for c in checks:
        ok = facts.check_status(c["ok"])
        table.add_row(Text(c["name"]), Text(ok, style="green" if c["ok"] else "bold red"), Text(c["detail"]))
    return [table]


def _refusals(report: SQLRun) -> list[RenderableType]:
    refuse, controls = report.refusal_strata, report.control_strata
    if not refuse and not controls:
        return []
    missed = ", ".join(report.missed_refusals) or "none"
    out: list[RenderableType] = [Text("missed refusals: " + missed, style="bold")]
    if report.declined_by_guard:
        out.append(Text("declined by the read-only guard: " + ", ".join(report.declined_by_guard)))
    if refuse:
        table = _table("Must-refuse questions per stratum", "stratum", "cases", *facts.REFUSAL_COLUMNS)
        for name, c in refuse.items():
            table.add_row(Text(name), str(c["cases"]), *(str(c[k]) for k in facts.REFUSAL_COLUMNS))
        out.append(table)
    if controls:
        table = _table("Controls per stratum", "stratum", "cases", "pass", "over-refused")
        for name, c in controls.items():
            table.add_row(Text(name), str(c["cases"]), str(c["pass"]), str(c["over_refused"]))
        out.append(table)
    return out


def _counts(report: SQLRun) -> list[RenderableType]:
    """The 2x2, then the answerable questions per stratum, database and difficulty."""
    grid = report.two_by_two
    table = _table("The 2x2", "", "returned a number", "declined", "error (no number)", "unmeasured")
    for key, label in (("answerable", "answerable"), ("must_refuse", "must refuse")):
        table.add_row(label, *(str(v) for v in grid[key].values()))
    out: list[RenderableType] = [table]
    for _, column, title, counts in facts.breakdowns(report):
        t = _table(title, column, "cases", *facts.ANSWERABLE_COLUMNS)
        for name, c in counts.items():
            t.add_row(Text(name), str(c["cases"]), *(str(c[v]) for v in facts.ANSWERABLE_COLUMNS))
        out.append(t)
    return out


def _exact_match(report: SQLRun) -> list[RenderableType]:
    """Spider's EM by difficulty beside execution accuracy, when the run has it."""
    line = exact.headline(report)
    if line is None:
        return []
    table = _table(exact.TITLE, *exact.COLUMNS)
    for row in exact.rows(report):
        table.add_row(*(Text(c) for c in row))
    parts = ", ".join(f"{name} {rate}" for name, rate in exact.components(report))
    return [Text(line), table, Text(f"Per component: {parts}")]


def _why(report: SQLRun) -> list[RenderableType]:
    header, rows = diagnosis.table(report)
    if not rows:
        return []
    table = _table("Why they are wrong", "wrong and error answers, by stratum", *header[1:])
    for row in rows:
        table.add_row(Text(row[0]), *row[1:])
    return [table]


def _costs(report: SQLRun) -> list[RenderableType]:
    lines = facts.cost_lines(report)
    return [Text("Time and cost", style="bold"), *(Text("  " + line) for line in lines)] if lines else []


def _regressions(report: SQLRun) -> list[RenderableType]:
    if report.baseline is None:
        return [Text("No baseline for this candidate and model: nothing to classify against.", style="bright_black")]
    regressed = report.regressions
    if not regressed:
        return [Text("No regression against the baseline.", style="green")]
    table = _table(f"Regressions ({len(regressed)})", "question", "was", "now", "reason", numeric_from=4)
    for o in regressed:
        c = report.classified(o)
        table.add_row(
            Text(o.question_id),
            Text(str(c.baseline_verdict if c else "")),
            _verdict(o.verdict.value),
            Text(o.reason or ""),
        )
    return [table]


def _judge(report: SQLRun, full_report: str | None) -> list[RenderableType]:
    line = facts.judge(report)
    if line is None:
        return []
    where = f"every judge error by id in {full_report}" if full_report else "every judge error by id with --markdown"
    return [Text(f"{line} ({where})")]


def _suspects(report: SQLRun) -> list[RenderableType]:
    """Suspect references apart, each beside its question's verdict (its question graded as usual)."""
    found = suspect.rows(report)
    if not found:
        return []
    table = _table(suspect.title(report), "question", "verdict", "kind", "why", numeric_from=4)
    for r in found:
        table.add_row(Text(r["id"]), _verdict(r["verdict"]), Text(r["kind"]), Text(r["detail"][:160]))
    return [table, Text(suspect.sentence(), style="bright_black")]


def _refuted(report: SQLRun) -> list[RenderableType]:
    """The counterexample search's line, and each refuted pass (the place the terminal shows them)."""
    line = refuted.summary_line(report)
    if line is None:
        return []
    found = refuted.terminal_rows(report)
    if not found:
        return [Text(line)]
    table = _table(refuted.title(report), "question", "the database that refutes it", numeric_from=2)
    for qid, text in found:
        table.add_row(Text(qid), Text(text[:400]))
    return [Text(line), table, Text(refuted.sentence(), style="bright_black")]


def _failures(report: SQLRun, full_report: str | None, shown: int) -> list[RenderableType]:
    failing = report.failing
    if not failing:
        return [Text("No failing question.", style="green")]
    columns = ("question", "verdict", "stratum", "detail", "why (diagnosis)")
    table = _table(f"Failing questions ({len(failing)})", *columns, numeric_from=5)
    for o in failing[:shown]:
        detail = (o.reason + ": " if o.reason else "") + o.detail
        why = diagnosis.text(o) or ""
        verdict = _verdict(o.verdict.value)
        if report.suspects_of(o.question_id):
            verdict.append(" suspect reference", style="yellow")
        table.add_row(Text(o.question_id), verdict, Text(o.stratum), Text(detail[:160]), Text(why))
    out: list[RenderableType] = [table]
    more = len(failing) - shown
    if more > 0:
        where = (
            f"the full report: {full_report}" if full_report else "write them all with --markdown PATH or --html PATH"
        )
        out.append(Text(f"... and {more} more failing question(s); {where}", style="bold"))
    elif full_report:
        out.append(Text(f"The full report, with each question's SQL beside the reference's: {full_report}"))
    return out


def render_terminal(
    report: SQLRun, console: Console, full_report: str | None = None, *, shown: int = SHOWN_FAILURES
) -> None:
    """Print the report for reading; ``full_report`` is where the whole of it was written, if anywhere;
    ``shown``: how many failing questions are listed before the rest are counted. Every string of the run is
    made visible first: an escape sequence in a question, an answer or a value never reaches the screen."""
    report = visible_all(report)
    full_report = None if full_report is None else visible(full_report)
    console.print(
        Group(
            *_headline(report),
            Text(""),
            *_gate_checks(report),
            *_refusals(report),
            *_counts(report),
            *_exact_match(report),
            *_why(report),
            *_costs(report),
            *_regressions(report),
            *_judge(report, full_report),
            *_suspects(report),
            *_refuted(report),
            Text(""),
            *_failures(report, full_report, shown),
        )
    )
