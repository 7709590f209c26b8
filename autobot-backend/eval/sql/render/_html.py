"""The HTML report: one self-contained page for people (``--html PATH``).

Built from the run model alone (its figures, never worked out again here) and rendered by :mod:`eval.core.html`
(Jinja2, everything escaped, no network). The page (``sql_report.html.j2``) is one loop: each section of
:data:`eval.sql.sections.REGISTRY` in its place calls its ``section`` macro from
``eval/templates/sections/<name>.html.j2``, and the list of questions (``_questions.html.j2``) stands in its
place; on every question's card, each section with a part of it adds that part (:meth:`Section.html_question`).

Every number comes from the run model and is written by :mod:`eval.core.figures`: a result's values at the
question's ``decimals`` (:func:`~eval.core.figures.at_precision`), float noise dropped from details
(:func:`~eval.core.figures.denoised`). The text stays plain: the template escapes it.
"""

from __future__ import annotations

from typing import Any

from eval.core import figures as fig
from eval.core.html import render
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.sections import REGISTRY, laid_out
from eval.sql.sections.base import Format, Place, Section

PLACES = (Place.LEAD, Place.HEADLINE, Place.BODY, Place.FINDINGS, Place.QUESTIONS, Place.END)
QUESTIONS = "_questions.html.j2"
FILTERS = (
    ("verdict", "verdict"),
    ("stratum", "stratum"),
    ("database", "database"),
    ("difficulty", "difficulty"),
    ("category", "failure category"),
)
"""(data attribute, label) of each filter the question list offers; one is shown when a question has a value."""


def _on_cards(section: Section) -> bool:
    """Whether the section has a part of a question's card (it defines :meth:`Section.html_question`)."""
    return type(section).html_question is not Section.html_question


def _excerpt(o: SQLOutcome) -> dict[str, Any] | None:
    e = o.excerpt
    if e is None:
        return None

    def rows(side: tuple[tuple[int, tuple[str, ...]], ...]) -> list[tuple[int, list[tuple[str, str]]]]:
        """Each value at the question's precision, and as the database returned it (the cell's title)."""
        return [(n, [(fig.at_precision(v, o.decimals), fig.denoised(v)) for v in values]) for n, values in side]

    return {
        "rotation": e.rotation,
        "sides": [  # the candidate first, as in the SQL above it and in every other output
            ("candidate", e.actual_columns, rows(e.actual), e.actual_row),
            ("reference", e.expected_columns, rows(e.expected), e.expected_row),
        ],
        "column": e.column,
    }


def _cost(o: SQLOutcome) -> str | None:
    c = o.cost
    if c is None:
        return None
    parts = []
    if c.model_ms is not None:
        parts.append(f"model {fig.number(c.model_ms, ' ms')}")
    if c.prompt_tokens is not None or c.completion_tokens is not None:
        parts.append(f"tokens {fig.number(c.prompt_tokens)} in, {fig.number(c.completion_tokens)} out")
    if c.candidate_ms is not None:
        parts.append(f"SQL {fig.number(c.candidate_ms, ' ms')}")
    if c.reference_ms is not None:
        parts.append(f"reference {fig.number(c.reference_ms, ' ms')}")
    return ", ".join(parts) or None


def card(report: SQLRun, o: SQLOutcome, on_cards: list[Section]) -> dict[str, Any]:
    """One question as the page shows it (``failing`` ones open, the others collapsed), with each section's part."""
    return {
        "id": o.question_id,
        "verdict": o.verdict.value,
        "failing": o.failing,
        "stratum": o.stratum,
        "database": o.database or "",
        "difficulty": o.difficulty or "",
        "category": "" if o.diagnosis is None else o.diagnosis.primary.value,
        "reason": o.reason,
        "question": o.question,
        "detail": fig.denoised(o.detail),
        "sql": o.sql,
        "reference_sql": o.reference_sql,
        "shown_excerpt": _excerpt(o),
        "classification": None if o.classified is None else o.classified.classification.value,
        "samples": [v.value for v in o.samples],
        "cost": _cost(o),
        "parts": {s.name: s.html_question(report, o) for s in on_cards},
    }


def filters(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The filters the page offers: each with the values its questions have (a filter with none is left out)."""
    out = []
    for key, label in FILTERS:
        values = sorted({q[key] for q in cards if q[key]})
        if values:
            out.append({"key": key, "label": label, "options": values})
    return out


def questions(report: SQLRun) -> dict[str, Any]:
    """What the list of questions shows: every card, its filters, the sections' notes above it."""
    on_cards = [s for s in REGISTRY if _on_cards(s)]
    cards = [card(report, o, on_cards) for o in report.outcomes]
    notes = [(s, s.html_note(report)) for s in REGISTRY]
    return {
        "cards": cards,
        "failing": len(report.failing),
        "filters": filters(cards),
        "notes": [{"template": s.template, "value": v} for s, v in notes if v is not None],
        "on_cards": [{"template": s.template, "name": s.name} for s in on_cards],
    }


def parts(report: SQLRun) -> list[dict[str, Any]]:
    """The page in order: (template, context) of each section in its place, and of the list of questions."""
    out: list[dict[str, Any]] = []
    for place in PLACES:
        if place is Place.QUESTIONS:
            out.append({"template": QUESTIONS, "context": questions(report)})
        for at, section in laid_out(Format.HTML, (place,)):
            context = section.html(report, at)
            if context is not None:
                out.append({"template": section.template, "context": context})
    return out


def to_html(report: SQLRun) -> str:
    """The whole page as one string (write it with :func:`eval.core.output.write_text`)."""
    return render("sql_report.html.j2", report=report, parts=parts(report))
