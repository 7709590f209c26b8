"""The report for a terminal: tables and colour (``rich``), no Markdown escapes, failures capped.

Used when stdout is a terminal; piped or redirected, the run prints Markdown as before. Each section of
:data:`eval.sql.sections.REGISTRY` gives its lines and tables (:class:`~eval.sql.sections.base.Line`,
:class:`~eval.sql.sections.base.Table`) and they are drawn here: the headline first, on the first screen (pass
rate with its interval, refusal recall, the gate, the verdict counts, repeats), then the gate's checks and the
refusal battery, the 2x2 and the breakdowns per stratum, database and difficulty, time and tokens, the findings
(regressions, the judge, suspect references, why answers are wrong), the failing questions, and the headline
once more in one line, where the reader is left. Below :data:`~eval.sql.sections.base.NARROW` columns the failing
questions are blocks (id, verdict and stratum on a line, the detail and each section's part under it), not a
table whose ids and reasons would be cut to fit; a table's first column (a name, an id) is never cut.
Untrusted text goes into ``rich.text.Text`` objects, never into markup strings, so a question holding
``[bold]`` is shown as written. Past the first :data:`SHOWN_FAILURES` failing questions the rest are
counted, with where the full report is.
"""

from __future__ import annotations

from rich import box
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.table import Table as RichTable
from rich.text import Text

from eval.core.untrusted import visible, visible_all
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.sections import REGISTRY, laid_out
from eval.sql.sections.base import STYLES, Block, Cell, Format, Line, Place, Table, TerminalView

SHOWN_FAILURES = 10
PLACES = (Place.LEAD, Place.HEADLINE, Place.BODY, Place.FINDINGS, Place.QUESTIONS, Place.END)


def _text(cell: Cell) -> Text:
    if isinstance(cell, str):
        return Text(cell)
    return Text.assemble(*cell.spans, style=cell.style)


def _table(t: Table) -> RichTable:
    table = RichTable(title=t.title, title_justify="left", box=box.MINIMAL, show_edge=False)
    for i, name in enumerate(t.columns):
        table.add_column(
            Text(name, style=STYLES.get(name, "")),
            justify="right" if i >= t.numeric_from else "left",
            no_wrap=i == 0,
        )
    for row in t.rows:
        table.add_row(*(_text(c) for c in row))
    return table


def _drawn(block: Block) -> RenderableType:
    return _table(block) if isinstance(block, Table) else _text(block)


def _blocks(report: SQLRun, o: SQLOutcome) -> list[RenderableType]:
    """One failing question on a narrow terminal: id, verdict (and what a section adds to it) and stratum on a
    line; the detail and each section's cell under it, indented."""
    line = Line(((o.question_id, "bold"), ("  ", ""), *Line.verdict(o.verdict.value).spans))
    cells = []
    for s in REGISTRY:
        badge, cell = s.terminal_question(report, o)
        if badge is not None:
            line = Line((*line.spans, *badge.spans))
        if s.question_column and cell:
            cells.append(f"{s.question_column}: {cell[:240]}")
    head = Text.assemble(*line.spans, f"  {o.stratum}")
    under = [(o.reason + ": " if o.reason else "") + o.detail[:240], *cells]
    return [head, *(Padding(Text(u), (0, 0, 0, 2)) for u in under)]


def _failures(report: SQLRun, view: TerminalView) -> list[RenderableType]:
    """The failing questions: id, verdict (and what a section adds to it), stratum, detail, a column per section
    that has one (on a narrow terminal, a block each); past ``view.shown`` the rest are counted, with where the
    full report is."""
    failing = report.failing
    if not failing:
        return [_drawn(Line.of("No failing question.", "green"))]
    out: list[RenderableType] = []
    if view.narrow:
        out.append(Text(f"Failing questions ({len(failing)})", style="italic"))
        for o in failing[: view.shown]:
            out += _blocks(report, o)
    else:
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
        title = f"Failing questions ({len(failing)})"
        out.append(_table(Table(title, columns, tuple(rows), numeric_from=len(columns))))
    more = len(failing) - view.shown
    if more > 0:
        where = (
            f"the full report: {view.full_report}"
            if view.full_report
            else "write them all with --markdown PATH or --html PATH"
        )
        out.append(_drawn(Line.of(f"... and {more} more failing question(s); {where}", "bold")))
    elif view.full_report:
        said = f"The full report, with each question's SQL beside the reference's: {view.full_report}"
        out.append(_drawn(Line.of(said)))
    return out


def render_terminal(
    report: SQLRun, console: Console, full_report: str | None = None, *, shown: int = SHOWN_FAILURES
) -> None:
    """Print the report for reading; ``full_report`` is where the whole of it was written, if anywhere;
    ``shown``: how many failing questions are listed before the rest are counted. Every string of the run is
    made visible first: an escape sequence in a question, an answer or a value never reaches the screen."""
    report = visible_all(report)
    view = TerminalView(None if full_report is None else visible(full_report), shown, console.width)
    drawn: list[RenderableType] = []
    for place in PLACES:
        if place is Place.QUESTIONS:
            drawn += [Text(""), *_failures(report, view)]
        for at, section in laid_out(Format.TERMINAL, (place,)):
            drawn += [_drawn(b) for b in section.terminal(report, view, at)]
    console.print(Group(*drawn))
