"""What a section of the report is: one topic, and what every format needs of it.

A section (:class:`Section`) says how its topic looks in each format through one hook per format, every hook
empty by default, so a section fills in only the formats it is shown in:

* :meth:`~Section.markdown` (and :meth:`~Section.summary`, the GitHub job summary, the Markdown unless it says
  otherwise): lines of Markdown, untrusted text escaped with :mod:`eval.core.markdown`;
* :meth:`~Section.terminal`: :class:`Line` and :class:`Table` values the terminal draws with ``rich`` (a section
  imports no ``rich``: a run that prints no terminal report never loads it);
* :meth:`~Section.junit`: named values, the JUnit testsuite's ``<properties>``;
* :meth:`~Section.annotations`: GitHub ``::error``/``::warning``/``::notice`` lines, as :class:`Annotation` values;
* :meth:`~Section.html`: the context of its macros in ``eval/templates/sections/<name>.html.j2``; the page calls
  its ``section`` macro where the section stands;
* per question: :meth:`~Section.markdown_question`, :meth:`~Section.terminal_question`,
  :meth:`~Section.junit_question` and :meth:`~Section.html_question` (the HTML card's ``badge``, ``card`` and
  ``card_end`` macros, and ``list_note`` above the list).

**Places.** Each format is laid out as a fixed sequence of places (:class:`Place`: the lead, the headline, the
body, ...), and within a place the sections come in the registry's order (:data:`eval.sql.sections.REGISTRY`).
A section is in the body of every format unless its :attr:`~Section.places` says otherwise; the formats differ
only in which places they have and in what order (the Markdown report puts time and cost after the questions,
the page before them), each in one tuple in its renderer.

The JSON report is the run model serialised (:mod:`eval.sql.model.codec`), not a section's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from types import MappingProxyType
from typing import Any, ClassVar

from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun


class Format(StrEnum):
    """The outputs a section is shown in (the JSON aside: it is the model's)."""

    MARKDOWN = "markdown"
    SUMMARY = "summary"
    """The GitHub job summary: the Markdown report's figures, the failing questions by id."""
    TERMINAL = "terminal"
    JUNIT = "junit"
    HTML = "html"
    ANNOTATIONS = "annotations"
    """GitHub's workflow commands: one list, in registry order."""


class Place(Enum):
    """Where in a format a section stands; each format lays out the places it has in its own order."""

    LEAD = "lead"
    """Who and where: the run's identity and its warnings, before any figure."""
    HEADLINE = "headline"
    """What a reader acts on first."""
    BODY = "body"
    """The sections of figures (every section's place unless it says otherwise)."""
    FINDINGS = "findings"
    """What to look into: regressions, the judge, suspect references, lints, why answers are wrong."""
    QUESTIONS = "questions"
    CLOSING = "closing"
    """After the questions."""
    END = "end"
    """The corpus the numbers are of: lints, stamps."""


BODY = (Place.BODY,)


def placed(**where: Place | tuple[Place, ...]) -> Mapping[Format, tuple[Place, ...]]:
    """``placed(markdown=Place.CLOSING, junit=(Place.HEADLINE, Place.END))``: where a section stands in each
    format it does not stand in the body of (the job summary's places are the Markdown's unless it is named; an
    empty tuple: nowhere in that format)."""
    return MappingProxyType({Format(k): v if isinstance(v, tuple) else (v,) for k, v in where.items()})


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
"""The terminal's colour of a verdict, a refusal-battery column and a gate status (none: the default colour)."""


@dataclass(frozen=True)
class Line:
    """Text for the terminal: spans of (text, style), and a style for the whole line. Never markup."""

    spans: tuple[tuple[str, str], ...]
    style: str = ""

    @classmethod
    def of(cls, text: str, style: str = "") -> Line:
        return cls(((text, ""),), style)

    @classmethod
    def verdict(cls, value: str) -> Line:
        """A verdict (or gate status) in its colour."""
        return cls(((value, STYLES.get(value, "")),))

    def plus(self, text: str, style: str = "") -> Line:
        return Line((*self.spans, (text, style)), self.style)


Cell = str | Line


@dataclass(frozen=True)
class Table:
    """A table for the terminal: its title, its columns (right-aligned from ``numeric_from`` on) and rows."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    numeric_from: int = 1


Block = Line | Table


@dataclass(frozen=True)
class TerminalView:
    """What the terminal report is told beyond the run: where the full report is, how many failures to list."""

    full_report: str | None = None
    shown: int = 10


@dataclass(frozen=True)
class Annotation:
    """One GitHub workflow command: ``::level title=...::message`` (escaped where it is written)."""

    title: str
    message: str
    level: str = "error"


@dataclass(frozen=True)
class QuestionLines:
    """A section's lines in a failing question's Markdown: ``meta`` under its heading, ``body`` after them."""

    meta: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)


Property = tuple[str, str]


class Section:
    """One topic of the report, in every format; see the module's docstring. Subclasses set :attr:`name`."""

    name: ClassVar[str]
    """Also its template: ``eval/templates/sections/<name>.html.j2``."""
    places: ClassVar[Mapping[Format, tuple[Place, ...]]] = placed()
    """Where the section stands in each format it does not stand in the body of (:func:`placed`)."""
    question_column: ClassVar[str | None] = None
    """The heading of a column of its own in the terminal's table of failing questions."""

    def at(self, fmt: Format) -> tuple[Place, ...]:
        """The places of this section in ``fmt`` (the job summary's are the Markdown's unless it has its own)."""
        if fmt is Format.SUMMARY and fmt not in self.places:
            fmt = Format.MARKDOWN
        return self.places.get(fmt, BODY)

    @property
    def template(self) -> str:
        return f"sections/{self.name}.html.j2"

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        return []

    def summary(self, run: SQLRun, at: Place) -> list[str]:
        return self.markdown(run, at)

    def terminal(self, run: SQLRun, view: TerminalView, at: Place) -> list[Block]:
        return []

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        return []

    def annotations(self, run: SQLRun) -> list[Annotation]:
        return []

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any] | None:
        """The context of the ``section`` macro; None: the section is not on the page."""
        return None

    def markdown_question(self, run: SQLRun, o: SQLOutcome) -> QuestionLines | None:
        return None

    def terminal_question(self, run: SQLRun, o: SQLOutcome) -> tuple[Line | None, str | None]:
        """(what follows the verdict, the cell of :attr:`question_column`) in the table of failing questions."""
        return None, None

    def junit_question(self, run: SQLRun, o: SQLOutcome) -> tuple[str, list[str]]:
        """(what the failure message ends with, lines of the testcase's ``system-out``)."""
        return "", []

    def html_note(self, run: SQLRun) -> Any:
        """What it says above the page's list of questions (its ``list_note`` macro); None: nothing."""
        return None

    def html_question(self, run: SQLRun, o: SQLOutcome) -> Any:
        """What the question's card shows of this section (its card macros' ``q[name]``); None: nothing."""
        return None
