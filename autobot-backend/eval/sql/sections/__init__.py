"""The report's sections, registered once: each topic of a report is one module here, and :data:`REGISTRY` lists
them in order, as sqlglot's optimizer lists its rules. Every format loops over it (:mod:`eval.sql.render`): the
Markdown report and the job summary, the terminal, JUnit, the GitHub annotations, and the HTML page, which calls
each section's macros from ``eval/templates/sections/<name>.html.j2`` in the same loop.

A new section is a module with a :class:`~eval.sql.sections.base.Section` (the formats it is shown in, each an
empty hook by default), its line here, and its template when it is on the page. Where it stands in each format
is its place there (:class:`~eval.sql.sections.base.Place`; the body unless it says otherwise), then its order
here. The list of questions is each format's own frame, not a section: a section shows its part of a question
through its per-question hooks.
"""

from __future__ import annotations

from collections.abc import Iterator

from eval.sql.sections.base import Format, Place, Section
from eval.sql.sections.breakdowns import Breakdowns
from eval.sql.sections.costs import TimeAndCost
from eval.sql.sections.diagnosis import Why
from eval.sql.sections.exact import ExactMatch
from eval.sql.sections.gate import Gate
from eval.sql.sections.grid import Grid
from eval.sql.sections.headline import Headline
from eval.sql.sections.judge import Judge
from eval.sql.sections.lints import Lints
from eval.sql.sections.refusals import Refusals
from eval.sql.sections.refuted import Refuted
from eval.sql.sections.regressions import Regressions
from eval.sql.sections.repeats import Repeats
from eval.sql.sections.run import Run
from eval.sql.sections.shards import Shards
from eval.sql.sections.stamps import Stamps
from eval.sql.sections.suspects import Suspects
from eval.sql.sections.transcripts import Transcripts

REGISTRY: tuple[Section, ...] = (
    Run(),
    Shards(),
    Grid(),
    Headline(),
    Breakdowns(),
    ExactMatch(),
    Regressions(),
    Gate(),
    Refusals(),
    TimeAndCost(),
    Repeats(),
    Judge(),
    Suspects(),
    Refuted(),
    Lints(),
    Why(),
    Transcripts(),
    Stamps(),
)
"""Every section, in order: within a place of a format, the sections stand in this order."""


def laid_out(fmt: Format, places: tuple[Place, ...]) -> Iterator[tuple[Place, Section]]:
    """(place, section) in the order ``fmt`` shows them: its places in turn, each place's sections in registry
    order (a section standing in two places of a format comes twice)."""
    for place in places:
        for section in REGISTRY:
            if place in section.at(fmt):
                yield place, section


__all__ = ["REGISTRY", "Format", "Place", "Section", "laid_out"]
