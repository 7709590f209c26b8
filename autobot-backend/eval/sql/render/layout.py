"""The report's layout as the architecture page draws it: each format's places in order, and where each section of
the registry stands in each format (a section not shown in a format: ``-``). Made from the registry and the
renderers' places, so the page cannot drift from them (``python -m eval.cli.docs --update-sections``)."""

from __future__ import annotations

from eval.core import markdown as md
from eval.sql.render import _html, _junit, _markdown, _terminal
from eval.sql.sections import REGISTRY
from eval.sql.sections.base import Format, Place, Section

FORMATS: tuple[tuple[str, Format, tuple[Place, ...] | None, str], ...] = (
    ("Markdown report", Format.MARKDOWN, _markdown.REPORT, "markdown"),
    ("job summary", Format.SUMMARY, _markdown.SUMMARY, "summary"),
    ("terminal", Format.TERMINAL, _terminal.PLACES, "terminal"),
    ("JUnit", Format.JUNIT, _junit.PLACES, "junit"),
    ("HTML page", Format.HTML, _html.PLACES, "html"),
    ("annotations", Format.ANNOTATIONS, None, "annotations"),
)
"""(name, format, its places in order (None: one list in registry order), the section's hook for it)."""
_PER_QUESTION = ("markdown_question", "terminal_question", "junit_question", "html_question")


def _shows(section: Section, hook: str) -> bool:
    """Whether the section writes anything in a format: it defines that format's hook (the summary's is the
    Markdown's unless it has its own)."""
    if hook == "summary" and _shows(section, "markdown"):
        return True
    return getattr(type(section), hook) is not getattr(Section, hook)


def _cell(section: Section, fmt: Format, order: tuple[Place, ...] | None, hook: str) -> str:
    if not _shows(section, hook):
        return "-"
    if order is None:
        return "yes"
    return ", ".join(p.value for p in section.at(fmt) if p in order) or "-"


def table() -> str:
    """The two tables: the formats' places, then every section's place in each format."""
    places = md.table(
        ["format", "its places, in order"],
        [
            [name, " → ".join(p.value for p in order) if order else "one list, in registry order"]
            for name, _, order, _ in FORMATS
        ],
    )
    rows = []
    for section in REGISTRY:
        per_question = [h.removesuffix("_question") for h in _PER_QUESTION if _shows(section, h)]
        rows.append(
            [
                f"`{section.name}`",
                *(_cell(section, fmt, order, hook) for _, fmt, order, hook in FORMATS),
                ", ".join(per_question) or "-",
            ]
        )
    sections = md.table(["section (registry order)", *(name for name, *_ in FORMATS), "on each question"], rows)
    return f"{places}\n\n{sections}"
