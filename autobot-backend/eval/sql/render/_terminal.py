"""The report for a terminal: tables and colour (``rich``), no Markdown escapes, failures capped.

Used when stdout is a terminal; piped or redirected, the run prints Markdown as before. Each section of
:data:`eval.sql.sections.REGISTRY` gives its lines and tables (:class:`~eval.sql.sections.base.Line`,
:class:`~eval.sql.sections.base.Table`) and they are drawn here: the headline first, on the first screen (pass
rate with its interval, refusal recall, the gate, the verdict counts, repeats), then the gate's checks and the
refusal battery, the 2x2 and the breakdowns per stratum, database and difficulty, time and tokens, the findings
(regressions, the judge, suspect references, why answers are wrong), and the failing questions.
Untrusted text goes into ``rich.text.Text`` objects, never into markup strings, so a question holding
``[bold]`` is shown as written. Past the first :data:`SHOWN_FAILURES` failing questions the rest are
counted, with where the full report is.
"""

from __future__ import annotations

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from eval.core.untrusted import visible, visible_all
from eval.sql.model.run import SQLRun
from eval.sql.sections import REGISTRY, laid_out
from eval.sql.sections.base import STYLES, Block, Cell, Format, Line, Place, Table, TerminalView

SHOWN_FAILURES = 10
PLACES = (Place.LEAD, Place.HEADLINE, Place.BODY, Place.FINDINGS, Place.QUESTIONS)


def _text(cell: Cell) -> Text:
    if isinstance(cell, str):
        return Text(cell)
    return Text.assemble(*cell.spans, style=cell.style)


def _table(t: Table) -> RichTable:
    table = RichTable(title=t.title, title_justify="left", box=box.MINIMAL, show_edge=False)
    for i, name in enumerate(t.columns):
        table.add_column(Text(name, style=STYLES.get(name, "")), justify="right" if i >= t.numeric_from else "left")
    for row in t.rows:
        table.add_row(*(_text(c) for c in row))
    return table


def _drawn(block: Block) -> RenderableType:
    return _table(block) if isinstance(block, Table) else _text(block)


def _failures(report: SQLRun, view: TerminalView) -> list[Block]:
    """The failing questions: id, verdict (and what a section adds to it), stratum, detail, a column per section
    that has one; past ``view.shown`` the rest are counted, with where the full report is."""
    failing = report.failing
    if not failing:
        return [Line.of("No failing question.", "green")]
    extra = [s for s in REGISTRY if s.question_column]
    columns = ("question", "verdict", "stratum", "detail", *(s.question_column or "" for s in extra))
    rows: list[tuple[Cell, ...]] = []
    for o in failing[: view.shown]:
        detail = (o.reason + ": " if o.reason else "") + o.detail
        parts = [s.terminal_question(report, o) for s in REGISTRY]
        verdict = Line.verdict(o.verdict.value)
        for badge, _ in parts:
            if badge is not None:
                verdict = Line((*verdict.spans, *badge.spans), verdict.style)
        cells = [cell or "" for s, (_, cell) in zip(REGISTRY, parts) if s.question_column]
        rows.append((o.question_id, verdict, o.stratum, detail[:160], *cells))
    out: list[Block] = [Table(f"Failing questions ({len(failing)})", columns, tuple(rows), numeric_from=len(columns))]
    more = len(failing) - view.shown
    if more > 0:
        where = (
            f"the full report: {view.full_report}"
            if view.full_report
            else "write them all with --markdown PATH or --html PATH"
        )
        out.append(Line.of(f"... and {more} more failing question(s); {where}", "bold"))
    elif view.full_report:
        out.append(Line.of(f"The full report, with each question's SQL beside the reference's: {view.full_report}"))
    return out


def render_terminal(
    report: SQLRun, console: Console, full_report: str | None = None, *, shown: int = SHOWN_FAILURES
) -> None:
    """Print the report for reading; ``full_report`` is where the whole of it was written, if anywhere;
    ``shown``: how many failing questions are listed before the rest are counted. Every string of the run is
    made visible first: an escape sequence in a question, an answer or a value never reaches the screen."""
    report = visible_all(report)
    view = TerminalView(None if full_report is None else visible(full_report), shown)
    blocks: list[Block] = []
    for place in PLACES:
        if place is Place.QUESTIONS:
            blocks += [Line.of(""), *_failures(report, view)]
        for at, section in laid_out(Format.TERMINAL, (place,)):
            blocks += section.terminal(report, view, at)
    console.print(Group(*(_drawn(b) for b in blocks)))
