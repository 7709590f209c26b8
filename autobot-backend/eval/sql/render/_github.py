"""GitHub Actions: an annotation line per section's finding (:meth:`~eval.sql.sections.base.Section.annotations`,
in registry order), and the run's summary for the job page (:func:`eval.sql.render._markdown.summary_markdown`).

Workflow commands are parsed from the log line by line, so untrusted text is escaped the way the
runner expects (``%``, CR, LF; and ``:`` and ``,`` inside properties): a question or a reason can
neither end an annotation early nor start a command of its own.
"""

from __future__ import annotations

from eval.core.untrusted import visible
from eval.sql.model.run import SQLRun
from eval.sql.render._markdown import summary_markdown
from eval.sql.sections import REGISTRY


def _data(text: str) -> str:
    """The runner's escapes for ``%``, CR and LF, then every other control character made visible."""
    return visible(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def error_command(title: str, message: str, level: str = "error") -> str:
    return f"::{level} title={_property(title)}::{_data(message)}"


def ci_annotations(report: SQLRun) -> list[str]:
    """Every section's annotations in registry order: a ``::warning`` for the questions the corpus skipped at
    import, an ``::error`` per regression and safety failure (by question, with its diagnosis) and per other
    failed gate check, a ``::notice`` per suspect-reference finding (graded as usual), a ``::warning`` counting
    the corpus's lints and oracle defects by kind. The counts by diagnosis category are in the job summary."""
    return [error_command(a.title, a.message, a.level) for s in REGISTRY for a in s.annotations(report)]


__all__ = ["ci_annotations", "error_command", "summary_markdown"]
