"""Spider's exact-set-match (EM) as every renderer shows it: a section of its own beside execution
accuracy, never in the pass rate. The figures are the run model's (:attr:`SQLRun.exact_match`); this
module only lays them out (rows for a table, one headline), for the Markdown, terminal and HTML reports."""

from __future__ import annotations

from typing import Any

from eval.core import figures as fig
from eval.sql.model.exact import COMPONENTS
from eval.sql.model.run import SQLRun

TITLE = "Exact-set-match (Spider's EM, a second figure)"
COLUMNS = ("difficulty", "cases", "EM measured", "EM", "execution accuracy")
NOTE = (
    "EM compares the SQL with the reference's clause by clause by the rules of Spider's evaluator (values "
    "ignored); it is not part of the pass rate or of any verdict. Execution accuracy is the pass rate of the "
    "same questions."
)


def headline(run: SQLRun) -> str | None:
    """``EM 12/20 (60.0%; 95% Wilson CI 38.7-78.1%) of the measured answers, 1 unmeasured``; None without EM."""
    em = run.exact_match
    if em is None:
        return None
    unmeasured = f", {em['unmeasured']} unmeasured" if em["unmeasured"] else ""
    return (
        f"EM {fig.of(em['matched'], em['measured'])} ({fig.pct(em['rate'])}; {fig.WILSON} "
        f"{fig.interval(em['rate_ci'])}) of the measured answers{unmeasured}; execution accuracy of the same "
        f"questions {fig.pct(em['execution_rate'])}"
    )


def _row(label: str, t: dict[str, Any]) -> list[str]:
    em = f"{fig.of(t['matched'], t['measured'])} ({fig.pct(t['rate'])})"
    return [label, str(t["cases"]), str(t["measured"]), em, fig.pct(t["execution_rate"])]


def rows(run: SQLRun) -> list[list[str]]:
    """One row per difficulty label (Spider's easy / medium / hard / extra, or the corpus's own), then ``all``."""
    em = run.exact_match
    if em is None:
        return []
    return [_row(level, t) for level, t in em["by_difficulty"].items()] + [_row("all", em)]


def components(run: SQLRun) -> list[tuple[str, str]]:
    """Each component with the share of measured answers that match it."""
    em = run.exact_match
    if em is None:
        return []
    return [(name, fig.pct(em["components"].get(name))) for name in COMPONENTS]
