"""Spider's exact-set-match (EM) as every renderer shows it: a section of its own beside execution
accuracy, never in the pass rate. The figures are the run model's (:attr:`SQLRun.exact_match`); this
module only lays them out (rows for a table, one headline), for the Markdown, terminal and HTML reports."""

from __future__ import annotations

from eval.core import figures as fig
from eval.sql.model.exact import COMPONENTS, EXTENDED, OFFICIAL, Tally
from eval.sql.model.run import SQLRun

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


def junit_properties(run: SQLRun) -> list[tuple[str, str]]:
    """EM as JUnit properties: the headline, the mode, the answers the modes score differently, each level."""
    em = run.exact_match
    line = headline(run)
    if em is None or line is None:
        return []
    levels = [(f"exact_match.{row[0]}", f"{row[3]} of {row[2]} measured; execution {row[4]}") for row in rows(run)]
    return [("exact_match", line), ("exact_match.mode", em.mode), ("exact_match.differ", str(em.differ))] + levels


def components(run: SQLRun) -> list[tuple[str, str]]:
    """Each component with the share of measured answers that match it."""
    em = run.exact_match
    if em is None:
        return []
    return [(name, fig.pct(em.components.get(name))) for name in COMPONENTS]
