"""The renderings of one SQL run (:class:`eval.sql.model.run.SQLRun`), each from the model and nothing else, each
a loop over the report's sections (:data:`eval.sql.sections.REGISTRY`).

* :func:`to_json`: the JSON other tools read (spec section 7; its keys are a contract): the model serialised;
* :func:`to_markdown`: what a developer acts on first (the 2x2, verdicts, regressions), then
  every failing question;
* :func:`to_html`: one self-contained page for people, charts and filters included;
* :func:`to_junit`: JUnit XML for CI systems, one testcase per question;
* :func:`render_terminal`: the report for a terminal (tables, colour, failures capped);
* :func:`summary_markdown` and :func:`ci_annotations`: a CI job summary and ``::error`` lines;
* :func:`lint_line`, :func:`new_questions` and :func:`skipped_notice`: the line counting the corpus's lints and
  oracle defects by kind, the one naming the questions new since the baseline, and the one about questions the
  corpus skipped at import, for stderr as for every output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval.sql.model.serialise import to_json
from eval.sql.render._github import ci_annotations
from eval.sql.render._html import to_html
from eval.sql.render._junit import to_junit
from eval.sql.render._markdown import markdown_lines, markdown_stream, summary_markdown, to_markdown
from eval.sql.sections.lints import line as lint_line
from eval.sql.sections.regressions import new_questions
from eval.sql.sections.run import skipped_notice

if TYPE_CHECKING:
    from rich.console import Console

    from eval.sql.model.run import SQLRun

__all__ = [
    "ci_annotations",
    "lint_line",
    "markdown_lines",
    "markdown_stream",
    "new_questions",
    "render_terminal",
    "skipped_notice",
    "summary_markdown",
    "to_html",
    "to_json",
    "to_junit",
    "to_markdown",
]


def render_terminal(report: SQLRun, console: Console, full_report: str | None = None, **shown: int) -> None:
    """:func:`eval.sql.render._terminal.render_terminal`, imported here when called: ``rich`` is loaded
    only when a terminal reads the report."""
    from eval.sql.render._terminal import render_terminal as render

    render(report, console, full_report, **shown)
