"""Spider's exact-set-match (EM), a section of its own beside execution accuracy, never in the pass rate: EM by
difficulty, the other mode's figure, each component. The figures are the run model's (:attr:`SQLRun.exact_match`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import figures as fig
from eval.core import markdown as md
from eval.sql.model.exact import COMPONENTS, EXTENDED, OFFICIAL, Tally
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Block, Line, Place, Property, Section, Table, placed

TITLE = "Exact-set-match (Spider's EM, a second figure)"
COLUMNS = ("difficulty", "cases", "EM measured", "EM", "execution accuracy")
NOTE = (
    "EM compares the SQL with the reference's clause by clause by the rules of Spider's evaluator (values "
    "ignored); it is not part of the pass rate or of any verdict. Execution accuracy is the pass rate of the "
    "same questions. Official mode counts as Spider's script does (SQL its parser cannot read is no match, and "
    "every question counts); extended mode reads the SQL with sqlglot and counts measured answers only."
)
MODE_WORDS = {
    OFFICIAL: "official mode, as Spider's script counts it",
    EXTENDED: "extended mode, the project's reading",
}


def mode_line(run: SQLRun) -> str | None:
    """``extended mode: EM 14/20 (70.0%); the two modes score 3 answers differently``; None without EM."""
    em = run.exact_match
    if em is None:
        return None
    other = em.other
    return (
        f"{other.mode} mode: EM {fig.of(other.matched, other.measured)} ({fig.pct(other.rate)}); "
        f"the two modes score {em.differ} answer(s) differently"
    )


def headline(run: SQLRun) -> str | None:
    """``EM (official mode, ...) 12/20 (60.0%; 95% Wilson CI 38.7-78.1%) of the measured answers, 1 unmeasured;
    execution accuracy ...; extended mode: EM ...; the two modes score N answers differently``; None without EM."""
    em = run.exact_match
    if em is None:
        return None
    t = em.overall
    unmeasured = f", {t.unmeasured} unmeasured" if t.unmeasured else ""
    return (
        f"EM ({MODE_WORDS.get(em.mode, em.mode)}) {fig.of(t.matched, t.measured)} "
        f"({fig.pct(t.rate)}; {fig.WILSON} {fig.interval(em.rate_ci)}) of the measured answers{unmeasured}; "
        f"execution accuracy of the same questions {fig.pct(t.execution_rate)}; {mode_line(run)}"
    )


def _row(label: str, t: Tally) -> list[str]:
    em = f"{fig.of(t.matched, t.measured)} ({fig.pct(t.rate)})"
    return [label, str(t.cases), str(t.measured), em, fig.pct(t.execution_rate)]


def rows(run: SQLRun) -> list[list[str]]:
    """One row per difficulty label (Spider's easy / medium / hard / extra, or the corpus's own), then ``all``."""
    em = run.exact_match
    if em is None:
        return []
    return [_row(level, t) for level, t in em.by_difficulty.items()] + [_row("all", em.overall)]


def components(run: SQLRun) -> list[tuple[str, str]]:
    """Each component with the share of measured answers that match it."""
    em = run.exact_match
    if em is None:
        return []
    return [(name, fig.pct(em.components.get(name))) for name in COMPONENTS]


class ExactMatch(Section):
    name = "exact"
    places = placed(markdown=Place.HEADLINE, junit=Place.END)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        line = headline(run)
        if line is None:
            return []
        parts = " · ".join(f"{md.escape(name)} {rate}" for name, rate in components(run))
        return [
            f"## {TITLE}",
            "",
            f"{line}. {NOTE}",
            "",
            md.table(list(COLUMNS), [[md.escape(row[0]), *row[1:]] for row in rows(run)]),
            "",
            f"Per component (share of measured answers matching it): {parts}",
            "",
        ]

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        line = headline(run)
        if line is None:
            return []
        parts = ", ".join(f"{name} {rate}" for name, rate in components(run))
        table = Table(TITLE, COLUMNS, tuple(tuple(Line.of(c) for c in row) for row in rows(run)))
        return [Line.of(line), table, Line.of(f"Per component: {parts}")]

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        """The headline, the mode, the answers the modes score differently, each level."""
        em = run.exact_match
        line = headline(run)
        if em is None or line is None:
            return []
        levels = [(f"exact_match.{row[0]}", f"{row[3]} of {row[2]} measured; execution {row[4]}") for row in rows(run)]
        return [("exact_match", line), ("exact_match.mode", em.mode), ("exact_match.differ", str(em.differ))] + levels

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        return {"em": run.exact_match}
